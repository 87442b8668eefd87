// SPDX-License-Identifier: GPL-2.0-only
/* sigpid1.c: sends SIGTERM, SIGINT, SIGHUP, SIGUSR1 and SIGPIPE to PID 1, then exits 0.
 * Expected verdict: pass; the init logs "# init: got SIGTERM from pid N, ignored" (one per
 * signal) and keeps running. Only meaningful in the guest: never run it on a host. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGPIPE};

	if (getppid() != 1) {
		puts("sigpid1: skip: not running under the guest init (parent is not PID 1)");
		return 4;
	}
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (kill(1, sigs[i]) < 0)
			perror("sigpid1: kill");
	/* Let the init read them while this test is still the one running. */
	usleep(200000);
	puts("sigpid1: signals sent, PID 1 is still there");
	return 0;
}
