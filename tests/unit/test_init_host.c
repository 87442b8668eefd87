// SPDX-License-Identifier: GPL-2.0-only
/* test_init_host.c: the init's whole run on the host ($OUT/init-host, not PID 1): plans of
 * small shell tests, checked against the exact console stream. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "line_tag.h"
#include "tap_parser.h"

static int runs;
static const char *key_file; /* --key-file for the next run_init, or NULL */
static const char *stdin_file; /* stdin of the next run_init (the handoff line), or NULL */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A test script at /tests/NAME under the temp root. */
static void script(const char *name, const char *body)
{
	char rel[256], *text;

	snprintf(rel, sizeof(rel), "root/tests/%s", name);
	if (asprintf(&text, "#!/bin/sh\n%s", body) < 0)
		exit(1);
	test_write_file(rel, text, strlen(text), 0755);
	free(text);
}

/* Run init-host on plan text with a command line; returns stdout (caller frees), *status
 * the exit code (-1 when it had to be killed), *secs the wall time. */
static char *run_init(const char *plan, const char *cmdline, int *status, double *secs)
{
	char plan_rel[64], out_path[512], root[512], kmsg[512], taint[512];
	const char *bin_dir = getenv("OUT");
	char *bin, *out;
	double start = now_s();
	int st = 0;
	pid_t pid;

	snprintf(plan_rel, sizeof(plan_rel), "plan%d", ++runs);
	test_write_file(plan_rel, plan, strlen(plan), 0644);
	snprintf(out_path, sizeof(out_path), "%s/out%d", test_tmpdir(), runs);
	snprintf(root, sizeof(root), "%s/root", test_tmpdir());
	snprintf(kmsg, sizeof(kmsg), "%s/kmsg", test_tmpdir());
	snprintf(taint, sizeof(taint), "%s/tainted", test_tmpdir());
	if (asprintf(&bin, "%s/init-host", bin_dir ? bin_dir : "build") < 0)
		exit(1);
	/* The kernel-health files: an empty log, no taint (kept across runs of a test). */
	if (access(kmsg, F_OK))
		test_write_file("kmsg", "", 0, 0644);
	if (access(taint, F_OK))
		test_write_file("tainted", "0\n", 2, 0644);
	pid = fork();
	if (pid == 0) {
		char plan_path[512];
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		snprintf(plan_path, sizeof(plan_path), "%s/%s", test_tmpdir(), plan_rel);
		dup2(fd, 1);
		if (stdin_file) {
			int in = open(stdin_file, O_RDONLY);

			if (in < 0 || dup2(in, 0) < 0)
				_exit(125);
		}
		if (key_file)
			execl(bin, bin, "--plan", plan_path, "--root", root, "--cmdline", cmdline,
			      "--kmsg", kmsg, "--tainted", taint, "--grace-ms", "300", "--key-file",
			      key_file, (char *)NULL);
		execl(bin, bin, "--plan", plan_path, "--root", root, "--cmdline", cmdline, "--kmsg",
		      kmsg, "--tainted", taint, "--grace-ms", "300", (char *)NULL);
		fprintf(stderr, "cannot exec %s: %s\n", bin, strerror(errno));
		_exit(126);
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_s() - start > 60) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			st = -1;
			break;
		}
		usleep(5000);
	}
	*status = st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (secs)
		*secs = now_s() - start;
	out = test_read_file(out_path, NULL);
	free(bin);
	return out ? out : strdup("");
}

/* Durations and pids vary: "duration_s: 0.004" -> "duration_s: D", "pid 123" -> "pid P". */
static char *normalize(const char *s)
{
	char *r = malloc(strlen(s) + 1), *w = r;

	while (*s) {
		if (!strncmp(s, "duration_s: ", 12)) {
			memcpy(w, "duration_s: D", 13);
			w += 13;
			s += 12;
			while ((*s >= '0' && *s <= '9') || *s == '.')
				s++;
		} else if (!strncmp(s, "pid ", 4) && s[4] >= '0' && s[4] <= '9') {
			memcpy(w, "pid P", 5);
			w += 5;
			s += 4;
			while (*s >= '0' && *s <= '9')
				s++;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
	return r;
}

static double duration_of(const char *out, const char *name)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), " %s\n  ---\n  duration_s: ", name);
	p = strstr(out, key);
	return p ? atof(p + strlen(key)) : -1;
}

