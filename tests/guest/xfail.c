// SPDX-License-Identifier: GPL-2.0-only
/* xfail.c: exits 2 (KSFT_XFAIL). Expected verdict: xfail, reason
 * "xfail: known failure, tracked upstream". */
#include <stdio.h>

int main(void)
{
	puts("xfail: known failure, tracked upstream");
	return 2;
}
