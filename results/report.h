/* SPDX-License-Identifier: GPL-2.0-only */
/* report.h: result writers (results.json, results.tap, junit.xml, kcidb.json) and the summary.
 * Each writer writes FILE.tmp and renames it into place, so no half-written report is left. */
#ifndef TAPBOOT_REPORT_H
#define TAPBOOT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "strlist.h"
#include "tap_parser.h"

struct crash_sig; /* crash_sig.h */

struct report_run {
	const char *arch; /* may be NULL (tapboot parse) */
	const char *kernel; /* the kernel image path or name, may be NULL */
	const char *kernel_release; /* uname -r from the guest, may be NULL */
	const char *accel; /* "tcg", "kvm", NULL */
	const char *suite; /* collection name prefix for junit/kcidb ("tapboot", "kselftest") */
	bool complete;
	const char *error; /* why the run did not complete (crash line, hang, QEMU error) or NULL */
	double wall_s; /* -1 when unknown */
	const struct tap_test *tests;
	size_t ntests;
	const struct tap_summary *summary;
	/* KCIDB (results/report_kcidb.c); all may be NULL / negative */
	const char *kcidb_origin; /* --kcidb-origin, ^[a-z0-9_]+$; NULL: "tapboot" */
	const char *run_id; /* unique per run (the nonce, a LAVA job); NULL: a random one */
	const char *nonce;
	const char *machine; /* QEMU -M value */
	double start_time; /* wall clock (epoch seconds) when the boot started, <= 0 unknown */
	const char *log_url; /* where the console log is (a LAVA job's log) */
	const char *reproduce; /* reproduce.sh's path */
	const struct crash_sig *crash; /* may be NULL */
	/* results.html's timeline: the VM (1-based) each top-level test ran in, NULL or 0 when
	 * unknown (drawn as one VM) */
	const unsigned *vm_of;
};

int report_json_write(const char *path, const struct report_run *r);
int report_tap_write(const char *path, const struct report_run *r);
int report_junit_write(const char *path, const struct report_run *r);
int report_kcidb_write(const char *path, const struct report_run *r);
/* results.html (results/report_html.c): the tests and verdicts, a timeline per VM, the crash. */
int report_html_write(const char *path, const struct report_run *r);
int report_html_fprint(FILE *fp, const struct report_run *r);
/* All five into DIR (results.json, results.tap, junit.xml, kcidb.json, results.html): -1 when one could not
 * be written (it said why), the others are written all the same. */
int report_write_all(const char *dir, const struct report_run *r);
/* The same documents to a stream (tapboot parse --format). */
int report_json_fprint(FILE *fp, const struct report_run *r);
int report_tap_fprint(FILE *fp, const struct report_run *r);
int report_junit_fprint(FILE *fp, const struct report_run *r);
int report_kcidb_fprint(FILE *fp, const struct report_run *r);
/* Is s a KCIDB origin (^[a-z0-9_]+$)? */
bool report_kcidb_origin_ok(const char *s);
/* The human table: one line per test with verdict and duration, then totals. */
void report_summary_fprint(FILE *fp, const struct report_run *r);
/* 0 all passed/skipped, 1 a test failed (verdict_is_failure), 3 the run did not complete. */
int report_exit_status(const struct report_run *r);

/* The skip policy (README "Exit status"), settling kselftest's skip-versus-fail argument:
 *   skip = REPORT_SKIP_OK, expect_skip NULL: a skip never fails the run (the default; the
 *     summary still lists every skip with its reason);
 *   skip = REPORT_SKIP_FAIL, expect_skip NULL: any skip fails the run;
 *   expect_skip given (either skip value): only the listed tests may skip, any other skip
 *     fails the run, so a skip cannot hide a feature that failed to show up.
 * expect_skip entries are fnmatch(3) patterns on the top-level test name. Subtests are not
 * judged: their parent's verdict stands for them. */
enum report_skip_mode { REPORT_SKIP_OK, REPORT_SKIP_FAIL };
struct report_policy {
	enum report_skip_mode skip;
	const struct strlist *expect_skip; /* may be NULL */
};
/* report_exit_status under a policy (pol may be NULL: the default). A rejected skip makes the
 * status 1 (3 still wins). offending, when not NULL, gets "NAME: REASON" for each rejected
 * skip (the caller initialised it and releases it). */
int report_exit_status_policy(const struct report_run *r, const struct report_policy *pol,
			      struct strlist *offending);
/* Read an --expect-skip file: one test name or glob per line, '#' comments and blank lines
 * ignored, surrounding spaces trimmed. Returns 0 or -1 (message printed). */
int report_expect_skip_load(const char *path, struct strlist *out);
/* Like report_summary_fprint, then the skips the policy rejects. */
void report_summary_fprint_policy(FILE *fp, const struct report_run *r,
				  const struct report_policy *pol);
/* The same without the per-test lines (tapboot run showed each result live on the same
 * terminal or file). */
void report_totals_fprint_policy(FILE *fp, const struct report_run *r,
				 const struct report_policy *pol);

#endif