static void test_exit_codes_exact(void)
{
	const char *plan = "tapboot-plan 1\n"
			   "test pass\npath /tests/pass\nend\n"
			   "test fail\npath /tests/fail\nend\n"
			   "test xfail\npath /tests/xfail\nend\n"
			   "test xpass\npath /tests/xpass\nend\n"
			   "test skip\npath /tests/skip\nend\n"
			   "test segv\npath /tests/segv\nend\n";
	char *out, *n;
	int status;

	script("pass", "echo hello\n");
	script("fail", "echo oops >&2; exit 1\n");
	script("xfail", "echo 'XFAIL: bug 42'; exit 2\n");
	script("xpass", "exit 3\n");
	script("skip", "echo 'skip: no widget'; echo done; exit 4\n");
	script("segv", "kill -SEGV $$\n");
	out = run_init(plan, "tapboot.nonce=5eed", &status, NULL);
	n = normalize(out);
	check_int(status, ==, 1);
	check(!strncmp(n, "# tapboot: begin nonce=5eed tests=6 kernel=", 43));
	/* the kernel release varies: compare from the next line */
	check_str(strchr(n, '\n') ? strchr(n, '\n') + 1 : n,
		  "TAP version 13\n1..6\n"
		  "# tapboot: run 1 pass\n    # hello\nok 1 pass\n"
		  "  ---\n  duration_s: D\n  exit: 0\n  ...\n"
		  "# tapboot: run 2 fail\n    # oops\nnot ok 2 fail\n"
		  "  ---\n  duration_s: D\n  exit: 1\n  reason: \"exit 1\"\n  ...\n"
		  "# tapboot: run 3 xfail\n    # XFAIL: bug 42\nok 3 xfail # XFAIL XFAIL: bug 42\n"
		  "  ---\n  duration_s: D\n  exit: 2\n  reason: \"XFAIL: bug 42\"\n  ...\n"
		  "# tapboot: run 4 xpass\nnot ok 4 xpass # XPASS exit 3\n"
		  "  ---\n  duration_s: D\n  exit: 3\n  reason: \"exit 3\"\n  ...\n"
		  "# tapboot: run 5 skip\n    # skip: no widget\n    # done\n"
		  "ok 5 skip # SKIP skip: no widget\n"
		  "  ---\n  duration_s: D\n  exit: 4\n  reason: \"skip: no widget\"\n  ...\n"
		  "# tapboot: run 6 segv\nnot ok 6 segv\n"
		  "  ---\n  duration_s: D\n  signal: \"SIGSEGV\"\n  reason: \"killed by SIGSEGV\"\n"
		  "  ...\n"
		  "# tapboot: end nonce=5eed pass=1 fail=2 skip=1 xfail=1 xpass=1 timeout=0\n");
	free(n);
	free(out);
}

static void test_timeout_sigterm_ignored(void)
{
	const char *plan = "tapboot-plan 1\ntest hang\npath /tests/hang\ntimeout 1\nend\n"
			   "test after\npath /tests/after\nend\n";
	double secs, d;
	char *out;
	int status;

	script("hang", "trap '' TERM\necho start\nsleep 30\necho woke\n");
	script("after", "echo after ran\n");
	out = run_init(plan, "", &status, &secs);
	check(strstr(out, "    # timeout after 1 s: SIGTERM to the process group\n"
			  "    # still running 300 ms after SIGTERM: SIGKILL\n"
			  "not ok 1 hang # TIMEOUT timeout after 1 s\n") != NULL);
	check(strstr(out, "  signal: \"SIGKILL\"\n  reason: \"timeout after 1 s\"\n") != NULL);
	check(!strstr(out, "woke"));
	d = duration_of(out, "hang # TIMEOUT timeout after 1 s");
	check(d >= 1.25 && d < 2.5);
	check(strstr(out, "    # after ran\nok 2 after\n") != NULL);
	check(strstr(out, "timeout=1\n") != NULL);
	check(secs < 10);
	free(out);
}

