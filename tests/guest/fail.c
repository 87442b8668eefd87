// SPDX-License-Identifier: GPL-2.0-only
/* fail.c: exits 1. Expected verdict: fail, reason "exit 1". */
#include <stdio.h>

int main(void)
{
	fputs("fail: this test fails on purpose\n", stderr);
	return 1;
}
