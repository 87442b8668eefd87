// SPDX-License-Identifier: GPL-2.0-only
/* test_report.c: results.json, results.tap, junit.xml (validated against junit-10.xsd with
 * xmllint; kcidb.json is test_report_kcidb.c), the summary table, exit statuses and the skip policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "crash_sig.h"
#include "harness.h"
#include "json_read.h"
#include "plan.h"
#include "report.h"
#include "tap_parser.h"

#ifndef TAPBOOT_SRCDIR
#define TAPBOOT_SRCDIR "."
#endif

/* Run a writer into memory. */
static char *to_string(int (*fn)(FILE *, const struct report_run *), const struct report_run *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		return NULL;
	if (fn(fp, r) < 0) {
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	return buf;
}

static int summary_fn(FILE *fp, const struct report_run *r)
{
	report_summary_fprint(fp, r);
	return 0;
}

static struct tap_test mk(const char *name, enum verdict v, const char *reason, double d, int ex)
{
	struct tap_test t;

	memset(&t, 0, sizeof(t));
	t.name = (char *)name;
	t.verdict = v;
	t.reason = (char *)reason;
	t.duration_s = d;
	t.exit_code = ex;
	return t;
}

static struct tap_test subs[2];
static struct tap_test tests[6];

static char *sample_ids[] = {(char *)"Kernel_panic-not_syncing:x"};
static const struct crash_sig sample_crash = {(char *)"kernel panic: x", sample_ids, 1, NULL};

static struct report_run sample(void)
{
	struct report_run r;

	subs[0] = mk("socket(AF_INET)", VERDICT_PASS, NULL, -1, -1);
	subs[1] = mk("socket(AF_INET6)", VERDICT_FAIL, "EAFNOSUPPORT", -1, -1);
	tests[0] = mk("proc/fd-001-lookup", VERDICT_PASS, NULL, 0.012, 0);
	tests[1] = mk("net/socket", VERDICT_FAIL, "exit 1", 0.231, 1);
	tests[1].subtests = subs;
	tests[1].nsub = 2;
	tests[1].log = (char *)"ok 1 socket(AF_INET)\nnot ok 2 socket(AF_INET6)\n";
	tests[1].log_len = strlen(tests[1].log);
	tests[2] = mk("mm/madv", VERDICT_SKIP, "needs THP", 0.003, 4);
	tests[3] = mk("sysrq", VERDICT_CRASH, "Kernel panic - not syncing: x", -1, -1);
	tests[4] = mk("later", VERDICT_MISSING, "not run: the kernel crashed", -1, -1);
	tests[5] = mk("timers:slow", VERDICT_TIMEOUT, "45 seconds", 45.002, -1);
	memset(&r, 0, sizeof(r));
	r.arch = "x86_64";
	r.kernel = "/boot/vmlinuz";
	r.kernel_release = "6.1.0-57-amd64";
	r.accel = "tcg";
	r.suite = "kselftest";
	r.complete = false;
	r.error = "kernel crash: Kernel panic - not syncing: x";
	r.wall_s = 3.5;
	r.tests = tests;
	r.ntests = 6;
	r.crash = &sample_crash;
	return r;
}

static void t_json(void)
{
	struct report_run r = sample();
	char *s = to_string(report_json_fprint, &r);
	struct json doc;
	int ret;

	check_str(
		s,
		"{\n"
		"  \"tapboot_version\": \"" TAPBOOT_VERSION "\",\n"
		"  \"arch\": \"x86_64\",\n"
		"  \"kernel\": \"/boot/vmlinuz\",\n"
		"  \"kernel_release\": \"6.1.0-57-amd64\",\n"
		"  \"accel\": \"tcg\",\n"
		"  \"complete\": false,\n"
		"  \"error\": \"kernel crash: Kernel panic - not syncing: x\",\n"
		"  \"wall_s\": 3.500,\n"
		"  \"crash\": {\"title\": \"kernel panic: x\", \"ids\": "
		"[\"Kernel_panic-not_syncing:x\"]},\n"
		"  \"tests\": [\n"
		"    {\"name\": \"proc/fd-001-lookup\", \"result\": \"pass\", \"duration_s\": "
		"0.012, "
		"\"reason\": null, \"exit_code\": 0},\n"
		"    {\"name\": \"net/socket\", \"result\": \"fail\", \"duration_s\": 0.231, "
		"\"reason\": \"exit 1\", \"exit_code\": 1, \"subtests\": [\n"
		"      {\"name\": \"socket(AF_INET)\", \"result\": \"pass\", \"duration_s\": null, "
		"\"reason\": null, \"exit_code\": null},\n"
		"      {\"name\": \"socket(AF_INET6)\", \"result\": \"fail\", \"duration_s\": "
		"null, "
		"\"reason\": \"EAFNOSUPPORT\", \"exit_code\": null}\n"
		"    ]},\n"
		"    {\"name\": \"mm/madv\", \"result\": \"skip\", \"duration_s\": 0.003, "
		"\"reason\": \"needs THP\", \"exit_code\": 4},\n"
		"    {\"name\": \"sysrq\", \"result\": \"crash\", \"duration_s\": null, "
		"\"reason\": \"Kernel panic - not syncing: x\", \"exit_code\": null},\n"
		"    {\"name\": \"later\", \"result\": \"missing\", \"duration_s\": null, "
		"\"reason\": \"not run: the kernel crashed\", \"exit_code\": null},\n"
		"    {\"name\": \"timers:slow\", \"result\": \"timeout\", \"duration_s\": 45.002, "
		"\"reason\": \"45 seconds\", \"exit_code\": null}\n"
		"  ],\n"
		"  \"summary\": {\"pass\": 1, \"fail\": 1, \"skip\": 1, \"xfail\": 0, \"xpass\": "
		"0, "
		"\"timeout\": 1, \"crash\": 1, \"missing\": 1, \"interrupted\": 0, \"total\": 6}\n"
		"}\n");
	/* and our own reader takes it back */
	/* check_int evaluates its arguments twice: no side effects inside it */
	ret = s ? json_parse(&doc, s, strlen(s), "x") : -1;
	if (check_int(ret, ==, 0)) {
		const struct json *t = json_get(&doc, "tests");

		check_int(t->n, ==, 6);
		check_str(json_get_str(&t->items[1].items[5].items[1], "reason"), "EAFNOSUPPORT");
		json_release(&doc);
	}
	free(s);
}

static void t_json_escaping(void)
{
	struct tap_test t = mk("a\"b\\c\n\t\x01\x7f \xc3\xa9 \xff \xed\xa0\x80 \xe2\x82",
			       VERDICT_PASS, NULL, -1, -1);
	struct report_run r;
	char *s;

	memset(&r, 0, sizeof(r));
	r.tests = &t;
	r.ntests = 1;
	r.complete = true;
	r.wall_s = -1;
	s = to_string(report_json_fprint, &r);
	check(s && strstr(s, "\"name\": \"a\\\"b\\\\c\\n\\t\\u0001\x7f \xc3\xa9 \\ufffd "
			     "\\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\""));
	free(s);
}

static void t_tap(void)
{
	struct report_run r = sample();
	char *s = to_string(report_tap_fprint, &r);

	check_str(s, "TAP version 13\n"
		     "1..6\n"
		     "ok 1 proc/fd-001-lookup\n"
		     "  ---\n  duration_s: 0.012\n  exit: 0\n  ...\n"
		     "    # Subtest: net/socket\n"
		     "    1..2\n"
		     "    ok 1 socket(AF_INET)\n"
		     "    not ok 2 socket(AF_INET6)\n"
		     "      ---\n      reason: \"EAFNOSUPPORT\"\n      ...\n"
		     "not ok 2 net/socket\n"
		     "  ---\n  duration_s: 0.231\n  exit: 1\n  reason: \"exit 1\"\n  ...\n"
		     "ok 3 mm/madv # SKIP needs THP\n"
		     "  ---\n  duration_s: 0.003\n  exit: 4\n  reason: \"needs THP\"\n  ...\n"
		     "not ok 4 sysrq\n"
		     "  ---\n  result: crash\n  reason: \"Kernel panic - not syncing: x\"\n  ...\n"
		     "not ok 5 later\n"
		     "  ---\n  result: missing\n  reason: \"not run: the kernel crashed\"\n  ...\n"
		     "not ok 6 timers:slow # TIMEOUT 45 seconds\n"
		     "  ---\n  duration_s: 45.002\n  reason: \"45 seconds\"\n  ...\n"
		     "# incomplete: kernel crash: Kernel panic - not syncing: x\n");
	/* the parser reads it back to the same verdicts, crash and missing included */
	if (s) {
		struct tap_parser *p = tap_parser_new(NULL, NULL);
		size_t n;
		const struct tap_test *t;

		tap_parser_feed(p, s, strlen(s));
		tap_parser_finish(p, NULL);
		t = tap_parser_tests(p, &n);
		if (check_int(n, ==, 6)) {
			for (size_t i = 0; i < 6; i++)
				check_str(verdict_name(t[i].verdict),
					  verdict_name(tests[i].verdict));
			check_int(t[1].nsub, ==, 2);
			check_str(t[1].subtests[1].reason, "EAFNOSUPPORT");
		}
		tap_parser_free(p);
	}
	free(s);
}

/* xmllint's status: 0 when the document validates against the schema; its messages go to
 * the test log as TAP comments. */
static int xmllint_validate(const char *path)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "xmllint --noout --schema '%s/tests/fixtures/junit/junit-10.xsd' '%s' 2>&1 | "
		 "sed 's/^/# xmllint: /'; exit $(xmllint --noout --schema "
		 "'%s/tests/fixtures/junit/junit-10.xsd' '%s' >/dev/null 2>&1; echo $?)",
		 TAPBOOT_SRCDIR, path, TAPBOOT_SRCDIR, path);
	return system(cmd);
}

