// SPDX-License-Identifier: GPL-2.0-only
/* test_tap_parser.c: the console parser: TAP 13/14, KTAP, kselftest forms, printk prefixes,
 * interleaving, crashes, markers, chunking, limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "harness.h"
#include "tap_parser.h"

#ifndef TAPBOOT_SRCDIR
#define TAPBOOT_SRCDIR "."
#endif

/* What the event callbacks saw. */
struct seen {
	unsigned begins, runs, results, crashes, ends, lines, kernel_lines;
	unsigned last_run;
	char begin_nonce[64];
	char crash[256];
	unsigned line_owner[64]; /* test_num of the first 64 lines */
};

static void ev_begin(void *ctx, const char *nonce, unsigned n)
{
	struct seen *s = ctx;

	(void)n;
	s->begins++;
	snprintf(s->begin_nonce, sizeof(s->begin_nonce), "%s", nonce);
}

static void ev_run(void *ctx, unsigned num, const char *name)
{
	struct seen *s = ctx;

	(void)name;
	s->runs++;
	s->last_run = num;
}

static void ev_result(void *ctx, const struct tap_test *t)
{
	struct seen *s = ctx;

	(void)t;
	s->results++;
}

static void ev_line(void *ctx, unsigned num, bool kernel, const char *line, size_t len)
{
	struct seen *s = ctx;

	(void)line;
	(void)len;
	if (s->lines < 64)
		s->line_owner[s->lines] = num;
	s->lines++;
	s->kernel_lines += kernel;
}

static void ev_crash(void *ctx, const char *line)
{
	struct seen *s = ctx;

	s->crashes++;
	snprintf(s->crash, sizeof(s->crash), "%s", line);
}

static void ev_end(void *ctx)
{
	struct seen *s = ctx;

	s->ends++;
}

static struct seen seen;

/* Parse text fed in chunks of chunk bytes (0: all at once). */
static struct tap_parser *parse_chunked(const char *nonce, const char *text, size_t len,
					size_t chunk, const char *cut)
{
	struct tap_parser_events ev = {&seen,	ev_begin, ev_run, ev_result,
				       ev_line, ev_crash, ev_end};
	struct tap_parser *p;

	memset(&seen, 0, sizeof(seen));
	p = tap_parser_new(nonce, &ev);
	if (!chunk)
		chunk = len ? len : 1;
	for (size_t off = 0; off < len; off += chunk)
		tap_parser_feed(p, text + off, len - off < chunk ? len - off : chunk);
	tap_parser_finish(p, cut);
	return p;
}

static struct tap_parser *parse(const char *nonce, const char *text)
{
	return parse_chunked(nonce, text, strlen(text), 0, NULL);
}

static const struct tap_test *tests(struct tap_parser *p, size_t *n)
{
	return tap_parser_tests(p, n);
}

static char *fixture(const char *name, size_t *len)
{
	char path[512];
	char *s;

	snprintf(path, sizeof(path), "%s/tests/fixtures/tap/%s", TAPBOOT_SRCDIR, name);
	s = test_read_file(path, len);
	if (!s)
		printf("# cannot read fixture %s\n", path);
	return s;
}

/* A compact rendering of the tree, "num:verdict:name[reason]{subtests}", for comparisons. */
static void render(char *buf, size_t cap, size_t *off, const struct tap_test *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		*off += (size_t)snprintf(buf + *off, *off < cap ? cap - *off : 0, "%u:%s:%s[%s]",
					 t[i].num, verdict_name(t[i].verdict), t[i].name,
					 t[i].reason ? t[i].reason : "");
		if (t[i].nsub) {
			*off += (size_t)snprintf(buf + *off, *off < cap ? cap - *off : 0, "{");
			render(buf, cap, off, t[i].subtests, t[i].nsub);
			*off += (size_t)snprintf(buf + *off, *off < cap ? cap - *off : 0, "}");
		}
		*off += (size_t)snprintf(buf + *off, *off < cap ? cap - *off : 0, ";");
	}
}

static char rendered[8192];

static const char *tree(struct tap_parser *p)
{
	size_t n, off = 0;
	const struct tap_test *t = tap_parser_tests(p, &n);

	rendered[0] = '\0';
	render(rendered, sizeof(rendered), &off, t, n);
	return rendered;
}

static void t_basic_tap13(void)
{
	struct tap_parser *p = parse(NULL, "TAP version 13\n1..3\nok 1 - first\nnot ok 2 second\n"
					   "ok 3\n");
	const struct tap_summary *s = tap_parser_summary(p);

	check_str(tree(p), "1:pass:first[];2:fail:second[];3:pass:[];");
	check(s->complete);
	check(s->saw_version);
	check_int(s->planned, ==, 3);
	check_int(s->total, ==, 3);
	check_int(s->count[VERDICT_PASS], ==, 2);
	check_int(s->count[VERDICT_FAIL], ==, 1);
	check_int(seen.results, ==, 3);
	tap_parser_free(p);
}

