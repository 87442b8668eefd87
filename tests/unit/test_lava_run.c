// SPDX-License-Identifier: GPL-2.0-only
/* test_lava_run.c: the LAVA log model (lava/lava_run.c) read from whole logs, and their
 * conversion into a results directory (lava/lava_results.c): the job's planned names and
 * nonce, the cross-check of LAVA's verdicts, the incomplete texts and the exit statuses. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "harness.h"
#include "json_read.h"
#include "lava_results.h"
#include "lava_run.h"
#include "strbuf.h"

/* one log line per source line */
/* clang-format off */
#define NONCE "0123456789abcdef0123456789abcdef"
#define T(dt, lvl, msg) "{\"dt\": \"2026-12-04T17:33:" dt "\", \"lvl\": \"" lvl "\", \"msg\": " msg "}\n"
#define TARGET(dt, text) T(dt, "target", "\"" text "\"")
#define RESULT(def, cs, res) \
	T("59.000000", "results", \
	  "{\"case\": \"" cs "\", \"definition\": \"" def "\", \"result\": \"" res "\"}")

/* What lava-run 2023.01 writes for a job tapboot lava-job made, cut to its parts: the
 * version, the downloads, the boot command, the console (a terminal reset without its ESC
 * before the begin line, 2023.x's \" escaping), the monitor's verdicts and the job's result. */
static const char log_head[] =
	T("50.000000", "info", "\"lava-dispatcher, installed at version: 2023.01\"")
	T("50.100000", "debug", "\"downloading file:///job/vmlinuz\"")
	T("50.200000", "debug", "\"downloading file:///job/initramfs.cpio\"")
	T("50.300000", "info",
	  "\"Boot command: /usr/bin/qemu-system-aarch64 -nographic -nic none -m 512 -monitor "
	  "none -machine virt -cpu cortex-a57 -smp 1 -no-reboot -kernel /k -append "
	  "\\\"console=ttyAMA0 rdinit=/init tapboot.nonce=" NONCE " tapboot.timeout=3\\\" "
	  "-initrd /i\"")
	TARGET("51.000000", "[    0.000000] Linux version 6.1.0-test (x)")
	TARGET("51.713907", "c[?7l[2J# tapboot: begin nonce=" NONCE " tests=2 kernel=6.1.0-test")
	TARGET("51.800000", "TAP version 13")
	TARGET("51.800001", "1..2")
	TARGET("51.800002", "# tapboot: run 1 pass")
	TARGET("51.900000", "ok 1 pass")
	TARGET("51.900001", "  ---")
	TARGET("51.900002", "  duration_s: 0.004")
	TARGET("51.900003", "  exit: 0")
	TARGET("51.900004", "  ...");
static const char log_fail[] =
	TARGET("52.000000", "# tapboot: run 2 fail")
	TARGET("52.100000", "not ok 2 fail")
	TARGET("52.100001", "  ---")
	TARGET("52.100002", "  duration_s: 0.003")
	TARGET("52.100003", "  exit: 1")
	TARGET("52.100004", "  reason: \\\\\\\"exit 1\\\\\\\"")
	TARGET("52.100005", "  ...")
	TARGET("52.200000", "# tapboot: end nonce=" NONCE
		 " pass=1 fail=1 skip=0 xfail=0 xpass=0 timeout=0");
static const char log_tail[] =
	RESULT("tapboot", "pass", "pass") RESULT("tapboot", "fail", "fail")
	T("59.500000", "results",
	  "{\"case\": \"job\", \"definition\": \"lava\", \"result\": \"pass\"}");
/* clang-format on */

static const char job_yaml[] = "metadata:\n"
			       "  tapboot.version: '0.1'\n"
			       "  tapboot.nonce: '" NONCE "'\n"
			       "  tapboot.arch: 'arm64'\n"
			       "  tapboot.tests: '2'\n"
			       "  tapboot.test.1: 'pass'\n"
			       "  tapboot.test.2: 'fail'\n";

static const char *write_log(const char *name, const char *a, const char *b, const char *c)
{
	char *s = xasprintf("%s%s%s", a, b, c);
	const char *path = test_write_file(name, s, strlen(s), 0);

	free(s);
	return path;
}

struct read_call {
	const char *path;
	struct lava_run *l;
};

static int call_read(void *arg)
{
	struct read_call *c = arg;

	return lava_run_read(c->path, c->l);
}

