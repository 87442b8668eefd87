/* SPDX-License-Identifier: GPL-2.0-only */
/* commands_gate.h: tapboot gate and tapboot history (cli/cmd_gate.c, cli/cmd_history.c).
 * argv[0] is the command name; the return value is the exit status (error.h). */
#ifndef TAPBOOT_COMMANDS_GATE_H
#define TAPBOOT_COMMANDS_GATE_H

/* tapboot gate --base KERNEL_A|--base-results DIR --kernel KERNEL_B [--reruns N]
 * [--flaky=report|fail] [--history FILE|--no-history] [-o DIR] [run options] TEST...
 * 0 no regression, 1 a regression or failing new test (or flaky with --flaky=fail), 2 bad
 * usage or input, 3 a kernel's first run gave no verdicts, 130 interrupted. */
int cmd_gate(int argc, char **argv);
/* tapboot history [--history FILE] [--kernel K] [--json] [--html FILE] [TEST]
 * 0, or 2 bad usage or a history that cannot be read. */
int cmd_history(int argc, char **argv);

#endif
