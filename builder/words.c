// SPDX-License-Identifier: GPL-2.0-only
/* words.c: the lexical pieces of builder/inputs.c's formats (gen_init_cpio lists, manifests):
 * words, numbers, ${NAME}, quoted words, #origin, the test-name rule. Calls nothing of
 * inputs.c. */
#include "words.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "line_tag.h"
#include "strbuf.h"

/* A test's name is one field of the console protocol (docs/DESIGN.md, "Test names"): the
 * init prints it in its run and verdict lines, the host matches it against the plan. A control
 * character (C0 or DEL: a newline, a tab, a carriage return) cannot go through a console line
 * unchanged, and the tag marker " ~tb:" would make the name end where the init's tag starts, so
 * both are refused here, where every test of every input (a directory, a manifest, a
 * gen_init_cpio list, a kselftest list, a TEST path) is added. Leading and trailing blanks
 * would be lost in the line's blank-splitting, a leading "- " read as TAP's separator. Other
 * characters go through ('#' and '\\' are escaped by lib/tap.c, blanks inside, quotes,
 * digits: checked by a real boot, tests/boot/28-host-integrity.sh). -1 after a message naming
 * origin. */
int check_test_name(const char *name, const char *origin)
{
	struct strbuf shown = STRBUF_INIT;
	const char *why = NULL;
	size_t n = strlen(name);
	int ret = 0;

	for (const char *s = name; *s && !why; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			why = "has a control character";
	if (!why && strstr(name, LINE_TAG_MARK))
		why = "holds the line tag's marker '" LINE_TAG_MARK "'";
	if (!why && n && (name[0] == ' ' || name[n - 1] == ' '))
		why = "starts or ends with a blank";
	/* "ok 1 - name": TAP's optional separator, which every reader drops */
	if (!why && !strncmp(name, "- ", 2))
		why = "starts with TAP's separator '- '";
	if (!why)
		return 0;
	strbuf_init(&shown);
	for (const char *s = name; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			strbuf_addf(&shown, "\\x%02x", c);
		else
			strbuf_addch(&shown, (char)c);
	}
	ret = error("%s: test name '%s' %s (a name is one field of a console line: rename the "
		    "test)",
		    origin, shown.buf, why);
	strbuf_release(&shown);
	return ret;
}

char *next_word(char **p)
{
	char *s = *p, *w;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NULL;
	w = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return w;
}

bool parse_octal(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 8);
	if (errno || end == s || *end || v > 07777)
		return false;
	*out = (unsigned)v;
	return true;
}

bool parse_uint(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 0xffffffffUL)
		return false;
	*out = (unsigned)v;
	return true;
}

/* gen_init_cpio expands ${NAME} in a file line's location (cpio_replace_env()). */
char *expand_env(const char *s, const char *file, unsigned line)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb);
	while (*s) {
		const char *end;

		if (s[0] != '$' || s[1] != '{' || !(end = strchr(s + 2, '}'))) {
			strbuf_addch(&sb, *s++);
			continue;
		}
		{
			char *name = xstrndup(s + 2, (size_t)(end - s - 2));
			const char *v = getenv(name);

			if (!v) {
				error_at(file, line, "environment variable '%s' is not set", name);
				free(name);
				strbuf_release(&sb);
				return NULL;
			}
			strbuf_addstr(&sb, v);
			free(name);
		}
		s = end + 1;
	}
	return strbuf_detach(&sb);
}

/* buf's len bytes and a NUL: xstrndup would stop at a NUL byte in the file, which is to be
 * found and named, not cut at. */
char *copy_bytes(const char *buf, size_t len)
{
	char *copy = xmalloc(len + 1);

	memcpy(copy, buf, len);
	copy[len] = '\0';
	return copy;
}

/* Split a manifest line into words: double quotes group, backslash escapes (\\ \" \n \t). */
int split_words(const char *s, struct strlist *out, const char *file, unsigned line)
{
	while (*s) {
		struct strbuf w = STRBUF_INIT;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			break;
		strbuf_init(&w);
		while (*s && *s != ' ' && *s != '\t') {
			if (*s == '"') {
				s++;
				while (*s && *s != '"') {
					if (*s == '\\' && s[1]) {
						s++;
						strbuf_addch(&w, *s == 'n'   ? '\n'
								 : *s == 't' ? '\t'
									     : *s);
						s++;
					} else {
						strbuf_addch(&w, *s++);
					}
				}
				if (*s != '"') {
					strbuf_release(&w);
					return error_at(file, line, "unterminated double quote");
				}
				s++;
			} else if (*s == '\\' && s[1]) {
				s++;
				strbuf_addch(&w, *s == 'n' ? '\n' : *s == 't' ? '\t' : *s);
				s++;
			} else {
				strbuf_addch(&w, *s++);
			}
		}
		strlist_push(out, w.buf);
		strbuf_release(&w);
	}
	return 0;
}

/* "#origin FILE:LINE" (a comment to anything else): the lines after it, up to the next one,
 * are reported as FILE:LINE; a manifest tapboot generates (--kselftest: RESULTS/
 * kselftest.manifest, removed when the build fails) names the line of the file it came from.
 * *ofile is replaced (owned). */
void manifest_origin(const char *p, char **ofile, unsigned *oline)
{
	const char *colon = strrchr(p + 8, ':');
	char *end;
	unsigned long v;

	if (!colon || colon == p + 8)
		return;
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || !v || v > 0xffffffffUL)
		return;
	free(*ofile);
	*ofile = xstrndup(p + 8, (size_t)(colon - p - 8));
	*oline = (unsigned)v;
}
