// SPDX-License-Identifier: GPL-2.0-only
/* test_results_text.c: results/'s one text for why a run did not complete (a stream, a VM of
 * tapboot run, a LAVA job) and the one filler of the report's run record. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "harness.h"
#include "results.h"

static void t_stream(void)
{
	struct tap_summary s;
	char *why;

	memset(&s, 0, sizeof(s));
	s.complete = true;
	check(results_incomplete_text(&s, NULL) == NULL);
	s.complete = false;
	s.planned = -1;
	why = results_incomplete_text(&s, NULL);
	check_str(why, "no TAP plan found");
	free(why);
	s.planned = 3;
	why = results_incomplete_text(&s, NULL);
	check_str(why, "the stream ended before every planned test reported");
	free(why);
	s.saw_begin = true;
	why = results_incomplete_text(&s, NULL);
	check_str(why, "no tapboot end line with the run's nonce");
	free(why);
	s.bailed_out = true;
	why = results_incomplete_text(&s, NULL);
	check_str(why, "bailed out: no reason");
	free(why);
	s.crash_line = (char *)"Kernel panic - not syncing: x";
	why = results_incomplete_reason(&s);
	check_str(why, "kernel crash: Kernel panic - not syncing: x");
	free(why);
}

static void t_vm(void)
{
	struct results_why w = {.origin = RESULTS_VM, .qemu = "qemu-system-x86_64"};
	struct tap_summary s;
	char *why;

	memset(&s, 0, sizeof(s));
	why = results_incomplete_text(&s, &w);
	check_str(why, "QEMU could not be started ('qemu-system-x86_64')");
	free(why);
	w.spawned = true;
	why = results_incomplete_text(&s, &w);
	check_str(why, "the guest never reached tapboot's init (QEMU exited)");
	free(why);
	w.qemu_failed = true;
	w.qemu_last = "qemu-system-x86_64: -m 99T: cannot allocate";
	why = results_incomplete_text(&s, &w);
	check_str(why, "the guest never reached tapboot's init (QEMU exited with an error: "
		       "qemu-system-x86_64: -m 99T: cannot allocate)");
	free(why);
	w.begun = true;
	why = results_incomplete_text(&s, &w);
	check_str(why, "the guest stopped before the end of the run (no end marker with this run's "
		       "nonce)");
	free(why);
	w.cut = "timeout: no output for 60 s";
	why = results_incomplete_text(&s, &w);
	check_str(why, "timeout: no output for 60 s");
	free(why);
	s.crashed = true;
	s.crash_line = (char *)"Kernel panic - not syncing: x";
	why = results_incomplete_text(&s, &w);
	check_str(why, "kernel crashed: Kernel panic - not syncing: x");
	free(why);
	s.complete = true;
	check(results_incomplete_text(&s, &w) == NULL);
}

static void t_lava(void)
{
	struct results_why w = {.origin = RESULTS_LAVA, .log_truncated = true};
	struct tap_summary s;
	char *why;

	memset(&s, 0, sizeof(s));
	why = results_incomplete_text(NULL, &w);
	check_str(why, "the LAVA log ends before the job's result (truncated)");
	free(why);
	w.log_truncated = false;
	w.error_msg = "auto-login timed out";
	why = results_incomplete_text(NULL, &w);
	check_str(why, "the job never reached tapboot's init (no '# tapboot: begin' on the "
		       "console): auto-login timed out");
	free(why);
	w.saw_begin = true;
	w.error_type = "Infrastructure";
	why = results_incomplete_text(NULL, &w);
	check_str(why, "LAVA: Infrastructure error: auto-login timed out");
	free(why);
	w.error_msg = NULL;
	check(results_incomplete_text(NULL, &w) == NULL);
	/* nothing from LAVA: the parser's summary says */
	why = results_incomplete_text(&s, &w);
	check_str(why, "no tapboot end line with the run's nonce");
	free(why);
	s.crash_line = (char *)"Kernel panic - not syncing: x";
	why = results_incomplete_text(&s, &w);
	check_str(why, "Kernel panic - not syncing: x");
	free(why);
	s.complete = true;
	check(results_incomplete_text(&s, &w) == NULL);
}

static void t_fill(void)
{
	struct tap_test t[2];
	struct tap_summary s;
	struct report_run r;

	memset(t, 0, sizeof(t));
	memset(&s, 0, sizeof(s));
	s.complete = true;
	s.kernel = (char *)"6.1.0-13-amd64";
	memset(&r, 0xff, sizeof(r));
	report_run_fill(&r, t, 2, &s, "kselftest", NULL);
	check(r.tests == t);
	check_int(r.ntests, ==, 2);
	check(r.summary == &s);
	check_str(r.kernel_release, "6.1.0-13-amd64");
	check_str(r.suite, "kselftest");
	check(r.complete);
	check(r.error == NULL);
	check(r.wall_s < 0);
	check(r.arch == NULL && r.kernel == NULL && r.accel == NULL && r.crash == NULL);
	check(r.kcidb_origin == NULL && r.run_id == NULL && r.machine == NULL);
	check(r.start_time == 0);
	report_run_fill(&r, t, 2, &s, "tapboot", "VM 2: the guest stopped");
	check(!r.complete);
	check_str(r.error, "VM 2: the guest stopped");
	s.complete = false;
	report_run_fill(&r, t, 2, &s, "tapboot", NULL);
	check(!r.complete);
}

int main(void)
{
	TEST(t_stream, "a stream: crash, bail out, no end line, no plan, a short plan");
	TEST(t_vm, "a VM: crash, cut, not started, before the init, stopped");
	TEST(t_lava, "a LAVA job: truncated, never booted, LAVA's error, then the parser's");
	TEST(t_fill, "the report's run record: results, suite, error, complete");
	return test_done();
}
