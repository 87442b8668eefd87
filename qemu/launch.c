// SPDX-License-Identifier: GPL-2.0-only
/* launch.c: QEMU process supervision. The console is read through a pipe, never a pty or a
 * file in /tmp; QEMU runs in its own process group so a terminal's Ctrl-C reaches only us, and
 * we decide how QEMU stops (it exits cleanly on SIGTERM, which the README's exit status 130
 * relies on). */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "proc.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *watch_result_name(enum watch_result r)
{
	static const char *const names[] = { "exited",	      "finished",    "crashed",
					     "idle",	      "deadline",    "no first line",
					     "interrupted", "qemu fatal" };
	return (unsigned)r < ARRAY_SIZE(names) ? names[r] : "unknown";
}

/* What QEMU prints when a guest cannot go on while QEMU itself stays up: accel/kvm/kvm-all.c
 * "KVM internal error. Suberror: %d" (then it pauses the VM) and "error: kvm run failed %s". */
static const char *const fatal_starts[] = { "KVM internal error", "error: kvm run failed" };

char *qemu_fatal_line(const char *err, size_t len)
{
	const char *s = err, *end = err + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		for (size_t i = 0; i < ARRAY_SIZE(fatal_starts); i++) {
			size_t l = strlen(fatal_starts[i]);

			if (n >= l && !memcmp(s, fatal_starts[i], l))
				return xstrndup(s, n);
		}
		s += n + 1;
	}
	return NULL;
}

bool qemu_fatal_is_kvm(const char *line)
{
	return line && (strstr(line, "KVM") || strstr(line, "kvm"));
}

char *qemu_exit_text(int status)
{
	if (WIFSIGNALED(status))
		return xasprintf("QEMU was killed by SIG%s", sigabbrev_np(WTERMSIG(status)) ?
							   sigabbrev_np(WTERMSIG(status)) :
							   "?");
	if (WIFEXITED(status) && WEXITSTATUS(status))
		return xasprintf("QEMU exited with status %d", WEXITSTATUS(status));
	return xstrdup("QEMU exited");
}

/* GLIBC_TUNABLES for QEMU, given the caller's (NULL: unset): glibc.malloc.hugetlb=1 added,
 * unless the caller chose that tunable already (then NULL: leave it as it is). With it, QEMU's
 * malloc asks for transparent huge pages (glibc 2.35; older or other C libraries ignore the
 * name): its start took 2,000 fewer page faults here (5,100 -> 3,000, QEMU 7.2, q35, 512 MB), 25
 * ms less of the 100 ms QEMU needs before its monitor answers, for every VM a run starts. Page
 * faults cost about 5 us on this para-virtualised host. docs/DESIGN.md "Snapshot boot". */
char *qemu_env_tunables(const char *current)
{
	static const char name[] = "glibc.malloc.hugetlb";
	const char *s = current;

	while (s && (s = strstr(s, name)) != NULL) {
		/* a whole name: at the start or after ':', followed by '=' */
		if ((s == current || s[-1] == ':') && s[sizeof(name) - 1] == '=')
			return NULL;
		s += sizeof(name) - 1;
	}
	if (!current || !*current)
		return xasprintf("%s=1", name);
	return xasprintf("%s:%s=1", current, name);
}

/* The environment QEMU gets: ours, with GLIBC_TUNABLES as qemu_env_tunables says. Made before
 * the fork (the child only execs). */
static char **qemu_environ(void)
{
	extern char **environ;
	static const char key[] = "GLIBC_TUNABLES=";
	char *t = qemu_env_tunables(getenv("GLIBC_TUNABLES"));
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (!t || strncmp(environ[i], key, sizeof(key) - 1))
			env[k++] = xstrdup(environ[i]);
	if (t) {
		env[k++] = xasprintf("%s%s", key, t);
		free(t);
	}
	return env;
}

