// SPDX-License-Identifier: GPL-2.0-only
/* hang.c: ignores SIGTERM and sleeps forever. Expected verdict: timeout (SIGTERM to its process
 * group at the timeout, SIGKILL after the grace), reason "timeout after N s", signal SIGKILL. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	signal(SIGTERM, SIG_IGN);
	puts("hang: sleeping forever, SIGTERM ignored");
	fflush(stdout);
	for (;;)
		pause();
}
