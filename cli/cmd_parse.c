// SPDX-License-Identifier: GPL-2.0-only
/* cmd_parse.c: tapboot parse: the run's parser on any console log or TAP/KTAP stream. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "commands_results.h"
#include "crash_sig.h"
#include "error.h"
#include "plan.h"
#include "report.h"
#include "results.h"
#include "tap_parser.h"
#include "text.h"

static const char parse_usage[] =
	"usage: tapboot parse [options] [FILE|DIR|-]\n"
	"FILE: a console log or TAP/KTAP stream; DIR: a results directory (its console.log)\n"
	"\n"
	"  --format FMT        summary (default), tap, json, junit or kcidb\n"
	"  --skip=ok|fail      does a skip fail the run (default: ok; skips are listed)\n"
	"  --expect-skip FILE  only the tests listed in FILE (names or globs) may skip\n"
	"  --suite NAME        collection prefix for junit and kcidb (default: kselftest for\n"
	"                      kselftest runner output, else tapboot)\n"
	"  --nonce HEX         the run's nonce: complete only with its end line\n"
	"  --foreign           the log is not a tapboot run's (a KUnit console, a robot's\n"
	"                      dmesg): every TAP line makes results, kernel lines too, even\n"
	"                      after a tapboot begin line (by default, from a begin line on,\n"
	"                      only the init's lines make results, in the run's order)\n"
	"  --kcidb-origin NAME the KCIDB origin in kcidb ids (default tapboot)\n"
	"\n"
	"Exit status: 0 passed, 1 a test failed, 2 bad usage or input, 3 the stream did not\n"
	"complete (kernel crash, missing end line, unmet plan).\n";

enum fmt { FMT_SUMMARY, FMT_TAP, FMT_JSON, FMT_JUNIT, FMT_KCIDB };

/* Read fd to the end into the parser; *size and *binary count its bytes and those that are
 * not text (text_binary_bytes). */
static int feed_fd(struct tap_parser *p, int fd, const char *name, size_t *size, size_t *binary)
{
	static char buf[1 << 16];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return error_errno("cannot read '%s'", name);
		}
		if (n == 0)
			return 0;
		*size += (size_t)n;
		*binary += text_binary_bytes(buf, (size_t)n);
		tap_parser_feed(p, buf, (size_t)n);
	}
}

/* Bad input rather than a run that did not complete: no TAP at all, no kernel crash, and more
 * than a tenth of the bytes binary (random data is about two thirds; a console log with line
 * noise from a dying UART has a few bytes). A kernel's console that never reached the init is
 * text: exit 3, as before. */
static bool not_a_log(const struct tap_summary *sum, size_t size, size_t binary)
{
	return !sum->saw_version && !sum->saw_begin && sum->planned < 0 && !sum->total &&
	       !sum->crashed && size && binary > size / 10;
}

static const char *guess_suite(const struct tap_test *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].name && !strncmp(t[i].name, "selftests: ", 11))
			return "kselftest";
	return "tapboot";
}