static void t_junit(void)
{
	struct report_run r = sample();
	char *path = NULL;
	char *s;
	int ret;

	if (system("command -v xmllint >/dev/null 2>&1") != 0) {
		check(!"xmllint not found: install libxml2-utils (scripts/install-deps.sh check)");
		return;
	}
	path = strdup(test_write_file("junit/junit.xml", "", 0, 0));
	ret = report_junit_write(path, &r);
	check_int(ret, ==, 0);
	ret = xmllint_validate(path);
	check_int(ret, ==, 0);
	s = test_read_file(path, NULL);
	check(s && strstr(s, "<testsuites name=\"kselftest\" tests=\"6\" failures=\"1\" "
			     "errors=\"3\" time=\"45.248\">"));
	check(s && strstr(s, "<testsuite name=\"proc\" tests=\"1\" failures=\"0\" errors=\"0\" "
			     "skipped=\"0\" time=\"0.012\" id=\"0\">"));
	check(s &&
	      strstr(s, "<testcase name=\"socket\" classname=\"kselftest.net\" "
			"time=\"0.231\">\n"
			"      <failure message=\"exit 1\" type=\"fail\">socket(AF_INET6): fail: "
			"EAFNOSUPPORT\n</failure>\n"
			"      <system-out>ok 1 socket(AF_INET)\nnot ok 2 socket(AF_INET6)\n"
			"</system-out>"));
	check(s && strstr(s, "<skipped message=\"needs THP\"/>"));
	check(s && strstr(s, "<error message=\"Kernel panic - not syncing: x; kernel: kernel panic: x "
			  "[Kernel_panic-not_syncing:x]\" type=\"crash\">"));
	check(s && strstr(s, "<error message=\"not run: the kernel crashed\" type=\"missing\">"));
	check(s && strstr(s, "<error message=\"45 seconds\" type=\"timeout\">"));
	/* tests without a collection share the suite named after r->suite */
	check(s && strstr(s, "<testsuite name=\"kselftest\" tests=\"2\""));
	free(s);

	/* markup, control characters and invalid UTF-8 in names, reasons and logs */
	{
		struct tap_test t =
			mk("x<&>\"'\x01y", VERDICT_FAIL, "bad \x02\xff reason\n2", 1, 1);

		t.log = (char *)"log \x1b[31mred\x1b[0m \xef\xbf\xbe <tag> & \xc3\n";
		t.log_len = strlen(t.log);
		r.tests = &t;
		r.ntests = 1;
		ret = report_junit_write(path, &r);
		check_int(ret, ==, 0);
		ret = xmllint_validate(path);
		check_int(ret, ==, 0);
		s = test_read_file(path, NULL);
		check(s && strstr(s, "<testcase name=\"x&lt;&amp;&gt;&quot;'y\""));
		check(s && strstr(s, "message=\"bad \xef\xbf\xbd reason&#10;2\""));
		check(s && strstr(s, "<system-out>log [31mred[0m  &lt;tag&gt; &amp; \xef\xbf\xbd\n"
				     "</system-out>"));
		free(s);
	}
	free(path);
}

