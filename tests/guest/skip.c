// SPDX-License-Identifier: GPL-2.0-only
/* skip.c: prints why and exits 4 (KSFT_SKIP). Expected verdict: skip, reason
 * "skip: the frobnicator is not present" (the last output line that mentions skip). */
#include <stdio.h>

int main(void)
{
	puts("looking for the frobnicator");
	puts("skip: the frobnicator is not present");
	return 4;
}
