// SPDX-License-Identifier: GPL-2.0-only
/* report_json.c: results.json (schema in docs/DESIGN.md "results directory"); kcidb.json is
 * results/report_kcidb.c. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "crash_sig.h"
#include "error.h"
#include "report.h"
#include "report_util.h"
#include "results.h"
#include "strbuf.h"

#ifndef TAPBOOT_VERSION
#define TAPBOOT_VERSION "0.0.0"
#endif

static void indent(FILE *fp, unsigned depth)
{
	for (unsigned i = 0; i < depth; i++)
		fputs("  ", fp);
}

static void json_tests(FILE *fp, const struct tap_test *t, size_t n, unsigned depth)
{
	fputc('[', fp);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", fp);
		indent(fp, depth + 1);
		fputs("{\"name\": ", fp);
		json_put_str(fp, t[i].name ? t[i].name : "");
		fputs(", \"result\": ", fp);
		json_put_str(fp, verdict_name(t[i].verdict));
		fputs(", \"duration_s\": ", fp);
		json_put_secs(fp, t[i].duration_s);
		fputs(", \"reason\": ", fp);
		json_put_str(fp, t[i].reason);
		fputs(", \"exit_code\": ", fp);
		if (t[i].exit_code < 0)
			fputs("null", fp);
		else
			fprintf(fp, "%d", t[i].exit_code);
		if (t[i].nsub) {
			fputs(", \"subtests\": ", fp);
			json_tests(fp, t[i].subtests, t[i].nsub, depth + 1);
		}
		fputc('}', fp);
	}
	if (n) {
		fputc('\n', fp);
		indent(fp, depth);
	}
	fputc(']', fp);
}

static void json_counts(FILE *fp, const struct report_run *r)
{
	unsigned count[VERDICT_COUNT];

	results_count(r->tests, r->ntests, count);
	fputs("{", fp);
	for (int v = 0; v < VERDICT_COUNT; v++)
		fprintf(fp, "%s\"%s\": %u", v ? ", " : "", verdict_name(v), count[v]);
	fprintf(fp, ", \"total\": %zu}", r->ntests);
}

int report_json_fprint(FILE *fp, const struct report_run *r)
{
	const char *release = r->kernel_release;

	if (!release && r->summary)
		release = r->summary->kernel;
	fputs("{\n  \"tapboot_version\": ", fp);
	json_put_str(fp, TAPBOOT_VERSION);
	fputs(",\n  \"arch\": ", fp);
	json_put_str(fp, r->arch);
	fputs(",\n  \"kernel\": ", fp);
	json_put_str(fp, r->kernel);
	fputs(",\n  \"kernel_release\": ", fp);
	json_put_str(fp, release);
	fputs(",\n  \"accel\": ", fp);
	json_put_str(fp, r->accel);
	fprintf(fp, ",\n  \"complete\": %s", r->complete ? "true" : "false");
	fputs(",\n  \"error\": ", fp);
	json_put_str(fp, r->error);
	fputs(",\n  \"wall_s\": ", fp);
	json_put_secs(fp, r->wall_s);
	fputs(",\n  \"crash\": ", fp);
	if (r->crash) {
		fputs("{\"title\": ", fp);
		json_put_str(fp, r->crash->title);
		fputs(", \"ids\": [", fp);
		for (size_t i = 0; i < r->crash->nids; i++) {
			fputs(i ? ", " : "", fp);
			json_put_str(fp, r->crash->ids[i]);
		}
		fputs("]}", fp);
	} else {
		fputs("null", fp);
	}
	fputs(",\n  \"tests\": ", fp);
	json_tests(fp, r->tests, r->ntests, 1);
	fputs(",\n  \"summary\": ", fp);
	json_counts(fp, r);
	fputs("\n}\n", fp);
	return ferror(fp) ? -1 : 0;
}

int report_json_write(const char *path, const struct report_run *r)
{
	return report_write_atomic(path, report_json_fprint, r);
}
