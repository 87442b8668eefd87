/* qemu_argv.h: the QEMU command line for one boot (the only place that knows QEMU's syntax). */
#ifndef TAPBOOT_QEMU_ARGV_H
#define TAPBOOT_QEMU_ARGV_H

#include <stdbool.h>

#include "arch_config.h"
#include "plan.h"

enum qemu_accel { QEMU_ACCEL_TCG, QEMU_ACCEL_KVM };

struct qemu_boot {
	const struct arch_config *cfg;
	const char *kernel; /* what -kernel gets (bzImage, Image, or an extracted vmlinux) */
	bool bzimage; /* boots through the real-mode set-up: use cfg->machine_bzimage if set */
	const char *initrd;
	const char *cmdline; /* the whole kernel command line */
	enum qemu_accel accel;
	bool tcg_single; /* TCG with one host thread for all vCPUs (several VMs share the host) */
	const char *cpu; /* override of cfg->cpu_tcg / cpu_kvm, or NULL */
	const char *machine; /* override, or NULL */
	unsigned memory_mb, smp; /* 0: from cfg */
	/* snapshot boot's tests image (a newc archive padded to tests_size, a power of two) as an
	 * ivshmem-plain device's shared memory; NULL: none */
	const char *tests_image;
	unsigned long long tests_size;
};

/* The start of the tests image's -object value (snapshot.c leaves its mem-path out of the key). */
#define QEMU_TESTS_OBJECT "memory-backend-file,id=tapboot-tests"

/* argv for execvp, argv.v[0] is the QEMU binary. */
void qemu_argv_build(const struct qemu_boot *b, struct strlist *argv);
/* The kernel command line: console, panic behaviour, lockup thresholds for an emulated CPU,
 * the config's append, then extra. */
char *qemu_kernel_cmdline(const struct arch_config *cfg, enum qemu_accel accel, const char *extra);
/* A shell-quoted copy of argv, for reproduce.sh and messages. */
char *qemu_argv_shell(const struct strlist *argv);
/* The Debian package that provides cfg->qemu, for "install ..." hints. */
const char *qemu_package_hint(const struct arch_config *cfg);

#endif
