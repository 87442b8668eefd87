/* SPDX-License-Identifier: GPL-2.0-only */
/* words.h: the lexical pieces of the builder's input formats (words.c), private to inputs.c. */
#ifndef TAPBOOT_WORDS_H
#define TAPBOOT_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "strlist.h"

/* 0 when name may be a test's name (one field of a console line); else -1 after a message
 * "ORIGIN: test name '...' ..." (control characters shown as \xNN). */
int check_test_name(const char *name, const char *origin);
/* The next blank-separated word of *p (NUL-terminated in place, *p moved past it), or NULL. */
char *next_word(char **p);
/* An octal mode up to 07777; a decimal up to 2^32-1. false when s is not one. */
bool parse_octal(const char *s, unsigned *out);
bool parse_uint(const char *s, unsigned *out);
/* s with ${NAME} expanded from the environment (caller frees); NULL after a message naming
 * file:line when a variable is not set. */
char *expand_env(const char *s, const char *file, unsigned line);
/* buf's len bytes and a NUL (a NUL byte inside stays, to be found and named). */
char *copy_bytes(const char *buf, size_t len);
/* A manifest line's words into out; -1 after a message naming file:line. */
int split_words(const char *s, struct strlist *out, const char *file, unsigned line);
/* A "#origin FILE:LINE" line p: *ofile (replaced, owned) and *oline; a malformed one is
 * ignored (a comment). */
void manifest_origin(const char *p, char **ofile, unsigned *oline);

#endif
