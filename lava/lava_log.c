// SPDX-License-Identifier: GPL-2.0-only
/* lava_log.c: a decoder for the YAML flow mappings of a LAVA job log (one per line), limited to
 * what PyYAML's dump writes there: double-quoted and plain scalars, single-quoted scalars,
 * nested flow mappings and sequences, non-specific tags. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "lava_log.h"
#include "strbuf.h"

struct cur {
	const char *s;
	size_t n, i;
	char *err;
};

static int fail(struct cur *c, const char *what)
{
	if (!c->err)
		c->err = xasprintf("%s at column %zu", what, c->i + 1);
	return -1;
}

static void skip_ws(struct cur *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\r'))
		c->i++;
}

static void put_utf8(struct strbuf *sb, uint32_t cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (int)(0xC0 | (cp >> 6)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (int)(0xE0 | (cp >> 12)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3F)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3F)));
	} else {
		strbuf_addch(sb, (int)(0xF0 | (cp >> 18)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 12) & 0x3F)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3F)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3F)));
	}
}

static int hex_digits(struct cur *c, unsigned count, uint32_t *out)
{
	uint32_t v = 0;

	for (unsigned k = 0; k < count; k++, c->i++) {
		char ch = c->i < c->n ? c->s[c->i] : '\0';

		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= (uint32_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v |= (uint32_t)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			v |= (uint32_t)(ch - 'A' + 10);
		else
			return fail(c, "bad hex digit in an escape");
	}
	*out = v;
	return 0;
}

/* YAML 1.1 double-quoted escapes, as PyYAML's emitter writes them. */
static int dquoted(struct cur *c, struct strbuf *sb)
{
	c->i++; /* the opening quote */
	while (c->i < c->n) {
		char ch = c->s[c->i++];
		uint32_t cp;

		if (ch == '"')
			return 0;
		if (ch != '\\') {
			strbuf_addch(sb, ch);
			continue;
		}
		if (c->i >= c->n)
			break;
		ch = c->s[c->i++];
		switch (ch) {
		case '0':
			strbuf_addch(sb, '\0');
			break;
		case 'a':
			strbuf_addch(sb, '\a');
			break;
		case 'b':
			strbuf_addch(sb, '\b');
			break;
		case 't':
		case '\t':
			strbuf_addch(sb, '\t');
			break;
		case 'n':
			strbuf_addch(sb, '\n');
			break;
		case 'v':
			strbuf_addch(sb, '\v');
			break;
		case 'f':
			strbuf_addch(sb, '\f');
			break;
		case 'r':
			strbuf_addch(sb, '\r');
			break;
		case 'e':
			strbuf_addch(sb, 0x1B);
			break;
		case ' ':
		case '"':
		case '/':
		case '\\':
			strbuf_addch(sb, ch);
			break;
		case 'N':
			put_utf8(sb, 0x85);
			break;
		case '_':
			put_utf8(sb, 0xA0);
			break;
		case 'L':
			put_utf8(sb, 0x2028);
			break;
		case 'P':
			put_utf8(sb, 0x2029);
			break;
		case 'x':
			if (hex_digits(c, 2, &cp) < 0)
				return -1;
			put_utf8(sb, cp);
			break;
		case 'u':
			if (hex_digits(c, 4, &cp) < 0)
				return -1;
			put_utf8(sb, cp);
			break;
		case 'U':
			if (hex_digits(c, 8, &cp) < 0)
				return -1;
			if (cp > 0x10FFFF)
				return fail(c, "code point out of range");
			put_utf8(sb, cp);
			break;
		default:
			c->i--;
			return fail(c, "unknown escape");
		}
	}
	return fail(c, "unterminated double-quoted string");
}

static int squoted(struct cur *c, struct strbuf *sb)
{
	c->i++;
	while (c->i < c->n) {
		char ch = c->s[c->i++];

		if (ch == '\'') {
			if (c->i < c->n && c->s[c->i] == '\'') {
				strbuf_addch(sb, '\'');
				c->i++;
				continue;
			}
			return 0;
		}
		strbuf_addch(sb, ch);
	}
	return fail(c, "unterminated single-quoted string");
}

static void value_push(struct json *v, char *key, struct json *item)
{
	if (v->n == v->alloc) {
		v->alloc = v->alloc ? 2 * v->alloc : 8;
		v->items = xrealloc(v->items, v->alloc * sizeof(*v->items));
		if (v->type == JSON_OBJECT)
			v->keys = xrealloc(v->keys, v->alloc * sizeof(*v->keys));
	}
	if (v->type == JSON_OBJECT)
		v->keys[v->n] = key;
	v->items[v->n++] = *item;
}

static int parse_value(struct cur *c, struct json *out, unsigned depth);

static int scalar(struct cur *c, struct json *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	strbuf_init(&sb);
	if (c->s[c->i] == '"') {
		ret = dquoted(c, &sb);
	} else if (c->s[c->i] == '\'') {
		ret = squoted(c, &sb);
	} else {
		/* a plain scalar ends at a flow indicator */
		size_t start = c->i;

		while (c->i < c->n && !strchr(",}]", c->s[c->i]) &&
		       !(c->s[c->i] == ':' && (c->i + 1 == c->n || c->s[c->i + 1] == ' ')))
			c->i++;
		while (c->i > start && c->s[c->i - 1] == ' ')
			c->i--;
		if (c->i == start)
			ret = fail(c, "a value was expected");
		strbuf_add(&sb, c->s + start, c->i - start);
	}
	if (ret < 0) {
		strbuf_release(&sb);
		return -1;
	}
	out->type = JSON_STRING;
	out->len = sb.len;
	out->str = strbuf_detach(&sb);
	return 0;
}

