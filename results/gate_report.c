// SPDX-License-Identifier: GPL-2.0-only
/* gate_report.c: a gate's gate.json and gate.html (gate_class.h). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "gate_class.h"
#include "html.h"
#include "json.h"

const char gate_rule_text[] =
	"k/N rule: a run fails when its verdict is fail, xpass, timeout, crash or missing; a side "
	"with both failing and passing runs is flaky; else A passing and B failing every run is a "
	"regression, the reverse fixed, both failing every run failing, both passing pass; only "
	"on B: new (new-failing when every run failed), only on A: vanished";

static void side_json(FILE *fp, const char *key, const struct gate_side *s)
{
	fprintf(fp, "  \"%s\": {\"kernel\": ", key);
	json_put_str(fp, s->kernel);
	fputs(", \"kernel_release\": ", fp);
	json_put_str(fp, s->release);
	fputs(", \"dir\": ", fp);
	json_put_str(fp, s->dir);
	fputs("},\n", fp);
}

static void verdicts_json(FILE *fp, const char *v)
{
	char *copy = xstrdup(v ? v : ""), *save = NULL;
	bool first = true;

	fputc('[', fp);
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		fputs(first ? "" : ", ", fp);
		json_put_str(fp, w);
		first = false;
	}
	fputc(']', fp);
	free(copy);
}

static int json_fn(FILE *fp, const void *ctx)
{
	const struct gate_report *g = ctx;
	unsigned count[GATE_CLASS_COUNT] = {0};

	fputs("{\n", fp);
	side_json(fp, "base", &g->a);
	side_json(fp, "kernel", &g->b);
	fprintf(fp, "  \"reruns\": %u,\n  \"flaky\": \"%s\",\n  \"rule\": ", g->reruns,
		g->flaky_fails ? "fail" : "report");
	json_put_str(fp, gate_rule_text);
	fprintf(fp, ",\n  \"exit\": %d,\n  \"tests\": [", g->status);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct gate_row *r = &g->rows[i];

		count[r->cls]++;
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", fp);
		json_put_str(fp, r->name);
		fprintf(fp,
			", \"class\": \"%s\", \"known_flaky\": %s,"
			" \"base\": {\"runs\": %u, \"fail\": %u, \"verdicts\": ",
			gate_class_name(r->cls), r->known_flaky ? "true" : "false", r->c.a_runs,
			r->c.a_fail);
		verdicts_json(fp, r->a_verdicts);
		fprintf(fp,
			"}, \"kernel\": {\"runs\": %u, \"fail\": %u, \"verdicts\": ", r->c.b_runs,
			r->c.b_fail);
		verdicts_json(fp, r->b_verdicts);
		fputs("}}", fp);
	}
	fputs(g->nrows ? "\n  ],\n  \"counts\": {" : "],\n  \"counts\": {", fp);
	for (int c = 0; c < GATE_CLASS_COUNT; c++)
		fprintf(fp, "%s\"%s\": %u", c ? ", " : "", gate_class_name(c), count[c]);
	fputs("}\n}\n", fp);
	return ferror(fp) ? -1 : 0;
}

int gate_json_write(const char *path, const struct gate_report *g)
{
	return write_file_atomic(path, 0, 0, json_fn, g);
}

/* One side's runs as squares, oldest first, each with its verdict as a tooltip. */
static void runs_svg(FILE *fp, const char *verdicts)
{
	char *copy = xstrdup(verdicts ? verdicts : ""), *save = NULL;
	unsigned n = 0;

	for (const char *p = copy; *p; p++)
		n += *p == ' ';
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"14\">",
		(n + 1) * 14 + 2);
	n = 0;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save), n++) {
		fprintf(fp, "<rect x=\"%u\" y=\"1\" width=\"12\" height=\"12\" fill=\"%s\">",
			n * 14 + 1, html_colour(w));
		fprintf(fp, "<title>run %u: %s</title></rect>", n + 1, w);
	}
	fputs("</svg>", fp);
	free(copy);
}

static void side_cell(FILE *fp, unsigned runs, unsigned fail, const char *verdicts)
{
	fputs("<td>", fp);
	if (!runs) {
		fputs("not run", fp);
	} else {
		fprintf(fp, "%u/%u passed ", runs - fail, runs);
		runs_svg(fp, verdicts);
		fputs(" <small>", fp);
		html_put(fp, verdicts);
		fputs("</small>", fp);
	}
	fputs("</td>", fp);
}

static void side_th(FILE *fp, const char *what, const struct gate_side *s)
{
	fprintf(fp, "<th>%s: ", what);
	html_put(fp, s->kernel);
	if (s->release) {
		fputs("<br><small>", fp);
		html_put(fp, s->release);
		fputs("</small>", fp);
	}
	fputs("</th>", fp);
}

static int html_fn(FILE *fp, const void *ctx)
{
	const struct gate_report *g = ctx;

	html_page_begin(fp, "tapboot gate");
	fprintf(fp,
		"<p>Exit status %d. Up to %u reruns a side, interleaved; flaky tests %s the "
		"gate.</p>\n<p><small>",
		g->status, g->reruns, g->flaky_fails ? "fail" : "do not fail");
	html_put(fp, gate_rule_text);
	fputs("</small></p>\n<table class=\"gate\">\n<tr><th>test</th><th>class</th>", fp);
	side_th(fp, "A (base)", &g->a);
	side_th(fp, "B (kernel)", &g->b);
	fputs("</tr>\n", fp);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct gate_row *r = &g->rows[i];
		const char *cls = gate_class_name(r->cls);

		fputs("<tr><td class=\"name\">", fp);
		html_put(fp, r->name);
		fprintf(fp, "</td><td class=\"v %s\">%s%s</td>", cls, cls,
			r->known_flaky ? " (known flaky)" : "");
		side_cell(fp, r->c.a_runs, r->c.a_fail, r->a_verdicts);
		side_cell(fp, r->c.b_runs, r->c.b_fail, r->b_verdicts);
		fputs("</tr>\n", fp);
	}
	fputs("</table>\n", fp);
	html_page_end(fp);
	return ferror(fp) ? -1 : 0;
}

int gate_html_write(const char *path, const struct gate_report *g)
{
	return write_file_atomic(path, 0, 0, html_fn, g);
}
