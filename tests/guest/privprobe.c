// SPDX-License-Identifier: GPL-2.0-only
/* privprobe.c: what a root test can reach of the init and the kernel: /proc/1/mem,
 * process_vm_readv and ptrace of PID 1, /dev/mem, /proc/kcore, init_module, mknod, reboot(2)'s
 * CAD switch, and its own effective capabilities. One line each, "ok" or "refused (ERRNO)".
 * Exit 0 when everything was refused, 1 when anything worked (a test flagged privileged). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

static int worked;

static void said(const char *what, int ok, int err)
{
	if (ok)
		worked = 1;
	printf("%-22s %s%s%s\n", what, ok ? "ok" : "refused (", ok ? "" : strerror(err),
	       ok ? "" : ")");
}

/* a readable address of PID 1 (its first mapping), 0 when /proc/1/maps cannot be read */
static unsigned long init_address(void)
{
	FILE *f = fopen("/proc/1/maps", "r");
	unsigned long lo = 0;

	if (f) {
		if (fscanf(f, "%lx", &lo) != 1)
			lo = 0;
		fclose(f);
	}
	return lo;
}

int main(void)
{
	unsigned long addr = init_address();
	char buf[64], caps[128] = "";
	struct iovec local = {buf, sizeof(buf)}, remote = {(void *)addr, sizeof(buf)};
	FILE *f;
	int fd;

	fd = open("/proc/1/mem", O_RDONLY);
	said("open /proc/1/mem", fd >= 0 && pread(fd, buf, sizeof(buf), (off_t)addr) > 0, errno);
	if (fd >= 0)
		close(fd);
	said("process_vm_readv 1", syscall(SYS_process_vm_readv, 1, &local, 1, &remote, 1, 0) > 0,
	     errno);
	if (ptrace(PTRACE_SEIZE, 1, NULL, NULL) == 0) {
		said("ptrace seize 1", 1, 0);
		ptrace(PTRACE_DETACH, 1, NULL, NULL);
	} else {
		said("ptrace seize 1", 0, errno);
	}
	fd = open("/proc/kcore", O_RDONLY);
	said("open /proc/kcore", fd >= 0, errno);
	if (fd >= 0)
		close(fd);
	if (mknod("/tmp/privprobe-mem", S_IFCHR | 0600, makedev(1, 1)) == 0) {
		said("mknod /dev/mem's node", 1, 0);
		fd = open("/tmp/privprobe-mem", O_RDONLY);
		said("open the node", fd >= 0, errno);
		if (fd >= 0)
			close(fd);
		unlink("/tmp/privprobe-mem");
	} else {
		said("mknod /dev/mem's node", 0, errno);
	}
	/* CAP_SYS_MODULE: EPERM without it; with it the bogus image is refused otherwise */
	errno = 0;
	syscall(SYS_init_module, buf, (unsigned long)0, "");
	said("init_module", errno != EPERM, errno);
	/* CAP_SYS_BOOT: switching Ctrl-Alt-Del to a signal changes nothing here */
	said("reboot(CAD_OFF)", reboot(RB_DISABLE_CAD) == 0, errno);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(caps, sizeof(caps), f))
		if (!strncmp(caps, "CapBnd:", 7))
			printf("%s", caps);
	if (f)
		fclose(f);
	return worked;
}
