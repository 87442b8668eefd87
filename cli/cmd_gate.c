// SPDX-License-Identifier: GPL-2.0-only
/* cmd_gate.c: tapboot gate: the options and usage; the runs, reruns and classes are
 * run/gate.c's, the class rule results/gate_class.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "commands_gate.h"
#include "error.h"
#include "run.h"

/* 5 reruns: 6 runs a side, where a test failing half the time passes as uniform on both
 * sides 1 time in 1024 (gate_class.h), and a gate of four tests on two kernels costs 2 + 10
 * warm restores at most (0.3-1.5 s each under TCG here, README "A pre-merge gate"). */
#define GATE_RERUNS_DEFAULT 5

static const char gate_usage[] =
	"usage: tapboot gate --base KERNEL_A --kernel KERNEL_B [options] [run options] TEST...\n"
	"       tapboot gate --base-results DIR [--base KERNEL_A] --kernel KERNEL_B ... TEST...\n"
	"\n"
	"Run the TESTs on KERNEL_A (the base) and KERNEL_B, then rerun, up to N times a side\n"
	"and interleaved (A, B, A, B), every test whose verdicts differ between the kernels or\n"
	"that did not pass on both, until its class is settled. Each test ends in one class:\n"
	"pass, regression, fixed, flaky, failing (on both), new, new-failing or vanished, by a\n"
	"k/N rule (README \"A pre-merge gate\", and gate.json's \"rule\").\n"
	"\n"
	"  --base KERNEL_A      the kernel to compare with, as `run --kernel` takes it\n"
	"  --base-results DIR   an earlier run of the base, used as A's first run (A is rerun\n"
	"                       only when --base is given too)\n"
	"  --kernel KERNEL_B    the kernel under test\n"
	"  --reruns N           reruns a side at most (default 5; 0: none)\n"
	"  --flaky=report|fail  does a flaky test fail the gate? (default report)\n"
	"  --history FILE       the results history (default\n"
	"                       $XDG_CACHE_HOME/tapboot/history.sqlite); --no-history: none\n"
	"  -o, --output DIR     the gate's directory (default: a new one under ./tapboot-out/):\n"
	"                       base/, kernel/, rerun-R-base/, rerun-R-kernel/ (each a run's\n"
	"                       results directory, its output beside it in NAME.log),\n"
	"                       gate.json, gate.html\n"
	"  other options        given to every `tapboot run` (--timeout, --memory, -j, ...)\n"
	"\n"
	"Exit status: 0 no regression, 1 a regression or a failing new test (or a flaky one with\n"
	"--flaky=fail), 2 bad usage or input, 3 a kernel's first run gave no verdicts (boot or\n"
	"VM failure), 130 interrupted.\n";

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]: the value (advancing *i), or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt, bool *bad)
{
	size_t n = strlen(opt);

	if (strncmp(argv[*i], opt, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc) {
		error("gate: %s wants a value", opt);
		*bad = true;
		return NULL;
	}
	return argv[++*i];
}

/* Our options out of argv, the rest (run's options and the TESTs) into o->run_args. 1 after
 * --help, 0, or -1 after a message. */
static int parse(struct gate_opts *o, int argc, char **argv)
{
	bool bad = false;
	const char *v;

	o->run_args = xcalloc((size_t)argc + 1, sizeof(*o->run_args));
	for (int i = 1; i < argc && !bad; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(gate_usage, stdout);
			return 1;
		} else if ((v = opt_value(argc, argv, &i, "--base-results", &bad))) {
			o->base_results = v;
		} else if ((v = opt_value(argc, argv, &i, "--base", &bad))) {
			o->base = v;
		} else if ((v = opt_value(argc, argv, &i, "--kernel", &bad))) {
			o->kernel = v;
		} else if ((v = opt_value(argc, argv, &i, "--history", &bad))) {
			o->history = v;
		} else if ((v = opt_value(argc, argv, &i, "--output", &bad)) ||
			   (v = opt_value(argc, argv, &i, "-o", &bad))) {
			o->out_dir = v;
		} else if ((v = opt_value(argc, argv, &i, "--reruns", &bad))) {
			unsigned n;

			if (cli_parse_seconds(v, &n) < 0 || n > 100)
				return error("gate: --reruns wants 0 to 100, got '%s'", v);
			o->reruns = n;
		} else if ((v = opt_value(argc, argv, &i, "--flaky", &bad))) {
			if (strcmp(v, "report") && strcmp(v, "fail"))
				return error("gate: --flaky wants report or fail, got '%s'", v);
			o->flaky_fails = !strcmp(v, "fail");
		} else if (!strcmp(a, "--no-history")) {
			o->no_history = true;
		} else if (!strncmp(a, "--filter", 8) || !strcmp(a, "--force") ||
			   !strncmp(a, "--history-label", 15) || !strcmp(a, "--isolate")) {
			return error("gate: '%s' is not taken: the gate picks the tests of each "
				     "run and its directories",
				     a);
		} else if (!bad) {
			o->run_args[o->nrun_args++] = argv[i];
		}
	}
	if (bad)
		return -1;
	if (!o->kernel || (!o->base && !o->base_results))
		return error("gate wants --kernel KERNEL_B and --base KERNEL_A (or --base-results "
			     "DIR; try 'tapboot gate --help')");
	if (!o->nrun_args)
		return error("gate: no tests given (try 'tapboot gate --help')");
	if (o->no_history && o->history)
		return error("gate: --history and --no-history contradict each other");
	return 0;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_opts o = {.reruns = GATE_RERUNS_DEFAULT};
	int ret = parse(&o, argc, argv), status;

	if (ret) {
		free(o.run_args);
		return ret > 0 ? EXIT_PASS : EXIT_USAGE;
	}
	status = run_gate(&o);
	free(o.run_args);
	return status;
}
