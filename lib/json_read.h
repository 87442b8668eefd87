/* SPDX-License-Identifier: GPL-2.0-only */
/* json_read.h: a small JSON (RFC 8259) reader for tapboot compare: the whole document into a
 * tree. Strict: trailing commas, comments, bare words and control characters in strings are
 * errors; nesting deeper than JSON_MAX_DEPTH is an error (so hostile input cannot exhaust the
 * stack). Strings are decoded to UTF-8 (\u escapes, surrogate pairs), NUL-terminated; a string
 * with \u0000 keeps its length in len. */
#ifndef TAPBOOT_JSON_READ_H
#define TAPBOOT_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 200

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	bool b;
	double num;
	char *str; /* owned, JSON_STRING */
	size_t len;
	struct json *items; /* owned, JSON_ARRAY and JSON_OBJECT (the values) */
	char **keys;	    /* owned, JSON_OBJECT */
	size_t n, alloc;
};

/* Parse buf; errors print "FILE:LINE: message" and return -1 (out is then empty). */
int json_parse(struct json *out, const char *buf, size_t len, const char *file);
void json_release(struct json *j);
/* The value of key in an object (the first one), NULL when absent or j is not an object. */
const struct json *json_get(const struct json *j, const char *key);
/* The string value of key, NULL when absent or not a string. */
const char *json_get_str(const struct json *j, const char *key);

#endif
