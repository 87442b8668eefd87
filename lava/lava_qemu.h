/* lava_qemu.h: the QEMU command-line text LAVA's files carry and its log shows. LOCAL: qemu/
 * has no mode for LAVA's device context yet (helper KERNEL's "qemu API:"), so until it has,
 * this is the one file outside qemu/ that writes or reads QEMU options. */
#ifndef TAPBOOT_LAVA_QEMU_H
#define TAPBOOT_LAVA_QEMU_H

#include <stdbool.h>

#include "lava_run.h"
#include "run.h"
#include "strlist.h"

/* The options LAVA's stock qemu.jinja2 (2023.01) adds from the job's context and
 * extra_options: machine and cpu (with_machine_cpu; under KVM the template's -cpu host
 * instead), vCPUs, and a reboot ending QEMU. */
void lava_qemu_context_options(const struct run_export *x, bool kvm, bool with_machine_cpu,
			       struct strlist *opts);
/* The template's own options before them: no display, no network, the memory, no monitor,
 * and -cpu host -enable-kvm when the job lets it use KVM. */
void lava_qemu_template_options(const struct run_export *x, bool kvm, struct strlist *opts);
/* The deploy action's image_arg of the kernel (with the command line) and of the ramdisk
 * ({kernel} and {ramdisk}: LAVA's placeholders). Caller frees. */
char *lava_qemu_kernel_arg(const char *cmdline);
char *lava_qemu_ramdisk_arg(void);

/* What LAVA's "Boot command: " line cmd says, into l (each field replaced): the kernel command
 * line's nonce, the machine (-machine or -M), the QEMU binary's architecture (qemu-system-ARCH)
 * (each NULL when absent), and whether KVM accelerates it. */
void lava_qemu_read_boot_command(const char *cmd, struct lava_run *l);

#endif
