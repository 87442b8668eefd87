// SPDX-License-Identifier: GPL-2.0-only
/* damage.c: leaves kernel state behind: sets the host name (the kernel's UTS name, kept until
 * the next boot) to "tapboot-damaged". Expected verdict: pass. undamaged.c, run after it in the
 * same kernel, fails; with --isolate it does not see it. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	const char *name = "tapboot-damaged";

	if (sethostname(name, strlen(name)) < 0) {
		perror("sethostname");
		return 1;
	}
	printf("host name set to %s\n", name);
	return 0;
}
