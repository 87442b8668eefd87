/* SPDX-License-Identifier: GPL-2.0-only */
/* arch_config.h: one architecture's configs/<arch>.conf (plain key = value data), and the
 * lookups over all of them: the tree's one architecture table (builder, qemu and run read it). */
#ifndef TAPBOOT_ARCH_CONFIG_H
#define TAPBOOT_ARCH_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "strlist.h"

struct arch_config {
	char *path; /* the file it came from */
	char *arch; /* as users type it: x86_64, arm64, ... */
	struct strlist uname_machine; /* what uname -m says on a host of this arch */
	char *kernel_arch; /* the kernel's ARCH= value */
	/* ARCH= for building (tapboot kernel config/build): kernel_arch unless set. x86_64 and
	 * i386 fix CONFIG_64BIT, so tinyconfig starts from the right word size */
	char *kbuild_arch;
	char *kconfig; /* the .config symbol that says this arch (CONFIG_X86_64) */
	char *debian_arch; /* dpkg architecture (amd64) */
	char *debian_kernel; /* package to fetch, may be empty */
	/* the Debian release scripts/fetch-kernel.sh takes it from when none is named (empty:
	 * bookworm; riscv64's first kernel is trixie's) */
	char *debian_release;
	char *cross_compile; /* toolchain prefix */
	char *sysroot; /* cross sysroot for shared libraries */
	char *multiarch; /* Debian's multiarch triple (library directories), may be NULL */
	unsigned elf_machine; /* EM_* of kernel and test binaries */
	unsigned elf_class; /* 32 or 64 */
	char *elf_data; /* "lsb" or "msb" */
	char *qemu; /* qemu-system-* binary */
	char *qemu_package; /* the Debian package that has it, may be NULL */
	char *machine; /* -M value */
	char *machine_bzimage; /* -M value for a bzImage without PVH, may be empty */
	char *cpu_tcg; /* -cpu under TCG */
	char *cpu_kvm; /* -cpu under KVM */
	char *console; /* console= device */
	/* the kernel options that driver needs built in (checked before booting, kconfig_check.h) */
	struct strlist kconfig_console;
	unsigned memory_mb;
	unsigned smp; /* vCPUs under KVM */
	/* vCPUs under TCG (default: smp). Each vCPU more is a host thread and a CPU for the kernel
	 * to bring up and keep in step: one boots a trivial test in 0.84x the time of two. */
	unsigned smp_tcg;
	struct strlist image_paths; /* where the image lives in a kernel build directory */
	bool pvh; /* boot a bzImage's vmlinux through its PVH entry when possible */
	/* with more than one vCPU, TCG's one-thread mode (several VMs sharing the host) hangs */
	bool tcg_single_hangs;
	/* arm: where the machine's RAM starts; when set, a zImage's Image is unpacked on the host
	 * and loaded at this + TEXT_OFFSET (0: boot zImages as they are) */
	uint32_t zimage_ram_base;
	char *append; /* extra kernel command line */
	char *qemu_args; /* extra QEMU arguments, split on spaces */
	char *bios; /* -bios value, may be empty */
	/* why QEMU cannot save and restore this machine (snapshot boot falls back to cold boots
	 * and says this); empty: it can */
	char *snapshot_off;
	/* snapshot boot: how the tests reach a restored VM. "ivshmem": in a second newc archive
	 * in an ivshmem-plain device's shared memory, which the state leaves out (QEMU's
	 * x-ignore-shared), so a changed test keeps the snapshot; empty: in the initramfs, and
	 * any change to a test is a new snapshot */
	char *snapshot_tests;
	/* the kernel options the device needs (built in): without them, or with the kernel's
	 * config unknown, the tests stay in the initramfs */
	struct strlist snapshot_tests_kconfig;
};

void arch_config_init(struct arch_config *c);
void arch_config_release(struct arch_config *c);
/* Parse configs_dir/<arch>.conf. Errors name the file and line; -1 then. */
int arch_config_load(struct arch_config *c, const char *configs_dir, const char *arch);
/* Parse one file (used by the loader and the fuzzer). */
int arch_config_parse(struct arch_config *c, const char *buf, size_t len, const char *file);
/* The configs directory: $TAPBOOT_CONFIGS, else the installed or source tree's (paths.h). */
const char *arch_config_dir(void);
/* Architectures with a config file, space-separated, caller frees. */
char *arch_config_list(const char *configs_dir);
/* The arch whose elf_machine/class/data match; caller frees; NULL when none. */
char *arch_config_find_elf(const char *configs_dir, unsigned machine, unsigned elf_class,
			   bool msb);
/* The arch a host whose uname -m is machine runs; caller frees; NULL when none. */
char *arch_config_find_uname(const char *configs_dir, const char *machine);
/* The arch whose qemu binary is qemu ("qemu-system-aarch64": arm64); caller frees; NULL when
 * none. */
char *arch_config_find_qemu(const char *configs_dir, const char *qemu);
/* The host's architecture: the config whose uname_machine has this machine's uname -m,
 * loaded once; NULL when no config knows the host. The one place the tree decides it (KVM,
 * the host's own sysroot, binaries that run here, tapboot build's default). */
const struct arch_config *arch_config_host(void);
/* The arch whose kconfig symbol is set in a .config; caller frees; NULL when none. */
char *arch_config_find_kconfig(const char *configs_dir, const char *dotconfig_path);

#endif
