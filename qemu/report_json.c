/* report_json.c: results.json (schema in docs/DESIGN.md "results directory") and kcidb.json
 * (KCIDB I/O schema v4.3: a "tests" array; kernelci.org's kcidb-io). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "crash_sig.h"
#include "error.h"
#include "report.h"
#include "report_util.h"
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
	unsigned count[VERDICT_COUNT] = {0};

	for (size_t i = 0; i < r->ntests; i++)
		count[r->tests[i].verdict]++;
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

/* ---- KCIDB ---- */

/* A KCIDB path component: '.' separates components there, so dots and spaces inside a name
 * become '_'; with split, ':' and '/' (collection separators in a top-level name) become '.'. */
static void path_add(struct strbuf *sb, const char *s, bool split)
{
	bool sep = sb->len == 0 || sb->buf[sb->len - 1] == '.';

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (split && (c == ':' || c == '/')) {
			while (sb->len && (sb->buf[sb->len - 1] == '_'))
				sb->buf[--sb->len] = '\0';
			if (!sep)
				strbuf_addch(sb, '.');
			sep = true;
			continue;
		}
		if (c == ' ' || c == '\t') {
			if (!sep && sb->buf[sb->len - 1] != '_')
				strbuf_addch(sb, '_');
			continue;
		}
		if (isalnum(c) || c == '-' || c == '_' || c == '+' || c == ',' || c == '=')
			strbuf_addch(sb, c);
		else
			strbuf_addch(sb, '_');
		sep = false;
	}
	while (sb->len && (sb->buf[sb->len - 1] == '_' || sb->buf[sb->len - 1] == '.'))
		sb->buf[--sb->len] = '\0';
}

/* An id part: the kernel release keeps its dots ("6.1.0-57-amd64"). */
static void id_add(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		strbuf_addch(sb,
			     isalnum(c) || c == '-' || c == '_' || c == '+' || c == '.' ? c : '_');
	}
}

static const char *kcidb_status(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
	case VERDICT_XFAIL: /* an expected failure is the expected outcome */
		return "PASS";
	case VERDICT_FAIL:
	case VERDICT_XPASS:
		return "FAIL";
	case VERDICT_SKIP:
		return "SKIP";
	case VERDICT_MISSING:
		return "MISS";
	default: /* timeout, crash: the test could not produce a verdict */
		return "ERROR";
	}
}

struct kcidb_ctx {
	FILE *fp;
	const char *build_id;
	unsigned seq;
	bool first;
};

static void kcidb_tests(struct kcidb_ctx *k, const struct tap_test *t, size_t n, const char *parent,
			bool top)
{
	for (size_t i = 0; i < n; i++) {
		struct strbuf path = STRBUF_INIT;
		const char *name = t[i].name ? t[i].name : "";

		strbuf_init(&path);
		strbuf_addstr(&path, parent);
		if (!strncmp(name, "selftests: ", 11))
			name += 11;
		strbuf_addch(&path, '.');
		path_add(&path, *name ? name : "unnamed", top);
		if (path.buf[path.len - 1] == '.')
			strbuf_addstr(&path, "unnamed");
		fputs(k->first ? "\n" : ",\n", k->fp);
		k->first = false;
		fputs("    {\"id\": ", k->fp);
		{
			char *id = xasprintf("%s:%s:%u", k->build_id, path.buf, ++k->seq);

			json_put_str(k->fp, id);
			free(id);
		}
		fputs(", \"build_id\": ", k->fp);
		json_put_str(k->fp, k->build_id);
		fputs(", \"origin\": \"tapboot\", \"path\": ", k->fp);
		json_put_str(k->fp, path.buf);
		fprintf(k->fp, ", \"status\": \"%s\"", kcidb_status(t[i].verdict));
		if (t[i].duration_s >= 0) {
			fputs(", \"duration\": ", k->fp);
			json_put_secs(k->fp, t[i].duration_s);
		}
		fputs(", \"misc\": {\"verdict\": ", k->fp);
		json_put_str(k->fp, verdict_name(t[i].verdict));
		if (t[i].reason) {
			fputs(", \"reason\": ", k->fp);
			json_put_str(k->fp, t[i].reason);
		}
		if (t[i].exit_code >= 0)
			fprintf(k->fp, ", \"exit_code\": %d", t[i].exit_code);
		fputs("}}", k->fp);
		kcidb_tests(k, t[i].subtests, t[i].nsub, path.buf, false);
		strbuf_release(&path);
	}
}

int report_kcidb_fprint(FILE *fp, const struct report_run *r)
{
	struct strbuf build = STRBUF_INIT, root = STRBUF_INIT;
	const char *release = r->kernel_release;
	struct kcidb_ctx k = {fp, NULL, 0, true};

	if (!release && r->summary)
		release = r->summary->kernel;
	strbuf_init(&build);
	strbuf_init(&root);
	/* KCIDB ids are "origin:anything" */
	strbuf_addstr(&build, "tapboot:");
	id_add(&build, release ? release : (r->kernel ? r->kernel : "unknown"));
	if (r->arch) {
		strbuf_addch(&build, '-');
		id_add(&build, r->arch);
	}
	path_add(&root, r->suite ? r->suite : "tapboot", false);
	k.build_id = build.buf;
	fputs("{\"version\": {\"major\": 4, \"minor\": 3},\n \"tests\": [", fp);
	kcidb_tests(&k, r->tests, r->ntests, root.buf, true);
	fputs(k.first ? "]}\n" : "\n ]}\n", fp);
	strbuf_release(&build);
	strbuf_release(&root);
	return ferror(fp) ? -1 : 0;
}

int report_kcidb_write(const char *path, const struct report_run *r)
{
	return report_write_atomic(path, report_kcidb_fprint, r);
}
