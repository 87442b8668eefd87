// SPDX-License-Identifier: GPL-2.0-only
/* test_report_kcidb.c: kcidb.json (KCIDB v5.3): checkout, build and tests, ids per run, origin,
 * paths in the schema's charset, statuses, start_time, environment, misc, crash title and excerpt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash_sig.h"
#include "error.h"
#include "harness.h"
#include "json_read.h"
#include "report.h"
#include "tap_parser.h"

static char *to_string(const struct report_run *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		return NULL;
	if (report_kcidb_fprint(fp, r) < 0) {
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	return buf;
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
static struct tap_test tests[7];
static struct tap_summary sum;

static struct report_run sample(void)
{
	struct report_run r;

	subs[0] = mk("socket(AF_INET)", VERDICT_PASS, NULL, -1, -1);
	subs[1] = mk("len=16, mode+x", VERDICT_FAIL, "EAFNOSUPPORT", -1, -1);
	tests[0] = mk("proc/fd-001-lookup", VERDICT_PASS, NULL, 0.012, 0);
	tests[1] = mk("net/socket", VERDICT_FAIL, "exit 1", 0.231, 1);
	tests[1].subtests = subs;
	tests[1].nsub = 2;
	tests[2] = mk("mm/madv", VERDICT_SKIP, "needs THP", 0.003, 4);
	tests[3] = mk("sysrq", VERDICT_CRASH, "Kernel panic - not syncing: x", -1, -1);
	tests[3].log = (char *)"begin\n[ 1.0] Kernel panic - not syncing: x\n";
	tests[3].log_len = strlen(tests[3].log);
	tests[4] = mk("later", VERDICT_MISSING, "not run: the kernel crashed", -1, -1);
	tests[5] = mk("timers:slow", VERDICT_TIMEOUT, "45 seconds", 45.002, -1);
	tests[6] = mk("selftests: a b:: ..", VERDICT_XFAIL, NULL, -1, 2);
	memset(&sum, 0, sizeof(sum));
	sum.crashed = true;
	sum.crash_line = (char *)"Kernel panic - not syncing: x";
	memset(&r, 0, sizeof(r));
	r.arch = "x86_64";
	r.kernel = "/boot/vmlinuz";
	r.kernel_release = "6.1.0-57-amd64";
	r.accel = "tcg";
	r.machine = "pc";
	r.suite = "kselftest";
	r.error = "kernel crash: Kernel panic - not syncing: x";
	r.wall_s = 3.5;
	r.tests = tests;
	r.ntests = 7;
	r.summary = &sum;
	r.run_id = r.nonce = "0123456789abcdef0123456789abcdef";
	r.start_time = 1796405629.25; /* 2026-12-04T17:33:49.250Z */
	r.reproduce = "reproduce.sh";
	return r;
}

#define RUN "tapboot:0123456789abcdef0123456789abcdef"

static void t_objects(void)
{
	struct report_run r = sample();
	char *s = to_string(&r);
	struct json doc;

	check(s &&
	      !strncmp(s, "{\"version\": {\"major\": 5, \"minor\": 3},\n \"checkouts\": [\n", 54));
	check(s && strstr(s, "{\"id\": \"" RUN ":checkout\", \"origin\": \"tapboot\", "
			     "\"start_time\": \"2026-12-04T17:33:49.250Z\""));
	check(s && strstr(s, "{\"id\": \"" RUN
			     ":build\", \"origin\": \"tapboot\", \"checkout_id\": \"" RUN
			     ":checkout\", \"architecture\": \"x86_64\", \"status\": \"PASS\""));
	check(s &&
	      strstr(s, "{\"id\": \"" RUN ":1:kselftest.proc.fd-001-lookup\", \"build_id\": \"" RUN
			":build\", \"origin\": \"tapboot\", \"path\": "
			"\"kselftest.proc.fd-001-lookup\", "
			"\"status\": \"PASS\", \"duration\": 0.012, \"start_time\": "
			"\"2026-12-04T17:33:49.250Z\", \"environment\": {\"comment\": \"QEMU "
			"x86_64 -M pc, "
			"tcg\", \"misc\": {\"platform\": \"qemu\", \"arch\": \"x86_64\", "
			"\"machine\": \"pc\", "
			"\"accel\": \"tcg\"}}, \"misc\": {\"verdict\": \"pass\", \"name\": "
			"\"proc/fd-001-lookup\", \"exit_code\": 0, \"nonce\": "
			"\"0123456789abcdef0123456789abcdef\", \"reproduce\": \"reproduce.sh\"}}"));
	/* paths: only [A-Za-z0-9_-] inside components, no empty component */
	check(s &&
	      strstr(s, "\"path\": \"kselftest.net.socket.socket_AF_INET\", \"status\": \"PASS\""));
	check(s &&
	      strstr(s, "\"path\": \"kselftest.net.socket.len_16_mode_x\", \"status\": \"FAIL\""));
	check(s && strstr(s, "\"path\": \"kselftest.a_b\", \"status\": \"PASS\""));
	check(s && strstr(s, "\"path\": \"kselftest.mm.madv\", \"status\": \"SKIP\""));
	check(s && strstr(s, "\"path\": \"kselftest.later\", \"status\": \"MISS\""));
	check(s && strstr(s, "\"path\": \"kselftest.timers.slow\", \"status\": \"ERROR\""));
	/* a crash is the kernel's fault: FAIL, with the crash line as title and the log */
	check(s && strstr(s, "\"path\": \"kselftest.sysrq\", \"status\": \"FAIL\""));
	check(s && strstr(s, "\"comment\": \"Kernel panic - not syncing: x\", \"log_excerpt\": "
			     "\"begin\\n[ 1.0] Kernel panic - not syncing: x\\n\""));
	/* valid JSON: 1 checkout, 1 build, 9 tests (7 + 2 subtests) */
	if (s && check_int(json_parse(&doc, s, strlen(s), "kcidb"), ==, 0)) {
		check_int(json_get(&doc, "checkouts")->n, ==, 1);
		check_int(json_get(&doc, "builds")->n, ==, 1);
		check_int(json_get(&doc, "tests")->n, ==, 9);
		json_release(&doc);
	}
	free(s);
}

