// SPDX-License-Identifier: GPL-2.0-only
/* test_init_die.c: how the init ends a run it cannot go on with: the Bail out! line on its
 * console (tagged once it has the key), and its die hook, which powers off only in PID 1: in
 * any other process a die() or a failed allocation exits with its status as before. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "harness.h"
#include "init.h"

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static void ctx_open(struct init_ctx *c, char **buf, size_t *len)
{
	memset(c, 0, sizeof(*c));
	strbuf_init(&c->out);
	strbuf_init(&c->tagged);
	c->console = open_memstream(buf, len);
}

static void ctx_close(struct init_ctx *c)
{
	fclose(c->console);
	strbuf_release(&c->out);
	strbuf_release(&c->tagged);
}

static void t_bail_out(void)
{
	struct init_ctx c;
	char *buf = NULL;
	size_t len = 0;

	ctx_open(&c, &buf, &len);
	strbuf_addstr(&c.out, "# init: pending\n");
	init_bail_out(&c, "out of memory");
	check_int(c.out.len, ==, 0);
	ctx_close(&c);
	check_str(buf, "# init: pending\nBail out! out of memory\n");
	free(buf);
	/* with the key: each line tagged */
	ctx_open(&c, &buf, &len);
	c.keyed = true;
	init_bail_out(&c, "cannot read plan");
	ctx_close(&c);
	check(!strncmp(buf, "Bail out! cannot read plan ~tb:1:", 33));
	check_int(strlen(buf), ==, 33 + 11 + 1);
	free(buf);
}

/* The exit status of a child that sets the hook and then dies (how). */
static int child_status(int how)
{
	struct init_ctx c;
	char *buf = NULL;
	size_t len = 0;
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		ctx_open(&c, &buf, &len);
		init_set_die_hook(&c);
		if (how == 0)
			die(EXIT_USAGE, "bad input");
		xmalloc(SIZE_MAX / 2);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + st;
}

static int die_child(void *arg)
{
	*(int *)arg = child_status(0);
	return 0;
}

static int oom_child(void *arg)
{
	*(int *)arg = child_status(1);
	return 0;
}

static void t_die_hook_not_pid1(void)
{
	int status = -1, ret;
	char *err = test_capture_stderr(die_child, &status, &ret);

	check_int(status, ==, EXIT_USAGE);
	check_str(err, "tapboot: bad input\n");
	free(err);
	err = test_capture_stderr(oom_child, &status, &ret);
	check_int(status, ==, EXIT_VM);
	check(strstr(err, "tapboot: out of memory\n") != NULL);
	free(err);
	error_set_die_hook(NULL);
}

int main(void)
{
	TEST(t_bail_out, "the init's Bail out! line, plain and tagged");
	TEST(t_die_hook_not_pid1, "the init's die hook outside PID 1: die and OOM exit as before");
	return test_done();
}
