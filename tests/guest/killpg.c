// SPDX-License-Identifier: GPL-2.0-only
/* killpg.c: sends SIGKILL to its own process group. Expected verdict: fail, reason
 * "killed by SIGKILL"; the init (another session) is not touched and the next test runs. */
#include <signal.h>
#include <stdio.h>

int main(void)
{
	puts("killpg: kill(0, SIGKILL)");
	fflush(stdout);
	kill(0, SIGKILL);
	return 0;
}
