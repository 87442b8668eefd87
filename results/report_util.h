/* SPDX-License-Identifier: GPL-2.0-only */
/* report_util.h: helpers the result writers share (results/report*.c only): XML escaping with
 * invalid UTF-8 replaced by U+FFFD (JSON's is lib/json.h), collection names, atomic writes. */
#ifndef TAPBOOT_REPORT_UTIL_H
#define TAPBOOT_REPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "report.h"

/* XML text (attr = false) or attribute value (attr = true): escapes markup, drops characters
 * XML 1.0 forbids (C0 controls except TAB/LF/CR, U+FFFE, U+FFFF), replaces invalid UTF-8. */
void xml_put(FILE *fp, const char *s, size_t n, bool attr);
/* The collection a test belongs to and its name inside it: "proc/fd-001-lookup" and
 * "selftests: proc: fd-001-lookup" (the kselftest runner's form) both give collection "proc",
 * name "fd-001-lookup"; a name without ':' or '/' gives collection NULL and the whole name.
 * Both results point into buffers the caller frees (*coll may be NULL). */
void report_split_name(const char *name, char **coll, char **rest);
/* Write a report to path.tmp and rename it to path. */
int report_write_atomic(const char *path, int (*fn)(FILE *, const struct report_run *),
			const struct report_run *r);
/* Reason text folded to one line (control characters to spaces). Caller frees. */
char *report_one_line(const char *s);

#endif
