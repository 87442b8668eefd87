/* SPDX-License-Identifier: GPL-2.0-only */
/* line_tag.h: the keyed tag on the init's own console lines, so the host can tell them from
 * lines a test writes to /dev/console or /dev/kmsg (shared by the guest init and the host).
 *
 * A tagged line is LINE " ~tb:SEQ:TAG": SEQ the decimal sequence number of the line among the
 * init's tagged lines (1, 2, ...), TAG the 64-bit SipHash-2-4 (key: the run's 16-byte secret;
 * message: SEQ as 8 bytes little-endian, then LINE's bytes) in 11 base64url digits, most
 * significant first (the first one 0-15: A-P). A YAML block is tagged once, on its closing
 * "  ..." line: LINE is then the whole block from its "  ---", its lines joined by '\n'.
 * Before issue 18 TAG was 16 lower-case hex digits; line_tag_split still reads those (old
 * console.logs). The secret reaches the init in the image (TAPBOOT_KEY_PATH), which it reads
 * and unlinks before the first test. */
#ifndef TAPBOOT_LINE_TAG_H
#define TAPBOOT_LINE_TAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#define LINE_TAG_KEY_LEN 16
#define LINE_TAG_MARK " ~tb:"
#define LINE_TAG_DIGITS 11 /* base64url digits of a tag */

/* SipHash-2-4 (Aumasson and Bernstein, 2012) of msg with a 128-bit key. */
uint64_t line_tag_siphash(const unsigned char key[LINE_TAG_KEY_LEN], const void *msg, size_t n);
/* The tag of line s (n bytes, no newline) as line number seq. */
uint64_t line_tag_mac(const unsigned char key[LINE_TAG_KEY_LEN], uint64_t seq, const char *s,
		      size_t n);
/* Append s[0..n) and its tag (no newline) to sb; s may be a block of lines joined by '\n'. */
void line_tag_append(struct strbuf *sb, const unsigned char key[LINE_TAG_KEY_LEN], uint64_t seq,
		     const char *s, size_t n);
/* Does s end in a tag-shaped suffix? Then *body is the length before it, *seq and *tag its
 * values. Says nothing about whether the tag is right. */
bool line_tag_split(const char *s, size_t n, size_t *body, uint64_t *seq, uint64_t *tag);
/* Is the suffix of s a right tag for the rest of it? *body, *seq as line_tag_split. */
bool line_tag_check(const unsigned char key[LINE_TAG_KEY_LEN], const char *s, size_t n,
		    size_t *body, uint64_t *seq);

#endif
