// SPDX-License-Identifier: GPL-2.0-only
/* job_script.c: lkp's job-script read as shell words (never run), its job.yaml, and the
 * need_kconfig value they carry. */
#include "report_parts.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
/* One shell word from c (the value after "k="): '...' spans lines, "..." takes \ escapes, a
 * bare \ escapes the next byte; it ends at a blank, a newline or ';' outside quotes. Returns
 * where it ended; *line counts the newlines passed, *quote is the quote left open (0: none). */
static const char *shell_word(const char *c, const char *end, struct strbuf *v, size_t *line,
			      char *quote)
{
	*quote = 0;
	while (c < end) {
		if (*quote == '\'') {
			if (*c == '\'')
				*quote = 0;
			else
				strbuf_addch(v, *c);
		} else if (*quote == '"') {
			if (*c == '"')
				*quote = 0;
			else if (*c == '\\' && c + 1 < end && strchr("\"\\$`\n", c[1])) {
				if (c[1] != '\n')
					strbuf_addch(v, c[1]);
				c++;
			} else
				strbuf_addch(v, *c);
		} else if (*c == '\'' || *c == '"') {
			*quote = *c;
		} else if (*c == '\\' && c + 1 < end && c[1] != '\n') {
			strbuf_addch(v, *++c);
		} else if (*c == ' ' || *c == '\t' || *c == '\n' || *c == ';') {
			break;
		} else {
			strbuf_addch(v, *c);
		}
		if (*c == '\n')
			(*line)++;
		c++;
	}
	return c;
}

/* The name of "export NAME=": [k, *eq) with *eq at the '=', or false for another line. */
static bool export_name(const char *q, const char *le, const char **k, const char **eq)
{
	if (le - q <= 7 || strncmp(q, "export ", 7))
		return false;
	*k = q + 7;
	while (*k < le && **k == ' ')
		(*k)++;
	*eq = *k;
	while (*eq < le && (**eq == '_' || (**eq >= 'a' && **eq <= 'z') ||
			    (**eq >= 'A' && **eq <= 'Z') || (**eq >= '0' && **eq <= '9')))
		(*eq)++;
	return *eq < le && **eq == '=' && *eq > *k;
}

/* Parse "export k=v" lines. v may be quoted ('...' spans lines, "..." with \ escapes) or
 * backslash-escaped (need_kconfig=\{\"KVM_GUEST\"\=\>\"y\"\}). */
int report_job_script(struct repro_report *r, const char *text, size_t len, const char *name)
{
	const char *p = text, *end = text + len;
	size_t line = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;
		const char *q = p, *k, *eq;
		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (export_name(q, le, &k, &eq)) {
			struct strbuf v;
			size_t start_line = line;
			char quote;
			strbuf_init(&v);
			const char *c = shell_word(eq + 1, end, &v, &line, &quote);
			if (quote) {
				strbuf_release(&v);
				return error("%s:%zu: unterminated %s quote in the value of '%.*s'", name,
					     start_line, quote == '\'' ? "single" : "double",
					     (int)(eq - k), k);
			}
			char *key = xstrndup(k, eq - k);
			report_add_kv(&r->job, &r->njob, key, v.buf ? v.buf : "");
			free(key);
			strbuf_release(&v);
			/* continue after the value's last line */
			while (c < end && *c != '\n')
				c++;
			p = c < end ? c + 1 : end;
			line++;
			continue;
		}
		p = nl ? nl + 1 : end;
		line++;
	}
	return 0;
}

/* "key: value" lines; the job-script, when there, says the same */
void report_job_yaml(struct repro_report *r, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *e = memchr(p, '\n', end - p);
		const char *le = e ? e : end;
		const char *colon = memchr(p, ':', le - p);
		if (colon && p[0] != ' ' && p[0] != '#' && colon + 1 < le && colon[1] == ' ') {
			char *k = xstrndup(p, colon - p), *v = xstrndup(colon + 2, le - colon - 2);
			if (!repro_job_get(r, k))
				report_add_kv(&r->job, &r->njob, k, v);
			free(k);
			free(v);
		}
		p = e ? e + 1 : end;
	}
}

/* need_kconfig as lkp writes it: a Ruby hash {"KVM_GUEST"=>"y"}, a list, or NAME=y words. */
void report_need_kconfig(struct repro_report *r, const char *v)
{
	const char *p = v;
	while (*p) {
		if (*p >= 'A' && *p <= 'Z') {
			const char *e = p;
			while ((*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9') || *e == '_')
				e++;
			if (e - p >= 3) {
				char *name = xstrndup(p, e - p);
				const char *q = e;
				while (*q == '"' || *q == '\'' || *q == ' ' || *q == '=' || *q == '>' || *q == ':')
					q++;
				char val = (*q == 'y' || *q == 'm' || *q == 'n') && !((q[1] >= 'a' && q[1] <= 'z')) ? *q : 0;
				char *item = val ? xasprintf("CONFIG_%s=%c", name, val) : xasprintf("CONFIG_%s", name);
				if (strncmp(name, "CONFIG_", 7))
					report_add_str(&r->need_kconfig, &r->nneed, item);
				else {
					char *t = val ? xasprintf("%s=%c", name, val) : xstrdup(name);
					report_add_str(&r->need_kconfig, &r->nneed, t);
					free(t);
				}
				free(item);
				free(name);
			}
			p = e;
		} else {
			p++;
		}
	}
}
