// SPDX-License-Identifier: GPL-2.0-only
/* panic.c: panics the kernel through sysrq ('c'). Expected verdict: crash (decided by the host
 * from the console: no verdict line, no end line). Only run when crash detection is tested. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int fd = open("/proc/sysrq-trigger", O_WRONLY);

	puts("panic: echo c > /proc/sysrq-trigger");
	fflush(stdout);
	if (fd < 0 || write(fd, "c", 1) < 0) {
		perror("panic: /proc/sysrq-trigger");
		return 1;
	}
	return 1; /* not reached */
}
