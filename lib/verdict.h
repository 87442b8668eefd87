/* SPDX-License-Identifier: GPL-2.0-only */
/* verdict.h: the result of one test, as results.json, the init and the parser name it. */
#ifndef TAPBOOT_VERDICT_H
#define TAPBOOT_VERDICT_H

#include <stdbool.h>

enum verdict {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_SKIP,
	VERDICT_XFAIL,
	VERDICT_XPASS,
	VERDICT_TIMEOUT,
	VERDICT_CRASH,
	VERDICT_MISSING,
	/* running when tapboot was interrupted (SIGINT, SIGTERM, SIGHUP): no verdict of its own,
	 * and not the kernel's fault (a crash) either; only the host sets it */
	VERDICT_INTERRUPTED,
	VERDICT_COUNT
};

/* kselftest's exit codes (tools/testing/selftests/kselftest.h: KSFT_PASS .. KSFT_SKIP). */
enum {
	KSFT_PASS = 0,
	KSFT_FAIL = 1,
	KSFT_XFAIL = 2,
	KSFT_XPASS = 3,
	KSFT_SKIP = 4,
};

/* "pass", "fail", ... as in results.json. */
const char *verdict_name(enum verdict v);
/* -1 when name is not a verdict. */
int verdict_from_name(const char *name);
/* Does this verdict make `tapboot run` exit non-zero? xpass does: an expectation that no longer
 * holds is stale and someone should look. */
bool verdict_is_failure(enum verdict v);
/* Verdict from a test's exit status (kselftest codes; anything else is fail). */
enum verdict verdict_from_exit(int code);

#endif
