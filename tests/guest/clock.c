// SPDX-License-Identifier: GPL-2.0-only
/* clock.c: prints CLOCK_MONOTONIC ("clock: 12.345678") and exits 0, so a benchmark can time the
 * tests between two of them from inside the guest. Expected verdict: pass. */
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("clock: %ld.%06ld\n", (long)ts.tv_sec, (long)(ts.tv_nsec / 1000));
	return 0;
}