static void test_timeout_override(void)
{
	const char *plan = "tapboot-plan 1\ntest slow\npath /tests/slow\ntimeout 100\nend\n";
	char *out;
	int status;

	script("slow", "sleep 30\n");
	out = run_init(plan, "tapboot.timeout=1", &status, NULL);
	check(strstr(out, "not ok 1 slow # TIMEOUT timeout after 1 s\n") != NULL);
	/* sleep dies of SIGTERM: no SIGKILL needed */
	check(!strstr(out, "SIGKILL"));
	free(out);
}

static void test_daemon_and_closed_stdout(void)
{
	char pidfile[512], plan[2048], body[2048];
	double secs;
	char *out, *pids;
	int status;

	snprintf(pidfile, sizeof(pidfile), "%s/pids", test_tmpdir());
	snprintf(body, sizeof(body),
		 "(sleep 30; echo late) &\necho $! >> %s\n"
		 "setsid sh -c 'echo $$ >> %s; exec sleep 30' &\nsleep 0.2\necho main done\n",
		 pidfile, pidfile);
	script("daemon", body);
	script("closeout", "echo closing\nexec >&- 2>&-\nsleep 1\nexit 0\n");
	script("next", "echo next ran\n");
	snprintf(plan, sizeof(plan),
		 "tapboot-plan 1\ntest daemon\npath /tests/daemon\nend\n"
		 "test closeout\npath /tests/closeout\nend\ntest next\npath /tests/next\nend\n");
	out = run_init(plan, "", &status, &secs);
	check_int(status, ==, 0);
	check(strstr(out, "    # main done\nok 1 daemon\n") != NULL);
	check(duration_of(out, "daemon") < 1.0);
	check(strstr(out, "    # closing\nok 2 closeout\n") != NULL);
	check(duration_of(out, "closeout") >= 1.0);
	check(strstr(out, "    # next ran\nok 3 next\n") != NULL);
	check(!strstr(out, "late"));
	check(secs < 5);
	/* both the child in the session and the one that left it with setsid are gone */
	pids = test_read_file(pidfile, NULL);
	check(pids != NULL);
	for (char *p = pids; p && *p;) {
		pid_t pid = (pid_t)strtol(p, &p, 10);

		if (pid > 0) {
			check_int(kill(pid, 0), ==, -1);
			check_int(errno, ==, ESRCH);
		}
		while (*p == '\n')
			p++;
	}
	free(pids);
	free(out);
}

static void test_flood(void)
{
	const char *plan = "tapboot-plan 1\ntest flood\npath /tests/flood\nend\n"
			   "test after\npath /tests/after\nend\n";
	double secs;
	char *out;
	int status;

	script("flood", "yes 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde | "
			"head -c 10485760\n");
	script("after", "echo after ran\n");
	out = run_init(plan, "", &status, &secs);
	check_int(status, ==, 0);
	check(strstr(out, "    # output truncated: showed 262144 of 10485760 bytes "
			  "(tapboot.output_max=262144)\nok 1 flood\n") != NULL);
	check(strlen(out) < 300 * 1024);
	check(strstr(out, "ok 2 after\n") != NULL);
	check(secs < 30);
	free(out);

	out = run_init(plan, "tapboot.output_max=0", &status, NULL);
	check(strlen(out) > 10485760);
	check(!strstr(out, "output truncated"));
	free(out);
}

static void test_bad_utf8_no_newline(void)
{
	const char *plan = "tapboot-plan 1\ntest bytes\npath /tests/bytes\nend\n";
	char *out;
	int status;

	script("bytes", "printf 'ok\\n\\377\\376 caf\\303\\251 \\033[1m end'\n");
	out = run_init(plan, "", &status, NULL);
	check(strstr(out,
		     "# tapboot: run 1 bytes\n    # ok\n    # \\xff\\xfe caf\xc3\xa9 \\x1b[1m end\n"
		     "    # (no newline at end of output)\nok 1 bytes\n") != NULL);
	free(out);
}

