// SPDX-License-Identifier: GPL-2.0-only
/* report_json.c: the JSON document of tapboot repro parse, written with lib's JSON writer (any
 * byte string, a Latin-1 Subject too, becomes valid JSON). */
#include "repro.h"

#include "json.h"

static void jcount(FILE *fp, long v)
{
	if (v < 0)
		fputs("null", fp);
	else
		fprintf(fp, "%ld", v);
}

/* Each member after the first opens with ",\n  \"KEY\": ". */
static void jkey(FILE *fp, const char *key)
{
	fprintf(fp, ",\n  \"%s\": ", key);
}

static void jfield(FILE *fp, const char *key, const char *s)
{
	jkey(fp, key);
	json_put_str(fp, s);
}

static void jstrs(FILE *fp, const char *key, char *const *v, size_t n)
{
	jkey(fp, key);
	fputc('[', fp);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", fp);
		json_put_str(fp, v[i]);
	}
	fputc(']', fp);
}

static void jkvs(FILE *fp, const char *key, const struct repro_kv *kv, size_t n)
{
	jkey(fp, key);
	fputc('{', fp);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", fp);
		json_put_str(fp, kv[i].key);
		fputs(": ", fp);
		json_put_str(fp, kv[i].value);
	}
	fputc('}', fp);
}

void repro_report_json(FILE *fp, const struct repro_report *r)
{
	/* The report's own strings in the order the document has always had them. */
	const struct {
		const char *key, *value;
	} head[] = {
		{ "kind", r->kind }, { "headline", r->headline }, { "subject", r->subject },
		{ "message_id", r->message_id }, { "commit", r->commit },
		{ "commit_subject", r->commit_subject }, { "tree", r->tree }, { "branch", r->branch },
		{ "testcase", r->testcase }, { "version", r->version },
	}, machine[] = {
		{ "config", r->config_name }, { "compiler", r->compiler },
		{ "test_machine", r->machine }, { "closes", r->closes }, { "parent", r->parent },
	};

	fputs("{\n  \"source\": ", fp);
	json_put_str(fp, r->source);
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		jfield(fp, head[i].key, head[i].value);
	jkvs(fp, "parameters", r->params, r->nparams);
	for (size_t i = 0; i < sizeof(machine) / sizeof(machine[0]); i++)
		jfield(fp, machine[i].key, machine[i].value);
	jkey(fp, "signatures");
	fputc('[', fp);
	for (size_t i = 0; i < r->nrows; i++) {
		fputs(i ? ",\n    {\"id\": " : "\n    {\"id\": ", fp);
		json_put_str(fp, r->rows[i].id);
		fputs(", \"parent\": ", fp);
		jcount(fp, r->rows[i].parent);
		fputs(", \"commit\": ", fp);
		jcount(fp, r->rows[i].commit);
		fputc('}', fp);
	}
	fputs(r->nrows ? "\n  ]" : "]", fp);
	jkey(fp, "computed");
	fputs("{\"title\": ", fp);
	json_put_str(fp, r->computed.title);
	fputs(", \"ids\": [", fp);
	for (size_t i = 0; i < r->computed.nhits; i++) {
		fputs(i ? ", " : "", fp);
		json_put_str(fp, r->computed.hits[i].id);
	}
	fputs("]}", fp);
	jfield(fp, "cmdline", r->cmdline);
	jfield(fp, "cmdline_from", r->cmdline_from);
	jfield(fp, "arch", r->arch);
	jstrs(fp, "need_kconfig", r->need_kconfig, r->nneed);
	jstrs(fp, "files", r->files, r->nfiles);
	jkvs(fp, "job", r->job, r->njob);
	jfield(fp, "full_dmesg", r->full_dmesg_name);
	jfield(fp, "dmesg", r->dmesg);
	fputs("\n}\n", fp);
}
