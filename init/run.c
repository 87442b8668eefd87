// SPDX-License-Identifier: GPL-2.0-only
/* run.c: run one test to its end: own session, captured output, timeout, clean-up, reaping. */
#include "init.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "line_tag.h"
#include "protocol.h"
#include "tap.h"

/* The environment every test starts from (then the plan's env entries), as in a login shell
 * without profile: tests must not depend on what the init inherited from the kernel. */
static const char *const default_env[] = {
	"PATH=/bin:/sbin:/usr/bin:/usr/sbin",
	"HOME=/",
	"TERM=dumb",
	"LANG=C.UTF-8",
	"USER=root",
	"LOGNAME=root",
	"SHELL=/bin/sh",
};

/* After SIGKILL a test in uninterruptible sleep may never die; stop waiting after this. */
#define ABANDON_MS 10000

enum child_stage { STAGE_CHDIR, STAGE_STDIN, STAGE_EXEC };

/* What spawn() hands the child, and what the child leaves there when it cannot start the
 * test: the child shares the init's memory until its exec (CLONE_VM | CLONE_VFORK). */
struct spawn_args {
	const char *path, *cwd;
	char **argv, **envp;
	int in;	 /* the test's stdin, -1: fd 0 already is (PID 1, tests_stdio) */
	int out; /* the test's stdout and stderr, -1: fds 1 and 2 already are */
	int stage;
	int err; /* 0: the exec happened */
	bool drop_privileges; /* init_drop_privileges before the exec */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int init_signals_block(void)
{
	sigset_t all;

	/* PID 1 gets no default actions: every signal is blocked and read from a signalfd, so a
	 * test sending SIGTERM to PID 1 is logged, and SIGCHLD drives the reaping (tini). */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	/* exec keeps ignored dispositions (handlers it resets): none may reach a test. Done once
	 * here, not in every child: the init never changes a disposition after this, and 64
	 * sigaction calls per test cost 1.5 ms on arm64 under TCG. A blocked signal is queued for
	 * the signalfd whatever its disposition, so this changes nothing for the init itself. */
	for (int s = 1; s < NSIG; s++) {
		struct sigaction sa;

		if (s != SIGKILL && s != SIGSTOP && !sigaction(s, NULL, &sa) &&
		    sa.sa_handler == SIG_IGN)
			signal(s, SIG_DFL);
	}
	return signalfd(-1, &all, SFD_CLOEXEC | SFD_NONBLOCK);
}

void init_signals_reset(void)
{
	sigset_t none;

	/* exec keeps the mask; no disposition is SIG_IGN (init_signals_block) */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void init_signal_note(struct init_ctx *c, int signo, int pid)
{
	char buf[32];

	strbuf_addf(&c->out, "%*s# init: got %s from pid %d, ignored\n",
		    c->in_test ? TAPBOOT_NEST_INDENT : 0, "",
		    init_signal_name(signo, buf, sizeof(buf)), pid);
}

/* Length of the YAML block that starts at s ("  ---" up to and with "  ..."), 0 when s is not
 * the start of a whole one. */
static size_t yaml_block(const char *s, const char *end)
{
	const char *l = s;

	if (end - s < 6 || memcmp(s, "  ---\n", 6))
		return 0;
	while (l < end) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);

		if (n == 5 && !memcmp(l, "  ...", 5))
			return (size_t)(l + n - s);
		if (!nl || n < 3 || memcmp(l, "  ", 2) || l[2] == ' ')
			return 0; /* a nested line or no end: not the init's block */
		l = nl + 1;
	}
	return 0;
}

/* Tag every line that is not nested: those are the init's own protocol lines (line_tag.h). A
 * YAML block gets one tag, on its "  ..." line: 40 bytes less per test on a console that costs
 * the guest about 4 us a byte (docs/init.md "Cost per test"). */