static void test_killpg_and_signals_to_init(void)
{
	const char *plan = "tapboot-plan 1\ntest killpg\npath /tests/killpg\nend\n"
			   "test sigs\npath /tests/sigs\nend\n";
	char *out, *n;
	int status;

	script("killpg", "echo bye\nkill -KILL 0\n");
	/* the parent of a test is the init */
	script("sigs", "kill -TERM $PPID\nkill -INT $PPID\nkill -HUP $PPID\nsleep 0.2\n"
		       "echo still here\n");
	out = run_init(plan, "", &status, NULL);
	n = normalize(out);
	check(strstr(n, "    # bye\nnot ok 1 killpg\n  ---\n  duration_s: D\n"
			"  signal: \"SIGKILL\"\n  reason: \"killed by SIGKILL\"\n") != NULL);
	check(strstr(n, "    # init: got SIGTERM from pid P, ignored\n") != NULL);
	check(strstr(n, "    # init: got SIGINT from pid P, ignored\n") != NULL);
	check(strstr(n, "    # init: got SIGHUP from pid P, ignored\n") != NULL);
	check(strstr(n, "    # still here\nok 2 sigs\n") != NULL);
	check(strstr(n, "# tapboot: end nonce= pass=1 fail=1 ") != NULL);
	free(n);
	free(out);
}

static void test_own_tap(void)
{
	const char *plan = "tapboot-plan 1\ntest tap\npath /tests/tap\nend\n";
	char *out;
	int status;

	script("tap", "echo prelude\necho 'TAP version 13'\necho '1..2'\necho 'ok 1 one'\n"
		      "echo '# note'\necho 'not ok 2 two'\necho '  ---'\necho '  at: x'\n"
		      "echo '  ...'\necho 'chatter'\nexit 1\n");
	out = run_init(plan, "", &status, NULL);
	check(strstr(out, "# tapboot: run 1 tap\n    # prelude\n    TAP version 13\n    1..2\n"
			  "    ok 1 one\n    # note\n    not ok 2 two\n      ---\n      at: x\n"
			  "      ...\n    # chatter\nnot ok 1 tap\n") != NULL);
	free(out);
}

static void test_selection_options(void)
{
	const char *plan = "tapboot-plan 1\n"
			   "test net_a\npath /tests/p\nend\ntest net_b\npath /tests/p\nend\n"
			   "test mm_a\npath /tests/p\nend\ntest mm_b\npath /tests/p\nend\n";
	char *out;
	int status;

	script("p", "exit 0\n");
	out = run_init(plan, "tapboot.filter=net_*", &status, NULL);
	check(strstr(out, " tests=2 ") != NULL);
	check(strstr(out, "1..2\n# tapboot: run 1 net_a\nok 1 net_a\n") != NULL);
	check(strstr(out, "# tapboot: run 2 net_b\nok 2 net_b\n") != NULL);
	check(!strstr(out, "mm_"));
	free(out);

	out = run_init(plan, "tapboot.shard=1/2", &status, NULL);
	check(strstr(out, "# tapboot: run 1 net_b\n") != NULL);
	check(strstr(out, "# tapboot: run 2 mm_b\n") != NULL);
	check(strstr(out, "tests=2 ") != NULL);
	free(out);

	out = run_init(plan, "tapboot.only=3 tapboot.timeout=zz", &status, NULL);
	check(strstr(out, "1..1\n# init: ignoring tapboot.timeout='zz': not a number of seconds\n"
			  "# tapboot: run 1 mm_a\nok 1 mm_a\n") != NULL);
	free(out);

	out = run_init(plan, "tapboot.filter=nothing*", &status, NULL);
	check(strstr(out, " tests=0 ") != NULL);
	check(strstr(out, "TAP version 13\n1..0\n# tapboot: end nonce= pass=0 fail=0 ") != NULL);
	check_int(status, ==, 0);
	free(out);
}

