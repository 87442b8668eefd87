// SPDX-License-Identifier: GPL-2.0-only
/* test_results_model.c: the results model (results/results.c) that run, parse and compare
 * share: shards merged in plan order with a crash in one and a VM that never started, the
 * counts, the incomplete-run reason, the exit status, results.json read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "harness.h"
#include "report.h"
#include "results.h"
#include "tap_parser.h"

static struct tap_parser *parse(const char *nonce, const char *console)
{
	struct tap_parser *p = tap_parser_new(nonce, NULL);

	tap_parser_feed(p, console, strlen(console));
	tap_parser_finish(p, NULL);
	return p;
}

/* Shard 1 ran plan tests 0 and 2 and completed; shard 2 ran 1 and 3 and its kernel panicked
 * during 1; shard 3 (test 4) never started. */
static const char shard1[] = "# tapboot: begin nonce=n1 tests=2 kernel=6.1.0-test\n"
			     "TAP version 13\n1..2\n"
			     "# tapboot: run 1 alpha\nok 1 alpha\n"
			     "# tapboot: run 2 gamma\nnot ok 2 gamma\n  ---\n  exit: 1\n  ...\n"
			     "# tapboot: end nonce=n1 pass=1 fail=1\n";
static const char shard2[] = "# tapboot: begin nonce=n1 tests=2 kernel=6.1.0-test\n"
			     "TAP version 13\n1..2\n"
			     "# tapboot: run 1 beta\n"
			     "[    3.000000] Kernel panic - not syncing: sysrq triggered crash\n";

static const char *const plan_names[] = {"alpha", "beta", "gamma", "delta", "epsilon"};

struct merged {
	struct tap_parser *p1, *p2;
	struct results res;
};

static void merge(struct merged *m)
{
	static const size_t idx1[] = {0, 2}, idx2[] = {1, 3}, idx3[] = {4};
	struct results_shard sh[3];

	m->p1 = parse("n1", shard1);
	m->p2 = parse("n1", shard2);
	memset(sh, 0, sizeof(sh));
	sh[0].sum = tap_parser_summary(m->p1);
	sh[0].tests = tap_parser_tests(m->p1, &sh[0].ntests);
	sh[0].plan_idx = idx1;
	sh[0].nplan = 2;
	sh[1].sum = tap_parser_summary(m->p2);
	sh[1].tests = tap_parser_tests(m->p2, &sh[1].ntests);
	sh[1].plan_idx = idx2;
	sh[1].nplan = 2;
	sh[2].plan_idx = idx3;
	sh[2].nplan = 1;
	results_init(&m->res);
	results_merge(&m->res, sh, 3, plan_names, 5);
}

static void unmerge(struct merged *m)
{
	results_release(&m->res);
	tap_parser_free(m->p1);
	tap_parser_free(m->p2);
}

static void t_merge_with_crash(void)
{
	struct merged m;
	static const enum verdict want[] = {VERDICT_PASS, VERDICT_CRASH, VERDICT_FAIL,
					    VERDICT_MISSING, VERDICT_MISSING};

	merge(&m);
	check_int(m.res.ntests, ==, 5);
	for (size_t i = 0; i < 5 && i < m.res.ntests; i++) {
		check_str(m.res.tests[i].name, plan_names[i]);
		check_int(m.res.tests[i].verdict, ==, want[i]);
	}
	check_str(m.res.tests[1].reason, "Kernel panic - not syncing: sysrq triggered crash");
	check_int(m.res.tests[4].duration_s, ==, -1);
	/* one shard crashed: the run did not complete, and the crash line is the run's */
	check(!m.res.sum.complete);
	check(m.res.sum.crashed);
	check_str(m.res.sum.crash_line, "Kernel panic - not syncing: sysrq triggered crash");
	check_str(m.res.sum.kernel, "6.1.0-test");
	check_int(m.res.sum.planned, ==, 4);
	unmerge(&m);
}

/* A VM whose stream completed but whose verdict carries another name than the plan's (a tab
 * the init folded to a blank, issue 41): the planned name is missing, and the run cannot be
 * complete. */
