// SPDX-License-Identifier: GPL-2.0-only
/* main.c: tapboot's guest init. As PID 1: set up, run the plan, power off. Otherwise (host
 * mode, for the unit tests): the same run from a plan file, printed on stdout. */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "protocol.h"

static void ctx_init(struct init_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->root = "";
	c->sigfd = -1;
	c->grace_ms = INIT_GRACE_MS_DEFAULT;
	c->kernel.kmsg_fd = -1;
	c->out_read = c->out_write = -1;
	c->console = stdout;
	init_options_init(&c->opt);
	strbuf_init(&c->out);
	strbuf_init(&c->tagged);
	strbuf_init(&c->module_diag);
}

static void ctx_release(struct init_ctx *c)
{
	if (c->sigfd >= 0)
		close(c->sigfd);
	if (c->kernel.kmsg_fd >= 0)
		close(c->kernel.kmsg_fd);
	init_tests_stdio_close(c);
	init_options_release(&c->opt);
	strbuf_release(&c->out);
	strbuf_release(&c->tagged);
	strbuf_release(&c->module_diag);
}

/* Read and parse the plan; on failure *why says why (owned). */
static int load_plan(struct plan *p, const char *path, char **why)
{
	size_t len;
	char *buf;
	int ret;

	plan_init(p);
	if (read_file(path, &buf, &len) < 0) {
		*why = xasprintf("cannot read plan '%s': %s", path, strerror(errno));
		return -1;
	}
	ret = plan_parse(p, buf, len, path);
	free(buf);
	if (ret < 0)
		*why = xasprintf("bad plan '%s' (the message above says where)", path);
	return ret;
}

__attribute__((noreturn)) static void bail_out(struct init_ctx *c, const char *why)
{
	init_bail_out(c, why);
	init_power_off();
}

__attribute__((noreturn)) static void pid1_main(struct init_ctx *c)
{
	struct plan plan;
	char *why = NULL, *cmdline;
	size_t len;

	c->pid1 = true;
	init_set_die_hook(c);
	/* First of all: no test may ever see the secret, and every line from here on is tagged. */
	init_read_key(c, TAPBOOT_KEY_PATH, true);
	c->sigfd = init_signals_block();
	if (init_setup_pid1(&why, &c->out) < 0)
		bail_out(c, why);
	init_privilege_setup(&c->out);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (read_file("/proc/cmdline", &cmdline, &len) == 0) {
		init_options_parse(&c->opt, cmdline);
		free(cmdline);
	}
	/* Snapshot boot: what is printed before the handoff waits for its key (every line the
	 * host takes as the init's is tagged). */
	if (!c->opt.handoff)
		init_flush(c);
	if (c->sigfd < 0)
		bail_out(c, "cannot create a signalfd");
	if (load_plan(&plan, TAPBOOT_PLAN_PATH, &why) < 0)
		bail_out(c, why);
	c->kernel.kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	c->kernel.taint_path = "/proc/sys/kernel/tainted";
	if (c->opt.handoff) {
		/* The ready point: everything every VM of the run shares is done. */
		if (plan.modules.n)
			init_load_modules(&plan.modules, c->root, &c->module_diag);
		c->modules_loaded = true;
		if (init_handoff(c, 0, 1, &why) < 0)
			bail_out(c, why);
	}
	/* only after the handoff: the tests are the run's own, not the saved state's (a cold
	 * boot of reproduce.sh has the device too, without a handoff) */
	init_tests_image(c);
	init_run_plan(c, &plan);
	init_power_off();
}

static const char usage[] =
	"usage: init-host --plan FILE [--cmdline STRING] [--root DIR] [--kmsg FILE]\n"
	"                 [--tainted FILE] [--grace-ms N] [--key-file FILE]\n"
	"Runs the init's logic without being PID 1: no mounting, the console stream on stdout\n"
	"(with tapboot.handoff=1 in --cmdline: the ready line first, then a line read from stdin),\n"
	"exit 0 when no test failed, 1 when one did, 2 for bad usage or a bad plan.\n";

static int host_main(struct init_ctx *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"plan", required_argument, NULL, 'p'},
		{"cmdline", required_argument, NULL, 'c'},
		{"root", required_argument, NULL, 'r'},
		{"kmsg", required_argument, NULL, 'k'},
		{"tainted", required_argument, NULL, 't'},
		{"grace-ms", required_argument, NULL, 'g'},
		{"key-file", required_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *plan_path = NULL, *kmsg = NULL;
	struct plan plan;
	char *why = NULL;
	unsigned failures;
	int opt;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			plan_path = optarg;
			break;
		case 'c':
			init_options_parse(&c->opt, optarg);
			break;
		case 'r':
			c->root = optarg;
			break;
		case 'k':
			kmsg = optarg;
			break;
		case 't':
			c->kernel.taint_path = optarg;
			break;
		case 'g':
			c->grace_ms = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'K':
			if (!init_read_key(c, optarg, false))
				die(EXIT_USAGE, "cannot read a 16-byte key from '%s'", optarg);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || !plan_path) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	/* Orphans of a test come back to us, as they do to PID 1 in the guest. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	c->sigfd = init_signals_block();
	if (c->sigfd < 0)
		die_errno(EXIT_USAGE, "cannot create a signalfd");
	if (kmsg) {
		c->kernel.kmsg_fd = open(kmsg, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->kernel.kmsg_fd < 0)
			die_errno(EXIT_USAGE, "cannot open '%s'", kmsg);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (load_plan(&plan, plan_path, &why) < 0) {
		init_bail_out(c, why);
		free(why);
		plan_release(&plan);
		return EXIT_USAGE;
	}
	if (c->opt.handoff && init_handoff(c, 0, 1, &why) < 0) {
		init_bail_out(c, why);
		free(why);
		plan_release(&plan);
		return EXIT_VM;
	}
	failures = init_run_plan(c, &plan);
	plan_release(&plan);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_VM, "cannot write to stdout");
	return failures ? EXIT_TESTS_FAILED : EXIT_PASS;
}

int main(int argc, char **argv)
{
	struct init_ctx c;
	int ret;

	error_set_prog("tapboot-init");
	ctx_init(&c);
	if (getpid() == 1)
		pid1_main(&c);
	ret = host_main(&c, argc, argv);
	ctx_release(&c);
	return ret;
}
