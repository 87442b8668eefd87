// SPDX-License-Identifier: GPL-2.0-only
/* gate_class.c: tapboot gate's class rule (gate_class.h states it). */
#include "gate_class.h"

const char *gate_class_name(enum gate_class c)
{
	static const char *const names[GATE_CLASS_COUNT] = {
		"pass", "regression", "fixed", "flaky", "failing", "new", "new-failing", "vanished",
	};

	return c < GATE_CLASS_COUNT ? names[c] : "?";
}

static bool mixed(unsigned runs, unsigned fail)
{
	return fail > 0 && fail < runs;
}

enum gate_class gate_classify(const struct gate_counts *c)
{
	if (!c->b_runs)
		return GATE_VANISHED;
	if (mixed(c->b_runs, c->b_fail) || (c->a_runs && mixed(c->a_runs, c->a_fail)))
		return GATE_FLAKY;
	if (!c->a_runs)
		return c->b_fail ? GATE_NEW_FAILING : GATE_NEW;
	if (!c->a_fail)
		return c->b_fail ? GATE_REGRESSION : GATE_PASS;
	return c->b_fail ? GATE_FAILING : GATE_FIXED;
}

bool gate_needs_rerun(const struct gate_counts *c, bool b, unsigned reruns, bool known_flaky)
{
	unsigned runs = b ? c->b_runs : c->a_runs;

	switch (gate_classify(c)) {
	case GATE_PASS:
	case GATE_NEW:
		return known_flaky && runs > 0 && runs < 1 + reruns;
	case GATE_FLAKY:
	case GATE_VANISHED:
		return false;
	default:
		return runs > 0 && runs < 1 + reruns;
	}
}

bool gate_class_fails(enum gate_class c, bool flaky_fails)
{
	return c == GATE_REGRESSION || c == GATE_NEW_FAILING || (c == GATE_FLAKY && flaky_fails);
}
