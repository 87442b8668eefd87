// SPDX-License-Identifier: GPL-2.0-only
/* verdict.c: verdict names and kselftest exit-code mapping. */
#include "verdict.h"

#include <string.h>

static const char *const names[VERDICT_COUNT] = {
	[VERDICT_PASS] = "pass",       [VERDICT_FAIL] = "fail",   [VERDICT_SKIP] = "skip",
	[VERDICT_XFAIL] = "xfail",     [VERDICT_XPASS] = "xpass", [VERDICT_TIMEOUT] = "timeout",
	[VERDICT_CRASH] = "crash",     [VERDICT_MISSING] = "missing",
	[VERDICT_INTERRUPTED] = "interrupted",
};

const char *verdict_name(enum verdict v)
{
	return (unsigned)v < VERDICT_COUNT ? names[v] : "unknown";
}

int verdict_from_name(const char *name)
{
	for (int i = 0; i < VERDICT_COUNT; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

bool verdict_is_failure(enum verdict v)
{
	return v == VERDICT_FAIL || v == VERDICT_XPASS || v == VERDICT_TIMEOUT ||
	       v == VERDICT_CRASH || v == VERDICT_MISSING || v == VERDICT_INTERRUPTED;
}

enum verdict verdict_from_exit(int code)
{
	switch (code) {
	case KSFT_PASS:
		return VERDICT_PASS;
	case KSFT_XFAIL:
		return VERDICT_XFAIL;
	case KSFT_XPASS:
		return VERDICT_XPASS;
	case KSFT_SKIP:
		return VERDICT_SKIP;
	default:
		return VERDICT_FAIL;
	}
}
