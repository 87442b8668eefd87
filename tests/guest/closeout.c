// SPDX-License-Identifier: GPL-2.0-only
/* closeout.c: closes stdout and stderr, keeps running 2 s, exits 0. Expected verdict: pass,
 * duration about 2 s (the end of output is not the end of the test). */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	puts("closeout: closing stdout, running on");
	fflush(stdout);
	close(1);
	close(2);
	sleep(2);
	return 0;
}
