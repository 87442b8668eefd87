// SPDX-License-Identifier: GPL-2.0-only
/* report_util.c: escaping, collection names and atomic writes for the result writers. */
#include "report_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "json.h"
#include "strbuf.h"

void xml_put(FILE *fp, const char *str, size_t n, bool attr)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		uint32_t cp;
		size_t l;

		if (c < 0x80) {
			i++;
			switch (c) {
			case '&':
				fputs("&amp;", fp);
				break;
			case '<':
				fputs("&lt;", fp);
				break;
			case '>':
				fputs("&gt;", fp);
				break;
			case '"':
				fputs(attr ? "&quot;" : "\"", fp);
				break;
			case '\n':
				fputs(attr ? "&#10;" : "\n", fp);
				break;
			case '\t':
				fputs(attr ? "&#9;" : "\t", fp);
				break;
			case '\r':
				fputs("&#13;", fp);
				break;
			default:
				if (c >= 0x20)
					putc(c, fp);
				/* other C0 controls are not allowed in XML 1.0, not even as &#N; */
				break;
			}
			continue;
		}
		l = utf8_decode(s + i, n - i, &cp);
		if (cp == 0xfffd && l == 1)
			fputs("\xef\xbf\xbd", fp);
		else if (cp != 0xfffe && cp != 0xffff)
			fwrite(s + i, 1, l, fp);
		i += l;
	}
}

void report_split_name(const char *name, char **coll, char **rest)
{
	const char *s = name ? name : "";
	const char *sep;
	size_t cl;

	if (!strncmp(s, "selftests: ", 11))
		s += 11;
	sep = strpbrk(s, ":/");
	if (!sep || sep == s) {
		*coll = NULL;
		*rest = xstrdup(name ? name : "");
		return;
	}
	cl = (size_t)(sep - s);
	while (cl && s[cl - 1] == ' ')
		cl--;
	*coll = xstrndup(s, cl);
	sep++;
	while (*sep == ' ')
		sep++;
	*rest = xstrdup(*sep ? sep : (name ? name : ""));
}

struct report_write {
	int (*fn)(FILE *, const struct report_run *);
	const struct report_run *r;
};

static int report_write_one(FILE *fp, const void *ctx)
{
	const struct report_write *w = ctx;

	return w->fn(fp, w->r);
}

int report_write_atomic(const char *path, int (*fn)(FILE *, const struct report_run *),
			const struct report_run *r)
{
	struct report_write w = { fn, r };

	return write_file_atomic(path, 0, 0, report_write_one, &w);
}

char *report_one_line(const char *s)
{
	char *out = xstrdup(s ? s : "");

	for (char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	return out;
}