/* lava_run_read on path: its return value in *ret, its messages returned (caller frees). */
static char *read_log(const char *path, struct lava_run *l, int *ret)
{
	struct read_call c = {path, l};

	lava_run_init(l);
	return test_capture_stderr(call_read, &c, ret);
}

static void t_model(void)
{
	struct lava_run l;
	int ret;
	char *err = read_log(write_log("full.log", log_head, log_fail, log_tail), &l, &ret), *arch;

	check_int(ret, ==, 0);
	check_str(err, "");
	check_str(l.version, "2023.01");
	check_str(l.nonce, NONCE);
	check_str(l.machine, "virt");
	check_str(l.qemu_arch, "aarch64");
	check(!l.kvm);
	check_str(l.kernel_url, "file:///job/vmlinuz");
	check_str(l.job_result, "pass");
	check(l.error_type == NULL && l.error_msg == NULL);
	check(l.saw_target && l.saw_begin && !l.truncated);
	check(l.start_time == lava_parse_dt("2026-12-04T17:33:51.713907"));
	if (check_int(l.ncases, ==, 2)) {
		check_str(l.cases[0].id, "pass");
		check_str(l.cases[1].result, "fail");
	}
	/* the reset's remains are gone from the begin line, the \" escaping undone */
	check(strstr(l.console.buf, "\n# tapboot: begin nonce=" NONCE " tests=2") != NULL);
	check(strstr(l.console.buf, "\n  reason: \"exit 1\"\n") != NULL);
	check(strncmp(l.console.buf, "[    0.000000] Linux version", 28) == 0);
	arch = lava_run_arch(&l);
	check_str(arch, "arm64");
	free(arch);
	lava_run_release(&l);
	free(err);
}

static void t_boot_commands(void)
{
	static const char *const cmds[][4] = {
		/* boot command, qemu arch, machine, kvm */
		{"qemu-system-x86_64 -M q35 -enable-kvm -append \\\"tapboot.nonce=abc\\\"",
		 "x86_64", "q35", "kvm"},
		{"/usr/bin/qemu-system-ppc64 -machine pseries,x-vof=on -accel accel=kvm", "ppc64",
		 "pseries,x-vof=on", "kvm"},
		{"qemu-system-mips -nographic", "mips", NULL, "tcg"},
	};
	static const char *const arches[] = {"x86_64", "ppc64le", "mips"};

	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		char *line = xasprintf(T("50.0", "info", "\"Boot command: %s\""), cmds[i][0]);
		struct lava_run l;
		int ret;
		char *err = read_log(write_log("boot.log", line, "", ""), &l, &ret), *arch;

		check_int(ret, ==, 0);
		check_str(l.qemu_arch, cmds[i][1]);
		check_str(l.machine, cmds[i][2]);
		check_str(l.kvm ? "kvm" : "tcg", cmds[i][3]);
		check_str(l.nonce, i ? NULL : "abc");
		arch = lava_run_arch(&l);
		check_str(arch, arches[i]);
		free(arch);
		lava_run_release(&l);
		free(err);
		free(line);
	}
}

/* tmpl with its FILE replaced by path (the messages name the temporary file); caller frees. */
static char *with_path(const char *tmpl, const char *path)
{
	const char *at = strstr(tmpl, "FILE");

	return xasprintf("%.*s%s%s", (int)(at - tmpl), tmpl, path, at + 4);
}