static int collection(struct cur *c, struct json *out, unsigned depth, bool map)
{
	char close = map ? '}' : ']';

	out->type = map ? JSON_OBJECT : JSON_ARRAY;
	c->i++;
	skip_ws(c);
	if (c->i < c->n && c->s[c->i] == close) {
		c->i++;
		return 0;
	}
	for (;;) {
		struct json key = {0}, item = {0};

		skip_ws(c);
		if (map) {
			if (c->i >= c->n)
				return fail(c, "the line ends inside a mapping");
			if (scalar(c, &key) < 0)
				return -1;
			skip_ws(c);
			if (c->i >= c->n || c->s[c->i] != ':') {
				json_release(&key);
				return fail(c, "':' expected after a key");
			}
			c->i++;
			skip_ws(c);
		}
		if (parse_value(c, &item, depth + 1) < 0) {
			json_release(&key);
			json_release(&item);
			return -1;
		}
		value_push(out, map ? key.str : NULL, &item);
		skip_ws(c);
		if (c->i < c->n && c->s[c->i] == ',') {
			c->i++;
			continue;
		}
		if (c->i < c->n && c->s[c->i] == close) {
			c->i++;
			return 0;
		}
		if (c->i >= c->n)
			return fail(c, map ? "the line ends inside a mapping"
					   : "the line ends inside a sequence");
		return fail(c, map ? "',' or '}' expected" : "',' or ']' expected");
	}
}

static int parse_value(struct cur *c, struct json *out, unsigned depth)
{
	memset(out, 0, sizeof(*out));
	if (depth > 32)
		return fail(c, "nested too deep");
	skip_ws(c);
	/* a non-specific or named tag ("! \"8247232\"", "!!str x"): the value follows */
	if (c->i < c->n && c->s[c->i] == '!') {
		while (c->i < c->n && c->s[c->i] != ' ')
			c->i++;
		skip_ws(c);
	}
	if (c->i >= c->n)
		return fail(c, "a value was expected");
	if (c->s[c->i] == '{')
		return collection(c, out, depth, true);
	if (c->s[c->i] == '[')
		return collection(c, out, depth, false);
	return scalar(c, out);
}

int lava_flow_parse(const char *line, size_t len, struct json *out, char **err)
{
	struct cur c = {line, len, 0, NULL};

	memset(out, 0, sizeof(*out));
	while (c.n && (line[c.n - 1] == '\n' || line[c.n - 1] == '\r'))
		c.n--;
	if (c.n >= 2 && line[0] == '-' && line[1] == ' ')
		c.i = 2; /* a YAML list item: lavacli jobs logs --raw, the REST logs endpoint */
	skip_ws(&c);
	if (c.i >= c.n || line[c.i] != '{') {
		*err = xasprintf("not a YAML flow mapping ('{' expected at column %zu)", c.i + 1);
		return -1;
	}
	if (parse_value(&c, out, 0) < 0) {
		json_release(out);
		*err = c.err;
		return -1;
	}
	skip_ws(&c);
	if (c.i != c.n) {
		json_release(out);
		*err = xasprintf("text after the mapping at column %zu", c.i + 1);
		return -1;
	}
	return 0;
}

size_t lava_unescape_quotes(char *s, size_t len)
{
	size_t k = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len && s[i + 1] == '"')
			i++;
		s[k++] = s[i];
	}
	if (k < len)
		s[k] = '\0';
	return k;
}

size_t lava_escape_remains(const char *s, size_t len)
{
	size_t i = 0;

	/* ESC c (reset) and CSI sequences "[ params final" with their ESC gone */
	for (;;) {
		if (i < len && s[i] == 'c' && i + 1 < len && s[i + 1] == '[') {
			i++;
			continue;
		}
		if (i < len && s[i] == '[') {
			size_t j = i + 1;

			while (j < len &&
			       ((s[j] >= '0' && s[j] <= '9') || s[j] == ';' || s[j] == '?'))
				j++;
			if (j < len &&
			    ((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= 'a' && s[j] <= 'z'))) {
				i = j + 1;
				continue;
			}
		}
		return i;
	}
}

char *lava_case_id(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(name);

	while (n && isspace((unsigned char)name[n - 1]))
		n--;
	while (n && isspace((unsigned char)*name)) {
		name++;
		n--;
	}
	strbuf_grow(&sb, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];
		bool word = isalnum(ch) || ch == '_' || ch >= 0x80;
		bool prev_word = i && (isalnum((unsigned char)name[i - 1]) || name[i - 1] == '_' ||
				       (unsigned char)name[i - 1] >= 0x80);

		if (word)
			strbuf_addch(&sb, (char)tolower(ch));
		else if (!i || prev_word)
			strbuf_addch(&sb, '_'); /* one '_' per run of \W */
	}
	return strbuf_detach(&sb);
}