static void tag_lines(struct init_ctx *c)
{
	const char *s = c->out.buf, *end = s + c->out.len;

	strbuf_reset(&c->tagged);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		size_t block = yaml_block(s, end);

		if (block) {
			n = block;
			nl = s + n < end ? s + n : NULL;
		}
		if (n >= TAPBOOT_NEST_INDENT && !memcmp(s, "    ", TAPBOOT_NEST_INDENT))
			strbuf_add(&c->tagged, s, n);
		else
			line_tag_append(&c->tagged, c->key, ++c->tag_seq, s, n);
		if (nl)
			strbuf_addch(&c->tagged, '\n');
		s += n + (nl != NULL);
	}
}

void init_flush(struct init_ctx *c)
{
	if (!c->out.len)
		return;
	if (c->keyed) {
		tag_lines(c);
		fwrite(c->tagged.buf, 1, c->tagged.len, c->console);
	} else {
		fwrite(c->out.buf, 1, c->out.len, c->console);
	}
	fflush(c->console);
	strbuf_reset(&c->out);
}

void init_bail_out(struct init_ctx *c, const char *why)
{
	tap_bail_out(&c->out, why);
	init_flush(c);
}

/* The context of PID 1's die hook: error_set_die_hook passes none, and there is one init. */
static struct init_ctx *die_ctx;

static void pid1_die(int status, const char *msg)
{
	/* a die while bailing out (no memory for the line) powers off at once */
	static bool dying;

	(void)status;
	if (getpid() != 1)
		return;
	if (!dying && die_ctx) {
		dying = true;
		init_bail_out(die_ctx, msg);
	}
	init_power_off();
}

void init_set_die_hook(struct init_ctx *c)
{
	die_ctx = c;
	error_set_die_hook(pid1_die);
}

bool init_read_key(struct init_ctx *c, const char *path, bool remove)
{
	size_t len = 0;
	char *buf;

	if (read_file(path, &buf, &len) < 0)
		return false;
	if (remove)
		unlink(path);
	if (len != sizeof(c->key)) {
		strbuf_addf(&c->out, "# init: ignoring '%s': %zu bytes, not %zu\n", path, len,
			    sizeof(c->key));
		free(buf);
		return false;
	}
	memcpy(c->key, buf, sizeof(c->key));
	memset(buf, 0, len);
	free(buf);
	c->keyed = true;
	return true;
}

void init_reap(struct init_child *ch)
{
	for (;;) {
		int status;
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p <= 0) {
			if (ch)
				ch->none_left = p < 0 && errno == ECHILD;
			break;
		}
		if (ch && p == ch->pid) {
			ch->done = true;
			ch->status = status;
		}
	}
}

/* /proc/PID/stat: "pid (comm) state ppid pgrp session ..."; comm may hold spaces and ')'. */
static bool proc_stat(pid_t pid, char *state, pid_t *ppid, pid_t *sid)
{
	char path[64], buf[512];
	const char *p;
	int pgrp, pp, s;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d %d %d", state, &pp, &pgrp, &s) != 4)
		return false;
	*ppid = pp;
	*sid = s;
	return true;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Every process of a test descends from the init, and orphans come back to it (PID 1, or a
 * child subreaper on the host): with no child left, nothing of the test is left either. */
static bool have_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 || errno != ECHILD;
}

void init_sweep(struct init_child *ch)
{
	pid_t self;

	/* The last reap found no child at all: every process of the test descends from us (see
	 * have_children), so nothing of it is left and, with no child, none can appear. */
	if (ch->done && ch->none_left)
		return;
	self = getpid();
	for (int round = 0; round < 200; round++) {
		bool found = false;
		struct dirent *e;
		DIR *d;

		kill(-ch->pid, SIGKILL);
		init_reap(ch);
		/* the common case: the test is gone, no need to read all of /proc */
		if (!have_children())
			break;
		d = opendir("/proc");
		if (!d)
			return;
		while ((e = readdir(d))) {
			pid_t pid = (pid_t)atoi(e->d_name), ppid, sid;
			char state;

			if (pid <= 0 || pid == self || !proc_stat(pid, &state, &ppid, &sid))
				continue;
			if (state == 'Z' || state == 'X')
				continue;
			if (sid == ch->pid || ppid == self) {
				kill(pid, SIGKILL);
				found = true;
			}
		}
		closedir(d);
		if (!found)
			break;
		sleep_ms(round < 20 ? 1 : 10);
	}
	init_reap(ch);
}

