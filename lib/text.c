// SPDX-License-Identifier: GPL-2.0-only
/* text.c: trimmed lines, identifiers, and telling text from binary data (text.h). */
#include "text.h"

#include <stdint.h>
#include <string.h>

#include "json.h"

bool line_iter_next(struct line_iter *it, const char **s, size_t *len)
{
	const char *nl, *b, *e;

	if (it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	e = nl ? nl : it->end;
	b = it->p;
	it->p = nl ? nl + 1 : it->end;
	it->no++;
	while (b < e && (*b == ' ' || *b == '\t'))
		b++;
	while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*s = b;
	*len = (size_t)(e - b);
	return true;
}

bool text_is_ident(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (i && c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

size_t text_binary_bytes(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t bad = 0;

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k;

		if (u[i] < 0x80) {
			if ((u[i] < 0x20 && !strchr("\t\n\r\b\f\033", u[i])) || u[i] == 0x7f ||
			    !u[i])
				bad++;
			i++;
			continue;
		}
		k = utf8_decode(u + i, n - i, &cp);
		if (cp == 0xFFFD && k == 1)
			bad++;
		i += k;
	}
	return bad;
}
