/* SPDX-License-Identifier: GPL-2.0-only */
/* reproduce.h: tapboot repro run: a kernel test robot report reproduced on the user's kernel,
 * attempt by attempt (each a `tapboot run` of this binary), with a yes or no. */
#ifndef TAPBOOT_REPRODUCE_H
#define TAPBOOT_REPRODUCE_H

#include <stdbool.h>
#include <stdio.h>

#include "repro.h"

struct strbuf;

/* What the user asked (tapboot repro run's options; borrowed strings). */
struct repro_run_opts {
	const char *report;
	const char *kernel, *config, *kselftest, *out, *timeout, *accel, *memory;
	unsigned n; /* attempts, >= 1 */
	bool all, bisect;
	char **tests; /* the TEST... that trigger the problem */
	int ntests;
};

/* Read the report, compare the kernel's config with it, run up to o->n attempts and judge each.
 * The lines (config:, machine:, report:, cmdline:, attempt N:, the verdict, results:) go to
 * stdout. Returns 0 not reproduced, 1 reproduced, EXIT_VM not tested (another crash first, or
 * the boot failed), EXIT_USAGE bad input, EXIT_INTERRUPTED. */
int repro_run(const struct repro_run_opts *o);
/* status as git bisect run wants it when bisect is set: 0 good, 1 bad, 125 cannot test, 255
 * abort (bad input, interrupted); status itself otherwise. */
int repro_bisect_code(int status, bool bisect);

/* The parts of repro_run, exposed for the tests. */

/* The test a report needs when the user gave none: NULL test for lkp's boot testcase; for a
 * kernel-selftests.COLL.TEST[.CASE] one, *ks_test "COLL:TEST" and *ks_case CASE (or NULL), both
 * owned. 0, or -1 after a message (a testcase tapboot does not run itself, no --kselftest). */
int repro_pick_test(const struct repro_report *r, const char *kselftest, char **ks_test,
		    char **ks_case);
/* The kernel's config: config when given, KERNEL/.config for a build directory, config-REL or
 * .config beside an image (Debian's /boot/config-REL for /boot/vmlinuz-REL). Owned; NULL when
 * none is found. */
char *repro_kernel_config_path(const char *kernel, const char *config);
/* The options the report needs (its config's sanitizers and debug checks, the job's
 * need_kconfig, else what its signatures imply) that the config at path lacks, one per line in
 * *missing; *why says where the wanted options come from. Returns how many are missing, 0 when
 * nothing is wanted, -1 when something is but path is NULL or cannot be read. */
int repro_config_gap(const struct repro_report *r, const char *path, struct strbuf *missing,
		     const char **why);

/* The QEMU machine of the attempts, like the report's where it matters. */
struct repro_machine {
	char *smp, *memory, *cpu; /* owned; NULL: tapboot run's default */
	bool i440fx;		  /* the report's machine was a pc (i440FX) */
};
/* From the report's test machine line and dmesg: -cpu only with KVM (kvm), memory capped at
 * 2048 MB; each change said on out ("machine: ..."). */
void repro_machine_pick(const struct repro_report *r, bool kvm, struct repro_machine *m, FILE *out);
void repro_machine_release(struct repro_machine *m);

#endif
