/* SPDX-License-Identifier: GPL-2.0-only */
/* json.h: the JSON writer every part shares: string literals with invalid UTF-8 replaced by
 * U+FFFD and control characters escaped (so any byte string becomes valid JSON), seconds. */
#ifndef TAPBOOT_JSON_H
#define TAPBOOT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct strbuf;

/* Decode one UTF-8 sequence at s (n bytes left): returns its length (>= 1) and sets *cp, or
 * sets *cp to 0xFFFD and returns 1 for an invalid byte (overlong forms, surrogates and code
 * points above U+10FFFF are invalid, RFC 3629). */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/* A JSON string literal with quotes; NULL prints null. */
void json_put_str(FILE *fp, const char *s);
void json_put_strn(FILE *fp, const char *s, size_t n);
/* The same literal appended to sb (s NULL: null). */
void json_put_str_sb(struct strbuf *sb, const char *s, size_t n);
/* JSON number with 3 decimals, or null when v < 0 or not finite. */
void json_put_secs(FILE *fp, double v);

#endif