static void t_junit_fixtures(void)
{
	static const char *const logs[] = {"kselftest-runner.log",    "kunit-ktap.log",
					   "tapboot-interleaved.log", "tapboot-panic.log",
					   "kunit-oops-cut.log",      "real-x86_64-run-panic.log",
					   "real-x86_64-no-root.log", "init-host-console.log"};

	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		char p[512];
		size_t len, n;
		char *log;
		struct tap_parser *tp;
		struct report_run r;
		char *out;
		int ret;

		snprintf(p, sizeof(p), "%s/tests/fixtures/tap/%s", TAPBOOT_SRCDIR, logs[i]);
		log = test_read_file(p, &len);
		if (!check(log != NULL))
			continue;
		tp = tap_parser_new(NULL, NULL);
		tap_parser_feed(tp, log, len);
		tap_parser_finish(tp, NULL);
		memset(&r, 0, sizeof(r));
		r.tests = tap_parser_tests(tp, &n);
		r.ntests = n;
		r.summary = tap_parser_summary(tp);
		r.complete = r.summary->complete;
		r.wall_s = -1;
		out = strdup(test_write_file("junit/fixture.xml", "", 0, 0));
		ret = report_junit_write(out, &r);
		check_int(ret, ==, 0);
		ret = xmllint_validate(out);
		if (!check_int(ret, ==, 0))
			printf("# %s\n", logs[i]);
		free(out);
		tap_parser_free(tp);
		free(log);
	}
}

