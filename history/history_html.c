// SPDX-License-Identifier: GPL-2.0-only
/* history_html.c: tapboot history --html: pass rates per test and kernel over the runs, in
 * inline SVG (lib/html.h: no scripts, no network). */
#include <string.h>

#include "fs.h"
#include "history.h"
#include "html.h"

struct page {
	const char *history;
	const struct history_stats *s;
};

/* Squares (one per run, oldest left) and the pass rate so far as a line above them. */
static void runs_svg(FILE *fp, const char *outcomes)
{
	size_t n = strlen(outcomes);
	unsigned pass = 0;

	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"58\">",
		n * 10 + 4);
	fputs("<line x1=\"0\" y1=\"4\" x2=\"100%\" y2=\"4\" stroke=\"#ddd\"/>"
	      "<line x1=\"0\" y1=\"44\" x2=\"100%\" y2=\"44\" stroke=\"#ddd\"/>",
	      fp);
	fputs("<polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\" points=\"", fp);
	for (size_t i = 0; i < n; i++) {
		pass += outcomes[i] != 'F';
		fprintf(fp, "%s%zu,%.1f", i ? " " : "", i * 10 + 6,
			44.0 - 40.0 * pass / (double)(i + 1));
	}
	fputs("\"/>", fp);
	for (size_t i = 0; i < n; i++) {
		const char *v = outcomes[i] == 'F' ? "fail" : outcomes[i] == 'P' ? "pass" : "skip";

		fprintf(fp,
			"<rect x=\"%zu\" y=\"48\" width=\"8\" height=\"8\" fill=\"%s\">"
			"<title>run %zu: %s</title></rect>",
			i * 10 + 2, html_colour(v), i + 1, v);
	}
	fputs("</svg>", fp);
}

static int page_fn(FILE *fp, const void *ctx)
{
	const struct page *p = ctx;

	html_page_begin(fp, "tapboot history");
	fputs("<p>", fp);
	html_put(fp, p->history);
	fprintf(fp,
		": %zu tests and kernels. Pass: not a failure (pass, skip, xfail). The line is "
		"the pass rate over the runs so far, oldest left.</p>\n",
		p->s->n);
	fputs("<table class=\"history\">\n<tr><th>test</th><th>kernel</th><th>runs</th><th>pass"
	      "</th><th>fail</th><th>pass rate</th><th>runs, oldest first</th></tr>\n",
	      fp);
	for (size_t i = 0; i < p->s->n; i++) {
		const struct history_stat *h = &p->s->v[i];
		const char *cls = h->fail && h->pass ? "flaky" : h->fail ? "fail" : "pass";

		fputs("<tr><td class=\"name\">", fp);
		html_put(fp, h->test);
		fputs("</td><td>", fp);
		html_put(fp, h->kernel_release ? h->kernel_release : h->kernel);
		fprintf(fp,
			"</td><td>%u</td><td>%u</td><td>%u</td><td class=\"v %s\">%.0f%% "
			"%s</td><td>",
			h->runs, h->pass, h->fail, cls, h->runs ? 100.0 * h->pass / h->runs : 0.0,
			cls);
		runs_svg(fp, h->outcomes);
		fputs("</td></tr>\n", fp);
	}
	fputs("</table>\n", fp);
	html_page_end(fp);
	return ferror(fp) ? -1 : 0;
}

int history_html_write(const char *path, const char *history, const struct history_stats *s)
{
	struct page p = {history, s};

	return write_file_atomic(path, 0, 0, page_fn, &p);
}