static void t_plan_at_end_and_no_numbers(void)
{
	struct tap_parser *p = parse(NULL, "TAP version 14\nok a\nnot ok b\nok c\n1..3\n");

	check_str(tree(p), "1:pass:a[];2:fail:b[];3:pass:c[];");
	check(tap_parser_summary(p)->complete);
	tap_parser_free(p);
}

static void t_directives(void)
{
	struct tap_parser *p = parse(NULL, "TAP version 13\n1..9\n"
					   "ok 1 a # SKIP no device\n"
					   "ok 2 b # skip\n"
					   "not ok 3 c # TODO not yet\n"
					   "ok 4 d # todo fixed by accident\n"
					   "ok 5 e # XFAIL known bug\n"
					   "not ok 6 f # XPASS stale\n"
					   "not ok 7 g # TIMEOUT 45 seconds\n"
					   "ok 8 h # Skipped: root needed\n"
					   "ok 9 i \\# not a directive # comment\n");

	check_str(tree(p), "1:skip:a[no device];2:skip:b[];3:xfail:c[not yet];"
			   "4:xpass:d[fixed by accident];5:xfail:e[known bug];6:xpass:f[stale];"
			   "7:timeout:g[45 seconds];8:skip:h[root needed];"
			   "9:pass:i # not a directive[comment];");
	tap_parser_free(p);
}

static void t_kselftest_h_forms(void)
{
	/* kselftest.h: the directive right after the number, a whole-test skip plan */
	struct tap_parser *p = parse(NULL, "TAP version 13\n1..3\nok 1 # SKIP no vsyscall\n"
					   "ok 2 # XFAIL flaky\nnot ok 3 # error msg\n");

	check_str(tree(p), "1:skip:[no vsyscall];2:xfail:[flaky];3:fail:[error msg];");
	tap_parser_free(p);

	p = parse(NULL, "TAP version 13\n1..0 # SKIP Not running as root\n");
	check_str(tree(p), "");
	check(tap_parser_summary(p)->complete);
	check_int(tap_parser_summary(p)->planned, ==, 0);
	tap_parser_free(p);
}

static void t_kselftest_runner(void)
{
	size_t len, n;
	char *log = fixture("kselftest-runner.log", &len);
	struct tap_parser *p;
	const struct tap_test *t;

	if (!check(log != NULL))
		return;
	p = parse_chunked(NULL, log, len, 0, NULL);
	t = tests(p, &n);
	check_str(tree(p), "1:pass:selftests: proc: fd-001-lookup[]"
			   "{1:pass:lookup of /proc/self/fd entries[];};"
			   "2:fail:selftests: proc: proc-pid-vm[exit=1]"
			   "{1:skip:[vsyscall not present];2:fail:[error mapping 0x10000];};"
			   "3:timeout:selftests: proc: proc-self-syscall[45 seconds];"
			   "1:skip:selftests: timers: posix_timers[Not running as root];"
			   "2:pass:selftests: timers: nanosleep[];");
	check_int(n, ==, 5);
	check_int(t[1].exit_code, ==, 1);
	check_int(tap_parser_summary(p)->planned, ==, 5);
	check(tap_parser_summary(p)->complete);
	check(!tap_parser_summary(p)->crashed);
	tap_parser_free(p);
	free(log);
}

static void t_runner_inside_tapboot(void)
{
	/* run_kselftest.sh run as one tapboot test: its output nested 4 spaces by the init, its
	 * tests' output nested again by "# " */
	struct tap_parser *p =
		parse("n", "# tapboot: begin nonce=n tests=1\nTAP version 13\n1..1\n"
			   "# tapboot: run 1 run_kselftest\n"
			   "    TAP version 13\n    1..2\n    # selftests: x: a\n"
			   "    # TAP version 13\n    # 1..2\n    # ok 1 a1\n"
			   "    # not ok 2 a2\n    not ok 1 selftests: x: a # exit=1\n"
			   "    # selftests: x: b\n    ok 2 selftests: x: b\n"
			   "not ok 1 run_kselftest\n  ---\n  exit: 1\n  ...\n"
			   "# tapboot: end nonce=n\n");

	check_str(tree(p), "1:fail:run_kselftest[]{1:fail:selftests: x: a[exit=1]"
			   "{1:pass:a1[];2:fail:a2[];};2:pass:selftests: x: b[];};");
	check(tap_parser_summary(p)->complete);
	tap_parser_free(p);
}

static void t_kunit_ktap(void)
{
	size_t len, n;
	char *log = fixture("kunit-ktap.log", &len);
	struct tap_parser *p;
	const struct tap_test *t;

	if (!check(log != NULL))
		return;
	p = parse_chunked(NULL, log, len, 0, NULL);
	t = tests(p, &n);
	check_str(tree(p),
		  "1:fail:example[]{1:pass:example_simple_test[];"
		  "2:skip:example_skip_test[this test should be skipped];"
		  "3:pass:example_params_test[]{1:skip:example value 3[unsupported param value 3];"
		  "2:pass:example value 2[];3:pass:example value 1[];};"
		  "4:fail:example_fail_test[];};"
		  "2:pass:list-kunit-test[]{1:pass:list_test_list_init[];2:pass:list_test_list_add["
		  "];};"
		  "3:pass:time_test_cases[]{1:pass:time64_to_tm_test_date_range[];};");
	check_int(n, ==, 3);
	if (n == 3)
		check(t[0].log && strstr(t[0].log, "Expected 1 + 1 == 3, but\n"));
	check(tap_parser_summary(p)->complete);
	check_int(seen.kernel_lines, ==, seen.lines);
	tap_parser_free(p);
	free(log);
}

