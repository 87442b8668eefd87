/* SPDX-License-Identifier: GPL-2.0-only */
/* strbuf.h: a growable NUL-terminated byte buffer (git's strbuf, reduced). */
#ifndef TAPBOOT_STRBUF_H
#define TAPBOOT_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "error.h"

struct strbuf {
	char *buf; /* owned; always NUL-terminated once initialised */
	size_t len;
	size_t alloc;
};

#define STRBUF_INIT { NULL, 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) FMT_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Hand the buffer to the caller (who frees it) and reset sb. */
char *strbuf_detach(struct strbuf *sb);
/* Release sb and make it own buf (len bytes and a NUL, allocated with malloc), as read_file()
 * gives one. */
void strbuf_attach(struct strbuf *sb, char *buf, size_t len);

#endif
