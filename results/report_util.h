/* report_util.h: helpers the result writers share (results/report*.c only): escaping for JSON and
 * XML with invalid UTF-8 replaced by U+FFFD, collection names, and writing a file atomically. */
#ifndef TAPBOOT_REPORT_UTIL_H
#define TAPBOOT_REPORT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* Decode one UTF-8 sequence at s (n bytes left): returns its length (>= 1) and sets *cp, or
 * sets *cp to 0xFFFD and returns 1 for an invalid byte (overlong forms, surrogates and code
 * points above U+10FFFF are invalid, RFC 3629). */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/* A JSON string literal with quotes; NULL prints null. */
void json_put_str(FILE *fp, const char *s);
void json_put_strn(FILE *fp, const char *s, size_t n);
/* JSON number with 3 decimals, or null when v < 0 or not finite. */
void json_put_secs(FILE *fp, double v);
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
