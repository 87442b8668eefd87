// SPDX-License-Identifier: GPL-2.0-only
/* cmd_kernel.c: tapboot kernel fetch|list: the usage and options; Debian's packaged kernels
 * are kernel/debian.c's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "debian.h"
#include "error.h"

static const char kernel_usage[] =
	"usage: tapboot kernel fetch ARCH [--release RELEASE]\n"
	"       tapboot kernel list\n"
	"\n"
	"  fetch ARCH           download Debian's packaged kernel for ARCH (its image, config\n"
	"                       and modules) into the cache, unless it is there, and print the\n"
	"                       image's path; no root needed (apt's state is kept in the cache)\n"
	"  --release RELEASE    a Debian release (bookworm, trixie, ...; default: this\n"
	"                       machine's apt sources)\n"
	"  list                 the cached kernels: ARCH, RELEASE, VERSION, IMAGE\n"
	"\n"
	"tapboot run --kernel debian:ARCH[:RELEASE] fetches the same way when needed.\n"
	"Exit status: 0 done, 2 bad usage or an unknown architecture, 3 the download failed.\n";

static int kernel_fetch(int argc, char **argv)
{
	enum { OPT_RELEASE = 256 };
	static const struct option longopts[] = {
		{ "release", required_argument, NULL, OPT_RELEASE },
		CLI_HELP_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	const char *release = NULL;
	char *path;
	int c, status;

	optind = 0; /* GNU getopt: a full re-initialisation */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_RELEASE:
			release = optarg;
			break;
		default:
			return cli_usage_option(c, kernel_usage, "kernel");
		}
	}
	if (argc - optind != 1) {
		error("kernel fetch wants one architecture (try 'tapboot kernel --help')");
		return EXIT_USAGE;
	}
	path = kernel_debian_fetch(argv[optind], release, &status);
	if (path)
		printf("%s\n", path);
	free(path);
	return status;
}

int cmd_kernel(int argc, char **argv)
{
	if (argc < 2) {
		fputs(kernel_usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(kernel_usage, stdout);
		return EXIT_PASS;
	}
	if (!strcmp(argv[1], "fetch"))
		return kernel_fetch(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list")) {
		if (argc > 2) {
			error("kernel list takes no arguments");
			return EXIT_USAGE;
		}
		kernel_debian_list(stdout);
		return EXIT_PASS;
	}
	error("unknown kernel command '%s' (fetch or list)", argv[1]);
	fputs(kernel_usage, stderr);
	return EXIT_USAGE;
}
