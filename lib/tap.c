// SPDX-License-Identifier: GPL-2.0-only
/* tap.c: TAP 13 emitter. */
#include "tap.h"

#include <stdarg.h>
#include <string.h>

static void indent(struct strbuf *sb, unsigned depth)
{
	for (unsigned i = 0; i < depth * 4; i++)
		strbuf_addch(sb, ' ');
}

/* Escape '#' and '\\', fold control characters: a description must stay one line. */
static void add_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '#' || c == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, c < 0x20 || c == 0x7f ? ' ' : c);
	}
}

/* Free text after a directive or in a diagnostic: one line, no escaping of '#'. */
static void add_line_text(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		strbuf_addch(sb, (c < 0x20 && c != '\t') || c == 0x7f ? ' ' : c);
	}
}

void tap_version(struct strbuf *sb, unsigned depth)
{
	indent(sb, depth);
	strbuf_addstr(sb, "TAP version 13\n");
}

void tap_plan(struct strbuf *sb, unsigned depth, unsigned n)
{
	indent(sb, depth);
	strbuf_addf(sb, "1..%u\n", n);
}

void tap_result(struct strbuf *sb, unsigned depth, bool ok, unsigned num, const char *desc,
		const char *directive, const char *reason)
{
	indent(sb, depth);
	strbuf_addf(sb, "%s %u", ok ? "ok" : "not ok", num);
	if (desc && *desc) {
		strbuf_addch(sb, ' ');
		add_escaped(sb, desc);
	}
	if (directive) {
		strbuf_addf(sb, " # %s", directive);
		if (reason && *reason) {
			strbuf_addch(sb, ' ');
			add_line_text(sb, reason);
		}
	}
	strbuf_addch(sb, '\n');
}

void tap_diag(struct strbuf *sb, unsigned depth, const char *text)
{
	indent(sb, depth);
	strbuf_addstr(sb, "# ");
	add_line_text(sb, text);
	strbuf_addch(sb, '\n');
}

void tap_yaml_begin(struct strbuf *sb, unsigned depth)
{
	indent(sb, depth);
	strbuf_addstr(sb, "  ---\n");
}

void tap_yaml_raw(struct strbuf *sb, unsigned depth, const char *key, const char *value)
{
	indent(sb, depth);
	strbuf_addf(sb, "  %s: %s\n", key, value);
}

void tap_yaml_rawf(struct strbuf *sb, unsigned depth, const char *key, const char *fmt, ...)
{
	va_list ap;

	indent(sb, depth);
	strbuf_addf(sb, "  %s: ", key);
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	strbuf_addch(sb, '\n');
}

void tap_yaml_str(struct strbuf *sb, unsigned depth, const char *key, const char *value)
{
	indent(sb, depth);
	strbuf_addf(sb, "  %s: \"", key);
	for (const char *s = value; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addch(sb, c);
	}
	strbuf_addstr(sb, "\"\n");
}

void tap_yaml_end(struct strbuf *sb, unsigned depth)
{
	indent(sb, depth);
	strbuf_addstr(sb, "  ...\n");
}

void tap_bail_out(struct strbuf *sb, const char *reason)
{
	strbuf_addstr(sb, "Bail out! ");
	add_line_text(sb, reason);
	strbuf_addch(sb, '\n');
}