static void read_signals(struct init_ctx *c)
{
	struct signalfd_siginfo si[8];
	ssize_t n;

	/* several at once: a short read means the queue is empty, no second read for EAGAIN */
	do {
		n = read(c->sigfd, si, sizeof(si));
		for (ssize_t i = 0; n > 0 && i < n / (ssize_t)sizeof(si[0]); i++)
			if (si[i].ssi_signo != SIGCHLD)
				init_signal_note(c, (int)si[i].ssi_signo, (int)si[i].ssi_pid);
	} while (n == (ssize_t)sizeof(si));
}

static char **build_env(const struct plan_test *t)
{
	struct strlist env;

	strlist_init(&env);
	for (size_t i = 0; i < ARRAY_SIZE(default_env); i++)
		strlist_push(&env, default_env[i]);
	for (size_t i = 0; i < t->env.n; i++) {
		size_t klen = (size_t)(strchr(t->env.v[i], '=') - t->env.v[i]) + 1;
		size_t j;

		for (j = 0; j < env.n; j++)
			if (!strncmp(env.v[j], t->env.v[i], klen))
				break;
		if (j < env.n) {
			free(env.v[j]);
			env.v[j] = xstrdup(t->env.v[i]);
		} else {
			strlist_push(&env, t->env.v[i]);
		}
	}
	return env.v;
}

static void free_vec(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The child until its exec, on spawn_stack in the init's memory (the init is suspended
 * meanwhile): only system calls, and what went wrong written into *a. Not instrumented: a
 * sanitizer would take this stack for a corrupted one. */
__attribute__((no_sanitize_address)) static int child(void *arg)
{
	struct spawn_args *a = arg;
	sigset_t none;

	setsid();
	if (a->drop_privileges)
		init_drop_privileges();
	a->stage = STAGE_CHDIR;
	if (chdir(a->cwd) < 0)
		goto fail;
	a->stage = STAGE_STDIN;
	if (a->in >= 0 && dup2(a->in, 0) < 0)
		goto fail;
	if (a->out >= 0 && (dup2(a->out, 1) < 0 || dup2(a->out, 2) < 0))
		goto fail;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL); /* init_signals_reset() */
	a->stage = STAGE_EXEC;
	execve(a->path, a->argv, a->envp);
fail:
	a->err = errno ? errno : EINVAL;
	_exit(127);
}

/* Start the test as posix_spawn does: a child sharing our memory, and us suspended until it
 * has exec'd or failed. A fork would copy the init's page tables and take copy-on-write
 * faults on both sides, and the old error pipe cost a pipe, two closes and a read per test;
 * every system call and fault is slow under TCG. The pid, or -1 with errno set. */
static pid_t spawn(struct spawn_args *a)
{
	/* grows down on every architecture tapboot supports; the child needs little of it */
	static char spawn_stack[32768] __attribute__((aligned(64)));

	a->err = 0;
	return clone(child, spawn_stack + sizeof(spawn_stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
		     a);
}

/* /dev/null for the tests' stdin, opened once (close-on-exec: the test gets only its dup). */
static int devnull_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return fd;
}

void init_tests_stdio_close(struct init_ctx *c)
{
	if (c->out_read >= 0)
		close(c->out_read);
	if (c->out_write >= 0)
		close(c->out_write);
	c->out_read = c->out_write = -1;
}

/* The tests' output pipe, made once and kept: a pipe, two closes and, in the child, three
 * dup2 calls less per test, and one wake-up (no end of file before the exit). Its read end
 * does not block: once a test's processes are all gone, what they wrote is in the pipe, and
 * a read until EAGAIN takes all of it. As PID 1 the init gives itself the fds every test
 * gets (0 /dev/null, 1 and 2 the pipe) and writes the console through a descriptor of its
 * own, so a test inherits them as they are. -1 with errno set. */