int cmd_parse(int argc, char **argv)
{
	enum { OPT_FORMAT = 256, OPT_SUITE, OPT_NONCE, OPT_KCIDB_ORIGIN, OPT_FOREIGN };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, OPT_FORMAT},
		CLI_POLICY_LONGOPTS,
		{"suite", required_argument, NULL, OPT_SUITE},
		{"nonce", required_argument, NULL, OPT_NONCE},
		{"kcidb-origin", required_argument, NULL, OPT_KCIDB_ORIGIN},
		{"foreign", no_argument, NULL, OPT_FOREIGN},
		CLI_HELP_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	static const char *const fmt_names[] = {"summary", "tap", "json", "junit", "kcidb"};
	enum fmt fmt = FMT_SUMMARY;
	struct report_policy pol = {REPORT_SKIP_OK, NULL};
	struct strlist expect;
	const char *suite = NULL, *nonce = NULL, *path = "-", *origin = NULL;
	bool foreign = false;
	struct tap_parser *p = NULL;
	const struct tap_summary *sum;
	const struct tap_test *tests;
	size_t ntests;
	struct report_run run;
	char *errtext = NULL, *dirpath = NULL;
	struct crash_sig *crash = NULL;
	int c, fd = 0, status = EXIT_USAGE, ret = 0;
	size_t size = 0, binary = 0;
	const char *shown;

	strlist_init(&expect);
	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		int taken = cli_policy_option(&pol, &expect, c, optarg);

		if (taken < 0)
			goto out;
		if (taken)
			continue;
		switch (c) {
		case OPT_FORMAT: {
			size_t i;

			for (i = 0; i < ARRAY_SIZE(fmt_names); i++)
				if (!strcmp(optarg, fmt_names[i]))
					break;
			if (i == ARRAY_SIZE(fmt_names)) {
				error("--format wants summary, tap, json, junit or kcidb, got '%s'",
				      optarg);
				goto out;
			}
			fmt = (enum fmt)i;
			break;
		}
		case OPT_SUITE:
			suite = optarg;
			break;
		case OPT_NONCE:
			nonce = optarg;
			break;
		case OPT_FOREIGN:
			foreign = true;
			break;
		case OPT_KCIDB_ORIGIN:
			if (cli_parse_kcidb_origin(optarg, &origin) < 0)
				goto out;
			break;
		default:
			status = cli_usage_option(c, parse_usage, NULL);
			goto out;
		}
	}
	if (argc - optind > 1) {
		error("parse takes one FILE (or - for standard input), got %d", argc - optind);
		fputs(parse_usage, stderr);
		goto out;
	}
	if (optind < argc)
		path = argv[optind];
	if (strcmp(path, "-")) {
		struct stat st;

		/* a results directory: its console.log */
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			path = dirpath = xasprintf("%s/console.log", path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			error_errno("cannot open '%s'", path);
			goto out;
		}
	}
	shown = strcmp(path, "-") ? path : "standard input";
	p = tap_parser_new(nonce, NULL);
	tap_parser_set_mode(p, foreign ? TAP_PARSE_FOREIGN : TAP_PARSE_AUTO, NULL);
	/* only junit.xml's system-out and kcidb's crash excerpt use the tests' logs: without
	 * them, keep none (memory and time then stay those of the results, not of the log) */
	if (fmt != FMT_JUNIT && fmt != FMT_KCIDB)
		tap_parser_set_log_cap(p, 0);
	ret = feed_fd(p, fd, shown, &size, &binary);
	if (fd > 0)
		close(fd);
	if (ret)
		goto out;
	tap_parser_finish(p, NULL);
	sum = tap_parser_summary(p);
	if (not_a_log(sum, size, binary)) {
		error("'%s' is not a console log or TAP stream: %zu of its %zu bytes are not text, "
		      "and it holds no TAP line",
		      shown, binary, size);
		goto out;
	}

	tests = tap_parser_tests(p, &ntests);
	errtext = results_incomplete_text(sum, NULL);
	report_run_fill(&run, tests, ntests, sum, suite ? suite : guess_suite(tests, ntests),
			errtext);
	/* a crash, or a kernel warning in a run that failed (a file: standard input is gone) */
	if (strcmp(path, "-") && report_exit_status(&run))
		run.crash = crash = crash_sig_from_file(path);
	switch (fmt) {
	case FMT_SUMMARY:
		report_summary_fprint_policy(stdout, &run, &pol);
		ret = 0;
		break;
	case FMT_TAP:
		ret = report_tap_fprint(stdout, &run);
		break;
	case FMT_JSON:
		ret = report_json_fprint(stdout, &run);
		break;
	case FMT_JUNIT:
		ret = report_junit_fprint(stdout, &run);
		break;
	case FMT_KCIDB:
		/* ids stay unique per run: a random run id unless the run's nonce is known */
		run.kcidb_origin = origin;
		run.nonce = run.run_id = nonce;
		ret = report_kcidb_fprint(stdout, &run);
		break;
	}
	if (ret) {
		error("cannot write to standard output");
		goto out;
	}
	status = report_exit_status_policy(&run, &pol, NULL);
out:
	crash_sig_free(crash);
	free(errtext);
	free(dirpath);
	tap_parser_free(p);
	strlist_release(&expect);
	return status;
}
