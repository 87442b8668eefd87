/* SPDX-License-Identifier: GPL-2.0-only */
/* machine_line.h: a test machine's QEMU options written as one line of text (lkp's reports and
 * job scripts: "qemu-system-x86_64 -enable-kvm -cpu SandyBridge -smp 2 -m 16G"). */
#ifndef TAPBOOT_MACHINE_LINE_H
#define TAPBOOT_MACHINE_LINE_H

/* The values of -smp, -m and -cpu in a machine line, as written ("2", "16G", "SandyBridge");
 * NULL when the line has none. Owned: machine_line_release. */
struct machine_line {
	char *smp, *memory, *cpu;
};

/* An option counts at the line's start or after a space, with a space after it; the first of
 * each counts, its value runs to the next space. line may be NULL (then all are NULL). */
void machine_line_parse(const char *line, struct machine_line *m);
void machine_line_release(struct machine_line *m);
/* "MODEL -smp SMP -m MEMORY" for a job script's model, nr_cpu and memory (smp or memory NULL:
 * left out). Caller frees. */
char *machine_line_format(const char *model, const char *smp, const char *memory);

#endif
