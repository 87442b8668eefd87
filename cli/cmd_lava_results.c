// SPDX-License-Identifier: GPL-2.0-only
/* cmd_lava_results.c: tapboot lava-results LOG: its options and usage; lava/ turns the log into
 * a results directory (lava/lava_results.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "commands_lava.h"
#include "error.h"
#include "lava_results.h"

static const char lava_results_usage[] =
	"usage: tapboot lava-results [-o DIR] [--force] [--job JOB.yaml] [--job-url URL]\n"
	"                            [--kcidb-origin NAME] LOG\n"
	"\n"
	"LOG: a LAVA job log: lava-run's standard error, `lavacli jobs logs --raw ID`, or the\n"
	"REST API's /api/v0.2/jobs/ID/logs/. Rebuilds the console, runs tapboot's parser on it,\n"
	"cross-checks LAVA's monitor verdicts, and writes a results directory (console.log,\n"
	"results.json, results.tap, junit.xml, kcidb.json).\n"
	"\n"
	"  -o DIR              the results directory (default: a new one under ./tapboot-out/)\n"
	"  --force             write into an existing non-empty -o DIR\n"
	"  --job JOB.yaml      the job tapboot lava-job wrote: the planned tests' names, so\n"
	"                      tests the run never reached are reported missing by name\n"
	"  --job-url URL       the job's page (kcidb.json's log_url; default: file://LOG)\n"
	"  --kcidb-origin NAME the KCIDB origin in kcidb.json's ids (default tapboot)\n"
	"\n"
	"Exit status: 0 all tests passed or skipped, 1 a test failed, 2 bad usage or LOG is not\n"
	"a LAVA job log, 3 the run did not complete (a crash, a hang, a truncated log, a job\n"
	"that never booted) or LAVA's verdicts contradict tapboot's.\n";

int cmd_lava_results(int argc, char **argv)
{
	enum { OPT_FORCE = 256, OPT_JOB, OPT_JOB_URL, OPT_ORIGIN };
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, OPT_FORCE},
		{"job", required_argument, NULL, OPT_JOB},
		{"job-url", required_argument, NULL, OPT_JOB_URL},
		{"kcidb-origin", required_argument, NULL, OPT_ORIGIN},
		CLI_HELP_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	struct lava_results_opts o = {0};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_JOB:
			o.job = optarg;
			break;
		case OPT_JOB_URL:
			o.job_url = optarg;
			break;
		case OPT_ORIGIN:
			if (cli_parse_kcidb_origin(optarg, &o.origin) < 0)
				return EXIT_USAGE;
			break;
		default:
			return cli_usage_option(c, lava_results_usage, NULL);
		}
	}
	if (argc - optind != 1) {
		error("lava-results takes one LOG, got %d", argc - optind);
		fputs(lava_results_usage, stderr);
		return EXIT_USAGE;
	}
	o.log = argv[optind];
	if (o.job_url && !strstr(o.job_url, "://")) {
		error("--job-url wants a URL, got '%s'", o.job_url);
		return EXIT_USAGE;
	}
	return lava_results(&o);
}
