// SPDX-License-Identifier: GPL-2.0-only
/* report_html.c: results.html, a results directory's page: the run, the tests and verdicts,
 * a timeline per VM in inline SVG and the crash excerpt. No scripts, no network (lib/html.h). */
#include <stdlib.h>
#include <string.h>

#include "crash_sig.h"
#include "error.h"
#include "html.h"
#include "report.h"
#include "report_util.h"
#include "results.h"

/* The timeline's geometry: px per lane and the drawing's width. */
#define LANE_H 28
#define TL_W 900
#define TL_LEFT 60

static void put_secs(FILE *fp, double s)
{
	if (s < 0)
		fputs("?", fp);
	else
		fprintf(fp, "%.3f s", s);
}

static void row(FILE *fp, const struct tap_test *t, const char *parent, size_t num)
{
	const char *v = verdict_name(t->verdict);

	fputs("<tr><td>", fp);
	if (num)
		fprintf(fp, "%zu", num);
	fputs("</td><td class=\"name\">", fp);
	if (parent) {
		html_put(fp, parent);
		fputs(" :: ", fp);
	}
	html_put(fp, t->name);
	fprintf(fp, "</td><td class=\"v %s\">%s</td><td>", v, v);
	put_secs(fp, t->duration_s);
	fputs("</td><td>", fp);
	html_put(fp, t->reason);
	fputs("</td></tr>\n", fp);
}

static void rows(FILE *fp, const struct tap_test *t, size_t n, const char *parent)
{
	for (size_t i = 0; i < n; i++) {
		char *full = parent ? xasprintf("%s :: %s", parent, t[i].name) : NULL;

		row(fp, &t[i], parent, parent ? 0 : i + 1);
		rows(fp, t[i].subtests, t[i].nsub, full ? full : t[i].name);
		free(full);
	}
}

static unsigned vm_of(const struct report_run *r, size_t i)
{
	return r->vm_of && r->vm_of[i] ? r->vm_of[i] : 1;
}

/* One lane per VM; each test a bar from the end of the VM's tests before it (durations
 * only: results.json has no start times, and the init's time between tests is left out). */
static void timeline(FILE *fp, const struct report_run *r)
{
	unsigned nvm = 1;
	double *end, longest = 0;

	for (size_t i = 0; i < r->ntests; i++)
		if (vm_of(r, i) > nvm)
			nvm = vm_of(r, i);
	end = xcalloc(nvm + 1, sizeof(*end));
	for (size_t i = 0; i < r->ntests; i++) {
		double d = r->tests[i].duration_s > 0 ? r->tests[i].duration_s : 0;

		end[vm_of(r, i)] += d;
		if (end[vm_of(r, i)] > longest)
			longest = end[vm_of(r, i)];
	}
	fputs("<h2>Timeline</h2>\n<p>Each VM's tests in the order they ran, as long as each took "
	      "(the time between tests is not drawn).</p>\n",
	      fp);
	fprintf(fp,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
		"role=\"img\" aria-label=\"timeline\">\n",
		TL_W + TL_LEFT + 10, nvm * LANE_H + 24);
	for (unsigned v = 1; v <= nvm; v++) {
		fprintf(fp, "<text x=\"4\" y=\"%u\" font-size=\"12\">VM %u</text>\n",
			(v - 1) * LANE_H + 18, v);
		end[v] = 0;
	}
	for (size_t i = 0; i < r->ntests; i++) {
		const struct tap_test *t = &r->tests[i];
		unsigned v = vm_of(r, i);
		double d = t->duration_s > 0 ? t->duration_s : 0;
		double scale = longest > 0 ? TL_W / longest : 0;
		double x = TL_LEFT + end[v] * scale, w = d * scale < 2 ? 2 : d * scale;

		end[v] += d;
		fputs("<g><title>", fp);
		html_put(fp, t->name);
		fprintf(fp,
			": %s, %.3f s</title><rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" "
			"height=\"%d\" fill=\"%s\" stroke=\"#fff\"/>",
			verdict_name(t->verdict), d, x, (v - 1) * LANE_H + 4, w, LANE_H - 8,
			html_colour(verdict_name(t->verdict)));
		if (w > 60) {
			fprintf(fp, "<text x=\"%.1f\" y=\"%u\" font-size=\"11\" fill=\"#fff\">",
				x + 3, (v - 1) * LANE_H + 18);
			html_put(fp, t->name);
			fputs("</text>", fp);
		}
		fputs("</g>\n", fp);
	}
	fprintf(fp, "<text x=\"%d\" y=\"%u\" font-size=\"11\">0 s</text>", TL_LEFT,
		nvm * LANE_H + 16);
	fprintf(fp, "<text x=\"%d\" y=\"%u\" font-size=\"11\" text-anchor=\"end\">%.2f s</text>\n",
		TL_LEFT + TL_W, nvm * LANE_H + 16, longest);
	fputs("</svg>\n", fp);
	free(end);
}

