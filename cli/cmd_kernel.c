// SPDX-License-Identifier: GPL-2.0-only
/* cmd_kernel.c: tapboot kernel fetch|list|config|build: the usage and options; Debian's
 * packaged kernels are kernel/debian.c's, configuring and building a tree kernel/kbuild*.c's. */
#include <getopt.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "arch_config.h"
#include "debian.h"
#include "error.h"
#include "kbuild.h"
#include "strlist.h"

static const char kernel_usage[] =
	"usage: tapboot kernel fetch ARCH [--release RELEASE]\n"
	"       tapboot kernel list\n"
	"       tapboot kernel config SRC -O DIR [--arch ARCH] [--base tinyconfig|defconfig|FILE]\n"
	"                [--debug NAME,...] [--kunitconfig FILE] [--kselftest-src DIR --targets T,...]\n"
	"                [--modules] [--minimal] [FRAGMENT...]\n"
	"       tapboot kernel build SRC -O DIR [--arch ARCH] [-j N] [--llvm] [-q]\n"
	"\n"
	"  fetch ARCH           download Debian's packaged kernel for ARCH (its image, config\n"
	"                       and modules) into the cache, unless it is there, and print the\n"
	"                       image's path; no root needed (apt's state is kept in the cache)\n"
	"  --release RELEASE    a Debian release (bookworm, trixie, ...; default: this\n"
	"                       machine's apt sources)\n"
	"  list                 the cached kernels: ARCH, RELEASE, VERSION, IMAGE\n"
	"  config SRC -O DIR    write DIR/.config for the tree SRC: the base (default tinyconfig),\n"
	"                       what tapboot needs on ARCH (its init, the console, power-off, the\n"
	"                       tests image device), the --debug sets, a .kunitconfig, the config\n"
	"                       of each kselftest target, the FRAGMENTs; merged by the tree's\n"
	"                       merge_config.sh and olddefconfig; an option that did not stick is\n"
	"                       an error naming what it depends on\n"
	"  --debug NAMES        kasan, kfence, lockdep, ubsan, kmemleak, kcsan, slub, vm, list, info\n"
	"  --minimal            leave out the tests image device (PCI): tests ride in the initramfs\n"
	"  build SRC -O DIR     the tree's make for ARCH in DIR (incremental; ARCH= and the cross\n"
	"                       compiler from configs/ARCH.conf, ccache when installed; the log in\n"
	"                       DIR/build.log) and print the image's path\n"
	"\n"
	"tapboot run --kernel debian:ARCH[:RELEASE] fetches the same way when needed.\n"
	"Exit status: 0 done, 2 bad usage, an unknown architecture, a config that did not stick\n"
	"or a build error (the compiler's first error is printed), 3 the download failed.\n";

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

/* ARCH (default: the host's) loaded into cfg. -1 after a message. */
static int load_arch(const char *arch, struct arch_config *cfg)
{
	const struct arch_config *host = arch_config_host();

	if (!arch && !host)
		return error("this host's architecture has no configs/ file: say --arch");
	return arch_config_load(cfg, arch_config_dir(), arch ? arch : host->arch);
}

static void push_list(struct strlist *l, const char *s)
{
	char *copy = xstrdup(s), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (*t)
			strlist_push(l, t);
	free(copy);
}

/* Each --targets collection's tools/testing/selftests/T/config, as a fragment. */
static int kselftest_fragments(const char *ks_src, const struct strlist *targets,
			       struct strlist *frags)
{
	for (size_t i = 0; i < targets->n; i++) {
		char *p = xasprintf("%s/tools/testing/selftests/%s/config", ks_src, targets->v[i]);

		if (access(p, R_OK) < 0) {
			error("--targets %s: no '%s' (not a kselftest collection of '%s', or one "
			      "without a config)",
			      targets->v[i], p, ks_src);
			free(p);
			return -1;
		}
		strlist_push(frags, p);
		free(p);
	}
	return 0;
}

enum { OPT_ARCH = 300, OPT_BASE, OPT_DEBUG, OPT_KUNIT, OPT_KS_SRC, OPT_TARGETS, OPT_MODULES,
       OPT_MINIMAL, OPT_LLVM };

