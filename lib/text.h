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
/* How many of the n bytes at s are not text: NUL and the other C0 controls but TAB, LF, CR,
 * BS, FF and ESC (a console has those), DEL, and bytes of invalid UTF-8 (each counts once). A
 * console log has few; random or binary data about two thirds. A sequence cut at the end of s
 * counts as invalid: callers feeding blocks of 64 KiB see at most a few such bytes. */
size_t text_binary_bytes(const char *s, size_t n);

#endif