static void t_unmatched_name(void)
{
	static const char console[] = "# tapboot: begin nonce=n1 tests=2 kernel=k\n"
				      "TAP version 13\n1..2\n"
				      "# tapboot: run 1 a b\nok 1 a b\n"
				      "# tapboot: run 2 c\nok 2 c\n"
				      "# tapboot: end nonce=n1 pass=2\n";
	static const char *const names[] = {"a\tb", "c"};
	static const size_t idx[] = {0, 1};
	struct tap_parser *p = parse("n1", console);
	struct results_shard sh = {0};
	struct results res;

	check(tap_parser_summary(p)->complete);
	sh.sum = tap_parser_summary(p);
	sh.tests = tap_parser_tests(p, &sh.ntests);
	sh.plan_idx = idx;
	sh.nplan = 2;
	results_init(&res);
	results_merge(&res, &sh, 1, names, 2);
	check_int(res.ntests, ==, 2);
	check_int(res.tests[0].verdict, ==, VERDICT_MISSING);
	check_int(res.tests[1].verdict, ==, VERDICT_PASS);
	check(!res.sum.complete);
	check_int(res.unmatched, ==, 1);
	check_str(res.first_unmatched, "a\tb");
	results_release(&res);
	tap_parser_free(p);
}

/* Interrupted (tap_parser_interrupted before finish): the running test is interrupted, not
 * crash; the rest missing; a kernel crash still makes crash. */
static void t_interrupted(void)
{
	static const char running[] = "# tapboot: begin nonce=n1 tests=2 kernel=k\n"
				      "TAP version 13\n1..2\n# tapboot: run 1 a\n";
	struct tap_parser *p = tap_parser_new("n1", NULL);
	const struct tap_test *t;
	size_t n;

	tap_parser_feed(p, running, strlen(running));
	tap_parser_interrupted(p);
	tap_parser_finish(p, "interrupted by Interrupt");
	t = tap_parser_tests(p, &n);
	check_int(n, ==, 2);
	if (n == 2) {
		check_int(t[0].verdict, ==, VERDICT_INTERRUPTED);
		check_str(t[0].reason, "interrupted by Interrupt");
		check_int(t[1].verdict, ==, VERDICT_MISSING);
	}
	check_str(verdict_name(VERDICT_INTERRUPTED), "interrupted");
	check_int(verdict_from_name("interrupted"), ==, VERDICT_INTERRUPTED);
	check(verdict_is_failure(VERDICT_INTERRUPTED));
	tap_parser_free(p);
	p = tap_parser_new("n1", NULL);
	tap_parser_feed(p, running, strlen(running));
	tap_parser_feed(p, strstr(shard2, "[    3."), strlen(strstr(shard2, "[    3.")));
	tap_parser_interrupted(p);
	tap_parser_finish(p, "interrupted by Interrupt");
	t = tap_parser_tests(p, &n);
	check(n >= 1 && t[0].verdict == VERDICT_CRASH);
	tap_parser_free(p);
}

static void t_counts(void)
{
	struct merged m;
	unsigned count[VERDICT_COUNT];

	merge(&m);
	check_int(m.res.sum.total, ==, 5);
	check_int(m.res.sum.count[VERDICT_PASS], ==, 1);
	check_int(m.res.sum.count[VERDICT_FAIL], ==, 1);
	check_int(m.res.sum.count[VERDICT_CRASH], ==, 1);
	check_int(m.res.sum.count[VERDICT_MISSING], ==, 2);
	check_int(m.res.sum.count[VERDICT_SKIP], ==, 0);
	check_int(results_count(m.res.tests, 2, count), ==, 2);
	check_int(count[VERDICT_PASS], ==, 1);
	check_int(count[VERDICT_CRASH], ==, 1);
	check_int(count[VERDICT_MISSING], ==, 0);
	unmerge(&m);
}

