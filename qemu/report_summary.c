/* report_summary.c: the human summary table, the exit status and the skip policy. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "report.h"
#include "report_util.h"
#include "strbuf.h"

/* Long names would push the reason column off any terminal. */
#define NAME_COL_MAX 48

static void summary_table(FILE *fp, const struct report_run *r)
{
	size_t w = 4;
	unsigned count[VERDICT_COUNT] = {0};
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
		char *name = report_one_line(t->name);
		char dur[32];

		count[t->verdict]++;
		if (t->duration_s >= 0)
			snprintf(dur, sizeof(dur), "%.3fs", t->duration_s);
		else
			snprintf(dur, sizeof(dur), "-");
		if (t->reason) {
			char *reason = report_one_line(t->reason);

			fprintf(fp, "%-7s %9s  %-*s  %s\n", verdict_name(t->verdict), dur, (int)w,
				name, reason);
			free(reason);
		} else {
			fprintf(fp, "%-7s %9s  %s\n", verdict_name(t->verdict), dur, name);
		}
		free(name);
	}
	fprintf(fp, "%zu tests:", r->ntests);
	for (int v = 0; v < VERDICT_COUNT; v++) {
		if (count[v] || v <= VERDICT_SKIP) {
			fprintf(fp, "%s %u %s", first ? "" : ",", count[v], verdict_name(v));
			first = false;
		}
	}
	fputc('\n', fp);
	if (!r->complete) {
		char *e = report_one_line(r->error ? r->error : "the run did not complete");

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
	summary_table(fp, r);
}

static bool skip_expected(const struct report_policy *pol, const char *name)
{
	if (!pol->expect_skip)
		return pol->skip == REPORT_SKIP_OK;
	for (size_t i = 0; i < pol->expect_skip->n; i++)
		if (!fnmatch(pol->expect_skip->v[i], name, 0))
			return true;
	return false;
}

int report_exit_status_policy(const struct report_run *r, const struct report_policy *pol,
			      struct strlist *offending)
{
	static const struct report_policy def = {REPORT_SKIP_OK, NULL};
	bool failed = false;

	if (!pol)
		pol = &def;
	for (size_t i = 0; i < r->ntests; i++) {
		const struct tap_test *t = &r->tests[i];

		if (verdict_is_failure(t->verdict))
			failed = true;
		else if (t->verdict == VERDICT_SKIP &&
			 !skip_expected(pol, t->name ? t->name : "")) {
			failed = true;
			if (offending) {
				char *s = xasprintf("%s: %s", t->name ? t->name : "",
						    t->reason ? t->reason : "no reason given");

				strlist_push(offending, s);
				free(s);
			}
		}
	}
	if (!r->complete)
		return EXIT_VM;
	return failed ? EXIT_TESTS_FAILED : EXIT_PASS;
}

int report_exit_status(const struct report_run *r)
{
	return report_exit_status_policy(r, NULL, NULL);
}

void report_summary_fprint_policy(FILE *fp, const struct report_run *r,
				  const struct report_policy *pol)
{
	struct strlist off;

	summary_table(fp, r);
	strlist_init(&off);
	report_exit_status_policy(r, pol, &off);
	for (size_t i = 0; i < off.n; i++) {
		char *s = report_one_line(off.v[i]);

		fprintf(fp, "skip not allowed: %s\n", s);
		free(s);
	}
	strlist_release(&off);
}

int report_expect_skip_load(const char *path, struct strlist *out)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

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
