/* SPDX-License-Identifier: GPL-2.0-only */
/* run_build.h: run's --build SRC: the kernel configured (when its build directory has no
 * config, or what it was configured from changed) and built before the run, for run, series
 * and repro run. */
#ifndef TAPBOOT_CLI_RUN_BUILD_H
#define TAPBOOT_CLI_RUN_BUILD_H

#include <getopt.h>
#include <stdbool.h>

#include "strlist.h"

/* What a kernel's tree (not an image) must give the run. */
struct cli_build {
	const char *src;  /* --build SRC: the kernel tree */
	const char *dir;  /* -O DIR: its build directory (default: under the cache) */
	const char *base; /* --base: tinyconfig (default), defconfig, a file */
	struct strlist frags, debug; /* --fragment FILE, --debug NAME,... */
	bool bisect;	  /* --bisect: a kernel that cannot be built is git bisect's skip, 125 */
	bool llvm;	  /* --llvm */
	unsigned jobs;	  /* --build-jobs (0: the CPUs online) */
};

enum { CLI_OPT_BUILD = 600, CLI_OPT_BUILD_DIR, CLI_OPT_BASE, CLI_OPT_FRAGMENT, CLI_OPT_DEBUG,
       CLI_OPT_BISECT, CLI_OPT_LLVM, CLI_OPT_BUILD_JOBS };

#define CLI_BUILD_LONGOPTS                                                   \
	{ "build", required_argument, NULL, CLI_OPT_BUILD },                 \
	{ "build-dir", required_argument, NULL, 'O' },                       \
	{ "base", required_argument, NULL, CLI_OPT_BASE },                   \
	{ "fragment", required_argument, NULL, CLI_OPT_FRAGMENT },           \
	{ "debug", required_argument, NULL, CLI_OPT_DEBUG },                 \
	{ "bisect", no_argument, NULL, CLI_OPT_BISECT },                     \
	{ "llvm", no_argument, NULL, CLI_OPT_LLVM },                         \
	{ "build-jobs", required_argument, NULL, CLI_OPT_BUILD_JOBS }

#define CLI_BUILD_USAGE                                                                        \
	"From a kernel tree (instead of --kernel):\n"                                          \
	"  --build SRC          configure (when -O DIR has no .config, or what it was made of\n" \
	"                       changed) and build SRC's kernel for --arch (default: this host's),\n" \
	"                       then run the tests on it\n"                                    \
	"  -O, --build-dir DIR  the build directory (default: under the cache, one per tree and\n" \
	"                       architecture)\n"                                               \
	"  --base B, --fragment FILE, --debug NAMES   as tapboot kernel config's\n"            \
	"  --bisect             a kernel that does not configure or build exits 125, git\n"   \
	"                       bisect's skip: git bisect run tapboot run --build . --bisect T\n" \
	"  --llvm, --build-jobs N\n"

void cli_build_init(struct cli_build *b);
void cli_build_release(struct cli_build *b);
/* 1 when c is one of CLI_BUILD_LONGOPTS (or -O), 0 when not, -1 after a message. */
int cli_build_option(struct cli_build *b, int c, const char *arg);
/* Configure when needed and build b->src for arch (NULL: the host's); the build directory in
 * *dir and the arch in *arch_out (caller frees both). EXIT_PASS, or EXIT_USAGE after a message
 * (EXIT_BISECT_SKIP with --bisect when configuring or building failed). */
int cli_build_kernel(const struct cli_build *b, const char *arch, bool quiet, char **dir,
		     char **arch_out);

#endif