static void t_ktap_two_space(void)
{
	/* the KTAP spec's own example: 2-space nesting, "# Subtest:" inside the block */
	struct tap_parser *p = parse(NULL, "KTAP version 1\n1..1\n  KTAP version 1\n"
					   "  # Subtest: suite\n  1..2\n  ok 1 a\n"
					   "  not ok 2 b\nnot ok 1 suite\n");

	check_str(tree(p), "1:fail:suite[]{1:pass:a[];2:fail:b[];};");
	tap_parser_free(p);

	/* TAP 14: "# Subtest:" at the parent's indentation; a missing parent description takes it
	 */
	p = parse(NULL, "TAP version 14\n1..1\n# Subtest: grp\n    1..1\n    ok 1 x\nok 1\n");
	check_str(tree(p), "1:pass:grp[]{1:pass:x[];};");
	tap_parser_free(p);
}

static void t_printk_prefixes(void)
{
	struct tap_parser *p = parse(NULL, "[    1.234567] TAP version 13\n"
					   "[    1.234568][    T1] 1..2\n"
					   "[    1.234569][  C0] ok 1 one\n"
					   "[12345.000001] not ok 2 two\n");

	check_str(tree(p), "1:pass:one[];2:fail:two[];");
	check_int(seen.kernel_lines, ==, 4);
	tap_parser_free(p);

	/* not a printk prefix: five decimals, no dot */
	p = parse(NULL, "TAP version 13\n1..1\n[ 1.23456] ok 1 x\n[ 12] ok 1 y\nok 1 z\n");
	check_str(tree(p), "1:pass:z[];");
	check_int(seen.kernel_lines, ==, 0);
	tap_parser_free(p);
}

static void t_midline_kernel(void)
{
	size_t len, n;
	char *log = fixture("tapboot-interleaved.log", &len);
	struct tap_parser *p;
	const struct tap_test *t;

	if (!check(log != NULL))
		return;
	p = parse_chunked("5eed0c0ffee", log, len, 0, NULL);
	t = tests(p, &n);
	check_str(tree(p), "1:pass:proc/fd-001-lookup[];"
			   "2:fail:net/socket[exit 1]{1:pass:socket(AF_INET)[];"
			   "2:fail:socket(AF_INET6)[];};"
			   "3:skip:mm/madv[needs CONFIG_TRANSPARENT_HUGEPAGE];");
	check(tap_parser_summary(p)->complete);
	check_str(tap_parser_summary(p)->kernel, "6.1.0-57-amd64");
	if (check_int(n, ==, 3)) {
		check(t[0].duration_s > 0.0119 && t[0].duration_s < 0.0121);
		check_int(t[0].exit_code, ==, 0);
		check_int(t[1].exit_code, ==, 1);
		check_int(t[2].exit_code, ==, 4);
		/* the kernel line landed in the YAML block: still the test's log, still read */
		check(t[1].duration_s > 0.230 && t[1].duration_s < 0.232);
		check(t[1].log && strstr(t[1].log, "apparmor=\"DENIED\""));
		check(t[1].log && strstr(t[1].log, "    not ok 2 socket(AF_INET6)\n"));
	}
	check_int(seen.begins, ==, 1);
	check_str(seen.begin_nonce, "5eed0c0ffee");
	check_int(seen.runs, ==, 3);
	check_int(seen.ends, ==, 1);
	check_int(seen.results, ==, 3);
	tap_parser_free(p);
	free(log);

	/* the fragment is rejoined across two kernel lines */
	p = parse(NULL, "1..1\nok 1 ab[    0.100000] k1\n[    0.200000] k2\ncd\n");
	check_str(tree(p), "1:pass:abcd[];");
	check_int(seen.kernel_lines, ==, 2);
	tap_parser_free(p);
}

