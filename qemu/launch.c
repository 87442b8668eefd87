/* launch.c: QEMU process supervision. The console is read through a pipe, never a pty or a
 * file in /tmp; QEMU runs in its own process group so a terminal's Ctrl-C reaches only us, and
 * we decide how QEMU stops (it exits cleanly on SIGTERM, FACTS.md). */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *watch_result_name(enum watch_result r)
{
	static const char *const names[] = { "exited", "finished", "crashed",	  "idle",
					     "deadline", "no first line", "interrupted" };
	return (unsigned)r < ARRAY_SIZE(names) ? names[r] : "unknown";
}

int qemu_spawn(struct qemu_proc *p, const struct strlist *argv, const char *install_hint)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, exec_err[2] = { -1, -1 };
	int child_errno = 0;
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->pid = -1;
	p->console_fd = p->stderr_fd = -1;
	strbuf_init(&p->err);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 ||
	    pipe2(exec_err, O_CLOEXEC) < 0) {
		error_errno("cannot create a pipe");
		goto out_close;
	}
	p->pid = fork();
	if (p->pid < 0) {
		error_errno("cannot fork");
		goto out_close;
	}
	if (p->pid == 0) {
		sigset_t none;
		int devnull = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		execvp(argv->v[0], argv->v);
		child_errno = errno;
		if (write(exec_err[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	close(exec_err[1]);
	out[1] = err[1] = exec_err[1] = -1;
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
	fcntl(p->console_fd, F_SETFL, O_NONBLOCK);
	fcntl(p->stderr_fd, F_SETFL, O_NONBLOCK);
	return 0;
out_close:
	strbuf_release(&p->err);
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (exec_err[i] >= 0)
			close(exec_err[i]);
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
	p->console_fd = p->stderr_fd = -1;
	strbuf_release(&p->err);
}

/* Grace periods after the run said it is over: QEMU powers off by itself within a moment; a
 * crashing kernel prints its report over a few lines (measured: a sysrq panic's trace takes
 * well under a second on the emulated UART). */
#define FINISH_GRACE_S 10.0
#define CRASH_GRACE_S 3.0

enum watch_result qemu_watch(struct qemu_proc *p, struct watch_opts *o)
{
	double start = now_s(), last_output = start, stop_at = 0;
	enum watch_result pending = WATCH_EXITED;
	bool got_output = false;
	char buf[65536];

	for (;;) {
		struct pollfd fds[3];
		int nfds = 0, timeout_ms = 200, ci = -1, ei = -1, si = -1;
		double t;

		if (p->console_fd >= 0) {
			ci = nfds;
			fds[nfds++] = (struct pollfd){ .fd = p->console_fd, .events = POLLIN };
		}
		if (p->stderr_fd >= 0) {
			ei = nfds;
			fds[nfds++] = (struct pollfd){ .fd = p->stderr_fd, .events = POLLIN };
		}
		if (o->signal_fd >= 0) {
			si = nfds;
			fds[nfds++] = (struct pollfd){ .fd = o->signal_fd, .events = POLLIN };
		}
		if (poll(fds, (nfds_t)nfds, timeout_ms) < 0 && errno != EINTR) {
			error_errno("poll");
			qemu_stop(p, 2.0);
			return WATCH_EXITED;
		}
		if (si >= 0 && (fds[si].revents & POLLIN)) {
			struct signalfd_siginfo info;

			if (read(o->signal_fd, &info, sizeof(info)) == (ssize_t)sizeof(info)) {
				o->signo = (int)info.ssi_signo;
				qemu_stop(p, 3.0);
				drain_stderr(p);
				return WATCH_INTERRUPTED;
			}
		}
		if (ei >= 0 && fds[ei].revents)
			drain_stderr(p);
		if (ci >= 0 && fds[ci].revents) {
			ssize_t n = read(p->console_fd, buf, sizeof(buf));

			if (n > 0) {
				enum watch_action a = o->on_console(o->ctx, buf, (size_t)n);

				last_output = now_s();
				got_output = true;
				if (a == WATCH_FINISH && !stop_at) {
					pending = WATCH_FINISHED;
					stop_at = last_output + FINISH_GRACE_S;
				} else if (a == WATCH_CRASH && pending != WATCH_CRASHED) {
					pending = WATCH_CRASHED;
					stop_at = last_output + CRASH_GRACE_S;
				}
			} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				close(p->console_fd);
				p->console_fd = -1;
			}
		}
		if (p->console_fd < 0 && reap(p, false)) {
			drain_stderr(p);
			return pending;
		}
		if (p->console_fd < 0) {
			/* console closed but QEMU lingers: give it the grace, then stop it */
			if (!stop_at)
				stop_at = now_s() + 5.0;
		}
		t = now_s();
		if (stop_at && t >= stop_at) {
			qemu_stop(p, 2.0);
			drain_stderr(p);
			return pending;
		}
		if (stop_at)
			continue;
		if (o->first_line_s > 0 && !got_output && t - start >= o->first_line_s) {
			qemu_stop(p, 1.0);
			drain_stderr(p);
			return WATCH_NO_FIRST_LINE;
		}
		if (o->idle_s > 0 && t - last_output >= o->idle_s) {
			qemu_stop(p, 2.0);
			drain_stderr(p);
			return WATCH_IDLE;
		}
		if (o->deadline_s > 0 && t - start >= o->deadline_s) {
			qemu_stop(p, 2.0);
			drain_stderr(p);
			return WATCH_DEADLINE;
		}
	}
}
