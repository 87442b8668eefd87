// SPDX-License-Identifier: GPL-2.0-only
/* tapboot.c: main(): dispatch to the subcommands; the only place the process decides to end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "commands_gate.h"
#include "commands_lava.h"
#include "commands_results.h"
#include "commands_repro.h"
#include "error.h"

static const char usage[] =
	"usage: tapboot <command> [options]\n"
	"\n"
	"  run           build an initramfs with the tests, boot a kernel in QEMU, report results\n"
	"  build         write the initramfs `run` would boot\n"
	"  parse         read a console log or TAP/KTAP stream and report its results\n"
	"  compare       regressions and fixes between two runs\n"
	"  gate          a pre-merge verdict: two kernels, reruns, regression or flaky\n"
	"  history       pass rates per test and kernel from the results history\n"
	"  repro         read, match and reproduce a kernel test robot (0-day) report\n"
	"  kernel        fetch Debian's packaged kernels; configure and build a kernel tree\n"
	"  series        build and test every commit of a range, name the one that broke a test\n"
	"  lava-job      write a LAVA job for the run `run` would do\n"
	"  lava-results  a LAVA job's log back into a results directory\n"
	"  kcidb-submit  send results directories' kcidb.json to KernelCI's KCIDB\n"
	"\n"
	"  tapboot <command> --help   options of one command\n"
	"  tapboot --version\n"
	"  man tapboot                the manual\n";

static int finish(int status)
{
	/* stdout is the interface: a full disk or closed pipe must not pass silently (toybox). */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		error("cannot write to standard output");
		return status ? status : EXIT_USAGE;
	}
	return status;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "run", cmd_run },
		{ "build", cmd_build },
		{ "parse", cmd_parse },
		{ "compare", cmd_compare },
		{ "gate", cmd_gate },
		{ "history", cmd_history },
		{ "lava-job", cmd_lava_job },
		{ "lava-results", cmd_lava_results },
		{ "kcidb-submit", cmd_kcidb_submit },
		{ "kernel", cmd_kernel },
		{ "repro", cmd_repro },
		{ "series", cmd_series },
	};

	error_set_prog("tapboot");
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return finish(0);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tapboot %s\n", TAPBOOT_VERSION);
		return finish(0);
	}
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return finish(cmds[i].fn(argc - 1, argv + 1));
	error("unknown command '%s'", argv[1]);
	fputs(usage, stderr);
	return EXIT_USAGE;
}
