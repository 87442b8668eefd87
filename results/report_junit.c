// SPDX-License-Identifier: GPL-2.0-only
/* report_junit.c: junit.xml as GitLab and Jenkins read it (Jenkins xunit-plugin's junit-10.xsd,
 * tests/fixtures/junit/): a <testsuite> per collection (the part of a test name before ':' or
 * '/', "selftests: " dropped; tests without one share a suite named after r->suite), a
 * <testcase> per top-level test, <skipped message>, <failure message type> for fail and xpass,
 * <error message type> for timeout, crash and missing, <system-out> with the test's log. */
#include <stdlib.h>
#include <string.h>

#include "crash_sig.h"
#include "error.h"
#include "report.h"
#include "report_util.h"
#include "strbuf.h"

struct suite {
	char *name;
	size_t *idx; /* tests in this suite, by index into r->tests */
	size_t n, alloc;
	unsigned failures, errors, skipped;
	double time;
};

static void put_attr(FILE *fp, const char *key, const char *val)
{
	fprintf(fp, " %s=\"", key);
	xml_put(fp, val ? val : "", val ? strlen(val) : 0, true);
	fputc('"', fp);
}

static bool is_failure_elem(enum verdict v)
{
	return v == VERDICT_FAIL || v == VERDICT_XPASS;
}

static bool is_error_elem(enum verdict v)
{
	return v == VERDICT_TIMEOUT || v == VERDICT_CRASH || v == VERDICT_MISSING ||
	       v == VERDICT_INTERRUPTED;
}

/* The failing subtests of t, one per line, for the failure element's text. */
static void failing_subtests(struct strbuf *sb, const struct tap_test *t, const char *parent)
{
	for (size_t i = 0; i < t->nsub; i++) {
		const struct tap_test *s = &t->subtests[i];
		char *path =
			xasprintf("%s%s%s", parent, *parent ? " / " : "", s->name ? s->name : "");

		if (verdict_is_failure(s->verdict))
			strbuf_addf(sb, "%s: %s%s%s\n", path, verdict_name(s->verdict),
				    s->reason ? ": " : "", s->reason ? s->reason : "");
		failing_subtests(sb, s, path);
		free(path);
	}
}

static void testcase(FILE *fp, const struct report_run *r, const struct tap_test *t,
		     const char *suite)
{
	char *coll, *rest, *classname;
	const char *reason = t->reason ? t->reason : verdict_name(t->verdict);

	report_split_name(t->name, &coll, &rest);
	if (!strcmp(suite, r->suite ? r->suite : "tapboot"))
		classname = xstrdup(suite);
	else
		classname = xasprintf("%s.%s", r->suite ? r->suite : "tapboot", suite);
	fputs("    <testcase", fp);
	put_attr(fp, "name", *rest ? rest : "(unnamed)");
	put_attr(fp, "classname", classname);
	if (t->duration_s >= 0)
		fprintf(fp, " time=\"%.3f\"", t->duration_s);
	fputs(">\n", fp);
	if (t->verdict == VERDICT_SKIP) {
		fputs("      <skipped", fp);
		put_attr(fp, "message", reason);
		fputs("/>\n", fp);
	} else if (is_failure_elem(t->verdict) || is_error_elem(t->verdict)) {
		struct strbuf text = STRBUF_INIT;
		const char *el = is_failure_elem(t->verdict) ? "failure" : "error";

		strbuf_init(&text);
		failing_subtests(&text, t, "");
		fprintf(fp, "      <%s", el);
		if (r->crash && t->verdict == VERDICT_CRASH) {
			/* the kernel's crash, as the robot and syzkaller name it */
			struct strbuf msg = STRBUF_INIT;
			strbuf_init(&msg);
			strbuf_addf(&msg, "%s; kernel: %s", reason, r->crash->title);
			for (size_t i = 0; i < r->crash->nids; i++)
				strbuf_addf(&msg, "%s%s", i ? ", " : " [", r->crash->ids[i]);
			if (r->crash->nids)
				strbuf_addch(&msg, ']');
			put_attr(fp, "message", msg.buf);
			strbuf_release(&msg);
		} else {
			put_attr(fp, "message", reason);
		}
		put_attr(fp, "type", verdict_name(t->verdict));
		fputc('>', fp);
		xml_put(fp, text.buf, text.len, false);
		fprintf(fp, "</%s>\n", el);
		strbuf_release(&text);
	}
	if (t->log && t->log_len) {
		fputs("      <system-out>", fp);
		xml_put(fp, t->log, t->log_len, false);
		if (t->log_truncated)
			fputs("\n[log truncated]\n", fp);
		fputs("</system-out>\n", fp);
	}
	fputs("    </testcase>\n", fp);
	free(coll);
	free(rest);
	free(classname);
}

