// SPDX-License-Identifier: GPL-2.0-only
/* json_read.c: recursive-descent JSON reader (json_read.h). */
#include "json_read.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

struct reader {
	const char *s;
	size_t n, i;
	const char *file;
	unsigned depth;
};

static unsigned line_of(const struct reader *r)
{
	unsigned line = 1;

	for (size_t k = 0; k < r->i && k < r->n; k++)
		line += r->s[k] == '\n';
	return line;
}

static int fail(struct reader *r, const char *what)
{
	return error_at(r->file, line_of(r), "bad JSON: %s", what);
}

static void ws(struct reader *r)
{
	while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' ||
			       r->s[r->i] == '\r'))
		r->i++;
}

static void put_utf8(struct strbuf *sb, uint32_t cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, 0xc0 | (cp >> 6));
		strbuf_addch(sb, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, 0xe0 | (cp >> 12));
		strbuf_addch(sb, 0x80 | ((cp >> 6) & 0x3f));
		strbuf_addch(sb, 0x80 | (cp & 0x3f));
	} else {
		strbuf_addch(sb, 0xf0 | (cp >> 18));
		strbuf_addch(sb, 0x80 | ((cp >> 12) & 0x3f));
		strbuf_addch(sb, 0x80 | ((cp >> 6) & 0x3f));
		strbuf_addch(sb, 0x80 | (cp & 0x3f));
	}
}

static int hex4(struct reader *r, uint32_t *out)
{
	uint32_t v = 0;

	if (r->n - r->i < 4)
		return fail(r, "short \\u escape");
	for (int k = 0; k < 4; k++) {
		char c = r->s[r->i++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return fail(r, "bad \\u escape");
	}
	*out = v;
	return 0;
}

static int string(struct reader *r, char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb);
	r->i++; /* the opening quote */
	for (;;) {
		unsigned char c;

		if (r->i >= r->n) {
			strbuf_release(&sb);
			return fail(r, "unterminated string");
		}
		c = (unsigned char)r->s[r->i++];
		if (c == '"')
			break;
		if (c < 0x20) {
			strbuf_release(&sb);
			return fail(r, "control character in string");
		}
		if (c != '\\') {
			strbuf_addch(&sb, c);
			continue;
		}
		if (r->i >= r->n) {
			strbuf_release(&sb);
			return fail(r, "unterminated string");
		}
		c = (unsigned char)r->s[r->i++];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			strbuf_addch(&sb, c);
			break;
		case 'b':
			strbuf_addch(&sb, '\b');
			break;
		case 'f':
			strbuf_addch(&sb, '\f');
			break;
		case 'n':
			strbuf_addch(&sb, '\n');
			break;
		case 'r':
			strbuf_addch(&sb, '\r');
			break;
		case 't':
			strbuf_addch(&sb, '\t');
			break;
		case 'u': {
			uint32_t cp, lo;

			if (hex4(r, &cp)) {
				strbuf_release(&sb);
				return -1;
			}
			if (cp >= 0xd800 && cp <= 0xdbff && r->n - r->i >= 6 &&
			    r->s[r->i] == '\\' && r->s[r->i + 1] == 'u') {
				size_t save = r->i;

				r->i += 2;
				if (hex4(r, &lo)) {
					strbuf_release(&sb);
					return -1;
				}
				if (lo >= 0xdc00 && lo <= 0xdfff)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					r->i = save;
			}
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = 0xfffd; /* a lone surrogate */
			put_utf8(&sb, cp);
			break;
		}
		default:
			strbuf_release(&sb);
			return fail(r, "bad escape in string");
		}
	}
	*len = sb.len;
	*out = strbuf_detach(&sb);
	return 0;
}

