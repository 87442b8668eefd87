// SPDX-License-Identifier: GPL-2.0-only
/* parser_gen.c: writes a synthetic console log for the parser benchmark: the tapboot protocol
 * (begin, run markers, results with YAML blocks, nested TAP from the tests) with kernel lines
 * (printk timestamps and caller ids) between lines and, every 50th time, in the middle of a test
 * line, CRLF line ends as the UART writes them. Deterministic (fixed LCG seed).
 * usage: parser_gen MEGABYTES [ktap] > console.log   (ktap: KUnit's output instead) */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 0x5eed;

static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng >> 33) % n);
}

static const char *const kmsg[] = {
	"random: crng init done",
	"audit: type=1400 audit(1700000000.123:42): apparmor=\"DENIED\" operation=\"open\"",
	"clocksource: Switched to clocksource tsc",
	"EXT4-fs (vda): mounted filesystem with ordered data mode. Quota mode: none.",
	"virtio_net virtio0 enp0s2: renamed from eth0",
	"hrtimer: interrupt took 5123 ns",
	"systemd[1]: Started Journal Service.",
	"process 'tests/mm/madv' started with executable stack",
};

/* One printk line: the timestamp prefix, then the text. */
static unsigned long long kline(double *ts, const char *fmt, ...)
{
	va_list ap;
	int n;

	*ts += rnd(100) / 1e6;
	n = printf("[%5u.%06u] ", (unsigned)*ts, (unsigned)((*ts - (unsigned)*ts) * 1e6));
	va_start(ap, fmt);
	n += vprintf(fmt, ap);
	va_end(ap);
	return n > 0 ? (unsigned long long)n : 0;
}

/* KUnit's form, for the side-by-side run with kunit_tool: printk timestamps on every line (no
 * caller ids, whose varying width kunit_tool cannot strip), suites of cases nested 4 spaces
 * under "# Subtest:", kernel lines between the lines. */
static int ktap(unsigned long long limit)
{
	unsigned long long out = 0;
	double ts = 0.5;
	unsigned suites = (unsigned)(limit / 510) + 1;

	out += kline(&ts, "KTAP version 1\n");
	out += kline(&ts, "1..%u\n", suites);
	for (unsigned s = 1; s <= suites; s++) {
		unsigned cases = 1 + rnd(6);

		out += kline(&ts, "    KTAP version 1\n");
		out += kline(&ts, "    # Subtest: suite%u\n", s);
		out += kline(&ts, "    1..%u\n", cases);
		unsigned failed = 0;

		for (unsigned c = 1; c <= cases; c++) {
			bool ok = rnd(10) != 0;

			if (rnd(3) == 0)
				out += kline(&ts, "%s\n", kmsg[rnd(8)]);
			out += kline(&ts, "    # case%u: initializing\n", c);
			out += kline(&ts, "    %s %u case%u\n", ok ? "ok" : "not ok", c, c);
			failed += !ok;
		}
		out += kline(&ts, "# suite%u: pass:%u fail:%u skip:0 total:%u\n", s, cases - failed,
			     failed, cases);
		out += kline(&ts, "%s %u suite%u\n", failed ? "not ok" : "ok", s, s);
	}
	(void)out;
	return ferror(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long long limit = (argc > 1 ? strtoull(argv[1], NULL, 10) : 100) << 20, out = 0;
	double ts = 1.5;
	unsigned n = 0;

	if (argc > 2 && !strcmp(argv[2], "ktap"))
		return ktap(limit);

	out += (unsigned long long)printf("# tapboot: begin nonce=c0ffee tests=0 "
					  "kernel=6.1.0-57-amd64\r\nTAP version 13\r\n");
	while (out < limit) {
		unsigned subs = rnd(4);

		n++;
		out += (unsigned long long)printf("# tapboot: run %u suite%u/test-%u\r\n", n,
						  n % 37, n);
		if (subs) {
			out += (unsigned long long)printf("    TAP version 13\r\n    1..%u\r\n",
							  subs);
			for (unsigned s = 1; s <= subs; s++)
				out += (unsigned long long)printf("    ok %u sub case %u\r\n", s,
								  s);
		}
		for (unsigned k = rnd(6); k; k--) {
			ts += rnd(1000) / 1e6;
			if (rnd(2))
				out += (unsigned long long)printf(
					"[%5u.%06u][  T%u] %s\r\n", (unsigned)ts,
					(unsigned)((ts - (unsigned)ts) * 1e6), rnd(400),
					kmsg[rnd(8)]);
			else
				out += (unsigned long long)printf(
					"[%5u.%06u] %s\r\n", (unsigned)ts,
					(unsigned)((ts - (unsigned)ts) * 1e6), kmsg[rnd(8)]);
			out += (unsigned long long)printf(
				"    # diagnostic output line %u of the test\r\n", k);
		}
		if (rnd(50) == 0)
			out += (unsigned long long)printf(
				"ok %u suite%u/te[%5u.%06u] %s\r\nst-%u\r\n", n, n % 37,
				(unsigned)ts, 1, kmsg[rnd(8)], n);
		else if (rnd(10) == 0)
			out += (unsigned long long)printf("not ok %u suite%u/test-%u\r\n", n,
							  n % 37, n);
		else
			out += (unsigned long long)printf("ok %u suite%u/test-%u\r\n", n, n % 37,
							  n);
		out += (unsigned long long)printf(
			"  ---\r\n  duration_s: 0.%03u\r\n  exit: 0\r\n  ...\r\n", rnd(1000));
	}
	printf("1..%u\r\n# tapboot: end nonce=c0ffee pass=%u\r\n", n, n);
	return ferror(stdout) ? 1 : 0;
}
