// SPDX-License-Identifier: GPL-2.0-only
/* cmd_history.c: tapboot history: the options, the table, --json and --html over history/'s
 * pass rates (history.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "commands_gate.h"
#include "error.h"
#include "history.h"
#include "json.h"

static const char history_usage[] =
	"usage: tapboot history [--history FILE] [--kernel K] [--json] [--html FILE] [TEST]\n"
	"\n"
	"Pass rates per test and kernel from the results history every tapboot run and gate\n"
	"writes (default $XDG_CACHE_HOME/tapboot/history.sqlite): runs, passes (pass, skip,\n"
	"xfail) and failures, flaky tests (both passed and failed on one kernel), the first run\n"
	"where a test failed. --kernel K: only kernel K (as given to --kernel, its uname -r, or\n"
	"a prefix of its image's sha256, at least 6 digits); TEST: only that test.\n"
	"  --json        the same as JSON\n"
	"  --html FILE   a page of pass rates over the runs (inline SVG, no scripts)\n"
	"Exit status: 0, 2 bad usage or a history that cannot be read.\n";

static void when(char *buf, size_t n, double t)
{
	time_t s = (time_t)t;
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void print_text(const struct history_stats *s)
{
	unsigned nflaky = 0;

	printf("%-32s %-24s %5s %5s %5s %6s  %s\n", "test", "kernel", "runs", "pass", "fail",
	       "rate", "first failure");
	for (size_t i = 0; i < s->n; i++) {
		const struct history_stat *h = &s->v[i];
		char t[32] = "-";

		if (h->first_fail_dir)
			when(t, sizeof(t), h->first_fail_time);
		printf("%-32s %-24s %5u %5u %5u %5.0f%%  %s%s%s%s\n", h->test,
		       h->kernel_release ? h->kernel_release
		       : h->kernel	 ? h->kernel
					 : "?",
		       h->runs, h->pass, h->fail, h->runs ? 100.0 * h->pass / h->runs : 0.0, t,
		       h->first_fail_dir ? " " : "", h->first_fail_dir ? h->first_fail_dir : "",
		       h->pass && h->fail ? "  flaky" : "");
		nflaky += h->pass && h->fail;
	}
	printf("%zu tests and kernels, %u flaky\n", s->n, nflaky);
}

static void print_json(const struct history_stats *s)
{
	fputs("{\"tests\": [", stdout);
	for (size_t i = 0; i < s->n; i++) {
		const struct history_stat *h = &s->v[i];

		fputs(i ? ",\n  {\"test\": " : "\n  {\"test\": ", stdout);
		json_put_str(stdout, h->test);
		fputs(", \"kernel\": ", stdout);
		json_put_str(stdout, h->kernel);
		fputs(", \"kernel_release\": ", stdout);
		json_put_str(stdout, h->kernel_release);
		fputs(", \"kernel_sha256\": ", stdout);
		json_put_str(stdout, h->kernel_sha256);
		printf(", \"runs\": %u, \"pass\": %u, \"fail\": %u, \"flaky\": %s, \"outcomes\": ",
		       h->runs, h->pass, h->fail, h->pass && h->fail ? "true" : "false");
		json_put_str(stdout, h->outcomes);
		fputs(", \"first_failure\": ", stdout);
		if (h->first_fail_dir) {
			char t[32];

			when(t, sizeof(t), h->first_fail_time);
			printf("{\"time\": \"%s\", \"dir\": ", t);
			json_put_str(stdout, h->first_fail_dir);
			fputs("}", stdout);
		} else {
			fputs("null", stdout);
		}
		fputs("}", stdout);
	}
	fputs(s->n ? "\n]}\n" : "]}\n", stdout);
}

int cmd_history(int argc, char **argv)
{
	enum { OPT_HISTORY = 256, OPT_KERNEL, OPT_JSON, OPT_HTML };
	static const struct option longopts[] = {
		{"history", required_argument, NULL, OPT_HISTORY},
		{"kernel", required_argument, NULL, OPT_KERNEL},
		{"json", no_argument, NULL, OPT_JSON},
		{"html", required_argument, NULL, OPT_HTML},
		CLI_HELP_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	const char *path = NULL, *kernel = NULL, *html = NULL, *test = NULL;
	struct history_stats s;
	bool json = false;
	char *def = NULL;
	int c, status = EXIT_PASS;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_HISTORY:
			path = optarg;
			break;
		case OPT_KERNEL:
			kernel = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HTML:
			html = optarg;
			break;
		default:
			return cli_usage_option(c, history_usage, "history");
		}
	}
	if (optind + 1 < argc) {
		error("history: one TEST at most (try 'tapboot history --help')");
		return EXIT_USAGE;
	}
	test = optind < argc ? argv[optind] : NULL;
	if (!path && !(path = def = history_default_path()))
		return EXIT_USAGE;
	if (access(path, F_OK) != 0) {
		error_errno("history: no results history at '%s' (every tapboot run writes one)",
			    path);
		free(def);
		return EXIT_USAGE;
	}
	if (history_stats_read(path, kernel, test, &s) < 0) {
		free(def);
		return EXIT_USAGE;
	}
	if (html && history_html_write(html, path, &s) < 0)
		status = EXIT_USAGE;
	if (json)
		print_json(&s);
	else if (!html)
		print_text(&s);
	history_stats_release(&s);
	free(def);
	return status;
}