static void test_disruptive(void)
{
	const char *plan = "tapboot-plan 1\ntest d\npath /tests/d\nflag disruptive\nend\n";
	char *out;
	int status;

	script("d", "echo ran\n");
	out = run_init(plan, "", &status, NULL);
	check(strstr(out, "# tapboot: run 1 d\nok 1 d # SKIP disruptive (run with --disruptive)\n"
			  "  ---\n  duration_s: 0.000\n"
			  "  reason: \"disruptive (run with --disruptive)\"\n  ...\n") != NULL);
	check(!strstr(out, "ran"));
	check(strstr(out, " skip=1 ") != NULL);
	free(out);
	out = run_init(plan, "tapboot.disruptive=1", &status, NULL);
	check(strstr(out, "    # ran\nok 1 d\n") != NULL);
	free(out);

	/* a plan's own skip reason (the host saw a missing kernel option) */
	out = run_init("tapboot-plan 1\ntest s\npath /tests/d\nskip needs CONFIG_FOO\nend\n", "",
		       &status, NULL);
	check(strstr(out, "# tapboot: run 1 s\nok 1 s # SKIP needs CONFIG_FOO\n") != NULL);
	check(!strstr(out, "ran"));
	free(out);
}

static void test_env_cwd_stdin_exec_errors(void)
{
	const char *plan = "tapboot-plan 1\n"
			   "test env\npath /tests/sub/env\narg one\narg two words\nenv FOO=bar\n"
			   "env HOME=/tmp\nend\n"
			   "test cwd\npath /tests/sub/env\ncwd /tests\nend\n"
			   "test missing\npath /tests/nope\nend\n"
			   "test badcwd\npath /tests/sub/env\ncwd /nowhere\nend\n";
	char *out, *expect;
	int status;

	script("sub/env",
	       "echo \"args=$# $1|$2 foo=$FOO home=$HOME path=$PATH\"\n"
	       "echo \"pwd=${PWD##*/}\"\nread x && echo \"stdin=$x\" || echo stdin empty\n");
	out = run_init(plan, "", &status, NULL);
	check(strstr(out, "    # args=2 one|two words foo=bar home=/tmp "
			  "path=/bin:/sbin:/usr/bin:/usr/sbin\n    # pwd=sub\n    # stdin empty\n"
			  "ok 1 env\n") != NULL);
	check(strstr(out, "    # pwd=tests\n") != NULL);
	if (asprintf(&expect, "not ok 3 missing\n  ---\n  duration_s: ") < 0)
		exit(1);
	check(strstr(out, expect) != NULL);
	free(expect);
	if (asprintf(&expect,
		     "  exit: 127\n  reason: \"cannot exec '%s/root/tests/nope': "
		     "No such file or directory\"\n",
		     test_tmpdir()) < 0)
		exit(1);
	check(strstr(out, expect) != NULL);
	free(expect);
	if (asprintf(&expect,
		     "  reason: \"cannot chdir to '%s/root/nowhere': "
		     "No such file or directory\"\n",
		     test_tmpdir()) < 0)
		exit(1);
	check(strstr(out, expect) != NULL);
	free(expect);
	free(out);
}

static void append(const char *rel, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), rel);
	fp = fopen(path, "a");
	if (!fp)
		exit(1);
	fputs(text, fp);
	fclose(fp);
}

