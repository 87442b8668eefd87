/* SPDX-License-Identifier: GPL-2.0-only */
/* qmp.h: the few QEMU Machine Protocol exchanges snapshot boot needs (pause and save a VM to a
 * file, wait for a VM started from one to load, resume), over a socket pair whose other end QEMU
 * inherits (launch.h's QEMU_SPAWN_QMP_FD): no socket path in /tmp, nothing to clean up. */
#ifndef TAPBOOT_QMP_H
#define TAPBOOT_QMP_H

#include <stdbool.h>

#include "strbuf.h"
#include "strlist.h"

struct qmp {
	int fd;		   /* our end; -1 when closed */
	int child_fd;	   /* QEMU's end until qmp_spawned() closes it */
	bool ready;	   /* greeting read, capabilities negotiated */
	struct strbuf buf; /* bytes read, not yet a whole line */
};

/* A socket pair for one QEMU; 0, or -1 after a message. */
int qmp_init(struct qmp *q);
/* The QEMU options that make QEMU's QMP monitor the inherited fd (appended to argv). */
void qmp_argv(struct strlist *argv);
/* After the spawn: close QEMU's end here. */
void qmp_spawned(struct qmp *q);
void qmp_release(struct qmp *q);

/* Run one command (a JSON object as text); 0 when QEMU answered "return" (*reply, when not
 * NULL, gets the whole answer line, caller frees), -1 with *err set (caller frees) when it
 * answered "error", went away, or did not answer within timeout_s. Reads the greeting and
 * negotiates capabilities first when not done yet. Events are skipped. */
int qmp_command(struct qmp *q, const char *json, double timeout_s, char **reply, char **err);

/* Pause the VM and write its state to path (an existing file, opened here and passed to QEMU
 * with getfd; migrate to it), without a bandwidth limit; the VM stays paused. Shared memory
 * (the guest's RAM file, the tests image) is left out: x-ignore-shared, which the restoring QEMU
 * sets too (qmp_incoming). 0, or -1 with *err. */
int qmp_save(struct qmp *q, const char *path, double timeout_s, char **err);
/* For a QEMU started with -incoming defer: x-ignore-shared, then load the state from the
 * inherited fd fd_num. 0, or -1 with *err. */
int qmp_incoming(struct qmp *q, int fd_num, double timeout_s, char **err);
/* For a QEMU started with -incoming: wait until the state is loaded and the VM paused; 0, or -1
 * with *err (QEMU failed to load it, or exited). */
int qmp_wait_loaded(struct qmp *q, double timeout_s, char **err);
/* Resume a paused VM. */
int qmp_cont(struct qmp *q, double timeout_s, char **err);


#endif