static void t_not_logs(void)
{
	static const char *const bad[][2] = {
		{"[    0.000000] Linux version 6.1\n", "tapboot: FILE:1: not a LAVA job log line: "
						       "not a YAML flow mapping ('{' expected at "
						       "column 1)\n"},
		{"---\n\n{\"dt\": \"x\", \"msg\": \"a\"}\n",
		 "tapboot: FILE:3: not a LAVA job log line: no \"dt\", \"lvl\" and \"msg\"\n"},
		{"---\n\n", "tapboot: 'FILE' is not a LAVA job log: it holds no log line\n"},
		/* a cut first line is not a truncated log: nothing before it was a LAVA line */
		{"{\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"ok",
		 "tapboot: FILE:1: not a LAVA job log line: unterminated double-quoted string at "
		 "column 40\n"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *path = write_log("bad.log", bad[i][0], "", "");
		struct lava_run l;
		int ret;
		char *err = read_log(path, &l, &ret), *want = with_path(bad[i][1], path);

		check_int(ret, ==, -1);
		check_str(err, want);
		lava_run_release(&l);
		free(want);
		free(err);
	}
}

static void t_incomplete(void)
{
	struct lava_run l;
	struct tap_summary sum;
	int ret;
	char *err, *why, *cut = xstrndup(log_fail, strlen(log_fail) - 20);

	/* the log cut while written: what came before is kept, the job's result is not there */
	err = read_log(write_log("cut.log", log_head, cut, ""), &l, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	check(l.truncated);
	check(l.job_result == NULL);
	check(strstr(l.console.buf, "not ok 2 fail\n") != NULL);
	why = lava_run_incomplete(&l, NULL);
	check_str(why, "the LAVA log ends before the job's result (truncated)");
	free(why);
	lava_run_release(&l);
	free(err);

	/* the job failed before the init began: LAVA's error is the reason */
	err = read_log(write_log("noboot.log", log_head, "",
				 T("55.0", "results",
				   "{\"case\": \"job\", \"definition\": \"lava\", \"result\": "
				   "\"fail\", \"error_type\": \"Infrastructure\", \"error_msg\": "
				   "\"qemu-system-aarch64 not found\"}")),
		       &l, &ret);
	l.saw_begin = false;
	why = lava_run_incomplete(&l, NULL);
	check_str(why, "the job never reached tapboot's init (no '# tapboot: begin' on the "
		       "console): qemu-system-aarch64 not found");
	free(why);
	/* it began, and LAVA says why it then failed */
	l.saw_begin = true;
	why = lava_run_incomplete(&l, NULL);
	check_str(why, "LAVA: Infrastructure error: qemu-system-aarch64 not found");
	free(why);
	lava_run_release(&l);
	free(err);

	/* a complete job: LAVA has nothing to add; the parser's summary may */
	err = read_log(write_log("full.log", log_head, log_fail, log_tail), &l, &ret);
	check(lava_run_incomplete(&l, NULL) == NULL);
	memset(&sum, 0, sizeof(sum));
	sum.complete = true;
	check(lava_run_incomplete(&l, &sum) == NULL);
	sum.complete = false;
	why = lava_run_incomplete(&l, &sum);
	check_str(why, "no tapboot end line with the run's nonce");
	free(why);
	sum.crash_line = xstrdup("Kernel panic - not syncing: sysrq triggered crash");
	why = lava_run_incomplete(&l, &sum);
	check_str(why, "Kernel panic - not syncing: sysrq triggered crash");
	free(why);
	free(sum.crash_line);
	lava_run_release(&l);
	free(err);
	free(cut);
}

static void t_dt(void)
{
	check(lava_parse_dt("2026-12-04T17:33:51.5") == 1796405631.5);
	check(lava_parse_dt("2026-12-04T17:33:51") == 1796405631.0);
	check(lava_parse_dt("yesterday") == -1);
	check(lava_parse_dt(NULL) == -1);
}

struct names_call {
	const char *path;
	struct strlist *names;
	char *nonce;
};

static int call_names(void *arg)
{
	struct names_call *c = arg;

	return lava_job_names_read(c->path, c->names, c->nonce);
}

static void t_job_names(void)
{
	static const char *const bad[][2] = {
		{"  tapboot.test.1: 'a'\n  tapboot.test.3: 'b'\n",
		 "tapboot: FILE:2: tapboot.test.3 out of order\n"},
		{"  tapboot.test.1: 'unterminated\n",
		 "tapboot: FILE:1: bad test name: unterminated single-quoted string at column "
		 "22\n"},
		{"metadata:\n  tapboot.arch: 'x86_64'\n",
		 "tapboot: 'FILE' names no tests (no tapboot.test.N metadata: not written by "
		 "tapboot "
		 "lava-job?)\n"},
	};
	struct strlist names;
	char nonce[33] = "";
	struct names_call c = {test_write_file("job.yaml", job_yaml, strlen(job_yaml), 0), &names,
			       nonce};
	int ret;
	char *err;

	strlist_init(&names);
	err = test_capture_stderr(call_names, &c, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	check_str(nonce, NONCE);
	if (check_int(names.n, ==, 2)) {
		check_str(names.v[0], "pass");
		check_str(names.v[1], "fail");
	}
	strlist_release(&names);
	free(err);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *want;

		c.path = test_write_file("bad.yaml", bad[i][0], strlen(bad[i][0]), 0);
		want = with_path(bad[i][1], c.path);
		strlist_init(&names);
		err = test_capture_stderr(call_names, &c, &ret);
		check_int(ret, ==, -1);
		check_str(err, want);
		strlist_release(&names);
		free(want);
		free(err);
	}
}

struct cross_call {
	const struct lava_run *l;
	const struct tap_test *t;
	size_t n;
};

static int call_cross(void *arg)
{
	struct cross_call *c = arg;

	return (int)lava_cross_check(c->l, c->t, c->n);
}

static void t_cross_check(void)
{
	static const char *const case_of[][2] = {
		{"pass", "pass"}, {"hello_sh", "fail"}, {"xfail", "pass"},
		{"t_o", "fail"},  {"crash", "pass"},	{"ghost", "skip"},
	};
	static const char *const name_of[] = {"pass", "hello.sh", "xfail", "T-O", "crash"};
	static const enum verdict verdict_of[] = {VERDICT_PASS, VERDICT_FAIL, VERDICT_XFAIL,
						  VERDICT_TIMEOUT, VERDICT_CRASH};
	struct lava_case cases[ARRAY_SIZE(case_of)];
	struct tap_test t[ARRAY_SIZE(name_of)];
	struct lava_run l;
	struct cross_call c = {&l, t, ARRAY_SIZE(t)};
	int ret;
	char *err;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cases[i].id = xstrdup(case_of[i][0]);
		cases[i].result = xstrdup(case_of[i][1]);
	}
	memset(t, 0, sizeof(t));
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		t[i].name = xstrdup(name_of[i]);
		t[i].verdict = verdict_of[i];
	}
	lava_run_init(&l);
	l.cases = cases;
	l.ncases = ARRAY_SIZE(cases);
	err = test_capture_stderr(call_cross, &c, &ret);
	/* a crash prints no result line: LAVA recording one contradicts tapboot */
	check_int(ret, ==, 2);
	check_str(err, "tapboot: LAVA recorded 'crash' as pass, tapboot's parser as crash\n"
		       "tapboot: LAVA recorded 'ghost' (skip), a test tapboot's parser did not "
		       "see\n");
	free(err);
	l.ncases = 4;
	err = test_capture_stderr(call_cross, &c, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	free(err);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		free(cases[i].id);
		free(cases[i].result);
	}
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		free(t[i].name);
	l.cases = NULL;
	l.ncases = 0;
	lava_run_release(&l);
}