static void test_kernel_health(void)
{
	char plan[4096];
	char *out;
	int status;

	append("kmsg", "4,1,1,-;WARNING: before the run (must not be reported)\n");
	append("tainted", "");
	script("warn", "printf '4,2,2,-;WARNING: CPU: 0 PID: 9 at lib/x.c:1 f+0x0/0x1\\n"
		       " SUBSYSTEM=x\\n6,3,3,-;info\\n4,4,4,-;Call Trace:\\n' >> \"$KMSG\"\n"
		       "echo 512 > \"$TAINT\"\n");
	script("taint", "echo 8704 > \"$TAINT\"\n");
	script("module", "echo 12800 > \"$TAINT\"\n");
	script("failing", "printf '0,5,5,-;Oops: 0000 [#1] SMP\\n' >> \"$KMSG\"; exit 1\n");
	snprintf(plan, sizeof(plan),
		 "tapboot-plan 1\n"
		 "test warn\npath /tests/warn\nenv KMSG=%1$s/kmsg\nenv TAINT=%1$s/tainted\nend\n"
		 "test taint\npath /tests/taint\nenv TAINT=%1$s/tainted\nend\n"
		 "test module\npath /tests/module\nenv TAINT=%1$s/tainted\nend\n"
		 "test failing\npath /tests/failing\nenv KMSG=%1$s/kmsg\nend\n",
		 test_tmpdir());
	test_write_file("tainted", "0\n", 2, 0644);
	out = run_init(plan, "", &status, NULL);
	check(!strstr(out, "before the run"));
	check(strstr(out, "# tapboot: run 1 warn\n"
			  "    # kernel: WARNING: CPU: 0 PID: 9 at lib/x.c:1 f+0x0/0x1\n"
			  "    # kernel: Call Trace:\n"
			  "    # kernel: taint changed from 0 to 512 (new: W)\n"
			  "not ok 1 warn\n") != NULL);
	check(strstr(out, "  reason: \"kernel warning: WARNING: CPU: 0 PID: 9 at lib/x.c:1 "
			  "f+0x0/0x1\"\n  taint: 512\n") != NULL);
	/* 8704 = 512 | 8192: only E is new, and E (unsigned module) does not fail a test */
	check(strstr(out, "    # kernel: taint changed from 512 to 8704 (new: E)\nok 2 taint\n") !=
	      NULL);
	check(strstr(out,
		     "    # kernel: taint changed from 8704 to 12800 (new: O)\nok 3 module\n") !=
	      NULL);
	/* a failing test keeps its own reason; the kernel lines are still shown */
	check(strstr(out, "    # kernel: Oops: 0000 [#1] SMP\nnot ok 4 failing\n") != NULL);
	check(strstr(out, "  exit: 1\n  reason: \"exit 1\"\n") != NULL);
	free(out);
}

static void test_modules(void)
{
	struct utsname u;
	char rel[512], *out, *a, *b, *c;
	int status;

	uname(&u);
	snprintf(rel, sizeof(rel), "root/lib/modules/%s/modules.dep", u.release);
	test_write_file(rel,
			"kernel/a/other.ko:\n"
			"kernel/net/top-mod.ko.xz: kernel/net/mid.ko kernel/lib/base.ko\n"
			"kernel/net/mid.ko: kernel/lib/base.ko\n",
			strlen("kernel/a/other.ko:\n"
			       "kernel/net/top-mod.ko.xz: kernel/net/mid.ko kernel/lib/base.ko\n"
			       "kernel/net/mid.ko: kernel/lib/base.ko\n"),
			0644);
	/* No module files: each load fails, which shows the order it was tried in (and proves
	 * a failed module is a diagnostic, not the end of the run). */
	out = run_init(
		"tapboot-plan 1\nmodule top_mod\nmodule missing\ntest p\npath /tests/p\nend\n", "",
		&status, NULL);
	a = strstr(out, "/kernel/lib/base.ko': ");
	b = strstr(out, "/kernel/net/mid.ko': ");
	c = strstr(out, "/kernel/net/top-mod.ko.xz': ");
	check(a && b && c && a < b && b < c);
	check(strstr(out, "# init: cannot load module '") != NULL);
	check(strstr(out, "# init: module missing not found in ") != NULL);
	check(!strstr(out, "other.ko"));
	check(strstr(out, "ok 1 p\n") != NULL);
	free(out);
}

static void test_bad_plan(void)
{
	char *out;
	int status;

	out = run_init("tapboot-plan 1\ntest x\nbogus 1\nend\n", "", &status, NULL);
	check_int(status, ==, 2);
	check(!strncmp(out, "Bail out! bad plan '", 20));
	free(out);
}

/* With the run's secret: every unnested line carries a right tag, numbered 1, 2, 3...; the
 * test's nested output none; the host's parser (TAPBOOT mode) reads the verdicts, and a test
 * that prints the init's lines itself (nested by the init) changes nothing. */
