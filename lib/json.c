// SPDX-License-Identifier: GPL-2.0-only
/* json.c: the JSON string escaper (one for files, one for strbufs) and UTF-8 decoding. */
#include "json.h"

#include <math.h>
#include <string.h>

#include "strbuf.h"

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		goto bad;
	}
	if (n < len)
		goto bad;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto bad;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		goto bad;
	*cp = v;
	return len;
bad:
	*cp = 0xfffd;
	return 1;
}

/* Where an escaped string goes: a stream or a strbuf. */
struct sink {
	FILE *fp;
	struct strbuf *sb;
};

static void sink_add(const struct sink *o, const void *p, size_t n)
{
	if (o->fp)
		fwrite(p, 1, n, o->fp);
	else
		strbuf_add(o->sb, p, n);
}

static void sink_str(const struct sink *o, const char *s)
{
	sink_add(o, s, strlen(s));
}

/* The escape of an ASCII byte that is not written as itself, or NULL. */
static const char *ascii_escape(unsigned char c, char buf[8])
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	default:
		break;
	}
	if (c < 0x20) {
		snprintf(buf, 8, "\\u%04x", c);
		return buf;
	}
	return NULL;
}

static void put_strn(const struct sink *o, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	sink_add(o, "\"", 1);
	for (size_t i = 0; i < n;) {
		size_t run = i, l;
		uint32_t cp;

		while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' &&
		       s[run] != '\\')
			run++;
		if (run > i) {
			sink_add(o, s + i, run - i);
			i = run;
			continue;
		}
		if (s[i] < 0x80) {
			char buf[8];

			sink_str(o, ascii_escape(s[i], buf));
			i++;
			continue;
		}
		l = utf8_decode(s + i, n - i, &cp);
		if (cp == 0xfffd && l == 1)
			sink_str(o, "\\ufffd");
		else
			sink_add(o, s + i, l);
		i += l;
	}
	sink_add(o, "\"", 1);
}

void json_put_strn(FILE *fp, const char *s, size_t n)
{
	put_strn(&(struct sink){fp, NULL}, s, n);
}

void json_put_str(FILE *fp, const char *s)
{
	if (!s)
		fputs("null", fp);
	else
		json_put_strn(fp, s, strlen(s));
}

void json_put_str_sb(struct strbuf *sb, const char *s, size_t n)
{
	if (!s)
		strbuf_addstr(sb, "null");
	else
		put_strn(&(struct sink){NULL, sb}, s, n);
}

void json_put_secs(FILE *fp, double v)
{
	if (v < 0 || !isfinite(v))
		fputs("null", fp);
	else
		fprintf(fp, "%.3f", v);
}