static int kernel_config(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, OPT_ARCH },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "debug", required_argument, NULL, OPT_DEBUG },
		{ "kunitconfig", required_argument, NULL, OPT_KUNIT },
		{ "kselftest-src", required_argument, NULL, OPT_KS_SRC },
		{ "targets", required_argument, NULL, OPT_TARGETS },
		{ "modules", no_argument, NULL, OPT_MODULES },
		{ "minimal", no_argument, NULL, OPT_MINIMAL },
		{ "output", required_argument, NULL, 'O' },
		CLI_HELP_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	struct kbuild_config kc;
	struct arch_config cfg;
	struct kbuild kb = {0};
	struct strlist targets;
	const char *arch = NULL, *ks_src = NULL, *kunit = NULL;
	int c, status = EXIT_USAGE;

	kbuild_config_init(&kc);
	arch_config_init(&cfg);
	strlist_init(&targets);
	optind = 0;
	while ((c = getopt_long(argc, argv, "hO:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ARCH: arch = optarg; break;
		case OPT_BASE: kc.base = optarg; break;
		case OPT_DEBUG: push_list(&kc.debug, optarg); break;
		case OPT_KUNIT: kunit = optarg; break;
		case OPT_KS_SRC: ks_src = optarg; break;
		case OPT_TARGETS: push_list(&targets, optarg); break;
		case OPT_MODULES: kc.modules = true; break;
		case OPT_MINIMAL: kc.minimal = true; break;
		case 'O': kb.out = optarg; break;
		default:
			status = cli_usage_option(c, kernel_usage, "kernel");
			goto out;
		}
	}
	if (argc - optind < 1 || !kb.out) {
		error("kernel config wants a kernel tree and -O DIR (try 'tapboot kernel --help')");
		goto out;
	}
	kb.src = argv[optind++];
	if (load_arch(arch, &cfg) < 0)
		goto out;
	kb.cfg = &cfg;
	kc.configs_dir = arch_config_dir();
	for (size_t i = 0; i < kc.debug.n; i++) {
		struct strbuf sb;
		int r;

		strbuf_init(&sb);
		r = kbuild_debug_fragment(kc.debug.v[i], &sb);
		strbuf_release(&sb);
		if (r < 0)
			goto out;
	}
	if (kselftest_fragments(ks_src ? ks_src : kb.src, &targets, &kc.fragments) < 0)
		goto out;
	if (kunit)
		strlist_push(&kc.fragments, kunit);
	for (; optind < argc; optind++)
		strlist_push(&kc.fragments, argv[optind]);
	status = kbuild_configure(&kb, &kc) < 0 ? EXIT_USAGE : EXIT_PASS;
	if (status == EXIT_PASS)
		printf("%s/.config\n", kb.out);
out:
	strlist_release(&targets);
	arch_config_release(&cfg);
	kbuild_config_release(&kc);
	return status;
}

static int kernel_build(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, OPT_ARCH },
		{ "llvm", no_argument, NULL, OPT_LLVM },
		{ "jobs", required_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'O' },
		{ "quiet", no_argument, NULL, 'q' },
		CLI_HELP_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	struct arch_config cfg;
	struct kbuild kb = {0};
	const char *arch = NULL;
	char *image = NULL, *end;
	int c, status = EXIT_USAGE;
	unsigned long j;

	arch_config_init(&cfg);
	optind = 0;
	while ((c = getopt_long(argc, argv, "hO:j:q", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ARCH: arch = optarg; break;
		case OPT_LLVM: kb.llvm = true; break;
		case 'O': kb.out = optarg; break;
		case 'q': kb.quiet = true; break;
		case 'j':
			j = strtoul(optarg, &end, 10);
			if (*end || !*optarg || j < 1 || j > 1024) {
				error("-j wants 1 to 1024, got '%s'", optarg);
				goto out;
			}
			kb.jobs = j;
			break;
		default:
			status = cli_usage_option(c, kernel_usage, "kernel");
			goto out;
		}
	}
	if (argc - optind != 1 || !kb.out) {
		error("kernel build wants one kernel tree and -O DIR (try 'tapboot kernel --help')");
		goto out;
	}
	kb.src = argv[optind];
	if (load_arch(arch, &cfg) < 0)
		goto out;
	kb.cfg = &cfg;
	if (kbuild_build(&kb, &image) < 0)
		goto out;
	printf("%s\n", image);
	status = EXIT_PASS;
out:
	free(image);
	arch_config_release(&cfg);
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
	if (!strcmp(argv[1], "config"))
		return kernel_config(argc - 1, argv + 1);
	if (!strcmp(argv[1], "build"))
		return kernel_build(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list")) {
		if (argc > 2) {
			error("kernel list takes no arguments");
			return EXIT_USAGE;
		}
		kernel_debian_list(stdout);
		return EXIT_PASS;
	}
	error("unknown kernel command '%s' (fetch, list, config or build)", argv[1]);
	fputs(kernel_usage, stderr);
	return EXIT_USAGE;
}
