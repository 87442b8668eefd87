/* SPDX-License-Identifier: GPL-2.0-only */
/* qemu_argv.h: the QEMU command line for one boot in each mode a run uses, and the snapshot key
 * from the same words (qemu/ is the only folder that knows QEMU's syntax: LAVA's device context
 * is qemu_lava.h, a report's machine line machine_line.h). */
#ifndef TAPBOOT_QEMU_ARGV_H
#define TAPBOOT_QEMU_ARGV_H

#include <stdbool.h>

#include "arch_config.h"
#include "plan.h"
#include "strbuf.h"

enum qemu_accel { QEMU_ACCEL_TCG, QEMU_ACCEL_KVM };

/* What one QEMU process of a run does with the boot below. */
enum qemu_mode {
	/* boots the kernel: a plain run's VM, snapshot boot's cold boots, reproduce.sh */
	QEMU_MODE_COLD,
	/* snapshot boot's saver: boots the kernel (with saver_initrd when set), its guest RAM a
	 * file shared with tapboot (qemu_argv_build says more) */
	QEMU_MODE_SAVE,
	/* starts from the saved state: no kernel, initrd or command line (the saved RAM and CPUs
	 * hold them), the state from QEMU_SPAWN_INCOMING_FD once QMP says (-incoming defer), the
	 * RAM a private mapping of the saved copy */
	QEMU_MODE_RESTORE,
};

struct qemu_boot {
	const struct arch_config *cfg;
	enum qemu_mode mode;
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
	bool qmp; /* a QMP monitor on QEMU_SPAWN_QMP_FD (qmp.h): every VM of a snapshot run */
	/* QEMU_MODE_SAVE: the initrd the saver boots instead of initrd (the image, then the tests'
	 * archive, so the saved state holds them); NULL: initrd. Not part of the key. */
	const char *saver_initrd;
	/* The snapshot key's name for the kernel when it was unpacked on the host from another
	 * image (kernel_image.h): that image's sha256 (NULL: the kernel file's own). */
	const char *kernel_from_sha256;
};

/* The start of the tests image's -object value. */
#define QEMU_TESTS_OBJECT "memory-backend-file,id=tapboot-tests"
/* The start of the guest RAM's -object value (QEMU_MODE_SAVE and QEMU_MODE_RESTORE). */
#define QEMU_RAM_OBJECT "memory-backend-file,id=tapboot-ram"

/* argv for execvp (argv.v[0] is the QEMU binary) in b->mode, appended to argv. Snapshot boot's
 * guest RAM is a file QEMU inherits as fd QEMU_SPAWN_RAM_FD (launch.h): shared for the VM that
 * is saved (x-ignore-shared leaves it out of the state: the state is small and quick to write,
 * and the RAM is copied apart), a private mapping of the saved copy for a restored VM (its
 * pages come from the page cache as the guest touches them, and its writes stay its own); left
 * out when the memory size is not a plain number of MiB (qemu_boot_ram_size 0). */
void qemu_argv_build(const struct qemu_boot *b, struct strlist *argv);
/* What b's command line asks for: the machine (cfg->machine_bzimage for a bzImage when the
 * config has one), the CPU (the accelerator's), memory in MiB and vCPUs (the accelerator's),
 * each b's own when given, else the config's. */
const char *qemu_boot_machine(const struct qemu_boot *b);
const char *qemu_boot_cpu(const struct qemu_boot *b);
unsigned qemu_boot_memory_mb(const struct qemu_boot *b);
unsigned qemu_boot_smp(const struct qemu_boot *b);
/* The guest's memory in bytes, as -m asks for it (the config's qemu_args may ask again: the
 * last counts, as for QEMU); 0 when not a plain number of MiB. */
unsigned long long qemu_boot_ram_size(const struct qemu_boot *b);
/* The snapshot key: sha256 (hex) of qemu_snapshot_key_text. */
void qemu_snapshot_key(const struct qemu_boot *b, const char *qemu_version, char key[65]);
/* What a state saved from b depends on, as text: QEMU's version and the command line the saved
 * VM was started with (b->mode and saver_initrd play no part), with the kernel and the initrd as
 * their contents' sha256 (kernel_from_sha256 for an unpacked kernel; "sha256:" alone for an
 * unreadable file, said), the tests image as its size (the state leaves it out, and a restored
 * VM reads the run's own), and TCG's threading left out (one host thread or one per vCPU is not
 * part of the guest's state). Appended to sb. */
void qemu_snapshot_key_text(const struct qemu_boot *b, const char *qemu_version, struct strbuf *sb);
/* The kernel command line: console, panic behaviour, lockup thresholds for an emulated CPU,
 * the config's append, then extra. */
char *qemu_kernel_cmdline(const struct arch_config *cfg, enum qemu_accel accel, const char *extra);
/* A shell-quoted copy of argv, for reproduce.sh and messages. */
char *qemu_argv_shell(const struct strlist *argv);
/* The Debian package that provides cfg->qemu, for "install ..." hints. */
const char *qemu_package_hint(const struct arch_config *cfg);

#endif
