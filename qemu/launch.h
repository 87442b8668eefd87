/* SPDX-License-Identifier: GPL-2.0-only */
/* launch.h: starts QEMU with the console on a pipe and supervises it (idle limit, deadline,
 * signals), handing console bytes to a callback as they arrive. */
#ifndef TAPBOOT_LAUNCH_H
#define TAPBOOT_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "plan.h"
#include "strbuf.h"

struct qemu_proc {
	pid_t pid;
	int console_fd; /* QEMU's stdout: the guest's serial console */
	int stderr_fd; /* QEMU's own messages */
	int pid_fd; /* pidfd_open(pid): readable when QEMU exits; -1 where the kernel has none */
	int stdin_fd; /* the write end of QEMU's stdin (the console's input), or -1: /dev/null */
	struct strbuf err; /* everything QEMU wrote to stderr */
	int status; /* wait status once exited */
	bool exited;
};

/* What the console callback asks for. */
enum watch_action {
	WATCH_CONTINUE,
	WATCH_FINISH, /* the run is over (end marker): give QEMU a moment to exit, then kill it */
	WATCH_CRASH, /* the kernel crashed: collect its report for a moment, then kill QEMU */
};

enum watch_result {
	WATCH_EXITED, /* QEMU exited on its own */
	WATCH_FINISHED, /* after WATCH_FINISH */
	WATCH_CRASHED, /* after WATCH_CRASH */
	WATCH_IDLE, /* no console output for idle_s */
	WATCH_DEADLINE, /* the whole run took longer than deadline_s */
	WATCH_NO_FIRST_LINE, /* nothing within first_line_s (the KVM probe) */
	WATCH_INTERRUPTED, /* SIGINT/SIGTERM/SIGHUP */
	WATCH_QEMU_FATAL, /* QEMU said on stderr that the guest cannot go on (qemu_fatal_line) */
};

struct watch_opts {
	double idle_s; /* 0: no idle limit */
	double deadline_s; /* 0: none */
	double first_line_s; /* 0: none; else the console must have output by then */
	int signal_fd; /* a signalfd for SIGINT/SIGTERM/SIGHUP, or -1 */
	enum watch_action (*on_console)(void *ctx, const char *buf, size_t len);
	/* NULL, or called with ctx at every turn of the watch loop (at least every 200 ms) while
	 * the process runs: a sample of its state (run/stall.c) */
	void (*on_tick)(void *ctx, pid_t pid);
	void *ctx;
	/* Set by qemu_watch on WATCH_INTERRUPTED. */
	int signo;
};

/* What a QEMU process gets besides its console: a pipe to the console's input, and an fd of
 * ours as its fd QEMU_SPAWN_QMP_FD (the QMP socket, qmp.h). */
struct qemu_spawn_io {
	bool stdin_pipe;
	int qmp_fd;	 /* -1: none */
	int incoming_fd; /* a saved state to start from (-incoming fd:4), -1: none */
	int ram_fd;	 /* the guest's RAM file (qemu_argv_ram_file), -1: none */
	int nice;	 /* > 0: QEMU and all its threads at this nice value */
};
#define QEMU_SPAWN_QMP_FD 3
#define QEMU_SPAWN_INCOMING_FD 4
#define QEMU_SPAWN_RAM_FD 5

/* GLIBC_TUNABLES for QEMU given the caller's value (NULL: unset): glibc.malloc.hugetlb=1
 * added, or NULL when the caller set that tunable (kept as it is). Allocated. */
char *qemu_env_tunables(const char *current);
/* Start argv (argv->v[0] found on PATH) with stdin /dev/null (io NULL) or as io says, in its
 * own process group, with our environment and GLIBC_TUNABLES as qemu_env_tunables says. -1
 * after a message when it cannot be started (with an install hint). */
int qemu_spawn(struct qemu_proc *p, const struct strlist *argv, const char *install_hint,
	       const struct qemu_spawn_io *io);
enum watch_result qemu_watch(struct qemu_proc *p, struct watch_opts *o);
/* Supervise n processes at once (their own limits and callbacks in os[i]; os[i].signal_fd is
 * not used: signal_fd is shared). A signal stops them all; *signo gets it. */
void qemu_watch_all(struct qemu_proc *ps, struct watch_opts *os, enum watch_result *results,
		    size_t n, int signal_fd, int *signo);
/* A pool: when slot's process is over (result res, p and o still its), refill may start the
 * next one into p and o and return true; false leaves the slot empty. */
typedef bool (*qemu_refill_fn)(void *ctx, size_t slot, struct qemu_proc *p, struct watch_opts *o,
			       enum watch_result res);
/* qemu_watch_all with refill (NULL: none). A signal stops them all; no refill after it. */
void qemu_watch_pool(struct qemu_proc *ps, struct watch_opts *os, enum watch_result *results,
		     size_t n, int signal_fd, int *signo, qemu_refill_fn refill, void *ctx);
/* Stop QEMU (SIGTERM, then SIGKILL after grace_s) and reap it; safe to call twice. */
void qemu_stop(struct qemu_proc *p, double grace_s);
void qemu_proc_release(struct qemu_proc *p);
const char *watch_result_name(enum watch_result r);
/* The first line of err that says the guest cannot go on although QEMU keeps running (KVM's
 * "KVM internal error. Suberror: 1" pauses the VM: nothing more will come), as a malloc'ed
 * string; NULL when there is none. */
char *qemu_fatal_line(const char *err, size_t len);
/* Is it a KVM failure (then the same guest may run under TCG)? */
bool qemu_fatal_is_kvm(const char *line);
/* How QEMU ended, from its wait status: "QEMU was killed by SIGKILL", "QEMU exited with
 * status 1", "QEMU exited" (malloc'ed). */
char *qemu_exit_text(int status);
double now_s(void);

#endif
