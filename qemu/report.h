/* report.h: result writers (results.json, results.tap, junit.xml, kcidb.json) and the summary.
 * Each writer writes FILE.tmp and renames it into place, so no half-written report is left. */
#ifndef TAPBOOT_REPORT_H
#define TAPBOOT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "tap_parser.h"

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
};

int report_json_write(const char *path, const struct report_run *r);
int report_tap_write(const char *path, const struct report_run *r);
int report_junit_write(const char *path, const struct report_run *r);
int report_kcidb_write(const char *path, const struct report_run *r);
/* The same documents to a stream (tapboot parse --format). */
int report_json_fprint(FILE *fp, const struct report_run *r);
int report_tap_fprint(FILE *fp, const struct report_run *r);
int report_junit_fprint(FILE *fp, const struct report_run *r);
int report_kcidb_fprint(FILE *fp, const struct report_run *r);
/* The human table: one line per test with verdict and duration, then totals. */
void report_summary_fprint(FILE *fp, const struct report_run *r);
/* 0 all passed/skipped, 1 a test failed (verdict_is_failure), 3 the run did not complete. */
int report_exit_status(const struct report_run *r);

#endif
