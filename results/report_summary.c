// SPDX-License-Identifier: GPL-2.0-only
/* report_summary.c: the human summary table and the skip policy's file (the exit status is
 * results.c's). */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fs.h"
#include "report.h"
#include "report_util.h"
#include "results.h"
#include "strbuf.h"

/* Long names would push the reason column off any terminal. */
#define NAME_COL_MAX 48

/* printf's "%.3fs" (or "-" when unknown), with integers when the value has at most three
 * decimals, as the init writes them (printf's float formatting was 8% of a parse's time). */
static void format_duration(char *buf, size_t n, double d)
{
	double ms = d * 1000.0;
	unsigned long long i;
	char digits[24];
	int k = 0;

	if (d < 0) {
		snprintf(buf, n, "-");
		return;
	}
	/* the range check before the cast: a huge value does not fit (undefined behaviour) */
	i = ms < 1e15 ? (unsigned long long)(ms + 0.5) : 0;
	if (ms >= 1e15 || ms - (double)i > 1e-6 || (double)i - ms > 1e-6 || n < 26) {
		snprintf(buf, n, "%.3fs", d);
		return;
	}
	do {
		digits[k++] = (char)('0' + i % 10);
		i /= 10;
	} while (i || k < 4);
	for (int j = 0; j < k; j++) {
		*buf++ = digits[k - 1 - j];
		if (j == k - 4)
			*buf++ = '.';
	}
	*buf++ = 's';
	*buf = '\0';
}

/* s with control characters shown as spaces (report_one_line), without a copy. */
static void put_one_line(FILE *fp, const char *s)
{
	const char *run = s ? s : "";

	for (const char *c = run;; c++) {
		if (*c && (unsigned char)*c >= 0x20 && *c != 0x7f)
			continue;
		fwrite(run, 1, (size_t)(c - run), fp);
		if (!*c)
			return;
		fputc(' ', fp);
		run = c + 1;
	}
}

static void summary_table(FILE *fp, const struct report_run *r, bool lines)
{
	size_t w = 4;
	unsigned count[VERDICT_COUNT];
	bool first = true;

	for (size_t i = 0; i < r->ntests; i++) {
		size_t l = r->tests[i].name ? strlen(r->tests[i].name) : 0;

		if (l > w)
			w = l;
	}
	if (w > NAME_COL_MAX)
		w = NAME_COL_MAX;
	for (size_t i = 0; i < r->ntests; i++) {
		const struct tap_test *t = &r->tests[i];
		char dur[32];

		if (!lines)
			continue;
		format_duration(dur, sizeof(dur), t->duration_s);
		if (t->reason) {
			char *name = report_one_line(t->name), *reason = report_one_line(t->reason);

			fprintf(fp, "%-7s %9s  %-*s  %s\n", verdict_name(t->verdict), dur, (int)w,
				name, reason);
			free(reason);
			free(name);
		} else {
			/* the common line, without printf: a 100 MB log has 231k of them */
			char head[32];
			const char *v = verdict_name(t->verdict);
			size_t vl = strlen(v), dl = strlen(dur), k = 0;

			memcpy(head, v, vl);
			for (k = vl; k < 7; k++)
				head[k] = ' ';
			head[k++] = ' ';
			for (size_t pad = dl; pad < 9; pad++)
				head[k++] = ' ';
			memcpy(head + k, dur, dl);
			k += dl;
			head[k++] = ' ';
			head[k++] = ' ';
			fwrite(head, 1, k, fp);
			put_one_line(fp, t->name);
			fputc('\n', fp);
		}
	}
	results_count(r->tests, r->ntests, count);
	fprintf(fp, "%zu tests:", r->ntests);
	for (int v = 0; v < VERDICT_COUNT; v++) {
		if (count[v] || v <= VERDICT_SKIP) {
			fprintf(fp, "%s %u %s", first ? "" : ",", count[v], verdict_name(v));
			first = false;
		}
	}
	fputc('\n', fp);
	if (!r->complete) {
		char *e = report_one_line(results_error_text(r));

		fprintf(fp, "incomplete: %s\n", e);
		free(e);
	} else if (r->summary && r->summary->crashed && r->summary->crash_line) {
		/* the run completed anyway (an Oops, KUnit's panic after its last test) */
		char *e = report_one_line(r->summary->crash_line);

		fprintf(fp, "kernel crash seen: %s\n", e);
		free(e);
	}
}

void report_summary_fprint(FILE *fp, const struct report_run *r)
{
	summary_table(fp, r, true);
}

static void summary_policy(FILE *fp, const struct report_run *r,
			   const struct report_policy *pol, bool lines)
{
	struct strlist off;

	summary_table(fp, r, lines);
	strlist_init(&off);
	report_exit_status_policy(r, pol, &off);
	for (size_t i = 0; i < off.n; i++) {
		char *s = report_one_line(off.v[i]);

		fprintf(fp, "skip not allowed: %s\n", s);
		free(s);
	}
	strlist_release(&off);
}

void report_summary_fprint_policy(FILE *fp, const struct report_run *r,
				  const struct report_policy *pol)
{
	summary_policy(fp, r, pol, true);
}

void report_totals_fprint_policy(FILE *fp, const struct report_run *r,
				 const struct report_policy *pol)
{
	summary_policy(fp, r, pol, false);
}

int report_expect_skip_load(const char *path, struct strlist *out)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct stat st;

	/* a FIFO would block the open; one that is not there is the open's to name */
	if (!stat(path, &st) && fs_check_regular(path, "--expect-skip file") < 0)
		return -1;
	fp = fopen(path, "r");
	if (!fp)
		return error_errno("cannot open '%s'", path);
	while ((len = getline(&line, &cap, fp)) >= 0) {
		char *s = line, *e;

		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*s || *s == '#')
			continue;
		strlist_push(out, s);
	}
	free(line);
	if (ferror(fp)) {
		fclose(fp);
		return error_errno("cannot read '%s'", path);
	}
	fclose(fp);
	return 0;
}