static void t_crlf_nul_utf8_long(void)
{
	static const char text[] = "TAP version 13\r\n1..3\r\nok 1 a\0b\r\r\n"
				   "ok 2 caf\xc3\xa9 \xff\xfe\r\nok 3 c\r\n";
	struct tap_parser *p = parse_chunked(NULL, text, sizeof(text) - 1, 0, NULL);
	size_t n;
	const struct tap_test *t = tests(p, &n);
	char *big;
	size_t blen = 200000;

	check_str(tree(p), "1:pass:a b[];2:pass:caf\xc3\xa9 \xff\xfe[];3:pass:c[];");
	check(tap_parser_summary(p)->complete);
	(void)t;
	tap_parser_free(p);

	/* a 200000-byte line: parsed on its first 64 KiB, the rest reaches on_line, then the
	 * stream goes on */
	big = malloc(blen + 64);
	memcpy(big, "1..2\nok 1 ", 10);
	memset(big + 10, 'x', blen - 10);
	memcpy(big + blen, "\nok 2 after\n", 12);
	p = parse_chunked(NULL, big, blen + 12, 4096, NULL);
	t = tests(p, &n);
	if (check_int(n, ==, 2)) {
		check_int(strlen(t[0].name), ==, 64 * 1024 - 5);
		check_str(t[1].name, "after");
	}
	check(seen.lines >= 6); /* 1..2, the long line in 4 pieces, ok 2 */
	check(tap_parser_summary(p)->complete);
	{
		/* the same tree however the long line arrives */
		char want[256];
		static const size_t chunks[] = {0, 1000, 65535, 65536, 65537, 100000};

		snprintf(want, sizeof(want), "%.40s", tree(p));
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			struct tap_parser *q = parse_chunked(NULL, big, blen + 12, chunks[c], NULL);
			char got[256];

			snprintf(got, sizeof(got), "%.40s", tree(q));
			check_str(got, want);
			t = tests(q, &n);
			if (check_int(n, ==, 2)) {
				check_int(strlen(t[0].name), ==, 64 * 1024 - 5);
				check_str(t[1].name, "after");
			}
			tap_parser_free(q);
		}
	}
	tap_parser_free(p);
	free(big);
}

static void t_chunking_invariant(void)
{
	static const char *const names[] = {"kselftest-runner.log",    "kunit-ktap.log",
					    "tapboot-interleaved.log", "tapboot-panic.log",
					    "kunit-oops-cut.log",      "real-x86_64-run-panic.log",
					    "real-x86_64-no-root.log", "init-host-console.log"};

	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		size_t len;
		char *log = fixture(names[f], &len);
		char whole[8192];
		static const size_t chunks[] = {1, 2, 3, 7, 64, 4096};

		if (!check(log != NULL))
			continue;
		tap_parser_free(parse_chunked(NULL, log, len, 0, NULL)); /* warm */
		{
			struct tap_parser *p = parse_chunked(NULL, log, len, 0, NULL);

			snprintf(whole, sizeof(whole), "%s|%d", tree(p),
				 tap_parser_summary(p)->complete);
			tap_parser_free(p);
		}
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			struct tap_parser *p = parse_chunked(NULL, log, len, chunks[c], NULL);
			char got[8192];

			snprintf(got, sizeof(got), "%s|%d", tree(p),
				 tap_parser_summary(p)->complete);
			if (!check_str(got, whole))
				printf("# %s chunk %zu\n", names[f], chunks[c]);
			tap_parser_free(p);
		}
		free(log);
	}
}

static void t_duplicates_out_of_order(void)
{
	/* the plan is a count (as the brief and TAP harnesses read it): four results meet 1..4 */
	struct tap_parser *p = parse(NULL, "1..4\nok 1 a\nok 1 again\nok 4 d\nok 3 c\n");

	check_str(tree(p), "1:pass:a[];1:pass:again[duplicate test number 1];"
			   "4:pass:d[out of order test number 4 (expected 2)];"
			   "3:pass:c[out of order test number 3 (expected 5)];");
	check(tap_parser_summary(p)->complete);
	tap_parser_free(p);

	/* count not met: the numbers never seen are the missing ones */
	p = parse(NULL, "1..4\nok 1 a\nok 1 again\nok 4 d\n");
	check_str(tree(p), "1:pass:a[];1:pass:again[duplicate test number 1];"
			   "4:pass:d[out of order test number 4 (expected 2)];"
			   "2:missing:test 2[not run: no result line];"
			   "3:missing:test 3[not run: no result line];");
	check(!tap_parser_summary(p)->complete);
	tap_parser_free(p);
}

static void t_missing_with_expect(void)
{
	static const char *const names[] = {"alpha", "beta", "gamma"};
	struct tap_parser *p = tap_parser_new(NULL, NULL);

	tap_parser_expect(p, names, 3);
	tap_parser_feed(p, "TAP version 13\n1..3\nok 1 alpha\n", 31);
	tap_parser_finish(p, NULL);
	check_str(tree(p), "1:pass:alpha[];2:missing:beta[not run: no result line];"
			   "3:missing:gamma[not run: no result line];");
	check(!tap_parser_summary(p)->complete);
	check_int(tap_parser_summary(p)->count[VERDICT_MISSING], ==, 2);
	tap_parser_free(p);
}

static void t_bail_out(void)
{
	struct tap_parser *p = parse(NULL, "1..3\nok 1 a\nBail out! disk full\n");
	const struct tap_summary *s = tap_parser_summary(p);

	check(s->bailed_out);
	check_str(s->bail_reason, "disk full");
	check(!s->complete);
	check_str(tree(p), "1:pass:a[];2:missing:test 2[not run: bailed out];"
			   "3:missing:test 3[not run: bailed out];");
	tap_parser_free(p);
}

/* duration_s takes the fast decimal path for what the init writes, strtod for the rest: the
 * value must be strtod's either way. */