static int tests_stdio(struct init_ctx *c)
{
	int p[2], fd;

	if (devnull_fd() < 0)
		return -1; /* the tests' stdin */
	if (c->out_read >= 0)
		return 0;
	if (c->pid1 && c->console == stdout) {
		FILE *f;

		fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		fflush(stdout);
		c->console = f;
		error_set_stream(f); /* fd 2 is the tests' from here on */
	}
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0)
		goto fail;
	if (c->pid1) {
		fd = devnull_fd();
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			goto fail;
		close(p[1]);
		p[1] = -1;
	}
	c->out_read = p[0];
	c->out_write = p[1];
	return 0;
fail:
	fd = errno;
	close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	errno = fd;
	return -1;
}

static int ms_until(double t)
{
	double d = (t - now_s()) * 1000.0;

	return d <= 0 ? 0 : d > 1e9 ? 1000000000 : (int)d + 1;
}

static void exec_failed(struct init_result *r, const struct spawn_args *a)
{
	r->exec_errno = a->err;
	if (a->stage == STAGE_CHDIR)
		r->reason = xasprintf("cannot chdir to '%s': %s", a->cwd, strerror(a->err));
	else if (a->stage == STAGE_STDIN)
		r->reason = xasprintf("cannot open /dev/null: %s", strerror(a->err));
	else
		r->reason = xasprintf("cannot exec '%s': %s", a->path, strerror(a->err));
}

/* Read what the pipe has into the test's output: read(2)'s result, errno set when < 0. */
static ssize_t pump(struct init_ctx *c, int fd, struct init_output *o, char *buf, size_t size)
{
	ssize_t n = read(fd, buf, size);

	if (n > 0) {
		init_output_feed(o, buf, (size_t)n);
		init_flush(c);
	}
	return n;
}

static void wait_test(struct init_ctx *c, struct init_child *ch, struct init_result *r, int outfd,
		      struct init_output *o, double start, char *buf, size_t size)
{
	enum { RUNNING, TERM_SENT, KILL_SENT } phase = RUNNING;
	double next = r->timeout_s ? start + r->timeout_s : 0;

	while (!ch->done) {
		struct pollfd p[2] = {{c->sigfd, POLLIN, 0}, {outfd, POLLIN, 0}};
		int ms = next ? ms_until(next) : -1;

		if (ms == 0) {
			if (phase == RUNNING) {
				kill(-ch->pid, SIGTERM);
				/* a stopped test would hold SIGTERM pending until the SIGKILL */
				kill(-ch->pid, SIGCONT);
				r->timed_out = true;
				strbuf_addf(
					&c->out,
					"%*s# timeout after %u s: SIGTERM to the process group\n",
					TAPBOOT_NEST_INDENT, "", r->timeout_s);
				phase = TERM_SENT;
				next = now_s() + c->grace_ms / 1000.0;
			} else if (phase == TERM_SENT) {
				strbuf_addf(&c->out,
					    "%*s# still running %u ms after SIGTERM: SIGKILL\n",
					    TAPBOOT_NEST_INDENT, "", c->grace_ms);
				init_sweep(ch);
				phase = KILL_SENT;
				next = now_s() + ABANDON_MS / 1000.0;
			} else {
				strbuf_addf(&c->out, "%*s# pid %d survived SIGKILL, abandoned\n",
					    TAPBOOT_NEST_INDENT, "", (int)ch->pid);
				r->abandoned = true;
				break;
			}
			init_flush(c);
			continue;
		}
		if (poll(p, outfd >= 0 ? 2 : 1, ms) < 0 && errno != EINTR)
			sleep_ms(10); /* cannot happen with valid fds; do not spin */
		if (outfd >= 0 && p[1].revents) {
			ssize_t n = pump(c, outfd, o, buf, size);

			/* cannot happen: the init holds the write end */
			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				outfd = -1;
		}
		if (p[0].revents & POLLIN)
			read_signals(c);
		init_reap(ch);
	}
}

