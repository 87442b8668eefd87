// SPDX-License-Identifier: GPL-2.0-only
/* cmd_series.c: tapboot series: the usage and the arguments; the series is series/'s. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "series.h"
#include "strlist.h"

static const char series_usage[] =
	"usage: tapboot series BASE..HEAD --build SRC [-O DIR] [-o OUT] [run options] TEST...\n"
	"\n"
	"Build and test BASE and every commit of BASE..HEAD in turn (oldest first), in a git\n"
	"worktree of SRC (SRC's own checkout is left alone) with one incremental build directory,\n"
	"each commit by `tapboot run --build` with the run options given. Prints a table commit x\n"
	"test and, for each test (and the build) that passed at BASE, the first commit that broke\n"
	"it. Results: OUT/NN-COMMIT/ per commit (a run's results directory) and OUT/series.json.\n"
	"\n"
	"  --build SRC          the kernel tree (a git repository)\n"
	"  -O DIR               the build directory (default: under the cache, per tree and arch)\n"
	"  -o DIR               where the runs' results go (default: a new ./tapboot-out/series-*)\n"
	"\n"
	"Exit status: 0 no commit broke what passed at BASE, 1 a commit did (named), 2 bad usage,\n"
	"BASE not building or a git error, 130 interrupted.\n";

/* series' own options out of argv; the rest (run's options and the tests) into pass. -1 after
 * a message. */
static int split_args(int argc, char **argv, const char **src, const char **bdir,
		      const char **out, struct strlist *pass)
{
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], **slot = NULL;

		if (!strcmp(a, "--build"))
			slot = src;
		else if (!strcmp(a, "-O") || !strcmp(a, "--build-dir"))
			slot = bdir;
		else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			slot = out;
		if (slot) {
			if (i + 1 >= argc)
				return error("series: %s wants a value", a);
			*slot = argv[++i];
		} else if (!strncmp(a, "--build=", 8)) {
			*src = a + 8;
		} else if (!strncmp(a, "--output=", 9)) {
			*out = a + 9;
		} else if (!strcmp(a, "--bisect") || !strcmp(a, "--force")) {
			/* series passes them itself */
		} else {
			strlist_push(pass, a);
		}
	}
	if (!*src)
		return error("series: --build SRC is required (try 'tapboot series --help')");
	return 0;
}

int cmd_series(int argc, char **argv)
{
	struct series_opts o = {0};
	int status = EXIT_USAGE;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(series_usage, stdout);
		return EXIT_PASS;
	}
	strlist_init(&o.pass);
	if (argc < 2 || argv[1][0] == '-')
		error("series wants a range BASE..HEAD first (try 'tapboot series --help')");
	else if (split_args(argc, argv, &o.src, &o.build_dir, &o.out, &o.pass) == 0)
		status = (o.range = argv[1], series_run(&o));
	strlist_release(&o.pass);
	return status;
}
