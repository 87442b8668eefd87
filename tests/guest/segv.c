// SPDX-License-Identifier: GPL-2.0-only
/* segv.c: writes through a NULL pointer. Expected verdict: fail, reason "killed by SIGSEGV",
 * signal "SIGSEGV". */
#include <stdio.h>

int main(void)
{
	volatile int *p = NULL;

	puts("segv: writing through NULL");
	fflush(stdout);
	*p = 1;
	return 0;
}
