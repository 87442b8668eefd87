/* SPDX-License-Identifier: GPL-2.0-only */
/* commands_results.h: tapboot parse and tapboot compare (cli/cmd_parse.c, cli/cmd_compare.c).
 * argv[0] is the command name; the return value is the exit status (error.h). */
#ifndef TAPBOOT_COMMANDS_RESULTS_H
#define TAPBOOT_COMMANDS_RESULTS_H

/* tapboot parse [--format summary|tap|json|junit|kcidb] [--skip=ok|fail] [--expect-skip FILE]
 *               [--suite NAME] [--nonce HEX] [FILE|-]
 * 0 all passed, 1 a test failed (or a skip the policy rejects), 2 bad usage or unreadable
 * input, 3 the stream did not complete (a crash, a tapboot end line missing, an unmet plan). */
int cmd_parse(int argc, char **argv);
/* tapboot compare OLD NEW: results directories (their results.json) or JSON files.
 * 0 no regression, 1 a regression, 2 bad usage or input. */
int cmd_compare(int argc, char **argv);

#endif
