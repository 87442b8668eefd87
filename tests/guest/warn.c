// SPDX-License-Identifier: GPL-2.0-only
/* warn.c: makes the kernel look unwell without breaking it, then exits 0: writes 512 to
 * /proc/sys/kernel/tainted (TAINT_WARN, what a WARN sets) and asks sysrq for a backtrace of all
 * CPUs ('l': "NMI backtrace" / "Call Trace:" records at warning level). Debian's 6.1 has no
 * LKDTM, so no real WARN_ON() can be reached from userspace on purpose. Expected verdict: fail,
 * reason "kernel warning: <first backtrace line>" (or "kernel tainted: W (512)" when sysrq
 * printed nothing), taint including 512. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0 || write(fd, s, strlen(s)) < 0) {
		perror(path);
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

int main(void)
{
	int ret = put("/proc/sys/kernel/tainted", "512");

	put("/proc/sysrq-trigger", "l");
	/* The backtraces are printed from other CPUs and work items: give them time to land. */
	usleep(500000);
	puts(ret ? "warn: could not taint the kernel" : "warn: kernel tainted with 512 (W)");
	return ret ? 1 : 0;
}
