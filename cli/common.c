// SPDX-License-Identifier: GPL-2.0-only
/* common.c: what the commands share: option values, the initramfs and skip policy options,
 * the end of every option switch. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "error.h"
#include "fs.h"

int cli_parse_compress(const char *name, enum builder_compress *out)
{
	int k = builder_compress_from_name(name);

	if (k < 0)
		return error("--compress wants none, gzip, xz, zstd or lz4, got '%s'", name);
	*out = (enum builder_compress)k;
	return 0;
}

int cli_parse_seconds(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > CLI_SECONDS_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int cli_seconds_option(const char *opt, const char *s, unsigned *out)
{
	if (cli_parse_seconds(s, out) < 0)
		return error("%s wants whole seconds from 0 to %u (7 days), got '%s'", opt,
			     CLI_SECONDS_MAX, s);
	return 0;
}

int cli_usage_option(int c, const char *usage, const char *cmd)
{
	if (c == 'h') {
		fputs(usage, stdout);
		return EXIT_PASS;
	}
	if (cmd)
		fprintf(stderr, "try 'tapboot %s --help'\n", cmd);
	else
		fputs(usage, stderr);
	return EXIT_USAGE;
}

int cli_parse_kcidb_origin(const char *arg, const char **out)
{
	if (!report_kcidb_origin_ok(arg))
		return error("--kcidb-origin wants lower-case letters, digits and '_' (KCIDB's origin), got '%s'",
			     arg);
	*out = arg;
	return 0;
}

int cli_image_option(struct builder_opts *bo, const char **sysroot, int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_COMPRESS:
		return cli_parse_compress(arg, &bo->compress) < 0 ? -1 : 1;
	case CLI_OPT_BUSYBOX:
		bo->busybox = 1;
		return 1;
	case CLI_OPT_NO_BUSYBOX:
		bo->busybox = -1;
		return 1;
	case CLI_OPT_SYSROOT:
		*sysroot = arg;
		return 1;
	case CLI_OPT_MODULES:
		bo->modules_dir = arg;
		return 1;
	case CLI_OPT_MODULE:
		strlist_push(&bo->load_modules, arg);
		return 1;
	default:
		return 0;
	}
}

int cli_policy_option(struct report_policy *pol, struct strlist *expect, int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_SKIP:
		if (!strcmp(arg, "ok"))
			pol->skip = REPORT_SKIP_OK;
		else if (!strcmp(arg, "fail"))
			pol->skip = REPORT_SKIP_FAIL;
		else
			return error("--skip wants ok or fail, got '%s'", arg);
		return 1;
	case CLI_OPT_EXPECT_SKIP:
		if (report_expect_skip_load(arg, expect) < 0)
			return -1;
		pol->expect_skip = expect;
		return 1;
	default:
		return 0;
	}
}
