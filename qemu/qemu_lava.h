/* SPDX-License-Identifier: GPL-2.0-only */
/* qemu_lava.h: QEMU's command line in LAVA's device context (tapboot lava-job writes it, tapboot
 * lava-results reads LAVA's "Boot command: " line back). */
#ifndef TAPBOOT_QEMU_LAVA_H
#define TAPBOOT_QEMU_LAVA_H

#include <stdbool.h>

#include "strlist.h"

/* The machine a LAVA job asks its stock qemu device type for. */
struct qemu_lava {
	const char *machine;
	const char *cpu; /* NULL or "": QEMU's default */
	unsigned memory_mb, smp;
	bool kvm; /* the job lets the template use KVM */
};

/* The options LAVA's stock qemu.jinja2 (2023.01) adds from the job's context and
 * extra_options, one option with its value per entry: "-machine M" and "-cpu C" (with
 * with_machine_cpu; under KVM no -cpu: the template's -cpu host instead), "-smp N", and
 * "-no-reboot" (a reboot or a panic with panic=-1 ends QEMU, as in tapboot run). Appended to
 * opts; without what the template adds itself (qemu_lava_template_options). */
void qemu_lava_context_options(const struct qemu_lava *l, bool with_machine_cpu,
			       struct strlist *opts);
/* The template's own options before them: no display, no network, the memory, no monitor,
 * and "-cpu host", "-enable-kvm" when the job lets it use KVM. Appended to opts. */
void qemu_lava_template_options(const struct qemu_lava *l, struct strlist *opts);
/* The deploy action's image_arg of the kernel (with the command line) and of the ramdisk
 * ({kernel} and {ramdisk}: LAVA's placeholders). Caller frees. */
char *qemu_lava_kernel_arg(const char *cmdline);
char *qemu_lava_ramdisk_arg(void);

/* What LAVA's "Boot command: " line says: the machine (-machine or -M; NULL when none), the
 * QEMU binary's architecture (qemu-system-ARCH; NULL when none), and whether KVM accelerates
 * it. Each out pointer is replaced (the old one freed). */
void qemu_lava_read_boot_command(const char *cmd, char **machine, char **qemu_arch, bool *kvm);

#endif
