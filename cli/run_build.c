// SPDX-License-Identifier: GPL-2.0-only
/* run_build.c: run's --build options, and the calls before the run: the build directory
 * (under the cache unless -O), the config when what it is made of changed, the incremental
 * build (kernel/kbuild.h). */
#include "run_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch_config.h"
#include "commands.h"
#include "error.h"
#include "kbuild.h"

void cli_build_init(struct cli_build *b)
{
	memset(b, 0, sizeof(*b));
	strlist_init(&b->frags);
	strlist_init(&b->debug);
}

void cli_build_release(struct cli_build *b)
{
	strlist_release(&b->frags);
	strlist_release(&b->debug);
}

int cli_build_option(struct cli_build *b, int c, const char *arg)
{
	char *copy, *save = NULL, *end;
	unsigned long j;

	switch (c) {
	case CLI_OPT_BUILD:
		b->src = arg;
		return 1;
	case 'O':
		b->dir = arg;
		return 1;
	case CLI_OPT_BASE:
		b->base = arg;
		return 1;
	case CLI_OPT_FRAGMENT:
		strlist_push(&b->frags, arg);
		return 1;
	case CLI_OPT_DEBUG:
		copy = xstrdup(arg);
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			strlist_push(&b->debug, t);
		free(copy);
		return 1;
	case CLI_OPT_BISECT:
		b->bisect = true;
		return 1;
	case CLI_OPT_LLVM:
		b->llvm = true;
		return 1;
	case CLI_OPT_BUILD_JOBS:
		j = strtoul(arg, &end, 10);
		if (*end || !*arg || j < 1 || j > 1024)
			return error("--build-jobs wants 1 to 1024, got '%s'", arg);
		b->jobs = j;
		return 1;
	default:
		return 0;
	}
}

int cli_build_kernel(const struct cli_build *b, const char *arch, bool quiet, char **dir,
		     char **arch_out)
{
	const struct arch_config *host = arch_config_host();
	struct arch_config cfg;
	struct kbuild kb = {0};
	struct kbuild_config kc;
	char *image = NULL;
	bool configured;
	int status = b->bisect ? EXIT_BISECT_SKIP : EXIT_USAGE;

	*dir = *arch_out = NULL;
	arch_config_init(&cfg);
	kbuild_config_init(&kc);
	if (!arch && !host) {
		error("--build: this host's architecture has no configs/ file: say --arch");
		status = EXIT_USAGE;
		goto out;
	}
	if (arch_config_load(&cfg, arch_config_dir(), arch ? arch : host->arch) < 0) {
		status = EXIT_USAGE;
		goto out;
	}
	*dir = b->dir ? xstrdup(b->dir) : kbuild_cache_dir("builds", b->src, cfg.arch);
	kb = (struct kbuild){.src = b->src, .out = *dir, .cfg = &cfg, .jobs = b->jobs,
			     .llvm = b->llvm, .quiet = quiet};
	if (kbuild_check_tree(&kb) < 0) {
		status = EXIT_USAGE; /* not a tree at all: bad usage, even when bisecting */
		goto out;
	}
	kc.base = b->base;
	kc.configs_dir = arch_config_dir();
	for (size_t i = 0; i < b->frags.n; i++)
		strlist_push(&kc.fragments, b->frags.v[i]);
	for (size_t i = 0; i < b->debug.n; i++)
		strlist_push(&kc.debug, b->debug.v[i]);
	if (kbuild_configure_if_changed(&kb, &kc, &configured) < 0 || kbuild_build(&kb, &image) < 0)
		goto out;
	if (!quiet)
		note("built %s", image);
	*arch_out = xstrdup(cfg.arch);
	status = EXIT_PASS;
out:
	if (status != EXIT_PASS) {
		free(*dir);
		*dir = NULL;
	}
	free(image);
	kbuild_config_release(&kc);
	arch_config_release(&cfg);
	return status;
}
