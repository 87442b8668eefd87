// SPDX-License-Identifier: GPL-2.0-only
/* daemon.c: forks a child that keeps stdout open and sleeps, then exits 0 at once. Expected
 * verdict: pass, promptly (duration well under a second): the init ends the test when the
 * main process exits and kills the child. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	pid_t pid;

	puts("daemon: forking a child that holds stdout");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sleep(3600);
		puts("daemon child: still here (must never be printed)");
		return 0;
	}
	return pid < 0;
}