static void test_tagged_lines(void)
{
	const char *plan = "tapboot-plan 1\ntest forger\npath /tests/forger\nend\n"
			   "test fail\npath /tests/fail\nend\n";
	static const unsigned char key[16] = "k3yk3yk3yk3yk3y!";
	struct tap_parser *p;
	const struct tap_test *t;
	char *out, *line, *save = NULL;
	uint64_t want = 0;
	unsigned tagged = 0, nested = 0, bad = 0;
	size_t n;
	int status;

	script("forger", "echo 'ok 2 fail'; echo '# tapboot: end nonce=5eed pass=2'\n");
	script("fail", "exit 1\n");
	key_file = test_write_file("key", key, sizeof(key), 0600);
	out = run_init(plan, "tapboot.nonce=5eed", &status, NULL);
	key_file = NULL;
	check_int(status, ==, 1);
	p = tap_parser_new("5eed", NULL);
	tap_parser_set_mode(p, TAP_PARSE_TAPBOOT, key);
	tap_parser_feed(p, out, strlen(out));
	tap_parser_finish(p, NULL);
	t = tap_parser_tests(p, &n);
	check_int(n, ==, 2);
	if (n == 2) {
		check_str(t[0].name, "forger");
		check_str(verdict_name(t[0].verdict), "pass");
		check_str(verdict_name(t[1].verdict), "fail");
		/* the pass's from its one line, the failure's from its block, each verified by
		 * its one tag (a pass's exit 0 is implied) */
		check_int(t[0].exit_code, ==, 0);
		check_int(t[1].exit_code, ==, 1);
		check(t[0].duration_s >= 0 && t[1].duration_s >= 0);
	}
	check(tap_parser_summary(p)->complete);
	tap_parser_free(p);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t body;
		uint64_t seq;

		if (!strncmp(line, "    ", 4)) {
			nested++;
			bad += strstr(line, "~tb:") != NULL;
			continue;
		}
		if (!strcmp(line, "  ---")) {
			/* a YAML block: one tag on its "  ..." line, over the whole block */
			struct strbuf block = STRBUF_INIT;

			strbuf_init(&block);
			strbuf_addstr(&block, line);
			while ((line = strtok_r(NULL, "\n", &save)) && !strncmp(line, "  ", 2) &&
			       strncmp(line, "  ...", 5)) {
				bad += strstr(line, "~tb:") != NULL;
				strbuf_addf(&block, "\n%s", line);
			}
			if (line)
				strbuf_addf(&block, "\n%s", line);
			if (line && line_tag_check(key, block.buf, block.len, &body, &seq) &&
			    seq == ++want) {
				tagged++;
			} else {
				bad++;
				printf("# block not tagged right: %s\n", block.buf);
			}
			strbuf_release(&block);
			if (!line)
				break;
		} else if (line_tag_check(key, line, strlen(line), &body, &seq) && seq == ++want) {
			tagged++;
		} else {
			bad++;
			printf("# not tagged right: %s\n", line);
		}
	}
	check_int(bad, ==, 0);
	check_int(nested, ==, 2);
	/* begin, version, plan; per test a run line and a verdict, the failure's block; the end
	 * (the pass is one line: "ok 1 forger # time=Nms") */
	check_int(tagged, ==, 9);
	free(out);
}

/* Snapshot boot's handoff (protocol.h): the ready line, then the host's line on stdin gives the
 * nonce, the selection and the secret; the secret only from there. */
