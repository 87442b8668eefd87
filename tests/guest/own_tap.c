// SPDX-License-Identifier: GPL-2.0-only
/* own_tap.c: prints its own TAP 13 in kselftest.h's shapes (3 subtests: pass, fail, skip) and
 * exits 1. Expected verdict: fail, reason "exit 1", with subtests 1 pass, 2 fail, 3 skip
 * ("no such feature") nested under it. */
#include <stdio.h>

int main(void)
{
	puts("TAP version 13");
	puts("1..3");
	puts("# own_tap: checking three things");
	puts("ok 1 first thing works");
	puts("not ok 2 second thing is broken");
	puts("ok 3 # SKIP no such feature");
	puts("# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0");
	return 1;
}
