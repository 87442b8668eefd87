/* proc.h: running a helper program (busybox --list-full, scripts/fetch-busybox.sh). */
#ifndef TAPBOOT_PROC_H
#define TAPBOOT_PROC_H

#include <stdbool.h>

#include "strbuf.h"

/* Run argv[0] (a path: no PATH search) with argv, collecting its stdout into out; its stderr
 * passes through, or goes to /dev/null with quiet_stderr. The exit status (128 + signal when
 * killed), or -1 after a message when it could not be run or waited for. */
int proc_capture(const char *const *argv, struct strbuf *out, bool quiet_stderr);

#endif
