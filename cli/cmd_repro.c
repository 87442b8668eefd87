// SPDX-License-Identifier: GPL-2.0-only
/* cmd_repro.c: tapboot repro parse|match|run: options and usage; the report reader, the
 * matching and the reproduction are lkp/'s (repro.h, reproduce.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "commands_repro.h"
#include "error.h"
#include "repro.h"
#include "reproduce.h"

static const char usage[] =
	"usage: tapboot repro parse REPORT\n"
	"       tapboot repro match REPORT CONSOLE\n"
	"       tapboot repro run REPORT --kernel IMAGE|DIR [-n N] [--all] [--bisect] [TEST...]\n"
	"\n"
	"REPORT: a kernel test robot mail (plain text, mbox, MIME with base64 or quoted-printable\n"
	"parts, dmesg.xz/kmsg.xz attachments) or a directory of its materials (config-*,\n"
	"job-script, job.yaml, dmesg.xz, kmsg.xz, reproduce.sh). The job-script is parsed, never run.\n"
	"\n"
	"parse   print the report as JSON\n"
	"match   reproduced (a signature of the report's commit column is in CONSOLE), other (a\n"
	"        different crash or warning) or clean, with the matching lines\n"
	"run     boot the kernel with the report's command line and the test, up to N times\n"
	"\n"
	"run options:\n"
	"  --kernel IMAGE|DIR   the kernel to test (an O= build directory, an image, Debian's)\n"
	"  -n N                 attempts (default 1); stops at the first reproduction unless --all\n"
	"  --all                run all N attempts\n"
	"  --bisect             exit codes for git bisect run: 0 good, 1 bad, 125 cannot test,\n"
	"                       255 bad input\n"
	"  --config FILE        the kernel's .config (default: DIR/.config or config-* beside IMAGE)\n"
	"  --kselftest DIR      kselftest install tree for kernel-selftests.* testcases\n"
	"  -o, --output DIR     where the attempts' results directories go (default: a new\n"
	"                       ./tapboot-repro.XXXXXX)\n"
	"  --timeout S, --accel auto|kvm|tcg, --memory MB   passed to tapboot run\n"
	"  TEST...              the test that triggers the problem (needed unless the testcase is\n"
	"                       boot or kernel-selftests.*)\n"
	"\n"
	"Exit status (match and run): 0 not reproduced (clean), 1 reproduced, 2 bad usage or input,\n"
	"3 the kernel could not be tested (boot failed before the test, or another crash came\n"
	"first); with --bisect: 0, 1, 125 and 255 (bad input).\n";

static int do_parse(int argc, char **argv)
{
	struct repro_report r;

	if (argc != 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	repro_report_init(&r);
	if (repro_report_read(&r, argv[1])) {
		repro_report_release(&r);
		return EXIT_USAGE;
	}
	repro_report_json(stdout, &r);
	repro_report_release(&r);
	return 0;
}

static int do_match(int argc, char **argv)
{
	struct repro_report r;
	struct repro_match m;
	char *buf;
	size_t len;
	int status;

	if (argc != 3) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	repro_report_init(&r);
	if (repro_report_read(&r, argv[1]) || repro_read_file(argv[2], &buf, &len)) {
		repro_report_release(&r);
		return EXIT_USAGE;
	}
	repro_match_console(&r, buf, len, &m);
	repro_match_print(stdout, argv[2], &m);
	status = repro_verdict_status(m.verdict);
	repro_match_release(&m);
	repro_report_release(&r);
	free(buf);
	return status;
}

static int do_run(int argc, char **argv)
{
	enum { OPT_KERNEL = 256, OPT_ALL, OPT_BISECT, OPT_CONFIG, OPT_KSELFTEST, OPT_TIMEOUT,
	       OPT_ACCEL, OPT_MEMORY };
	static const struct option longopts[] = {
		{"kernel", required_argument, NULL, OPT_KERNEL},
		{"all", no_argument, NULL, OPT_ALL},
		{"bisect", no_argument, NULL, OPT_BISECT},
		{"config", required_argument, NULL, OPT_CONFIG},
		{"kselftest", required_argument, NULL, OPT_KSELFTEST},
		{"output", required_argument, NULL, 'o'},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"accel", required_argument, NULL, OPT_ACCEL},
		{"memory", required_argument, NULL, OPT_MEMORY},
		CLI_HELP_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	struct repro_run_opts o = {0};
	int c;

	o.n = 1;
	optind = 0;
	/* --bisect changes what bad usage exits with: look for it first */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--bisect"))
			o.bisect = true;
	while ((c = getopt_long(argc, argv, "n:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_KERNEL: o.kernel = optarg; break;
		case OPT_ALL: o.all = true; break;
		case OPT_BISECT: o.bisect = true; break;
		case OPT_CONFIG: o.config = optarg; break;
		case OPT_KSELFTEST: o.kselftest = optarg; break;
		case 'o': o.out = optarg; break;
		case OPT_TIMEOUT: o.timeout = optarg; break;
		case OPT_ACCEL: o.accel = optarg; break;
		case OPT_MEMORY: o.memory = optarg; break;
		case 'n': {
			char *e;
			unsigned long v = strtoul(optarg, &e, 10);
			if (*e || !v || v > 10000) {
				error("-n wants a count from 1 to 10000, not '%s'", optarg);
				return repro_bisect_code(EXIT_USAGE, o.bisect);
			}
			o.n = (unsigned)v;
			break;
		}
		default:
			return repro_bisect_code(cli_usage_option(c, usage, NULL), o.bisect);
		}
	}
	if (optind >= argc || !o.kernel) {
		error(optind >= argc ? "repro run: no REPORT given" : "repro run: no --kernel given");
		fputs(usage, stderr);
		return repro_bisect_code(EXIT_USAGE, o.bisect);
	}
	o.report = argv[optind];
	o.tests = argv + optind + 1;
	o.ntests = argc - optind - 1;
	return repro_bisect_code(repro_run(&o), o.bisect);
}

int cmd_repro(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "parse"))
		return do_parse(argc - 1, argv + 1);
	if (!strcmp(argv[1], "match"))
		return do_match(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return do_run(argc - 1, argv + 1);
	error("repro: unknown subcommand '%s' (parse, match or run)", argv[1]);
	return EXIT_USAGE;
}
