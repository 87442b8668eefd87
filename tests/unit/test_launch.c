// SPDX-License-Identifier: GPL-2.0-only
/* test_launch.c: process supervision (console pipe, idle limit, deadline, finish, missing
 * binary) with ordinary shell processes standing in for any long-running child. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "launch.h"

struct seen {
	struct strbuf out;
	const char *finish_on;
};

static enum watch_action on_console(void *ctx, const char *buf, size_t len)
{
	struct seen *s = ctx;

	strbuf_add(&s->out, buf, len);
	if (s->finish_on && strstr(s->out.buf, s->finish_on))
		return WATCH_FINISH;
	return WATCH_CONTINUE;
}

/* what run_sh's child gets besides its console (NULL: stdin /dev/null) */
static const struct qemu_spawn_io *spawn_io;

static enum watch_result run_sh(const char *script, double idle, double deadline,
				const char *finish_on, struct seen *s, double *took, int *status)
{
	struct strlist argv;
	struct qemu_proc p;
	struct watch_opts o = { .idle_s = idle, .deadline_s = deadline, .signal_fd = -1,
				.on_console = on_console, .ctx = s };
	enum watch_result r;
	double t0 = now_s();

	strbuf_init(&s->out);
	s->finish_on = finish_on;
	strlist_init(&argv);
	strlist_push(&argv, "/bin/sh");
	strlist_push(&argv, "-c");
	strlist_push(&argv, script);
	if (qemu_spawn(&p, &argv, "x", spawn_io) < 0) {
		strlist_release(&argv);
		return WATCH_EXITED;
	}
	r = qemu_watch(&p, &o);
	*took = now_s() - t0;
	*status = p.exited ? p.status : -1;
	check(p.exited);
	qemu_proc_release(&p);
	strlist_release(&argv);
	return r;
}