static void t_summary(void)
{
	struct report_run r = sample();
	char *s = to_string(summary_fn, &r);

	check_str(s, "pass       0.012s  proc/fd-001-lookup\n"
		     "fail       0.231s  net/socket          exit 1\n"
		     "skip       0.003s  mm/madv             needs THP\n"
		     "crash           -  sysrq               Kernel panic - not syncing: x\n"
		     "missing         -  later               not run: the kernel crashed\n"
		     "timeout   45.002s  timers:slow         45 seconds\n"
		     "6 tests: 1 pass, 1 fail, 1 skip, 1 timeout, 1 crash, 1 missing\n"
		     "incomplete: kernel crash: Kernel panic - not syncing: x\n");
	free(s);

	/* a crash in a run that completed anyway is still said */
	{
		struct tap_summary sum;

		memset(&sum, 0, sizeof(sum));
		sum.crashed = true;
		sum.crash_line = (char *)"Oops: 0000 [#1] SMP";
		r.complete = true;
		r.summary = &sum;
		r.ntests = 1;
		s = to_string(summary_fn, &r);
		check_str(s, "pass       0.012s  proc/fd-001-lookup\n"
			     "1 tests: 1 pass, 0 fail, 0 skip\n"
			     "kernel crash seen: Oops: 0000 [#1] SMP\n");
		free(s);
	}
	/* durations as printf's %.3f prints them, whichever way they are formatted */
	{
		static const double d[] = {0, 0.0005, 1.23456, 1234.5, 7.0009999, 1e16, 99.9995};
		struct tap_test t[ARRAY_SIZE(d)];
		struct strbuf want = STRBUF_INIT;

		memset(t, 0, sizeof(t));
		for (size_t i = 0; i < ARRAY_SIZE(d); i++) {
			char dur[64];

			t[i].name = (char *)"n\tx";
			t[i].duration_s = d[i];
			snprintf(dur, sizeof(dur), "%.3fs", d[i]);
			strbuf_addf(&want, "pass    %9s  n x\n", dur);
		}
		strbuf_addf(&want, "%zu tests: %zu pass, 0 fail, 0 skip\n", ARRAY_SIZE(d),
			    ARRAY_SIZE(d));
		r.tests = t;
		r.ntests = ARRAY_SIZE(d);
		r.summary = NULL;
		r.complete = true;
		s = to_string(summary_fn, &r);
		check_str(s, want.buf);
		free(s);
		strbuf_release(&want);
	}
}

static int load_missing(void *arg)
{
	struct strlist none;
	int ret;

	(void)arg;
	strlist_init(&none);
	ret = report_expect_skip_load("/nonexistent/expect", &none);
	strlist_release(&none);
	return ret;
}

