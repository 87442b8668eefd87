/* SPDX-License-Identifier: GPL-2.0-only */
/* commands_repro.h: tapboot repro (cli/cmd_repro.c). argv[0] is "repro"; the return value is
 * the exit status (error.h; with repro run --bisect, git bisect run's 0/1/125/255). */
#ifndef TAPBOOT_COMMANDS_REPRO_H
#define TAPBOOT_COMMANDS_REPRO_H

/* tapboot repro parse REPORT | match REPORT CONSOLE | run REPORT --kernel K [...] [TEST...] */
int cmd_repro(int argc, char **argv);

#endif
