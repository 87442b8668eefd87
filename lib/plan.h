/* SPDX-License-Identifier: GPL-2.0-only */
/* plan.h: the list of tests the builder writes into the image and the init reads (/tapboot/plan).
 *
 * Text, one field per line, "key value" with the value escaped (\\, \n, \t):
 *   tapboot-plan 1
 *   module NAME             (global: a module the init loads before the tests, repeatable)
 *   test NAME               (starts a test; fields below belong to it until "end")
 *   path /tests/NAME        (absolute path in the image)
 *   cwd /tests              (working directory; default: the directory of path)
 *   timeout 45              (seconds, 0 = none)
 *   arg X                   (argv[1..], repeatable, in order)
 *   env KEY=VALUE           (added to the environment, repeatable)
 *   flag disruptive|privileged   (repeatable)
 *   config CONFIG_FOO       (kernel option the test needs, repeatable)
 *   skip REASON             (the host already knows it cannot run: the init reports it skipped
 *                            with REASON without running it, e.g. missing kernel options)
 *   end
 * Unknown keys are an error, so a newer builder's plan is not silently misread. */
#ifndef TAPBOOT_PLAN_H
#define TAPBOOT_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"
#include "strlist.h"

#define PLAN_DEFAULT_TIMEOUT 45 /* kselftest's default (tools/testing/selftests/kselftest/runner.sh) */

enum plan_flag {
	PLAN_FLAG_DISRUPTIVE = 1u << 0,
	/* keeps the capabilities every other test runs without (init/privilege.c), in a VM of
	 * its own */
	PLAN_FLAG_PRIVILEGED = 1u << 1,
};

struct plan_test {
	char *name; /* owned */
	char *path; /* owned, absolute in the image */
	char *cwd; /* owned, may be NULL */
	char *skip_reason; /* owned, may be NULL: report as skipped without running */
	unsigned timeout_s;
	unsigned flags;
	struct strlist args;
	struct strlist env;
	struct strlist configs;
};

struct plan {
	struct plan_test *tests; /* owned array */
	size_t n, alloc;
	struct strlist modules;
};

void plan_init(struct plan *p);
void plan_release(struct plan *p);
/* Append a zeroed test with the default timeout; the plan owns it. */
struct plan_test *plan_add(struct plan *p, const char *name, const char *path);
void plan_write(const struct plan *p, struct strbuf *out);
/* Parse buf (len bytes); errors name file and line. Returns 0 or -1. */
int plan_parse(struct plan *p, const char *buf, size_t len, const char *file);
const char *plan_flag_name(unsigned flag);
/* -1 when unknown. */
int plan_flag_from_name(const char *name);

#endif