static void t_exit_status_policy(void)
{
	struct report_run r = sample();
	struct report_policy pol = {REPORT_SKIP_OK, NULL};
	struct strlist expect, off;
	const char *file;
	int ret;

	ret = report_exit_status(&r);
	check_int(ret, ==, 3);
	r.complete = true;
	ret = report_exit_status(&r);
	check_int(ret, ==, 1);
	r.ntests = 1;
	ret = report_exit_status(&r);
	check_int(ret, ==, 0);

	/* only the skip left: ok by default, fails with --skip=fail */
	r.tests = &tests[2];
	ret = report_exit_status_policy(&r, &pol, NULL);
	check_int(ret, ==, 0);
	pol.skip = REPORT_SKIP_FAIL;
	strlist_init(&off);
	ret = report_exit_status_policy(&r, &pol, &off);
	check_int(ret, ==, 1);
	if (check_int(off.n, ==, 1))
		check_str(off.v[0], "mm/madv: needs THP");
	strlist_release(&off);

	/* --expect-skip: listed (globs) may skip, others fail the run */
	file = test_write_file("expect-skip", "# known skips\n\n  mm/*  \nnet/socket\n", 36, 0);
	strlist_init(&expect);
	ret = report_expect_skip_load(file, &expect);
	check_int(ret, ==, 0);
	if (check_int(expect.n, ==, 2)) {
		check_str(expect.v[0], "mm/*");
		check_str(expect.v[1], "net/socket");
	}
	pol.skip = REPORT_SKIP_OK;
	pol.expect_skip = &expect;
	ret = report_exit_status_policy(&r, &pol, NULL);
	check_int(ret, ==, 0);
	tests[2].name = (char *)"fs/overlay";
	ret = report_exit_status_policy(&r, &pol, NULL);
	check_int(ret, ==, 1);
	tests[2].name = (char *)"mm/madv";
	/* incomplete beats everything */
	r.complete = false;
	ret = report_exit_status_policy(&r, &pol, NULL);
	check_int(ret, ==, 3);
	strlist_release(&expect);

	{
		char *err = test_capture_stderr(load_missing, NULL, &ret);

		check_int(ret, ==, -1);
		check_str(
			err,
			"tapboot: cannot open '/nonexistent/expect': No such file or directory\n");
		free(err);
	}
}

struct write_args {
	const char *path;
	const struct report_run *r;
};

static int write_json(void *arg)
{
	struct write_args *a = arg;

	return report_json_write(a->path, a->r);
}

static void t_atomic_write(void)
{
	struct report_run r = sample();
	char *dir = strdup(test_write_file("out/placeholder", "", 0, 0));
	char *path, *tmp;
	struct stat st;
	int ret;

	*strrchr(dir, '/') = '\0';
	path = malloc(strlen(dir) + 32);
	tmp = malloc(strlen(dir) + 32);
	sprintf(path, "%s/results.json", dir);
	sprintf(tmp, "%s/results.json.tmp", dir);
	ret = report_json_write(path, &r);
	check_int(ret, ==, 0);
	check_int(stat(path, &st), ==, 0);
	check(st.st_size > 100);
	check_int(stat(tmp, &st), ==, -1);
	ret = report_tap_write(path, &r);
	check_int(ret, ==, 0);
	ret = report_kcidb_write(path, &r);
	check_int(ret, ==, 0);
	unlink(path);
	sprintf(path, "%s/nodir/results.json", dir);
	{
		struct write_args a = {path, &r};
		char *err = test_capture_stderr(write_json, &a, &ret);
		char *want = malloc(strlen(dir) + 128);

		check_int(ret, ==, -1);
		sprintf(want,
			"tapboot: cannot create '%s/nodir/results.json.tmp': No such file or "
			"directory\n",
			dir);
		check_str(err, want);
		free(want);
		free(err);
	}
	free(path);
	free(tmp);
	free(dir);
}

int main(void)
{
	error_set_prog("tapboot");
	TEST(t_json, "results.json: exact document, subtests nested, read back");
	TEST(t_json_escaping, "results.json: escapes, control characters, invalid UTF-8");
	TEST(t_tap, "results.tap: clean TAP 13, subtests indented, reparsed to the same verdicts");
	TEST(t_junit, "junit.xml validates against junit-10.xsd; escaping");
	TEST(t_junit_fixtures, "junit.xml of every fixture console validates");
	TEST(t_summary, "summary table and totals");
	TEST(t_exit_status_policy, "exit status, --skip=fail, --expect-skip");
	TEST(t_atomic_write, "writers write FILE.tmp and rename; errors reported");
	return test_done();
}
