// SPDX-License-Identifier: GPL-2.0-only
/* report_fields.c: a report's lifetime (init, release) and the setters its readers share
 * (report.c, mail.c, job_script.c, report_text.c call them; they call none of those). */
#include "report_parts.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

void repro_report_init(struct repro_report *r)
{
	memset(r, 0, sizeof(*r));
	crash_scan_init(&r->computed);
}

static void kv_free(struct repro_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

void repro_report_release(struct repro_report *r)
{
	char **strs[] = {&r->source, &r->kind, &r->headline, &r->subject, &r->message_id,
			 &r->commit, &r->commit_subject, &r->tree, &r->branch, &r->parent,
			 &r->testcase, &r->version, &r->config_name, &r->compiler, &r->machine,
			 &r->closes, &r->dmesg, &r->full_dmesg, &r->full_dmesg_name, &r->cmdline,
			 &r->cmdline_from, &r->arch, &r->config_text, &r->dmesg_cmdline, &r->config_file};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(*strs[i]);
	kv_free(r->params, r->nparams);
	kv_free(r->job, r->njob);
	for (size_t i = 0; i < r->nrows; i++)
		free(r->rows[i].id);
	free(r->rows);
	for (size_t i = 0; i < r->nneed; i++)
		free(r->need_kconfig[i]);
	free(r->need_kconfig);
	for (size_t i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	free(r->files);
	crash_scan_release(&r->computed);
	repro_report_init(r);
}

void report_set(char **field, const char *s, size_t n)
{
	free(*field);
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	*field = xstrndup(s, n);
}

void report_add_str(char ***list, size_t *n, const char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = xstrdup(s);
}

void report_add_kv(struct repro_kv **kv, size_t *n, const char *k, const char *v)
{
	*kv = xrealloc(*kv, (*n + 1) * sizeof(**kv));
	(*kv)[*n].key = xstrdup(k);
	(*kv)[*n].value = xstrdup(v);
	(*n)++;
}

bool report_starts(const char *l, const char *pre)
{
	return !strncmp(l, pre, strlen(pre));
}

bool report_ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

const char *repro_job_get(const struct repro_report *r, const char *key)
{
	for (size_t i = r->njob; i-- > 0;)
		if (!strcmp(r->job[i].key, key))
			return r->job[i].value;
	return NULL;
}