static void test_exit(void)
{
	struct seen s;
	double took;
	int st;

	check_int(run_sh("echo hello; echo err >&2; exit 3", 5, 10, NULL, &s, &took, &st), ==,
		  WATCH_EXITED);
	check_str(s.out.buf, "hello\n");
	check(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	strbuf_release(&s.out);
}

static void test_idle(void)
{
	struct seen s;
	double took;
	int st;

	check_int(run_sh("echo start; sleep 30", 0.5, 10, NULL, &s, &took, &st), ==, WATCH_IDLE);
	check(took < 5);
	strbuf_release(&s.out);
}

static void test_deadline(void)
{
	struct seen s;
	double took;
	int st;

	/* output keeps coming, so only the deadline can end it */
	check_int(run_sh("while :; do echo tick; sleep 0.1; done", 5, 1, NULL, &s, &took, &st), ==,
		  WATCH_DEADLINE);
	check(took < 6);
	strbuf_release(&s.out);
}

static void test_finish(void)
{
	struct seen s;
	double took;
	int st;

	/* the child exits by itself soon after the end line: no need to wait for the grace */
	check_int(run_sh("echo END; sleep 0.2", 5, 20, "END", &s, &took, &st), ==, WATCH_FINISHED);
	check(took < 5);
	strbuf_release(&s.out);
}

static void test_console_closed_first(void)
{
	struct seen s;
	double took;
	int st;

	/* the console closes well before the process exits (QEMU does so for a moment): the
	 * watch waits for the exit (a pidfd in the poll set) and reports its status */
	check_int(run_sh("echo bye; exec >&-; sleep 0.3; exit 5", 5, 20, NULL, &s, &took, &st), ==,
		  WATCH_EXITED);
	check_str(s.out.buf, "bye\n");
	check(WIFEXITED(st) && WEXITSTATUS(st) == 5);
	strbuf_release(&s.out);
}

static int spawn_missing(void *v)
{
	struct strlist argv;
	struct qemu_proc p;
	int r;

	(void)v;
	strlist_init(&argv);
	strlist_push(&argv, "qemu-system-nonexistent");
	r = qemu_spawn(&p, &argv, "qemu-system-misc", NULL);
	strlist_release(&argv);
	return r;
}

static void test_missing_binary(void)
{
	int ret;
	char *err = test_capture_stderr(spawn_missing, NULL, &ret);

	check_int(ret, ==, -1);
	check_str(err, "tapboot: cannot run 'qemu-system-nonexistent': not installed "
		       "(apt-get install qemu-system-misc)\n");
	free(err);
}

/* A child that says what QEMU says when KVM fails, then stays up (QEMU pauses the VM): the
 * watch ends with WATCH_QEMU_FATAL, not at the idle limit (1000 s here). */
static void test_qemu_fatal(void)
{
	struct seen s;
	double took;
	int st;
	char *line, *t;

	check_int(run_sh("echo booting; echo 'KVM internal error. Suberror: 1' >&2; "
			 "echo 'emulation failure' >&2; exec sleep 1000",
			 1000, 0, NULL, &s, &took, &st),
		  ==, WATCH_QEMU_FATAL);
	strbuf_release(&s.out);
	line = qemu_fatal_line("qemu: warning: x\nKVM internal error. Suberror: 1\nmore\n", 54);
	check_str(line, "KVM internal error. Suberror: 1");
	check(qemu_fatal_is_kvm(line));
	free(line);
	check(qemu_fatal_line("qemu-system-x86_64: warning: host doesn't support\n", 50) == NULL);
	t = qemu_exit_text(SIGKILL); /* a wait status: killed by signal 9 */
	check_str(t, "QEMU was killed by SIGKILL");
	free(t);
	t = qemu_exit_text(SIGABRT | 0x80); /* with a core dump */
	check_str(t, "QEMU was killed by SIGABRT");
	free(t);
	t = qemu_exit_text(1 << 8);
	check_str(t, "QEMU exited with status 1");
	free(t);
}

static void check_tunables(const char *in, const char *want)
{
	char *t = qemu_env_tunables(in);

	if (want)
		check_str(t, want);
	else
		check(t == NULL);
	free(t);
}

static void test_tunables(void)
{
	struct seen s;
	double took;
	int st;

	check_tunables(NULL, "glibc.malloc.hugetlb=1");
	check_tunables("", "glibc.malloc.hugetlb=1");
	check_tunables("glibc.malloc.arena_max=2",
		       "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
	/* the caller's own choice stands, wherever it is in the list */
	check_tunables("glibc.malloc.hugetlb=0", NULL);
	check_tunables("glibc.rtld.nns=2:glibc.malloc.hugetlb=2", NULL);
	/* a longer name that starts the same is another tunable */
	check_tunables("x.glibc.malloc.hugetlb=0", "x.glibc.malloc.hugetlb=0:glibc.malloc.hugetlb=1");
	check_tunables("glibc.malloc.hugetlbx=0", "glibc.malloc.hugetlbx=0:glibc.malloc.hugetlb=1");
	/* what the child process really gets, and the rest of the environment with it */
	unsetenv("GLIBC_TUNABLES");
	setenv("TAPBOOT_TEST_ENV", "kept", 1);
	run_sh("echo \"$GLIBC_TUNABLES $TAPBOOT_TEST_ENV\"", 5, 10, NULL, &s, &took, &st);
	check_str(s.out.buf, "glibc.malloc.hugetlb=1 kept\n");
	strbuf_release(&s.out);
	setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=0", 1);
	run_sh("echo \"$GLIBC_TUNABLES\"", 5, 10, NULL, &s, &took, &st);
	check_str(s.out.buf, "glibc.malloc.hugetlb=0\n");
	strbuf_release(&s.out);
	check_str(getenv("GLIBC_TUNABLES"), "glibc.malloc.hugetlb=0");
	unsetenv("GLIBC_TUNABLES");
	unsetenv("TAPBOOT_TEST_ENV");
}

/* io.nice: the child runs at that nice value on top of ours (set before exec, so the threads
 * QEMU starts inherit it); the caller keeps its own */
static void test_nice(void)
{
	struct qemu_spawn_io io = {.qmp_fd = -1, .incoming_fd = -1, .ram_fd = -1, .nice = 10};
	struct seen s;
	double took;
	int st, base = getpriority(PRIO_PROCESS, 0);
	char want[16];

	snprintf(want, sizeof(want), "%d\n", base + 10 > 19 ? 19 : base + 10);
	spawn_io = &io;
	run_sh("exec nice", 5, 10, NULL, &s, &took, &st);
	check_str(s.out.buf, want);
	strbuf_release(&s.out);
	io.nice = 0;
	snprintf(want, sizeof(want), "%d\n", base);
	run_sh("exec nice", 5, 10, NULL, &s, &took, &st);
	check_str(s.out.buf, want);
	strbuf_release(&s.out);
	spawn_io = NULL;
	check_int(getpriority(PRIO_PROCESS, 0), ==, base);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	TEST(test_exit, "child output and exit status");
	TEST(test_idle, "idle limit stops a silent child");
	TEST(test_deadline, "deadline stops a chatty child");
	TEST(test_finish, "finish request ends the watch");
	TEST(test_console_closed_first, "an exit after the console closed is waited for");
	TEST(test_qemu_fatal, "QEMU's fatal stderr line ends the watch; how QEMU ended, in words");
	TEST(test_tunables, "QEMU gets glibc.malloc.hugetlb=1 unless the caller chose it");
	TEST(test_nice, "a niced VM's QEMU runs at that nice value, the caller does not");
	TEST(test_missing_binary, "a missing binary says what to install");
	return test_done();
}
