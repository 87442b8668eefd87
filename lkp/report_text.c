// SPDX-License-Identifier: GPL-2.0-only
/* report_text.c: the fields of a report's text, as the robot writes them (its headline, commit,
 * tree, testcase, machine, the signature table, the dmesg excerpt), and a whole console given
 * as the report. */
#include "report_parts.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

static bool is_sha(const char *s, size_t min)
{
	size_t n = 0;
	while ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'))
		n++;
	return n >= min;
}

static void split_cells(const char *l, char ***cells, size_t *n)
{
	const char *p = l + 1;
	*cells = NULL;
	*n = 0;
	while (*p) {
		const char *e = strchr(p, '|');
		if (!e)
			break;
		char *cell = NULL;
		report_set(&cell, p, e - p);
		*cells = xrealloc(*cells, (*n + 1) * sizeof(**cells));
		(*cells)[(*n)++] = cell;
		p = e + 1;
	}
}

static long count_cell(const char *s)
{
	char *e;
	if (!*s)
		return -1;
	long v = strtol(s, &e, 10);
	return *e ? -1 : v;
}

/* A whole console as the dmesg: its signatures, its command line, and as the excerpt the first
 * problem's report (60 lines from its first line). */
void report_whole_console(struct repro_report *r, const char *text, size_t len)
{
	const char *end = text + len;
	crash_scan_release(&r->computed);
	crash_scan_text(&r->computed, text, len);
	r->computed_done = true;
	const char *kcl = memmem(text, len, "Kernel command line: ", 21);
	if (kcl) {
		const char *e = memchr(kcl, '\n', end - kcl);
		report_set(&r->dmesg_cmdline, kcl + 21, (e ? e : end) - kcl - 21);
	}
	if (!r->computed.nhits)
		return;
	free(r->dmesg);
	r->dmesg = crash_scan_excerpt(&r->computed, text, len);
}

/* Where parse_text is in the report: which lines come next. */
struct text_state {
	bool in_params, after_commit, after_tags, in_dmesg;
	const char *dm_start, *dm_end; /* the excerpt's lines in the text */
};

/* "| id | parent | commit |" (the first row, with an empty id, names the parent commit). */
static void table_row(struct repro_report *r, const char *l)
{
	char **cells;
	size_t nc;

	split_cells(l, &cells, &nc);
	if (nc >= 3) {
		if (!*cells[0]) {
			free(r->parent);
			r->parent = xstrdup(cells[1]);
		} else {
			r->rows = xrealloc(r->rows, (r->nrows + 1) * sizeof(*r->rows));
			r->rows[r->nrows].id = xstrdup(cells[0]);
			r->rows[r->nrows].parent = count_cell(cells[1]);
			r->rows[r->nrows].commit = count_cell(cells[2]);
			r->nrows++;
		}
	}
	for (size_t k = 0; k < nc; k++)
		free(cells[k]);
	free(cells);
}

/* The line l (a copy, t past its indentation; ls..ls+n where it lies in the text): the field it
 * starts, or the first line of the excerpt after the tags block. */
static void text_field(struct repro_report *r, struct text_state *st, const char *l,
		       const char *t, const char *ls, size_t n)
{
	const char *q;

	if (report_starts(l, "kernel test robot noticed \"")) {
		q = l;
		const char *s = q + 27, *e = strchr(s, '"');
		if (e)
			report_set(&r->headline, s, e - s);
		report_set(&r->kind, "runtime", 7);
	} else if (report_starts(l, "kernel test robot noticed the following build") ||
		   report_starts(l, "[auto build test ")) {
		report_set(&r->kind, "build", 5);
	} else if (report_starts(l, "FYI, we noticed ") && (q = strstr(l, " due to commit"))) {
		report_set(&r->headline, l + 16, q - l - 16);
		report_set(&r->kind, "runtime", 7);
		const char *b = strstr(q, "(built with ");
		if (b) {
			const char *e = strchr(b, ')');
			if (e)
				report_set(&r->compiler, b + 12, e - b - 12);
		}
	} else if (report_starts(l, "commit: ") && is_sha(l + 8, 7)) {
		const char *s = l + 8;
		size_t sn = strspn(s, "0123456789abcdef");
		report_set(&r->commit, s, sn);
		const char *sp = strstr(s + sn, "(\"");
		if (sp) {
			const char *e = strrchr(sp, '"');
			if (e && e > sp + 1)
				report_set(&r->commit_subject, sp + 2, e - sp - 2);
		}
		st->after_commit = true;
	} else if (report_starts(l, "url: ") || report_starts(l, "tree: ")) {
		report_set(&r->tree, strchr(l, ' ') + 1, strlen(strchr(l, ' ') + 1));
	} else if (report_starts(l, "head: ") && !r->branch) {
		/* build reports: the head commit of the tested branch */
	} else if (report_starts(l, "in testcase: ")) {
		report_set(&r->testcase, l + 13, strlen(l + 13));
		report_set(&r->kind, "runtime", 7);
	} else if (report_starts(l, "version: ") && r->testcase) {
		report_set(&r->version, l + 9, strlen(l + 9));
	} else if (report_starts(l, "with following parameters:")) {
		st->in_params = true;
	} else if (report_starts(l, "config: ")) {
		report_set(&r->config_name, l + 8, strcspn(l + 8, " ("));
	} else if (report_starts(l, "compiler: ")) {
		report_set(&r->compiler, l + 10, strlen(l + 10));
	} else if (report_starts(l, "test machine: ") || report_starts(l, "on test machine: ")) {
		const char *s = strstr(l, "machine: ") + 9;
		report_set(&r->machine, s, strlen(s));
	} else if (report_starts(l, "| Closes: ") || report_starts(l, "| Link: ") || report_starts(l, "Closes: ") ||
		   report_starts(l, "Link: ")) {
		q = strstr(l, ": ") - 1;
		const char *s = strchr(q, ' ') + 1;
		report_set(&r->closes, s, strcspn(s, " "));
		st->after_tags = true;
	} else if (l[0] == '|' && !strstr(l, "Reported-by:")) {
		table_row(r, l);
	} else if (st->after_tags && *t) {
		st->in_dmesg = true;
		st->after_tags = false;
		st->dm_start = ls;
		st->dm_end = ls + n;
	}
}