static void crash(FILE *fp, const struct report_run *r)
{
	const char *line = r->summary ? r->summary->crash_line : NULL;

	if (!r->crash && !line)
		return;
	fputs("<h2>Crash</h2>\n", fp);
	if (r->crash && r->crash->title) {
		fputs("<p class=\"fail\">", fp);
		html_put(fp, r->crash->title);
		fputs("</p>\n", fp);
	}
	fputs("<pre>", fp);
	html_put(fp, r->crash && r->crash->excerpt ? r->crash->excerpt : line);
	fputs("</pre>\n", fp);
}

static void header(FILE *fp, const struct report_run *r)
{
	const char *release = r->kernel_release;
	unsigned count[VERDICT_COUNT];

	if (!release && r->summary)
		release = r->summary->kernel;
	fputs("<table class=\"run\">\n<tr><th>kernel</th><td>", fp);
	html_put(fp, r->kernel);
	fputs("</td></tr>\n<tr><th>release</th><td>", fp);
	html_put(fp, release);
	fputs("</td></tr>\n<tr><th>arch</th><td>", fp);
	html_put(fp, r->arch);
	fputs("</td></tr>\n<tr><th>accelerator</th><td>", fp);
	html_put(fp, r->accel);
	fputs("</td></tr>\n<tr><th>wall time</th><td>", fp);
	put_secs(fp, r->wall_s);
	fputs("</td></tr>\n<tr><th>complete</th><td>", fp);
	if (r->complete) {
		fputs("yes", fp);
	} else {
		fputs("<span class=\"fail\">no: ", fp);
		html_put(fp, results_error_text(r));
		fputs("</span>", fp);
	}
	fputs("</td></tr>\n<tr><th>tests</th><td>", fp);
	results_count(r->tests, r->ntests, count);
	fprintf(fp, "%zu:", r->ntests);
	for (int v = 0; v < VERDICT_COUNT; v++)
		if (count[v])
			fprintf(fp, " <span class=\"%s\">%u %s</span>", verdict_name(v), count[v],
				verdict_name(v));
	fputs("</td></tr>\n</table>\n", fp);
}

int report_html_fprint(FILE *fp, const struct report_run *r)
{
	html_page_begin(fp, "tapboot results");
	header(fp, r);
	crash(fp, r);
	fputs("<h2>Tests</h2>\n<table class=\"tests\">\n<tr><th>#</th><th>test</th><th>verdict"
	      "</th><th>duration</th><th>reason</th></tr>\n",
	      fp);
	rows(fp, r->tests, r->ntests, NULL);
	fputs("</table>\n", fp);
	if (r->ntests)
		timeline(fp, r);
	html_page_end(fp);
	return ferror(fp) ? -1 : 0;
}

int report_html_write(const char *path, const struct report_run *r)
{
	return report_write_atomic(path, report_html_fprint, r);
}