static void t_yaml_durations(void)
{
	static const char *const vals[] = {
		"0.819", "12", "0", "45.002", "0.1", "123456.789", "0.123456789", "0.1234567891",
		"1e-3", "2.5E1", "007.50", "999999999999.999", "1.",
	};

	for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
		char *log = NULL;
		struct tap_parser *p;
		size_t n;
		const struct tap_test *t;

		if (asprintf(&log, "TAP version 13\n1..1\nok 1 a\n  ---\n  duration_s: %s\n"
				   "  ...\n", vals[i]) < 0)
			abort();
		p = parse(NULL, log);
		t = tests(p, &n);
		if (check_int(n, ==, 1) && !check(t[0].duration_s == strtod(vals[i], NULL)))
			fprintf(stderr, "# duration_s: %s read as %.17g\n", vals[i], t[0].duration_s);
		tap_parser_free(p);
		free(log);
	}
}

static void t_yaml(void)
{
	struct tap_parser *p =
		parse("n1", "# tapboot: begin nonce=n1 tests=2 kernel=6.1\n"
			    "TAP version 13\n1..2\n"
			    "# tapboot: run 1 sig\n"
			    "not ok 1 sig\n  ---\n  duration_s: 1.5\n  signal: \"SIGSEGV\"\n"
			    "  ...\n"
			    "# tapboot: run 2 quoted\n"
			    "not ok 2 quoted # TIMEOUT 45 seconds\n  ---\n"
			    "  reason: \"timeout \\\"after\\\" 45 s\\x21\"\n  exit: -1\n  ...\n"
			    "# tapboot: end nonce=n1 pass=0 fail=2\n");
	size_t n;
	const struct tap_test *t = tests(p, &n);

	check_str(tree(p),
		  "1:fail:sig[killed by SIGSEGV];2:timeout:quoted[timeout \"after\" 45 s!];");
	if (check_int(n, ==, 2)) {
		check(t[0].duration_s == 1.5);
		check_int(t[0].exit_code, ==, -1);
		check(t[1].duration_s < 0);
	}
	check(tap_parser_summary(p)->complete);
	/* lines are attributed: markers and YAML to their test, 0 before the first run */
	check_int(seen.line_owner[0], ==, 0);
	check_int(seen.line_owner[3], ==, 1); /* "# tapboot: run 1 sig" */
	check_int(seen.line_owner[4], ==, 1); /* "not ok 1 sig" */
	check_int(seen.line_owner[8], ==, 1); /* "  ..." */
	check_int(seen.line_owner[9], ==, 2); /* "# tapboot: run 2 quoted" */
	check_int(seen.line_owner[10], ==, 2);
	tap_parser_free(p);
}

static void t_live_summary(void)
{
	/* a runner polls the summary after every feed: complete and crashed are live */
	struct tap_parser *p = tap_parser_new("n", NULL);
	static const char a[] = "# tapboot: begin nonce=n tests=1\n1..1\n# tapboot: run 1 t\n"
				"ok 1 t\n";
	static const char b[] = "# tapboot: end nonce=n\n";

	tap_parser_feed(p, a, sizeof(a) - 1);
	check(!tap_parser_summary(p)->complete);
	tap_parser_feed(p, b, sizeof(b) - 1);
	check(tap_parser_summary(p)->complete);
	check_int(tap_parser_summary(p)->count[VERDICT_PASS], ==, 1);
	tap_parser_finish(p, NULL);
	check(tap_parser_summary(p)->complete);
	tap_parser_free(p);

	p = tap_parser_new("n", NULL);
	tap_parser_feed(p, "[    1.000000] Oops: 0000 [#1] SMP\n", 35);
	check(tap_parser_summary(p)->crashed);
	tap_parser_free(p);
}

static void t_nonce(void)
{
	static const char text[] =
		"# tapboot: begin nonce=aa tests=1 kernel=x\nTAP version 13\n1..1\n"
		"# tapboot: run 1 t\nok 1 t\n# tapboot: end nonce=bb pass=1\n";
	struct tap_parser *p = parse("aa", text);

	/* a forged end line does not complete the run */
	check(!tap_parser_summary(p)->complete);
	check_int(seen.ends, ==, 0);
	tap_parser_free(p);

	p = parse("bb", text);
	check(tap_parser_summary(p)->complete);
	tap_parser_free(p);

	/* no nonce given: the begin line's nonce is the one expected */
	p = parse(NULL, text);
	check(!tap_parser_summary(p)->complete);
	check_str(tree(p), "1:pass:t[];");
	tap_parser_free(p);

	/* nested (indented) markers are test output, not the init's */
	p = parse("aa", "# tapboot: begin nonce=aa tests=1\n1..1\n# tapboot: run 1 t\n"
			"    # tapboot: end nonce=aa\nok 1 t\n");
	check(!tap_parser_summary(p)->complete);
	tap_parser_free(p);
}

