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
/* The start of the guest RAM's -object value (qemu_argv_ram_file). */
#define QEMU_RAM_OBJECT "memory-backend-file,id=tapboot-ram"

/* Snapshot boot's guest RAM as a file QEMU inherits as fd QEMU_SPAWN_RAM_FD (launch.h): shared
 * for the VM that is saved (x-ignore-shared leaves it out of the state: the state is small and
 * quick to write, and the RAM is copied apart), a private mapping of the saved copy for a
 * restored VM (its pages come from the page cache as the guest touches them, and its writes stay
 * its own). Appended to argv, whose -m gives the size. -1 when argv's -m is not a plain number
 * of MiB (then the caller does without). */
int qemu_argv_ram_file(struct strlist *argv, bool share);
/* The size that -m in argv asks for, in bytes; 0 when not a plain number of MiB. */
unsigned long long qemu_argv_ram_size(const struct strlist *argv);

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
