// SPDX-License-Identifier: GPL-2.0-only
/* cmd_kcidb.c: tapboot kcidb-submit: its options and usage; kcidb/ submits (kcidb/
 * kcidb_submit.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "commands_lava.h"
#include "error.h"
#include "kcidb_submit.h"

static const char submit_usage[] =
	"usage: tapboot kcidb-submit --url URL [--retries N] DIR|FILE...\n"
	"\n"
	"POST each results directory's kcidb.json (or FILE) to URL/submit, KCIDB's REST\n"
	"endpoint, with the token from $KCIDB_TOKEN as a bearer token.\n"
	"\n"
	"  --url URL       the KCIDB REST server (http://HOST[:PORT][/PATH])\n"
	"  --retries N     attempts after the first on a connection error or a 5xx answer\n"
	"                  (default 4; the wait doubles from 0.5 s)\n"
	"\n"
	"Exit status: 0 every file accepted; 2 bad usage or input, or the server refused the\n"
	"request (401/403: the token; another 4xx: the data); 3 the server could not be reached\n"
	"or answered 5xx after every retry.\n";

int cmd_kcidb_submit(int argc, char **argv)
{
	enum { OPT_URL = 256, OPT_RETRIES };
	static const struct option longopts[] = {
		{"url", required_argument, NULL, OPT_URL},
		{"retries", required_argument, NULL, OPT_RETRIES},
		CLI_HELP_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	const char *url = NULL;
	unsigned retries = KCIDB_RETRIES_DEFAULT;
	struct kcidb_submitter s;
	int c, status;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_URL:
			url = optarg;
			break;
		case OPT_RETRIES: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (!*optarg || *end || v > KCIDB_RETRIES_MAX) {
				error("--retries wants a number from 0 to %d, got '%s'",
				      KCIDB_RETRIES_MAX, optarg);
				return EXIT_USAGE;
			}
			retries = (unsigned)v;
			break;
		}
		default:
			return cli_usage_option(c, submit_usage, NULL);
		}
	}
	if (!url || optind >= argc) {
		error(!url ? "kcidb-submit needs --url"
			   : "kcidb-submit needs a results directory or file");
		fputs(submit_usage, stderr);
		return EXIT_USAGE;
	}
	if (kcidb_submitter_init(&s, url, getenv("KCIDB_TOKEN"), retries) < 0) {
		kcidb_submitter_release(&s);
		return EXIT_USAGE;
	}
	status = kcidb_submit_all(&s, argv + optind, (size_t)(argc - optind));
	kcidb_submitter_release(&s);
	return status;
}