static void t_panic_cut(void)
{
	size_t len, n;
	char *log = fixture("tapboot-panic.log", &len);
	struct tap_parser *p;
	const struct tap_test *t;
	const struct tap_summary *s;

	if (!check(log != NULL))
		return;
	p = parse_chunked("ab12cd34", log, len, 0, NULL);
	t = tests(p, &n);
	s = tap_parser_summary(p);
	check_str(tree(p), "1:pass:sysrq/ok[];"
			   "2:crash:sysrq/crash[Kernel panic - not syncing: sysrq triggered crash];"
			   "3:missing:test 3[not run: the kernel crashed];"
			   "4:missing:test 4[not run: the kernel crashed];");
	check(s->crashed);
	check(!s->complete);
	check_str(s->crash_line, "Kernel panic - not syncing: sysrq triggered crash");
	check_int(seen.crashes, ==, 1);
	check_int(s->count[VERDICT_CRASH], ==, 1);
	check_int(s->count[VERDICT_MISSING], ==, 2);
	if (n == 4)
		check(t[1].log && strstr(t[1].log, "# triggering a crash"));
	tap_parser_free(p);
	free(log);

	/* KUnit cut by an Oops: the suite running crashes, its unseen cases are missing */
	log = fixture("kunit-oops-cut.log", &len);
	if (!check(log != NULL))
		return;
	p = parse_chunked(NULL, log, len, 0, NULL);
	check_str(tree(p), "1:crash:kasan[BUG: kernel NULL pointer dereference, address: "
			   "0000000000000000]{1:pass:kmalloc_oob_right[];"
			   "2:missing:test 2[not run: the kernel crashed];"
			   "3:missing:test 3[not run: the kernel crashed];};"
			   "2:missing:test 2[not run: the kernel crashed];");
	tap_parser_free(p);
	free(log);
}

static void t_crash_patterns(void)
{
	static const char *const lines[] = {
		"Kernel panic - not syncing: VFS: Unable to mount root fs",
		"BUG: unable to handle page fault for address: ffff",
		"Oops: 0002 [#1] PREEMPT SMP NOPTI",
		"general protection fault, probably for non-canonical address 0xdead: 0000 [#1]",
		"watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a.out:99]",
		"rcu: INFO: rcu_sched self-detected stall on CPU",
		"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
		"No working init found.  Try passing init= option to kernel.",
		"Unable to handle kernel NULL pointer dereference at virtual address "
		"0000000000000000",
		"kernel BUG at mm/slub.c:379!",
		"Internal error: Oops: 96000005 [#1] PREEMPT SMP",
		"Attempted to kill init! exitcode=0x00000100",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char buf[512];
		struct tap_parser *p;

		snprintf(buf, sizeof(buf), "1..2\nok 1 a\n[    3.000000][    T1] %s\n", lines[i]);
		p = parse(NULL, buf);
		if (!check_str(tap_parser_summary(p)->crash_line, lines[i]))
			continue;
		check(!tap_parser_summary(p)->complete);
		/* foreign log, plan unmet: the next planned test was running */
		snprintf(buf, sizeof(buf), "1:pass:a[];2:crash:test 2[%s];", lines[i]);
		check_str(tree(p), buf);
		tap_parser_free(p);
	}
	{
		/* KUnit under UML panics for want of a root fs once its plan is met: complete,
		 * the crash still reported; old KUnit indents the panic line with a tab */
		struct tap_parser *p =
			parse(NULL, "[    0.06] x\n[    0.060000] TAP version 14\n"
				    "[    0.060000] 1..1\n[    0.060000] ok 1 - a\n"
				    "[    0.060000] \tKernel panic - not syncing: VFS: "
				    "Unable to mount root fs\n");

		check(tap_parser_summary(p)->complete);
		check(tap_parser_summary(p)->crashed);
		check_str(tap_parser_summary(p)->crash_line,
			  "Kernel panic - not syncing: VFS: Unable to mount root fs");
		check_str(tree(p), "1:pass:a[];");
		tap_parser_free(p);
	}
	{
		/* not crashes: a WARN, a test printing "BUG: " in its nested output */
		struct tap_parser *p =
			parse(NULL, "1..1\n[    1.000000] WARNING: CPU: 0 PID: 1 at x\n"
				    "    # BUG: expected this\nok 1 a\n");

		check(!tap_parser_summary(p)->crashed);
		check(tap_parser_summary(p)->complete);
		tap_parser_free(p);
	}
}

static void t_kselftest_runner_crash(void)
{
	/* run_kselftest.sh prints the test's name before running it: the crash gets that name */
	struct tap_parser *p = parse(NULL, "TAP version 13\n1..3\n# selftests: proc: a\n"
					   "ok 1 selftests: proc: a\n# selftests: proc: b\n"
					   "# TAP version 13\n# 1..2\n# ok 1 sub\n"
					   "[    9.000000] BUG: kernel NULL pointer dereference\n");

	check_str(tree(p), "1:pass:selftests: proc: a[];"
			   "2:crash:selftests: proc: b[BUG: kernel NULL pointer dereference]"
			   "{1:pass:sub[];2:missing:test 2[not run: the kernel crashed];};"
			   "3:missing:test 3[not run: the kernel crashed];");
	tap_parser_free(p);
}