static int number(struct reader *r, double *out)
{
	size_t st = r->i;
	char *tmp, *end;

	if (r->i < r->n && r->s[r->i] == '-')
		r->i++;
	if (r->i >= r->n || r->s[r->i] < '0' || r->s[r->i] > '9')
		return fail(r, "bad number");
	if (r->s[r->i] == '0')
		r->i++;
	else
		while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
			r->i++;
	if (r->i < r->n && r->s[r->i] == '.') {
		r->i++;
		if (r->i >= r->n || r->s[r->i] < '0' || r->s[r->i] > '9')
			return fail(r, "bad number");
		while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
			r->i++;
	}
	if (r->i < r->n && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
		r->i++;
		if (r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-'))
			r->i++;
		if (r->i >= r->n || r->s[r->i] < '0' || r->s[r->i] > '9')
			return fail(r, "bad number");
		while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
			r->i++;
	}
	tmp = xstrndup(r->s + st, r->i - st);
	*out = strtod(tmp, &end);
	free(tmp);
	return 0;
}

static int value(struct reader *r, struct json *j);

static int container(struct reader *r, struct json *j, bool obj)
{
	char close = obj ? '}' : ']';

	if (++r->depth > JSON_MAX_DEPTH)
		return fail(r, "nested too deep");
	j->type = obj ? JSON_OBJECT : JSON_ARRAY;
	r->i++;
	ws(r);
	if (r->i < r->n && r->s[r->i] == close) {
		r->i++;
		r->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		size_t klen;

		ws(r);
		if (obj) {
			if (r->i >= r->n || r->s[r->i] != '"')
				return fail(r, "expected a string key");
			if (string(r, &key, &klen))
				return -1;
			ws(r);
			if (r->i >= r->n || r->s[r->i] != ':') {
				free(key);
				return fail(r, "expected ':'");
			}
			r->i++;
		}
		xgrow(&j->items, &j->alloc, j->n + 1, sizeof(*j->items));
		if (obj) {
			/* keys grow with items: same count, allocated to the same size */
			j->keys = xrealloc(j->keys, j->alloc * sizeof(*j->keys));
			j->keys[j->n] = key;
		}
		memset(&j->items[j->n], 0, sizeof(*j->items));
		j->n++;
		if (value(r, &j->items[j->n - 1]))
			return -1;
		ws(r);
		if (r->i < r->n && r->s[r->i] == ',') {
			r->i++;
			ws(r);
			if (r->i < r->n && r->s[r->i] == close)
				return fail(r, "trailing comma");
			continue;
		}
		if (r->i < r->n && r->s[r->i] == close) {
			r->i++;
			r->depth--;
			return 0;
		}
		return fail(r, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int word(struct reader *r, const char *w)
{
	size_t l = strlen(w);

	if (r->n - r->i < l || memcmp(r->s + r->i, w, l))
		return fail(r, "unexpected character");
	r->i += l;
	return 0;
}

static int value(struct reader *r, struct json *j)
{
	ws(r);
	if (r->i >= r->n)
		return fail(r, "unexpected end of input");
	switch (r->s[r->i]) {
	case '{':
		return container(r, j, true);
	case '[':
		return container(r, j, false);
	case '"':
		j->type = JSON_STRING;
		return string(r, &j->str, &j->len);
	case 't':
		j->type = JSON_BOOL;
		j->b = true;
		return word(r, "true");
	case 'f':
		j->type = JSON_BOOL;
		return word(r, "false");
	case 'n':
		j->type = JSON_NULL;
		return word(r, "null");
	default:
		j->type = JSON_NUMBER;
		return number(r, &j->num);
	}
}

int json_parse(struct json *out, const char *buf, size_t len, const char *file)
{
	struct reader r = {buf, len, 0, file, 0};

	memset(out, 0, sizeof(*out));
	if (value(&r, out))
		goto fail;
	ws(&r);
	if (r.i != r.n) {
		fail(&r, "trailing characters after the document");
		goto fail;
	}
	return 0;
fail:
	json_release(out);
	return -1;
}

void json_release(struct json *j)
{
	for (size_t i = 0; i < j->n; i++) {
		json_release(&j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->str);
	memset(j, 0, sizeof(*j));
}

const struct json *json_get(const struct json *j, const char *key)
{
	if (!j || j->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], key))
			return &j->items[i];
	return NULL;
}

const char *json_get_str(const struct json *j, const char *key)
{
	const struct json *v = json_get(j, key);

	return v && v->type == JSON_STRING ? v->str : NULL;
}