/* Every process of the test is gone (init_sweep): what they wrote is in the pipe. */
static void drain(struct init_ctx *c, int fd, struct init_output *o, char *buf, size_t size)
{
	ssize_t n;

	while ((n = pump(c, fd, o, buf, size)) > 0 || (n < 0 && errno == EINTR))
		;
}

static char *image_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

void init_run_test(struct init_ctx *c, const struct plan_test *t, unsigned num,
		   struct init_result *r)
{
	char *path = xasprintf("%s%s", c->root, t->path);
	char *dir = t->cwd ? xstrdup(t->cwd) : image_dir(t->path);
	char *cwd = xasprintf("%s%s", c->root, dir);
	char **envp = build_env(t);
	char **argv = xcalloc(t->args.n + 2, sizeof(*argv));
	struct init_child ch = {0, false, 0, false};
	struct spawn_args sa;
	struct init_output o;
	struct init_health h;
	/* one for the whole run: a 64 KiB malloc and free per test can move the heap's top and
	 * take its page faults again, each slow under TCG */
	static char buf[65536];
	size_t bufsize = sizeof(buf);
	double start;

	(void)num;
	memset(r, 0, sizeof(*r));
	memset(&h, 0, sizeof(h));
	r->timeout_s = c->opt.timeout_s >= 0 ? (unsigned)c->opt.timeout_s : t->timeout_s;
	argv[0] = xstrdup(path);
	for (size_t i = 0; i < t->args.n; i++)
		argv[i + 1] = xstrdup(t->args.v[i]);
	init_output_init(&o, &c->out, c->opt.output_max);
	c->in_test = true;
	init_kernel_begin(&c->kernel);
	start = now_s();
	if (tests_stdio(c) < 0) {
		r->exec_errno = errno;
		r->reason = xasprintf("cannot set up the test's stdin, stdout and stderr: %s",
				      strerror(errno));
		goto out;
	}
	fflush(NULL);
	sa = (struct spawn_args){.path = path,
				 .cwd = cwd,
				 .argv = argv,
				 .envp = envp,
				 .in = c->pid1 ? -1 : devnull_fd(),
				 .out = c->out_write,
				 .stage = STAGE_CHDIR,
				 .drop_privileges = c->pid1 && !(t->flags & PLAN_FLAG_PRIVILEGED)};
	ch.pid = spawn(&sa);
	if (ch.pid < 0) {
		r->exec_errno = errno;
		r->reason = xasprintf("cannot fork: %s", strerror(errno));
		goto out;
	}
	/* Back here once the child has exec'd or exited; sa.err says which. */
	if (sa.err)
		exec_failed(r, &sa);
	wait_test(c, &ch, r, c->out_read, &o, start, buf, bufsize);
	r->duration_s = now_s() - start;
	if (ch.done && WIFEXITED(ch.status)) {
		r->exited = true;
		r->exit_code = WEXITSTATUS(ch.status);
	} else if (ch.done && WIFSIGNALED(ch.status)) {
		r->signo = WTERMSIG(ch.status);
	}
	/* The test is over when its main process is: what it left behind goes now, so a daemon
	 * holding the pipe open cannot stall the run or write into the next test's output. */
	init_sweep(&ch);
	drain(c, c->out_read, &o, buf, bufsize);
	if (!ch.none_left) {
		/* Something of the test survived SIGKILL (or is still dying) and may write
		 * later: the next test gets a pipe of its own. */
		init_reap(NULL);
		init_tests_stdio_close(c);
	}
out:
	if (!r->duration_s)
		r->duration_s = now_s() - start;
	init_output_finish(&o);
	init_kernel_end(&c->kernel, &c->out, &h);
	init_decide(r, &o, &h);
	c->in_test = false;
	init_output_release(&o);
	init_health_release(&h);
	free_vec(argv);
	free_vec(envp);
	free(path);
	free(dir);
	free(cwd);
}