int report_junit_fprint(FILE *fp, const struct report_run *r)
{
	struct suite *suites = NULL;
	size_t nsuites = 0, alloc = 0;
	unsigned failures = 0, errors = 0, skipped = 0;
	double total_time = 0;
	const char *top = r->suite ? r->suite : "tapboot";

	for (size_t i = 0; i < r->ntests; i++) {
		const struct tap_test *t = &r->tests[i];
		char *coll, *rest;
		struct suite *s = NULL;

		report_split_name(t->name, &coll, &rest);
		free(rest);
		for (size_t j = 0; j < nsuites; j++)
			if (!strcmp(suites[j].name, coll ? coll : top)) {
				s = &suites[j];
				break;
			}
		if (!s) {
			xgrow(&suites, &alloc, nsuites + 1, sizeof(*suites));
			s = &suites[nsuites++];
			memset(s, 0, sizeof(*s));
			s->name = xstrdup(coll ? coll : top);
		}
		free(coll);
		xgrow(&s->idx, &s->alloc, s->n + 1, sizeof(*s->idx));
		s->idx[s->n++] = i;
		s->failures += is_failure_elem(t->verdict);
		s->errors += is_error_elem(t->verdict);
		s->skipped += t->verdict == VERDICT_SKIP;
		if (t->duration_s > 0)
			s->time += t->duration_s;
	}
	for (size_t j = 0; j < nsuites; j++) {
		failures += suites[j].failures;
		errors += suites[j].errors;
		skipped += suites[j].skipped;
		total_time += suites[j].time;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", fp);
	put_attr(fp, "name", top);
	fprintf(fp, " tests=\"%zu\" failures=\"%u\" errors=\"%u\" time=\"%.3f\">\n", r->ntests,
		failures, errors, total_time);
	for (size_t j = 0; j < nsuites; j++) {
		struct suite *s = &suites[j];
		const char *release = r->kernel_release ? r->kernel_release
				      : r->summary	? r->summary->kernel
							: NULL;

		fputs("  <testsuite", fp);
		put_attr(fp, "name", s->name);
		fprintf(fp,
			" tests=\"%zu\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\"",
			s->n, s->failures, s->errors, s->skipped, s->time);
		fprintf(fp, " id=\"%zu\">\n", j);
		fputs("    <properties>\n", fp);
		if (r->arch) {
			fputs("      <property name=\"arch\"", fp);
			put_attr(fp, "value", r->arch);
			fputs("/>\n", fp);
		}
		if (release) {
			fputs("      <property name=\"kernel_release\"", fp);
			put_attr(fp, "value", release);
			fputs("/>\n", fp);
		}
		fprintf(fp, "      <property name=\"complete\" value=\"%s\"/>\n",
			r->complete ? "true" : "false");
		if (r->error) {
			fputs("      <property name=\"error\"", fp);
			put_attr(fp, "value", r->error);
			fputs("/>\n", fp);
		}
		if (r->crash) {
			struct strbuf ids = STRBUF_INIT;
			strbuf_init(&ids);
			for (size_t k = 0; k < r->crash->nids; k++)
				strbuf_addf(&ids, "%s%s", k ? " " : "", r->crash->ids[k]);
			fputs("      <property name=\"crash_title\"", fp);
			put_attr(fp, "value", r->crash->title);
			fputs("/>\n      <property name=\"crash_ids\"", fp);
			put_attr(fp, "value", ids.buf ? ids.buf : "");
			fputs("/>\n", fp);
			strbuf_release(&ids);
		}
		fputs("    </properties>\n", fp);
		for (size_t i = 0; i < s->n; i++)
			testcase(fp, r, &r->tests[s->idx[i]], s->name);
		fputs("  </testsuite>\n", fp);
		free(s->name);
		free(s->idx);
	}
	fputs("</testsuites>\n", fp);
	free(suites);
	return ferror(fp) ? -1 : 0;
}

int report_junit_write(const char *path, const struct report_run *r)
{
	return report_write_atomic(path, report_junit_fprint, r);
}