/* Whether the excerpt ends at the line ls (n bytes): the materials, "To reproduce:", a
 * signature or the robot's footer. */
static bool dmesg_ends(const char *ls, size_t n)
{
	return !strncmp(ls, "The kernel config and materials", 31) ||
	       !strncmp(ls, "To reproduce:", 13) || (n == 3 && !strncmp(ls, "-- ", 3)) ||
	       (n == 2 && !strncmp(ls, "--", 2)) || !strncmp(ls, "0-DAY CI", 8);
}

/* text (len bytes) is read where it lies; the caller keeps it. */
void report_parse_text(struct repro_report *r, char *text, size_t len)
{
	struct text_state st = {false, false, false, false, NULL, NULL};
	const char *p = text, *end = text + len;
	char *l = NULL;

	/* Lines are looked at in the buffer; only those that may hold a field are copied (a
	 * console given as the report is mostly lines no field starts with). */
	for (; p < end; free(l), l = NULL) {
		const char *nl = memchr(p, '\n', end - p), *ls = p;
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		p = nl ? nl + 1 : end;
		if (st.in_dmesg) {
			if (dmesg_ends(ls, n))
				st.in_dmesg = false;
			else
				st.dm_end = ls + n;
			continue;
		}
		if (!st.after_tags && !st.in_params && !st.after_commit &&
		    (!n || !strchr("kFcuthivwo|CL", *ls)))
			continue;
		while (n && ls[n - 1] == '\r')
			n--;
		l = xstrndup(ls, n);
		const char *t = l;
		while (*t == ' ' || *t == '\t')
			t++;
		if (st.in_params) {
			const char *colon = strstr(t, ": ");
			if (t != l && colon) {
				char *k = xstrndup(t, colon - t);
				report_add_kv(&r->params, &r->nparams, k, colon + 2);
				free(k);
				continue;
			}
			st.in_params = false;
		}
		if (st.after_commit) {
			st.after_commit = false;
			if (report_starts(t, "http") || report_starts(t, "git://")) {
				size_t tn = strcspn(t, " \t");
				report_set(&r->tree, t, tn);
				if (t[tn])
					report_set(&r->branch, t + tn, strlen(t + tn));
				continue;
			}
		}
		/* every field starts its line (console lines, most of a log, start with '[') */
		if (!st.after_tags && !strchr("kFcuthivwo|CL[", l[0] ? l[0] : '#'))
			continue;
		if (l[0] == '[' && !st.after_tags)
			continue;
		text_field(r, &st, l, t, ls, n);
	}
	free(l);
	if (st.dm_start) {
		free(r->dmesg);
		r->dmesg = xstrndup(st.dm_start, st.dm_end - st.dm_start);
		size_t dn = strlen(r->dmesg);
		while (dn && (r->dmesg[dn - 1] == '\n' || r->dmesg[dn - 1] == '\r'))
			r->dmesg[--dn] = '\0';
		r->dmesg = xrealloc(r->dmesg, dn + 2);
		strcpy(r->dmesg + dn, "\n");
		return;
	}
	/* no tags block (a saved console, an old mail): the kernel's own lines are the dmesg */
	report_whole_console(r, text, len);
}

/* The subject's id: "[tree:branch] [subsys]  1758af47b9: WARNING:at_..." */
void report_parse_subject(struct repro_report *r)
{
	const char *s = r->subject;
	if (!s)
		return;
	for (const char *p = s; (p = strchr(p, ':')); p++) {
		const char *b = p;
		while (b > s && ((b[-1] >= '0' && b[-1] <= '9') || (b[-1] >= 'a' && b[-1] <= 'f')))
			b--;
		if (p - b >= 7 && p[1] == ' ' && (b == s || b[-1] == ' ')) {
			if (!r->headline)
				report_set(&r->headline, p + 2, strlen(p + 2));
			if (!r->commit)
				report_set(&r->commit, b, p - b);
			return;
		}
	}
}
