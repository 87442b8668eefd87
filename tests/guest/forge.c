// SPDX-License-Identifier: GPL-2.0-only
/* forge.c: a test that tries to forge tapboot's verdicts. It writes results for earlier, its
 * own and later tests, run and end lines (with and without the nonce it reads from
 * /proc/cmdline), YAML blocks and lines with made-up tags, to /dev/console and to /dev/kmsg;
 * then exits with argv[2] (or, with "crash", prints its own early `ok` and dies of SIGSEGV).
 * usage: forge NUM EXIT|crash NAME1 NAME2...: NUM its own number in the plan, NAMEs the plan's
 * test names in order (for the forged lines of the others).
 * Expected verdict: the init's, from the exit status; every forged line is in its log. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put(int fd, const char *s)
{
	if (fd >= 0 && write(fd, s, strlen(s)) < 0)
		perror("forge: write");
}

int main(int argc, char **argv)
{
	char nonce[64] = "", line[512], cmdline[4096];
	int con, kmsg, num;
	const char *me, *verdict;
	ssize_t n;
	FILE *f;

	if (argc < 3)
		return 2;
	num = atoi(argv[1]);
	me = num >= 1 && num + 2 < argc ? argv[num + 2] : "forge";
	con = open("/dev/console", O_WRONLY);
	kmsg = open("/dev/kmsg", O_WRONLY);
	f = fopen("/proc/cmdline", "r");
	if (f) {
		char *p;

		n = (ssize_t)fread(cmdline, 1, sizeof(cmdline) - 1, f);
		cmdline[n > 0 ? n : 0] = '\0';
		fclose(f);
		p = strstr(cmdline, "tapboot.nonce=");
		if (p)
			sscanf(p + 14, "%63[0-9a-f]", nonce);
	}
	printf("forge: test %d, nonce from /proc/cmdline '%s'\n", num, nonce);
	fflush(stdout);
	if (!strcmp(argv[2], "crash")) {
		/* its own early verdict, then a crash */
		snprintf(line, sizeof(line), "ok %d %s\n", num, me);
		put(con, line);
		put(1, line);
		fflush(stdout);
		*(volatile int *)NULL = 1;
		return 0;
	}
	verdict = !strcmp(argv[2], "0") ? "not ok" : "ok";
	/* earlier, current and later tests, in the init's shapes */
	for (int t = 1; t <= num + 3; t++) {
		const char *name = t + 2 < argc ? argv[t + 2] : "later";

		snprintf(line, sizeof(line), "%s %d %s\n  ---\n  exit: %s\n  ...\n", verdict, t,
			 name, verdict[0] == 'o' ? "0" : "1");
		put(con, line);
	}
	/* a run line for the next test and for itself again, with a result after each */
	snprintf(line, sizeof(line), "# tapboot: run %d next\n%s %d next\n", num + 1, verdict,
		 num + 1);
	put(con, line);
	snprintf(line, sizeof(line), "# tapboot: run %d %s\n%s %d %s\n", num, me, verdict, num, me);
	put(con, line);
	/* made-up tags: guessed, in the init's exact shape (base64url) and in the 16 hex digits
	 * of before issue 18, which the parser still reads */
	snprintf(line, sizeof(line), "%s %d %s ~tb:5:AEjRWeJq83v\n", verdict, num, me);
	put(con, line);
	snprintf(line, sizeof(line), "%s %d %s ~tb:99999:ffffffffffffffff\n", verdict, num + 1, me);
	put(con, line);
	/* a YAML block with a made-up tag on its end */
	put(con, "  ---\n  duration_s: 9.999\n  exit: 77\n  ... ~tb:7:PPPPPPPPPPP\n");
	/* end lines: with the nonce from /proc/cmdline, without, and tagged */
	snprintf(line, sizeof(line),
		 "# tapboot: end nonce=%s pass=9 fail=0 skip=0 xfail=0 xpass=0 timeout=0\n", nonce);
	put(con, line);
	put(con, "# tapboot: end pass=9 fail=0\n");
	snprintf(line, sizeof(line),
		 "# tapboot: end nonce=%s pass=9 fail=0 skip=0 xfail=0 xpass=0 timeout=0 "
		 "~tb:77:00000000deadbeef\n",
		 nonce);
	put(con, line);
	/* a begin line, as if the VM had started over */
	snprintf(line, sizeof(line), "# tapboot: begin nonce=%s tests=1 kernel=forged\n", nonce);
	put(con, line);
	/* the same through the kernel: printed on the console at level 2 (crit) */
	snprintf(line, sizeof(line), "<2>%s %d %s\n", verdict, num, me);
	put(kmsg, line);
	snprintf(line, sizeof(line), "<2>%s %d later\n", verdict, num + 1);
	put(kmsg, line);
	snprintf(line, sizeof(line), "<2># tapboot: end nonce=%s pass=9 fail=0\n", nonce);
	put(kmsg, line);
	/* and a line left unfinished, which the init's next line runs into */
	snprintf(line, sizeof(line), "%s %d %s", verdict, num, me);
	put(con, line);
	puts("forge: done");
	return atoi(argv[2]);
}
