/* SPDX-License-Identifier: GPL-2.0-only */
/* proc.h: running a helper program (busybox --list-full, scripts/fetch-busybox.sh), and the
 * fork every child of tapboot is made with. */
#ifndef TAPBOOT_PROC_H
#define TAPBOOT_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#include "strbuf.h"

/* Run argv[0] (a path: no PATH search) with argv, collecting its stdout into out; its stderr
 * passes through, or goes to /dev/null with quiet_stderr. The exit status (128 + signal when
 * killed), or -1 after a message when it could not be run or waited for. */
int proc_capture(const char *const *argv, struct strbuf *out, bool quiet_stderr);

/* fork(), the child dying with this process: it gets SIGKILL when tapboot dies, SIGKILL of
 * tapboot included (a CI job's hard timeout), so no QEMU is left running as an orphan.
 * PR_SET_PDEATHSIG survives exec but fires when the forking THREAD ends: fork from the main
 * thread or one that outlives the child (tapboot has no other thread). A parent that died
 * between the fork and the prctl is caught by comparing getppid() after it: the child then
 * exits (127) at once. */
pid_t proc_fork(void);

#endif