static void t_crash_but_complete(void)
{
	/* an Oops in the middle of a run that still completes: the init's verdicts stand */
	struct tap_parser *p = parse("z", "# tapboot: begin nonce=z tests=2\nTAP version 13\n1..2\n"
					  "# tapboot: run 1 a\n[    2.000000] Oops: 0000 [#1] SMP\n"
					  "not ok 1 a\n  ---\n  reason: \"kernel oops\"\n  ...\n"
					  "# tapboot: run 2 b\nok 2 b\n# tapboot: end nonce=z\n");
	const struct tap_summary *s = tap_parser_summary(p);

	check(s->complete);
	check(s->crashed);
	check_str(tree(p), "1:fail:a[kernel oops];2:pass:b[];");
	tap_parser_free(p);

	/* cut without a crash line: the running test gets the cut reason */
	p = parse_chunked("z", "# tapboot: begin nonce=z tests=2\n1..2\n# tapboot: run 1 slow\n",
			  61, 0, "no console output for 60 s");
	check_str(tree(p), "1:crash:slow[no console output for 60 s];"
			   "2:missing:test 2[not run: no console output for 60 s];");
	tap_parser_free(p);
}

static void t_multiple_docs_plan_unmet(void)
{
	struct tap_parser *p = parse(NULL, "TAP version 13\n1..2\nok 1 a\nTAP version 13\n1..1\n"
					   "ok 1 b\n");

	check_str(tree(p), "1:pass:a[];2:missing:test 2[not run: no result line];1:pass:b[];");
	check(!tap_parser_summary(p)->complete);
	check_int(tap_parser_summary(p)->planned, ==, 3);
	tap_parser_free(p);

	/* no plan at all (KTAP allows it): results are enough, nothing at all is not */
	p = parse(NULL, "ok 1 a\n");
	check(tap_parser_summary(p)->complete);
	check_int(tap_parser_summary(p)->planned, ==, -1);
	tap_parser_free(p);
	p = parse(NULL, "random: crng init done\n");
	check(!tap_parser_summary(p)->complete);
	tap_parser_free(p);

	/* no plan and a crash: nothing says the crash came after the last test */
	p = parse(NULL, "ok 1 a\n[    1.000000] Kernel panic - not syncing: x\n");
	check(!tap_parser_summary(p)->complete);
	check_str(tree(p), "1:pass:a[];2:crash:test 2[Kernel panic - not syncing: x];");
	tap_parser_free(p);
}

static void t_limits(void)
{
	/* a garbage plan: missing records are capped */
	struct tap_parser *p = parse(NULL, "1..4000000000\nok 1 a\n");
	size_t n;

	tests(p, &n);
	check_int(n, ==, 1 + 10000);
	tap_parser_free(p);

	/* 100 levels of nesting: the stack stops at its cap, nothing breaks */
	{
		char *buf = malloc(100 * 500);
		size_t off = 0;

		for (int d = 0; d < 100; d++)
			off += (size_t)sprintf(buf + off, "%*sTAP version 13\n", d * 2, "");
		for (int d = 99; d >= 0; d--)
			off += (size_t)sprintf(buf + off, "%*sok 1 level%d\n", d * 2, "", d);
		p = parse_chunked(NULL, buf, off, 0, NULL);
		tests(p, &n);
		check_int(n, ==, 1);
		tap_parser_free(p);
		free(buf);
	}
	/* a test's log is capped at TAP_LOG_CAP */
	{
		size_t len = 200 * 1024;
		char *buf = malloc(len + 32);
		const struct tap_test *t;

		for (size_t i = 0; i < len; i += 100) {
			memset(buf + i, 'y', 99);
			buf[i + 99] = '\n';
		}
		memcpy(buf + len, "1..1\nok 1 noisy\n", 16);
		p = parse_chunked(NULL, buf, len + 16, 0, NULL);
		t = tests(p, &n);
		if (check_int(n, ==, 1)) {
			check(t[0].log_truncated);
			check_int(t[0].log_len, ==, TAP_LOG_CAP - 1);
		}
		tap_parser_free(p);

		/* a smaller cap, and none at all */
		p = tap_parser_new(NULL, NULL);
		tap_parser_set_log_cap(p, 1000);
		tap_parser_feed(p, buf, len + 16);
		tap_parser_finish(p, NULL);
		t = tests(p, &n);
		if (check_int(n, ==, 1)) {
			check(t[0].log_truncated);
			check_int(t[0].log_len, ==, 1000); /* ten whole lines */
		}
		tap_parser_free(p);
		p = tap_parser_new(NULL, NULL);
		tap_parser_set_log_cap(p, 0);
		tap_parser_feed(p, buf, len + 16);
		tap_parser_finish(p, NULL);
		t = tests(p, &n);
		if (check_int(n, ==, 1)) {
			check(t[0].log == NULL);
			check(t[0].log_truncated);
		}
		tap_parser_free(p);
		free(buf);
	}
}

