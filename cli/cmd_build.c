// SPDX-License-Identifier: GPL-2.0-only
/* cmd_build.c: tapboot build: the image `tapboot run` would boot, written to a file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_config.h"
#include "builder.h"
#include "commands.h"
#include "accel.h"
#include "error.h"
#include "fs.h"
#include "run.h"

static const char build_usage[] =
	"usage: tapboot build [--arch ARCH] -o FILE [options] INPUT...\n"
	"\n"
	"Write a newc initramfs holding tapboot's init and the INPUTs: executables (tests),\n"
	"directories (every executable in one is a test), gen_init_cpio list files and tapboot\n"
	"manifests (docs/DESIGN.md).\n"
	"\n"
	"  --arch ARCH          target architecture (default: this machine's)\n"
	"  -o, --output FILE    the image to write (nothing is left behind on an error)\n"
	"  --compress none|gzip|xz|zstd|lz4   (default none)\n"
	"  --busybox, --no-busybox            add (or never add) a static busybox\n"
	"  --sysroot DIR        where shared libraries of dynamic tests are found\n"
	"  --modules DIR        pack a lib/modules/VERSION tree; --module NAME loads one\n"
	"  --timeout SECONDS    default per-test timeout written into the plan (45)\n"
	"  --config FILE        the kernel's .config, to warn about a missing CONFIG_RD_*\n";

int cmd_build(int argc, char **argv)
{
	enum { OPT_ARCH = 256, OPT_TIMEOUT, OPT_CONFIG };
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, OPT_ARCH },
		{ "output", required_argument, NULL, 'o' },
		CLI_IMAGE_LONGOPTS,
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "config", required_argument, NULL, OPT_CONFIG },
		CLI_HELP_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	const char *arch = NULL, *out = NULL, *sysroot = NULL;
	struct builder_opts bo;
	struct arch_config cfg;
	struct plan plan;
	char *cache = NULL, *init = NULL;
	int c, status = EXIT_USAGE;

	builder_opts_init(&bo);
	arch_config_init(&cfg);
	plan_init(&plan);
	bo.default_timeout = PLAN_DEFAULT_TIMEOUT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		int taken = cli_image_option(&bo, &sysroot, c, optarg);

		if (taken < 0)
			goto out;
		if (taken)
			continue;
		switch (c) {
		case OPT_ARCH:
			arch = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_TIMEOUT:
			if (cli_seconds_option("--timeout", optarg, &bo.default_timeout) < 0)
				goto out;
			break;
		case OPT_CONFIG:
			/* refused at once, as by tapboot run: a FIFO would block its read */
			if (fs_check_regular(optarg, "kernel config") < 0)
				goto out;
			bo.kernel_config = optarg;
			break;
		default:
			status = cli_usage_option(c, build_usage, "build");
			goto out;
		}
	}
	if (!out) {
		error("build: -o FILE is required (try 'tapboot build --help')");
		goto out;
	}
	if (optind >= argc) {
		error("build: no inputs given (try 'tapboot build --help')");
		goto out;
	}
	if (!arch)
		arch = run_host_arch();
	if (!*arch) {
		error("build: cannot tell this host's architecture: pass --arch");
		goto out;
	}
	if (arch_config_load(&cfg, arch_config_dir(), arch) < 0 ||
	    run_builder_target(&bo, &cfg, sysroot, &init) < 0)
		goto out;
	{
		char *top = cache_dir();

		cache = xasprintf("%s/segments", top);
		free(top);
	}
	bo.cache_dir = cache;
	bo.fetch_busybox = run_fetch_busybox;
	if (builder_build(&bo, (const char *const *)argv + optind, (size_t)(argc - optind), out,
			  &plan) < 0)
		goto out;
	status = 0;
out:
	builder_opts_release(&bo);
	free(init);
	arch_config_release(&cfg);
	plan_release(&plan);
	free(cache);
	cache_upkeep();
	return status;
}