static void free_environ(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* In the child: fd as number to, inherited across exec (dup2 clears close-on-exec on the
 * copy). */
static int inherit_fd(int fd, int to)
{
	if (fd < 0)
		return 0;
	return dup2(fd, to);
}

int qemu_spawn(struct qemu_proc *p, const struct strlist *argv, const char *install_hint,
	       const struct qemu_spawn_io *io)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, exec_err[2] = { -1, -1 };
	int in[2] = { -1, -1 };
	int child_errno = 0;
	char **env = NULL;
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->pid = -1;
	p->console_fd = p->stderr_fd = p->pid_fd = p->stdin_fd = -1;
	strbuf_init(&p->err);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 ||
	    pipe2(exec_err, O_CLOEXEC) < 0 || (io && io->stdin_pipe && pipe2(in, O_CLOEXEC) < 0)) {
		error_errno("cannot create a pipe");
		goto out_close;
	}
	env = qemu_environ();
	p->pid = proc_fork();
	if (p->pid < 0) {
		error_errno("cannot fork");
		goto out_close;
	}
	if (p->pid == 0) {
		sigset_t none;
		int stdin_from = in[0] >= 0 ? in[0] : open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (stdin_from < 0 || dup2(stdin_from, 0) < 0 || dup2(out[1], 1) < 0 ||
		    dup2(err[1], 2) < 0)
			_exit(127);
		/* dup2 clears close-on-exec on the copy: QEMU inherits exactly this one */
		if (io) {
			/* above both targets first, so that one cannot overwrite the other */
			int q = io->qmp_fd >= 0 ? fcntl(io->qmp_fd, F_DUPFD_CLOEXEC, 10) : -1;
			int inc = io->incoming_fd >= 0 ? fcntl(io->incoming_fd, F_DUPFD_CLOEXEC, 10)
						      : -1;
			int ram = io->ram_fd >= 0 ? fcntl(io->ram_fd, F_DUPFD_CLOEXEC, 10) : -1;

			if ((io->qmp_fd >= 0 && q < 0) || (io->incoming_fd >= 0 && inc < 0) ||
			    (io->ram_fd >= 0 && ram < 0) || inherit_fd(q, QEMU_SPAWN_QMP_FD) < 0 ||
			    inherit_fd(inc, QEMU_SPAWN_INCOMING_FD) < 0 ||
			    inherit_fd(ram, QEMU_SPAWN_RAM_FD) < 0)
				_exit(127);
		}
		/* before exec: QEMU's threads inherit it (setpriority on a pid sets one thread) */
		if (io && io->nice > 0 && setpriority(PRIO_PROCESS, 0, io->nice) < 0)
			_exit(127);
		execvpe(argv->v[0], argv->v, env);
		child_errno = errno;
		if (write(exec_err[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	free_environ(env);
	env = NULL;
	close(out[1]);
	close(err[1]);
	close(exec_err[1]);
	out[1] = err[1] = exec_err[1] = -1;
	if (in[0] >= 0)
		close(in[0]);
	in[0] = -1;
	do
		n = read(exec_err[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(exec_err[0]);
	exec_err[0] = -1;
	if (n == (ssize_t)sizeof(child_errno)) {
		waitpid(p->pid, NULL, 0);
		p->pid = -1;
		errno = child_errno;
		if (child_errno == ENOENT)
			error("cannot run '%s': not installed (apt-get install %s)", argv->v[0],
			      install_hint);
		else
			error_errno("cannot run '%s'", argv->v[0]);
		goto out_close;
	}
	p->console_fd = out[0];
	p->stderr_fd = err[0];
	p->stdin_fd = in[1];
	in[1] = -1;
#ifdef SYS_pidfd_open
	/* QEMU closes the console a moment before it exits; without a pidfd, the watch loop
	 * would notice the exit only at its next 200 ms tick (measured: 30 ms or 230 ms after
	 * QEMU's exit, at random). */
	p->pid_fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	if (p->pid_fd >= 0)
		fcntl(p->pid_fd, F_SETFD, FD_CLOEXEC);
#endif
	fcntl(p->console_fd, F_SETFL, O_NONBLOCK);
	fcntl(p->stderr_fd, F_SETFL, O_NONBLOCK);
	return 0;
out_close:
	free_environ(env);
	strbuf_release(&p->err);
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (exec_err[i] >= 0)
			close(exec_err[i]);
		if (in[i] >= 0)
			close(in[i]);
	}
	return -1;
}

static bool reap(struct qemu_proc *p, bool block)
{
	if (p->exited || p->pid <= 0)
		return true;
	if (waitpid(p->pid, &p->status, block ? 0 : WNOHANG) == p->pid) {
		p->exited = true;
		return true;
	}
	return false;
}

static void drain_stderr(struct qemu_proc *p)
{
	char buf[4096];
	ssize_t n;

	if (p->stderr_fd < 0)
		return;
	while ((n = read(p->stderr_fd, buf, sizeof(buf))) > 0)
		if (p->err.len < 1 << 20)
			strbuf_add(&p->err, buf, (size_t)n);
	if (n == 0) {
		close(p->stderr_fd);
		p->stderr_fd = -1;
	}
}

void qemu_stop(struct qemu_proc *p, double grace_s)
{
	double until;

	if (p->pid <= 0 || reap(p, false))
		return;
	kill(p->pid, SIGTERM);
	until = now_s() + grace_s;
	while (now_s() < until) {
		if (reap(p, false))
			return;
		usleep(20000);
	}
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
	reap(p, true);
}

void qemu_proc_release(struct qemu_proc *p)
{
	qemu_stop(p, 2.0);
	if (p->console_fd >= 0)
		close(p->console_fd);
	if (p->stderr_fd >= 0)
		close(p->stderr_fd);
	if (p->pid_fd >= 0)
		close(p->pid_fd);
	if (p->stdin_fd >= 0)
		close(p->stdin_fd);
	p->console_fd = p->stderr_fd = p->pid_fd = p->stdin_fd = -1;
	strbuf_release(&p->err);
}

/* Grace periods after the run said it is over: QEMU powers off by itself within a moment; a
 * crashing kernel prints its report over a few lines (measured: a sysrq panic's trace takes
 * well under a second on the emulated UART). */
#define FINISH_GRACE_S 10.0
#define CRASH_GRACE_S 3.0

/* QEMU's UARTs (8250, PL011) write the console a byte at a time: a reader that polls again at
 * once wakes every few bytes (each time a read, console.log's write and the parser's feed: 496
 * polls, reads of about 20 bytes, in bench/init.sh's 100-test run). After a short read the
 * loop waits this long before polling again, so bytes gather in the pipe (64 KiB; the guest
 * prints about 250 bytes a millisecond): 215 polls. A crash or the ready line is seen at most
 * this much later. */
#define COALESCE_NS 1000000L
#define COALESCE_BELOW 4096

/* Per-process state of qemu_watch_all. */
struct watch_state {
	size_t err_scanned; /* bytes of p->err looked at for fatal lines (whole lines only) */
	double start, last_output, stop_at;
	enum watch_result pending;
	bool got_output, done;
};

static void finish_one(struct qemu_proc *p, struct watch_state *st, enum watch_result r,
		       enum watch_result *out, double grace)
{
	qemu_stop(p, grace);
	drain_stderr(p);
	st->done = true;
	*out = r;
}

/* Read one process's console and decide whether it is over. */
static void step_one(struct qemu_proc *p, struct watch_opts *o, struct watch_state *st,
		     short revents, enum watch_result *out, bool *short_read)
{
	char buf[65536];
	double t;

	if (p->console_fd >= 0 && revents) {
		ssize_t n = read(p->console_fd, buf, sizeof(buf));

		if (n > 0) {
			enum watch_action a = o->on_console(o->ctx, buf, (size_t)n);

			if (n < COALESCE_BELOW)
				*short_read = true;

			st->last_output = now_s();
			st->got_output = true;
			if (a == WATCH_FINISH && st->pending != WATCH_FINISHED) {
				st->pending = WATCH_FINISHED;
				st->stop_at = st->last_output + FINISH_GRACE_S;
			} else if (a == WATCH_CRASH && st->pending == WATCH_EXITED) {
				st->pending = WATCH_CRASHED;
				st->stop_at = st->last_output + CRASH_GRACE_S;
			}
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(p->console_fd);
			p->console_fd = -1;
		}
	}
	if (p->console_fd < 0) {
		if (reap(p, false)) {
			drain_stderr(p);
			st->done = true;
			*out = st->pending;
			return;
		}
		/* console closed but QEMU lingers: give it a moment, then stop it */
		if (!st->stop_at)
			st->stop_at = now_s() + 5.0;
	}
	t = now_s();
	if (st->stop_at) {
		if (t >= st->stop_at)
			finish_one(p, st, st->pending, out, 2.0);
		return;
	}
	if (o->first_line_s > 0 && !st->got_output && t - st->start >= o->first_line_s)
		finish_one(p, st, WATCH_NO_FIRST_LINE, out, 1.0);
	else if (o->idle_s > 0 && t - st->last_output >= o->idle_s)
		finish_one(p, st, WATCH_IDLE, out, 2.0);
	else if (o->deadline_s > 0 && t - st->start >= o->deadline_s)
		finish_one(p, st, WATCH_DEADLINE, out, 2.0);
}

/* A fatal line in what QEMU wrote to stderr since the last look? */
static bool fatal_seen(struct qemu_proc *p, struct watch_state *st)
{
	const char *from = p->err.buf ? p->err.buf + st->err_scanned : NULL;
	const char *last_nl;
	char *line;

	if (!from || p->err.len <= st->err_scanned)
		return false;
	last_nl = memrchr(from, '\n', p->err.len - st->err_scanned);
	if (!last_nl)
		return false;
	line = qemu_fatal_line(from, (size_t)(last_nl - from));
	st->err_scanned = (size_t)(last_nl + 1 - p->err.buf);
	if (!line)
		return false;
	free(line);
	return true;
}

void qemu_watch_all(struct qemu_proc *ps, struct watch_opts *os, enum watch_result *results,
		    size_t n, int signal_fd, int *signo)
{
	qemu_watch_pool(ps, os, results, n, signal_fd, signo, NULL, NULL);
}

void qemu_watch_pool(struct qemu_proc *ps, struct watch_opts *os, enum watch_result *results,
		     size_t n, int signal_fd, int *signo, qemu_refill_fn refill, void *ctx)
{
	struct watch_state *st = xcalloc(n, sizeof(*st));
	struct pollfd *fds = xcalloc(3 * n + 1, sizeof(*fds));
	double start = now_s();
	size_t left = n;

	for (size_t i = 0; i < n; i++) {
		st[i].start = st[i].last_output = start;
		st[i].pending = WATCH_EXITED;
	}
	while (left) {
		size_t nfds = 0;
		int timeout_ms = 200;
		bool short_read = false;

		for (size_t i = 0; i < n; i++) {
			bool closed = !st[i].done && ps[i].console_fd < 0;

			fds[3 * i] = (struct pollfd){ .fd = st[i].done ? -1 : ps[i].console_fd,
						      .events = POLLIN };
			fds[3 * i + 1] = (struct pollfd){ .fd = st[i].done ? -1 : ps[i].stderr_fd,
							  .events = POLLIN };
			/* the exit matters only once the console is closed */
			fds[3 * i + 2] = (struct pollfd){ .fd = closed ? ps[i].pid_fd : -1,
							  .events = POLLIN };
			if (closed && ps[i].pid_fd < 0)
				timeout_ms = 10;
		}
		nfds = 3 * n;
		fds[nfds++] = (struct pollfd){ .fd = signal_fd, .events = POLLIN };
		if (poll(fds, (nfds_t)nfds, timeout_ms) < 0 && errno != EINTR) {
			error_errno("poll");
			for (size_t i = 0; i < n; i++)
				if (!st[i].done)
					finish_one(&ps[i], &st[i], WATCH_EXITED, &results[i], 2.0);
			break;
		}
		if (signal_fd >= 0 && (fds[nfds - 1].revents & POLLIN)) {
			struct signalfd_siginfo info;

			if (read(signal_fd, &info, sizeof(info)) == (ssize_t)sizeof(info)) {
				*signo = (int)info.ssi_signo;
				for (size_t i = 0; i < n; i++)
					if (!st[i].done)
						finish_one(&ps[i], &st[i], WATCH_INTERRUPTED,
							   &results[i], 3.0);
				break;
			}
		}
		left = 0;
		for (size_t i = 0; i < n; i++) {
			if (st[i].done)
				continue;
			if (os[i].on_tick)
				os[i].on_tick(os[i].ctx, ps[i].pid);
			if (fds[3 * i + 1].revents) {
				drain_stderr(&ps[i]);
				if (fatal_seen(&ps[i], &st[i])) {
					/* QEMU paused the VM: nothing more will come */
					finish_one(&ps[i], &st[i], WATCH_QEMU_FATAL, &results[i], 1.0);
					continue;
				}
			}
			step_one(&ps[i], &os[i], &st[i], fds[3 * i].revents, &results[i],
				 &short_read);
			/* a slot whose process ended may take the next one at once */
			if (st[i].done && refill && refill(ctx, i, &ps[i], &os[i], results[i])) {
				st[i] = (struct watch_state){.start = now_s(),
							     .pending = WATCH_EXITED};
				st[i].last_output = st[i].start;
			}
			if (!st[i].done)
				left++;
		}
		if (short_read && left)
			nanosleep(&(struct timespec){.tv_nsec = COALESCE_NS}, NULL);
	}
	free(fds);
	free(st);
}

enum watch_result qemu_watch(struct qemu_proc *p, struct watch_opts *o)
{
	enum watch_result r = WATCH_EXITED;

	qemu_watch_all(p, o, &r, 1, o->signal_fd, &o->signo);
	return r;
}
