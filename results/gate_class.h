/* SPDX-License-Identifier: GPL-2.0-only */
/* gate_class.h: the rule that turns a test's counts on two kernels (A, the base; B, the kernel
 * under test) into one class, for tapboot gate. Stated in README "A pre-merge gate":
 * a run of a test is a failure when its verdict is (verdict_is_failure: fail, xpass, timeout,
 * crash, missing); pass, skip and xfail are not. With k failures in n runs on a side:
 *   only on B:  new (k = 0), new-failing (k = n), flaky (0 < k < n)
 *   only on A:  vanished
 *   a side with 0 < k < n:            flaky (the counts of both sides shown)
 *   A k = 0,  B k = 0:                pass
 *   A k = 0,  B k = n:                regression
 *   A k = n,  B k = 0:                fixed
 *   A k = n,  B k = n:                failing (on both)
 * A k/N rule, not a test at a level: it holds for any small N. A test that fails at random
 * with probability p on both kernels escapes "flaky" only when every run on each side agrees;
 * as a regression that takes A passing all n_A runs and B failing all n_B:
 * (1-p)^n_A * p^n_B, 1/4096 for p = 1/2 and the default 5 reruns (6 runs a side). */
#ifndef TAPBOOT_GATE_CLASS_H
#define TAPBOOT_GATE_CLASS_H

#include <stdbool.h>
#include <stddef.h>

enum gate_class {
	GATE_PASS,
	GATE_REGRESSION,
	GATE_FIXED,
	GATE_FLAKY,
	GATE_FAILING,
	GATE_NEW,
	GATE_NEW_FAILING,
	GATE_VANISHED,
	GATE_CLASS_COUNT
};

/* One test's runs on each side: runs 0 means the side does not have the test. */
struct gate_counts {
	unsigned a_runs, a_fail;
	unsigned b_runs, b_fail;
};

/* "pass", "regression", "fixed", "flaky", "failing", "new", "new-failing", "vanished". */
const char *gate_class_name(enum gate_class c);
enum gate_class gate_classify(const struct gate_counts *c);
/* Does the test need another run on side A (b false) or B (b true), given reruns done so
 * far on that side and the limit? A test whose verdicts differ between the sides or that did
 * not pass on both is rerun, and so is a passing one the history knows as flaky (known_flaky:
 * it may have passed by luck), until its class is flaky (final under the rule: more runs
 * cannot make a mixed side uniform) or the side has 1 + reruns runs. */
bool gate_needs_rerun(const struct gate_counts *c, bool b, unsigned reruns, bool known_flaky);
/* Does this class fail the gate (exit 1)? flaky only when flaky_fails (--flaky=fail). */
bool gate_class_fails(enum gate_class c, bool flaky_fails);

/* A gate's outcome, for its reports (results/gate_report.c). */
struct gate_side {
	const char *kernel;  /* as given */
	const char *release; /* uname -r of its first run, may be NULL */
	const char *dir;     /* its first run's results directory */
};
struct gate_row {
	const char *name;
	struct gate_counts c;
	enum gate_class cls;
	const char *a_verdicts, *b_verdicts; /* verdict names in run order, space-separated */
	bool known_flaky; /* the history had it both pass and fail on A or B before this gate */
};
struct gate_report {
	struct gate_side a, b;
	const struct gate_row *rows;
	size_t nrows;
	unsigned reruns;
	bool flaky_fails;
	int status;
};
/* gate.json and gate.html (both kernels side by side, the rerun counts; inline SVG, no
 * scripts), each written to FILE.tmp and renamed. -1 after a message. */
int gate_json_write(const char *path, const struct gate_report *g);
int gate_html_write(const char *path, const struct gate_report *g);
/* The rule in one line, as the reports state it. */
extern const char gate_rule_text[];

#endif
