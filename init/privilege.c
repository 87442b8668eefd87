// SPDX-License-Identifier: GPL-2.0-only
/* privilege.c: what keeps the line-tag key out of a root test's reach (docs/DESIGN.md, "Threat
 * model"). The init is not dumpable, so a process without CAP_SYS_PTRACE cannot read its memory
 * even as root (ptrace_may_access: a non-dumpable mm needs the capability, same uid or not);
 * every test runs without the capabilities that read another process's or the kernel's memory
 * or replace the kernel (dropped from its bounding set before exec: an exec as root gets the
 * bounding set as its permitted set, the init's inheritable set being empty); and the kernel's
 * usermode helpers (core_pattern's pipe, modprobe), which a root test can point at its own
 * program, run with the same capabilities taken out. A test declared `privileged` keeps them
 * all, in a VM of its own (the host does that), where it can only forge its own verdict. */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* linux/capability.h's numbers (the init is built without kernel headers' newest) */
enum {
	CAP_MKNOD_ = 27,
	CAP_SYS_MODULE_ = 16,
	CAP_SYS_RAWIO_ = 17,
	CAP_SYS_PTRACE_ = 19,
	CAP_SYS_BOOT_ = 22,
	CAP_PERFMON_ = 38, /* 5.8 */
	CAP_BPF_ = 39,	   /* 5.8 */
};

/* What a test loses: ptrace, process_vm_readv and /proc/PID/mem of the init; /dev/mem,
 * /proc/kcore, ioperm and PCI config space; loading a module; making device nodes; kexec of a
 * kernel that reads the old RAM; BPF and perf without CAP_SYS_ADMIN. */
static const int dropped[] = {CAP_SYS_PTRACE_, CAP_SYS_RAWIO_, CAP_SYS_MODULE_, CAP_MKNOD_,
			      CAP_SYS_BOOT_,   CAP_BPF_,       CAP_PERFMON_};

/* The usermode helpers lose the same but CAP_SYS_MODULE: the kernel's module autoloading
 * (request_module runs modprobe through them) must keep working for the tests. */
static unsigned long long helper_mask(void)
{
	unsigned long long m = 0;

	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++)
		if (dropped[i] != CAP_SYS_MODULE_)
			m |= 1ULL << dropped[i];
	return m;
}

/* Clear mask's bits in the two-word capability set of a usermodehelper sysctl file. */
static int restrict_helper_set(const char *path, unsigned long long mask)
{
	char buf[64];
	unsigned lo, hi;
	ssize_t n;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0 || (buf[n] = '\0', sscanf(buf, "%u %u", &lo, &hi) != 2)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	lo &= ~(unsigned)(mask & 0xffffffffu);
	hi &= ~(unsigned)(mask >> 32);
	n = snprintf(buf, sizeof(buf), "%u %u\n", lo, hi);
	if (lseek(fd, 0, SEEK_SET) < 0 || write(fd, buf, (size_t)n) != n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

void init_privilege_setup(struct strbuf *diag)
{
	static const char *const files[] = {"/proc/sys/kernel/usermodehelper/bset",
					    "/proc/sys/kernel/usermodehelper/inheritable"};

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		strbuf_addf(diag, "# init: cannot make the init non-dumpable: %s\n",
			    strerror(errno));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (restrict_helper_set(files[i], helper_mask()) < 0 && errno != ENOENT)
			strbuf_addf(diag, "# init: cannot restrict %s: %s\n", files[i],
				    strerror(errno));
}

void init_drop_privileges(void)
{
	/* EINVAL: a capability this kernel does not have (CAP_BPF before 5.8): nothing to drop */
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++)
		prctl(PR_CAPBSET_DROP, (unsigned long)dropped[i], 0, 0, 0);
}