static void t_real_consoles(void)
{
	static const char *const names[] = {"pass", "fail", "skip",  "own_tap",
					    "segv", "warn", "panic", "xfail"};
	size_t len, n;
	char *log;
	struct tap_parser *p;
	const struct tap_test *t;

	/* a real boot (Debian 6.1 x86_64 under TCG, tapboot run, tests/guest programs) whose
	 * seventh test panics the kernel with sysrq */
	log = fixture("real-x86_64-run-panic.log", &len);
	if (!check(log != NULL))
		return;
	p = tap_parser_new("cac43ae7f027d943aa36023a793d4376", NULL);
	tap_parser_expect(p, names, 8);
	tap_parser_feed(p, log, len);
	tap_parser_finish(p, NULL);
	t = tests(p, &n);
	check_str(tree(p), "1:pass:pass[];2:fail:fail[exit 1];"
			   "3:skip:skip[skip: the frobnicator is not present];"
			   "4:fail:own_tap[exit 1]{1:pass:first thing works[];"
			   "2:fail:second thing is broken[];3:skip:[no such feature];};"
			   "5:fail:segv[killed by SIGSEGV];"
			   "6:fail:warn[kernel warning: NMI backtrace for cpu 0];"
			   "7:crash:panic[Kernel panic - not syncing: sysrq triggered crash];"
			   "8:missing:xfail[not run: the kernel crashed];");
	check(!tap_parser_summary(p)->complete);
	check_str(tap_parser_summary(p)->kernel, "6.1.0-57-amd64");
	if (n == 8) {
		check(t[6].log && strstr(t[6].log, "RIP: 0033:0x430d70\n"));
		check(t[5].duration_s > 0.554 && t[5].duration_s < 0.556);
	}
	tap_parser_free(p);
	free(log);

	/* a real boot without an initramfs: the panic, no TAP at all */
	log = fixture("real-x86_64-no-root.log", &len);
	if (!check(log != NULL))
		return;
	p = parse_chunked(NULL, log, len, 0, NULL);
	check_str(tree(p), "");
	check(!tap_parser_summary(p)->complete);
	check_str(tap_parser_summary(p)->crash_line,
		  "Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)");
	tap_parser_free(p);
	free(log);

	/* the init's own output (init-host) */
	log = fixture("init-host-console.log", &len);
	if (!check(log != NULL))
		return;
	p = parse_chunked("abc123", log, len, 0, NULL);
	check_str(tree(p), "1:pass:pass[];2:fail:fail[exit 1];"
			   "3:skip:skip[skip: the frobnicator is not present];"
			   "4:fail:segv[killed by SIGSEGV];"
			   "5:fail:own_tap[exit 1]{1:pass:first thing works[];"
			   "2:fail:second thing is broken[];3:skip:[no such feature];};"
			   "6:pass:badutf8[];");
	check(tap_parser_summary(p)->complete);
	tap_parser_free(p);
	free(log);
}

int main(void)
{
	TEST(t_basic_tap13, "TAP 13 basics: plan, ok/not ok, numbers, descriptions");
	TEST(t_plan_at_end_and_no_numbers, "plan at the end, results without numbers");
	TEST(t_directives, "SKIP, TODO, XFAIL, XPASS, TIMEOUT, escaped #, comments");
	TEST(t_kselftest_h_forms, "kselftest.h: directive after the number, 1..0 # SKIP");
	TEST(t_kselftest_runner, "kselftest runner console: '# ' nesting, a plan per collection");
	TEST(t_runner_inside_tapboot, "kselftest runner output nested inside a tapboot test");
	TEST(t_kunit_ktap, "KUnit KTAP: 4-space nesting, # Subtest:, parameterised cases");
	TEST(t_ktap_two_space, "KTAP spec 2-space nesting and TAP 14 subtests");
	TEST(t_printk_prefixes, "printk prefixes with and without caller ids stripped per line");
	TEST(t_midline_kernel, "kernel lines inside test lines are split out and rejoined");
	TEST(t_crlf_nul_utf8_long, "CRLF, NUL, non-UTF-8 and a 200 KB line");
	TEST(t_chunking_invariant, "any chunking gives the same tree");
	TEST(t_duplicates_out_of_order, "duplicate and out-of-order numbers kept and noted");
	TEST(t_missing_with_expect, "planned tests never seen are missing, named by expect");
	TEST(t_bail_out, "Bail out!");
	TEST(t_yaml, "YAML blocks: duration_s, exit, signal, reason; line attribution");
	TEST(t_yaml_durations, "duration_s values read exactly as strtod reads them");
	TEST(t_live_summary, "complete, crashed and counts are live before finish");
	TEST(t_nonce, "the end marker completes only with the nonce");
	TEST(t_panic_cut, "a panic cuts the stream: running test crash, the rest missing");
	TEST(t_crash_patterns, "every kernel crash report the parser knows");
	TEST(t_kselftest_runner_crash, "kselftest runner console cut by a crash");
	TEST(t_crash_but_complete, "a crash in a completed run, a cut without a crash");
	TEST(t_multiple_docs_plan_unmet, "several documents, unmet plans, no plan");
	TEST(t_limits, "garbage plans, deep nesting, log cap");
	TEST(t_real_consoles, "consoles captured from a real boot and from the init");
	return test_done();
}