static void t_origin_and_ids(void)
{
	struct report_run r = sample();
	char *a, *b;

	r.kcidb_origin = "my_lab";
	a = to_string(&r);
	check(a && strstr(a, "\"id\": \"my_lab:0123456789abcdef0123456789abcdef:build\", "
			     "\"origin\": \"my_lab\""));
	check(a && !strstr(a, "\"tapboot:"));
	free(a);
	/* no run id (tapboot parse of a foreign log): a random one, different every time */
	r.run_id = NULL;
	r.kcidb_origin = NULL;
	a = to_string(&r);
	b = to_string(&r);
	check(a && b && strcmp(a, b) != 0);
	check(a && strstr(a, "\"id\": \"tapboot:") &&
	      !strstr(a, "0123456789abcdef0123456789abcdef:"));
	free(a);
	free(b);
	check(report_kcidb_origin_ok("tapboot"));
	check(report_kcidb_origin_ok("lab_2"));
	check(!report_kcidb_origin_ok(""));
	check(!report_kcidb_origin_ok("Lab"));
	check(!report_kcidb_origin_ok("my-lab"));
	check(!report_kcidb_origin_ok(NULL));
}

static void t_crash_sig(void)
{
	struct report_run r = sample();
	char *ids[] = {(char *)"sysrq_crash", (char *)"panic:x"};
	struct crash_sig c = {(char *)"Kernel panic: sysrq triggered crash", ids, 2,
			      (char *)"Call Trace:\n sysrq_handle_crash\x01\n"};
	char *s, *big;

	r.crash = &c;
	r.log_url = "https://lava.example.org/scheduler/job/42";
	s = to_string(&r);
	check(s && strstr(s, "\"log_url\": \"https://lava.example.org/scheduler/job/42\""));
	check(s &&
	      strstr(s, "\"comment\": \"Kernel panic: sysrq triggered crash\", \"log_excerpt\": "
			"\"Call Trace:\\n sysrq_handle_crash\\u0001\\n\""));
	check(s && strstr(s, "\"crash_ids\": [\"sysrq_crash\", \"panic:x\"]"));
	free(s);
	/* the excerpt keeps the last 16384 bytes, whole UTF-8 sequences, no NUL */
	big = malloc(20001);
	if (!check(big != NULL))
		return;
	memset(big, 'a', 20000);
	memcpy(big + 20000 - 16385, "\xc3\xa9", 2); /* 'é' straddling the cut */
	big[19990] = '\0';
	big[20000] = '\0';
	tests[3].log = big;
	tests[3].log_len = 20000;
	r.crash = NULL;
	s = to_string(&r);
	if (check(s != NULL)) {
		const char *e = strstr(s, "\"log_excerpt\": \"");

		if (check(e != NULL)) {
			const char *end = strchr(e + 16, '"');

			check_int(end - (e + 16), ==,
				  16383 - 1); /* the é's tail and the NUL gone */
			check(e[16] == 'a');
		}
	}
	free(s);
	free(big);
}

static void t_no_crash(void)
{
	struct report_run r = sample();
	char *s;

	memset(&sum, 0, sizeof(sum));
	tests[3].verdict = VERDICT_FAIL;
	s = to_string(&r);
	check(s && !strstr(s, "log_excerpt"));
	check(s && !strstr(s, "\"comment\": \"Kernel"));
	free(s);
	/* a crash before any test: the first test it kept from running gets it */
	sum.crashed = true;
	sum.crash_line = (char *)"Kernel panic - not syncing: VFS";
	s = to_string(&r);
	check(s && strstr(s, "\"path\": \"kselftest.later\", \"status\": \"MISS\", \"start_time\": "
			     "\"2026-12-04T17:33:49.250Z\", \"environment\""));
	check(s && strstr(s, "\"comment\": \"Kernel panic - not syncing: VFS\""));
	free(s);
}

int main(void)
{
	error_set_prog("tapboot");
	TEST(t_objects, "kcidb.json v5.3: checkout, build, tests; paths, statuses, fields");
	TEST(t_origin_and_ids, "origin in every id; ids unique per run; origin charset");
	TEST(t_crash_sig, "crash signature: title, ids, excerpt capped at 16384 bytes");
	TEST(t_no_crash, "no crash: no excerpt; a crash before any test goes to the first missed");
	return test_done();
}