struct conv_call {
	struct lava_results_opts o;
	char *out_path;
};

/* lava_results with stdout into a file (the summary would be read as this program's TAP). */
static int call_results(void *arg)
{
	struct conv_call *c = arg;
	int saved, fd, ret;

	c->out_path = xasprintf("%s/stdout", test_tmpdir());
	fd = open(c->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	close(fd);
	ret = lava_results(&c->o);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return ret;
}

static char *convert(struct conv_call *c, int *status, char **out)
{
	char *err = test_capture_stderr(call_results, c, status);

	*out = test_read_file(c->out_path, NULL);
	free(c->out_path);
	return err;
}

/* results.json's tests as "name=result,..." */
static char *verdicts(const char *dir)
{
	char *path = xasprintf("%s/results.json", dir), *text;
	struct strbuf sb = STRBUF_INIT;
	const struct json *tests;
	struct json doc;
	size_t len;

	strbuf_init(&sb);
	text = test_read_file(path, &len);
	if (text && json_parse(&doc, text, len, path) == 0) {
		tests = json_get(&doc, "tests");
		for (size_t i = 0; tests && i < tests->n; i++)
			strbuf_addf(&sb, "%s%s=%s", i ? "," : "",
				    json_get_str(&tests->items[i], "name"),
				    json_get_str(&tests->items[i], "result"));
		json_release(&doc);
	}
	free(text);
	free(path);
	return strbuf_detach(&sb);
}

static void t_results(void)
{
	static const char other_job[] = "  tapboot.nonce: 'ffffffffffffffffffffffffffffffff'\n"
					"  tapboot.test.1: 'pass'\n";
	struct conv_call c = {{0}, NULL};
	char *dir = xasprintf("%s/res", test_tmpdir()), *err, *out, *v, *want, *console;
	int status;

	c.o.log = write_log("full.log", log_head, log_fail, log_tail);
	c.o.job = test_write_file("job.yaml", job_yaml, strlen(job_yaml), 0);
	c.o.out = dir;
	err = convert(&c, &status, &out);
	check_int(status, ==, EXIT_TESTS_FAILED);
	check_str(err, "");
	want = xasprintf("results: %s/\n", dir);
	check(out && strstr(out, want) != NULL);
	v = verdicts(dir);
	check_str(v, "pass=pass,fail=fail");
	free(v);
	console = xasprintf("%s/console.log", dir);
	check(access(console, R_OK) == 0);
	free(console);
	free(want);
	free(out);
	free(err);

	/* not empty now: refused without --force, written with it */
	err = convert(&c, &status, &out);
	check_int(status, ==, EXIT_USAGE);
	want = xasprintf("tapboot: results directory '%s' is not empty: pass --force to write "
			 "into it, or choose another -o\n",
			 dir);
	check_str(err, want);
	free(want);
	free(out);
	free(err);
	c.o.force = true;
	err = convert(&c, &status, &out);
	check_int(status, ==, EXIT_TESTS_FAILED);
	free(out);
	free(err);

	/* the log of another job */
	c.o.job = test_write_file("other.yaml", other_job, strlen(other_job), 0);
	err = convert(&c, &status, &out);
	check_int(status, ==, EXIT_USAGE);
	want = xasprintf(
		"tapboot: '%s' is not the log of '%s': its boot command carries nonce " NONCE
		", the job ffffffffffffffffffffffffffffffff\n",
		c.o.log, c.o.job);
	check_str(err, want);
	free(want);
	free(out);
	free(err);
	free(dir);
}

static void t_results_incomplete(void)
{
	struct conv_call c = {{0}, NULL};
	char *dir = xasprintf("%s/cut", test_tmpdir()), *err, *out, *v, *cut;
	int status;

	/* truncated before the second test's run line: 3; the parser blames the test the plan
	 * ran next (as with a real log cut there, tests/boot/65-lava.sh) */
	cut = xstrndup(log_fail, (size_t)(strstr(log_fail, "# tapboot: run 2") - log_fail) - 10);
	c.o.log = write_log("cut.log", log_head, cut, "");
	c.o.job = test_write_file("job.yaml", job_yaml, strlen(job_yaml), 0);
	c.o.out = dir;
	err = convert(&c, &status, &out);
	check_int(status, ==, EXIT_VM);
	check(strstr(err, "tapboot: the LAVA log ends before the job's result (truncated)\n") !=
	      NULL);
	v = verdicts(dir);
	check_str(v, "pass=pass,fail=crash");
	free(v);
	free(out);
	free(err);
	free(cut);
	free(dir);

	/* LAVA contradicting tapboot: 3 */
	dir = xasprintf("%s/contra", test_tmpdir());
	c.o.log = write_log("contra.log", log_head, log_fail,
			    RESULT("tapboot", "pass", "pass") RESULT("tapboot", "fail", "pass")
				    T("59.5", "results",
				      "{\"case\": \"job\", \"definition\": \"lava\", \"result\": "
				      "\"pass\"}"));
	c.o.job = NULL;
	c.o.out = dir;
	err = convert(&c, &status, &out);
	check_int(status, ==, EXIT_VM);
	check_str(err, "tapboot: LAVA recorded 'fail' as pass, tapboot's parser as fail\n");
	free(out);
	free(err);
	free(dir);

	/* not a LAVA log: 2, and no results directory made */
	dir = xasprintf("%s/none", test_tmpdir());
	c.o.log = test_write_file("console.log", "ok 1 pass\n", 10, 0);
	c.o.out = dir;
	err = convert(&c, &status, &out);
	check_int(status, ==, EXIT_USAGE);
	check(access(dir, F_OK) < 0);
	free(out);
	free(err);
	free(dir);
}

int main(void)
{
	error_set_prog("tapboot");
	setenv("TAPBOOT_CONFIGS", TAPBOOT_SRCDIR "/configs", 1);
	TEST(t_model, "a whole log: version, downloads, boot command, console, verdicts");
	TEST(t_boot_commands, "boot commands: QEMU's arch to tapboot's, machine, KVM, nonce");
	TEST(t_not_logs, "not LAVA logs: -1, the message names the file and line");
	TEST(t_incomplete, "why a job did not complete: truncated, never booted, LAVA's error");
	TEST(t_dt, "LAVA's dt to epoch seconds");
	TEST(t_job_names, "--job: planned names and nonce; bad jobs named by file and line");
	TEST(t_cross_check, "LAVA's verdicts against tapboot's: each contradiction said");
	TEST(t_results, "lava_results: the results directory, --force, another job's log");
	TEST(t_results_incomplete, "lava_results: truncated, contradicted, not a log");
	return test_done();
}
