/* SPDX-License-Identifier: GPL-2.0-only */
/* text.h: reading configuration-like text (a .config, kselftest's settings and lists): lines
 * trimmed of blanks, one at a time without copies, and C identifiers. */
#ifndef TAPBOOT_TEXT_H
#define TAPBOOT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Lines of [p, end): start with {text, text + len, 0}. no is the number of the line last
 * returned (1-based), for messages. */
struct line_iter {
	const char *p, *end;
	unsigned no;
};

/* The next line as a view [*s, *s + *len) with blanks around it and a "\r" trimmed; false at
 * the end. */
bool line_iter_next(struct line_iter *it, const char **s, size_t *len);
/* Whether the len bytes at s are a C identifier ([A-Za-z_][A-Za-z0-9_]*). */
bool text_is_ident(const char *s, size_t len);

#endif