static void t_exit_status(void)
{
	struct merged m;
	struct report_run rep = {0};
	char skipname[] = "s", skipreason[] = "no device";
	struct tap_test skipped = {.name = skipname, .verdict = VERDICT_SKIP, .reason = skipreason};
	struct report_policy fail_skips = {REPORT_SKIP_FAIL, NULL};
	char *why;

	merge(&m);
	rep.tests = m.res.tests;
	rep.ntests = m.res.ntests;
	rep.complete = m.res.sum.complete;
	rep.summary = &m.res.sum;
	/* a crash makes the run a VM failure even though a test also failed */
	check_int(results_exit_status(&rep, NULL, false), ==, EXIT_VM);
	check_int(results_exit_status(&rep, NULL, true), ==, EXIT_INTERRUPTED);
	why = results_incomplete_reason(&m.res.sum);
	check_str(why, "kernel crash: Kernel panic - not syncing: sysrq triggered crash");
	free(why);
	/* the completed shard alone: its failed test decides */
	rep.ntests = 1;
	rep.complete = true;
	check_int(results_exit_status(&rep, NULL, false), ==, EXIT_PASS);
	rep.tests = &m.res.tests[2];
	check_int(results_exit_status(&rep, NULL, false), ==, EXIT_TESTS_FAILED);
	/* a skip fails the run only under --skip=fail */
	rep.tests = &skipped;
	check_int(results_exit_status(&rep, NULL, false), ==, EXIT_PASS);
	check_int(results_exit_status(&rep, &fail_skips, false), ==, EXIT_TESTS_FAILED);
	check(results_incomplete_reason(tap_parser_summary(m.p1)) == NULL);
	unmerge(&m);
}

static void t_incomplete_reasons(void)
{
	struct tap_parser *p;
	char *why;

	p = parse("n", "# tapboot: begin nonce=n tests=1\n1..1\nok 1 a\n");
	why = results_incomplete_reason(tap_parser_summary(p));
	check_str(why, "no tapboot end line with the run's nonce");
	free(why);
	tap_parser_free(p);
	p = parse(NULL, "1..2\nok 1 a\nBail out! no disk\n");
	why = results_incomplete_reason(tap_parser_summary(p));
	check_str(why, "bailed out: no disk");
	free(why);
	tap_parser_free(p);
	p = parse(NULL, "1..3\nok 1 a\n");
	why = results_incomplete_reason(tap_parser_summary(p));
	check_str(why, "the stream ended before every planned test reported");
	free(why);
	tap_parser_free(p);
}

static void t_json_round_trip(void)
{
	struct merged m;
	struct report_run rep = {0};
	struct results back;
	char *path = malloc(strlen(test_tmpdir()) + 32);

	merge(&m);
	rep.tests = m.res.tests;
	rep.ntests = m.res.ntests;
	rep.complete = m.res.sum.complete;
	rep.summary = &m.res.sum;
	rep.wall_s = -1;
	sprintf(path, "%s/results.json", test_tmpdir());
	check_int(report_json_write(path, &rep), ==, 0);
	results_init(&back);
	check_int(results_load_json(&back, path), ==, 0);
	check_int(back.ntests, ==, 5);
	for (size_t i = 0; i < 5 && i < back.ntests; i++) {
		check_str(back.tests[i].name, m.res.tests[i].name);
		check_int(back.tests[i].verdict, ==, m.res.tests[i].verdict);
	}
	check_str(back.tests[1].reason, "Kernel panic - not syncing: sysrq triggered crash");
	check_int(back.sum.count[VERDICT_MISSING], ==, 2);
	check_int(back.sum.total, ==, 5);
	check(!back.sum.complete);
	results_release(&back);
	unmerge(&m);
	free(path);
}

int main(void)
{
	TEST(t_merge_with_crash, "shards merged in plan order: a crash in one, one never started");
	TEST(t_unmatched_name, "a completed VM without a planned name's verdict: not complete");
	TEST(t_interrupted, "interrupted: the running test, not crash; a kernel crash stays crash");
	TEST(t_counts, "counts by verdict come from the merged tests");
	TEST(t_exit_status, "exit status: crash 3, interrupted 130, fail 1, skip policy");
	TEST(t_incomplete_reasons, "why a stream did not complete");
	TEST(t_json_round_trip, "results.json read back into the same model (compare)");
	return test_done();
}
