/* SPDX-License-Identifier: GPL-2.0-only */
/* results.h: the results model that run, parse and compare share: one run's top-level tests in
 * plan order, several VMs' (shards') results merged into one, the counts by verdict, why a run
 * did not complete, and the exit status. (kunit_tool's kunit_parser.py keeps one Test model
 * whose counts are totalled in one place; this is that place.) */
#ifndef TAPBOOT_RESULTS_H
#define TAPBOOT_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "tap_parser.h"

/* Count tests[0..n) by verdict into count (zeroed first); returns n as the total. */
unsigned results_count(const struct tap_test *tests, size_t n, unsigned count[VERDICT_COUNT]);

/* One VM's share of a run: what its parser reported and which plan tests it was given. */
struct results_shard {
	const struct tap_summary *sum; /* NULL: the VM never started (no parser) */
	const struct tap_test *tests;  /* its parser's top-level results */
	size_t ntests;
	const size_t *plan_idx; /* the plan indices the VM ran, in order */
	size_t nplan;
};

struct results {
	/* top-level tests in plan order; shallow copies of the shards' tests (valid while those
	 * are) after results_merge, owned after results_load_json */
	struct tap_test *tests;
	size_t ntests;
	/* the merged summary: complete only when every shard completed; the first crash line,
	 * bail reason and kernel release; counts over tests. Its strings are borrowed likewise. */
	struct tap_summary sum;
	/* planned tests a completed VM gave no verdict for (results_merge): the run is then not
	 * complete; the first one's name (borrowed from plan_names) */
	size_t unmatched;
	const char *first_unmatched;
	bool owned;
};

void results_init(struct results *r);
void results_release(struct results *r);
/* Merge the shards of one run into r (initialised): each plan test from the shard that ran it;
 * a test no shard reported (its VM never started) is missing. plan_names has nplan entries. */
void results_merge(struct results *r, const struct results_shard *shards, size_t nshards,
		   const char *const *plan_names, size_t nplan);
/* Read a results.json (tapboot compare) into r (initialised): tests with name, result,
 * reason, duration_s, exit_code and subtests; counts recomputed. -1 after a message naming
 * the file. */
int results_load_json(struct results *r, const char *path);
/* Where a stream of results came from, for the words of why it did not complete. */
enum results_origin {
	RESULTS_STREAM, /* a console or TAP file read afterwards (tapboot parse) */
	RESULTS_VM,	/* one VM of tapboot run, watched live */
	RESULTS_LAVA,	/* a LAVA job's log (tapboot lava-results) */
};
struct results_why {
	enum results_origin origin;
	/* RESULTS_VM */
	const char *cut;       /* tapboot ended the console (a timeout, a limit): why; or NULL */
	bool spawned;	       /* QEMU was started */
	bool begun;	       /* the init's begin line was seen */
	bool qemu_failed;      /* QEMU exited with an error status */
	const char *qemu;      /* QEMU's binary */
	const char *qemu_last; /* the last line QEMU wrote on stderr, or NULL */
	/* RESULTS_LAVA */
	bool log_truncated;	/* the log ends before the job's result */
	bool saw_begin;		/* the console has the init's begin line */
	const char *error_type; /* the job's error type ("Infrastructure"), or NULL */
	const char *error_msg;	/* the job's error message, or NULL */
};
/* The one text for why a run did not complete (the reports' "incomplete: ..."), NULL when it
 * did; caller frees. s is the parser's summary; why says where the stream came from (NULL: a
 * stream, as tapboot parse reads one: a crash, a bail out, no end marker, no plan, an unmet
 * plan). For RESULTS_LAVA, s may be NULL: only what the log itself says (before parsing, the
 * reason handed to tap_parser_finish). */
char *results_incomplete_text(const struct tap_summary *s, const struct results_why *why);
/* results_incomplete_text(s, NULL). */
char *results_incomplete_reason(const struct tap_summary *s);
/* The one filler of the report's run record: rep zeroed, then the results (tests, summary,
 * the kernel release the guest printed), suite, error, complete (the summary's, and not when
 * there is an error) and an unknown wall time. The caller sets what it knows besides (arch,
 * kernel, accel, KCIDB's fields, the crash). Nothing is copied: rep borrows every pointer. */
void report_run_fill(struct report_run *rep, const struct tap_test *tests, size_t ntests,
		     const struct tap_summary *sum, const char *suite, const char *error);
/* What the reports say after "incomplete: " for a run that did not complete: its error, else a
 * plain "the run did not complete". */
const char *results_error_text(const struct report_run *r);
/* The exit status of a run: 130 when interrupted, else report_exit_status_policy's. */
int results_exit_status(const struct report_run *r, const struct report_policy *pol,
			bool interrupted);

#endif