static void test_handoff(void)
{
	const char *plan = "tapboot-plan 1\ntest one\npath /tests/one\nend\n"
			   "test two\npath /tests/two\nend\n";
	static const unsigned char key[16] = "0123456789abcdef";
	const char *hexkey = "30313233343536373839616263646566";
	struct tap_parser *p;
	const struct tap_test *t;
	char line[256], *out;
	size_t n;
	int status;

	script("one", "exit 1\n");
	script("two", "echo two ran\n");
	snprintf(line, sizeof(line),
		 "tapboot.nonce=5eed tapboot.only=2 tapboot.key=%s tapboot.seed=%064d "
		 "tapboot.time=1700000000.5\n",
		 hexkey, 7);
	stdin_file = test_write_file("handoff", line, strlen(line), 0600);
	out = run_init(plan, "tapboot.handoff=1", &status, NULL);
	check_int(status, ==, 0);
	check(!strncmp(out, "tapboot-init: ready\n", 20));
	check(strstr(out, "# tapboot: begin nonce=5eed tests=1 ") != NULL);
	check(strstr(out, "two ran") != NULL);
	check(strstr(out, hexkey) == NULL);
	p = tap_parser_new("5eed", NULL);
	tap_parser_set_mode(p, TAP_PARSE_TAPBOOT, key);
	tap_parser_feed(p, out, strlen(out));
	tap_parser_finish(p, NULL);
	t = tap_parser_tests(p, &n);
	check_int(n, ==, 1);
	if (n == 1) {
		check_str(t[0].name, "two");
		check_str(verdict_name(t[0].verdict), "pass");
	}
	/* tagged with the handoff line's key: the parser took the run as complete */
	check(tap_parser_summary(p)->complete);
	tap_parser_free(p);
	free(out);

	/* the secret on the command line (readable by every test) is refused */
	out = run_init(plan, "tapboot.handoff=1 tapboot.key=30313233343536373839616263646566",
		       &status, NULL);
	check(strstr(out, "ignoring tapboot.key=") != NULL);
	check(strstr(out, "taken only from the host's handoff line") != NULL);
	free(out);

	/* tapboot.tests= too: only the host's handoff line says whether the saved tests stay */
	out = run_init(plan, "tapboot.handoff=0 tapboot.tests=keep", &status, NULL);
	check(strstr(out, "ignoring tapboot.tests=") != NULL);
	free(out);
	snprintf(line, sizeof(line), "tapboot.nonce=5eed tapboot.key=%s tapboot.tests=maybe\n",
		 hexkey);
	stdin_file = test_write_file("handoff-tests", line, strlen(line), 0600);
	out = run_init(plan, "tapboot.handoff=1", &status, NULL);
	check(strstr(out, "expected keep or load") != NULL);
	free(out);
	snprintf(line, sizeof(line), "tapboot.nonce=5eed tapboot.key=%s tapboot.tests=keep\n",
		 hexkey);
	stdin_file = test_write_file("handoff-keep", line, strlen(line), 0600);
	out = run_init(plan, "tapboot.handoff=1", &status, NULL);
	check(strstr(out, "tapboot.tests") == NULL);
	check(strstr(out, "two ran") != NULL);
	free(out);

	/* no line: the run cannot start, said as a bail-out, exit 3 */
	stdin_file = test_write_file("empty", "", 0, 0600);
	out = run_init(plan, "tapboot.handoff=1", &status, NULL);
	check_int(status, ==, 3);
	check(strstr(out, "Bail out! the console's input ended before the host's handoff line") !=
	      NULL);
	stdin_file = NULL;
	free(out);
}

int main(void)
{
	TEST(test_exit_codes_exact, "exit codes to verdicts, the exact stream");
	TEST(test_handoff, "snapshot boot's handoff line: ready line, values, secret only there");
	TEST(test_timeout_sigterm_ignored, "timeout: SIGTERM, then SIGKILL after the grace");
	TEST(test_timeout_override, "tapboot.timeout= overrides the plan");
	TEST(test_daemon_and_closed_stdout, "daemons are killed, closed stdout is not the end");
	TEST(test_flood, "10 MB of output is capped and drained");
	TEST(test_bad_utf8_no_newline, "bytes that are not UTF-8, no final newline");
	TEST(test_killpg_and_signals_to_init, "kill(0, SIGKILL) and signals sent to the init");
	TEST(test_own_tap, "a test's own TAP is nested");
	TEST(test_selection_options, "filter, shard, only and bad values");
	TEST(test_disruptive, "disruptive tests are skipped unless asked for");
	TEST(test_env_cwd_stdin_exec_errors, "argv, env, cwd, stdin and exec errors");
	TEST(test_kernel_health, "kernel warnings and taint fail a passing test");
	TEST(test_modules, "modules from modules.dep, dependencies first");
	TEST(test_bad_plan, "a bad plan is a Bail out!");
	TEST(test_tagged_lines, "with a key: every unnested line tagged, the parser reads them");
	return test_done();
}
