/* SPDX-License-Identifier: GPL-2.0-only */
/* commands_lava.h: handing runs to other systems: KernelCI's KCIDB (cli/cmd_kcidb.c, the
 * submitter in kcidb/) and LAVA (cli/cmd_lava.c, cli/cmd_lava_results.c, the job writer and log
 * reader in lava/). argv[0] is the command name; the return value is the exit status
 * (error.h). */
#ifndef TAPBOOT_COMMANDS_LAVA_H
#define TAPBOOT_COMMANDS_LAVA_H

#include <stdbool.h>

#include "run.h" /* struct run_export */

/* tapboot kcidb-submit --url URL [--retries N] DIR|FILE...: POST each kcidb.json to URL/submit
 * with the bearer token from $KCIDB_TOKEN. 0 all accepted; 2 bad usage or input, or the server
 * refused the request (401/403: the token; other 4xx: the data); 3 the server could not be
 * reached or kept failing (connection errors and 5xx are retried with a doubling backoff). */
int cmd_kcidb_submit(int argc, char **argv);
/* tapboot lava-job: a LAVA job (job.yaml, device.yaml, dispatcher.yaml, image, kernel) for the
 * run `tapboot run` would do. 0 written, 2 bad usage or input. */
int cmd_lava_job(int argc, char **argv);
/* tapboot lava-results LOG: a LAVA job log back into a tapboot results directory. Exit status as
 * tapboot run's (0, 1, 3), 2 when LOG is not a LAVA job log. */
int cmd_lava_results(int argc, char **argv);

/* What `tapboot run` would boot (run.h's struct run_export), prepared by run/ without booting:
 * argv is run's (its options and TESTs, one --kernel), -o DIR gets the image as
 * initramfs.cpio (cli/cmd_run.c). 0, or EXIT_USAGE after a message; run_export_release frees
 * x either way. */
int run_export(int argc, char **argv, bool kvm, struct run_export *x);

#endif
