/* SPDX-License-Identifier: GPL-2.0-only */
/* commands.h: the subcommands of tapboot and what they share. */
#ifndef TAPBOOT_COMMANDS_H
#define TAPBOOT_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "arch_config.h"
#include "builder.h"
#include "cache.h"
#include "report.h"

int cmd_run(int argc, char **argv);
int cmd_build(int argc, char **argv);
/* tapboot kernel fetch ARCH [--release R] | list (cli/cmd_kernel.c) */
int cmd_kernel(int argc, char **argv);
/* tapboot series BASE..HEAD --build SRC TEST... (cli/cmd_series.c) */
int cmd_series(int argc, char **argv);

/* The initramfs options tapboot run and tapboot build share: one table (expanded into each
 * command's getopt table, needs <getopt.h>) and one parser. */
enum {
	CLI_OPT_COMPRESS = 1000,
	CLI_OPT_BUSYBOX,
	CLI_OPT_NO_BUSYBOX,
	CLI_OPT_SYSROOT,
	CLI_OPT_MODULES,
	CLI_OPT_MODULE,
};
#define CLI_IMAGE_LONGOPTS \
	{ "compress", required_argument, NULL, CLI_OPT_COMPRESS }, \
	{ "busybox", no_argument, NULL, CLI_OPT_BUSYBOX }, \
	{ "no-busybox", no_argument, NULL, CLI_OPT_NO_BUSYBOX }, \
	{ "sysroot", required_argument, NULL, CLI_OPT_SYSROOT }, \
	{ "modules", required_argument, NULL, CLI_OPT_MODULES }, \
	{ "module", required_argument, NULL, CLI_OPT_MODULE }
/* getopt's c (with arg) into bo and *sysroot when it is one of CLI_IMAGE_LONGOPTS: 1 taken,
 * 0 not one of them, -1 after a message. */
int cli_image_option(struct builder_opts *bo, const char **sysroot, int c, const char *arg);
/* The skip policy options tapboot run and tapboot parse share (--skip=ok|fail, --expect-skip
 * FILE): one table, one parser into pol (expect holds the loaded globs). */
enum { CLI_OPT_SKIP = 1100, CLI_OPT_EXPECT_SKIP };
#define CLI_POLICY_LONGOPTS \
	{ "skip", required_argument, NULL, CLI_OPT_SKIP }, \
	{ "expect-skip", required_argument, NULL, CLI_OPT_EXPECT_SKIP }
/* 1 taken, 0 not one of them, -1 after a message. */
int cli_policy_option(struct report_policy *pol, struct strlist *expect, int c, const char *arg);

/* --help is -h in every command's getopt table, so cli_usage_option sees one c for both. */
#define CLI_HELP_LONGOPT { "help", no_argument, NULL, 'h' }
/* The default: of a command's option switch. -h or --help: usage on stdout, EXIT_PASS. Anything
 * else getopt refused (it said why): "try 'tapboot CMD --help'" on stderr, or with cmd NULL
 * the usage itself, EXIT_USAGE. */
int cli_usage_option(int c, const char *usage, const char *cmd);
/* --kcidb-origin (run, parse, lava-results) into *out; -1 after a message when it is not
 * KCIDB's origin syntax. */
int cli_parse_kcidb_origin(const char *arg, const char **out);

/* --compress NAME into *out; -1 after a message naming the choices. */
int cli_parse_compress(const char *name, enum builder_compress *out);
/* The longest time an option takes: a week. */
#define CLI_SECONDS_MAX (7 * 86400)
/* Parse a whole number of seconds ("45", "0") up to CLI_SECONDS_MAX; -1 when bad. */
int cli_parse_seconds(const char *s, unsigned *out);
/* The same for option opt ("--timeout"); -1 after a message naming the range. */
int cli_seconds_option(const char *opt, const char *s, unsigned *out);

#endif
