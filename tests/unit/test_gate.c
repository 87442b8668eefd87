// SPDX-License-Identifier: GPL-2.0-only
/* test_gate.c: tapboot gate's class rule (results/gate_class.c) for every small-N case, when
 * a test is rerun, which classes fail the gate, its reports (gate.json, gate.html), and the
 * HTML escaping every page uses (lib/html.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gate_class.h"
#include "harness.h"
#include "html.h"
#include "json_read.h"
#include "report.h"
#include "results.h"

static enum gate_class cls(unsigned an, unsigned af, unsigned bn, unsigned bf)
{
	struct gate_counts c = {an, af, bn, bf};

	return gate_classify(&c);
}

static void test_stated_cases(void)
{
	/* one run a side (--reruns 0): the same as tapboot compare's categories */
	check_str(gate_class_name(cls(1, 0, 1, 0)), "pass");
	check_str(gate_class_name(cls(1, 0, 1, 1)), "regression");
	check_str(gate_class_name(cls(1, 1, 1, 0)), "fixed");
	check_str(gate_class_name(cls(1, 1, 1, 1)), "failing");
	check_str(gate_class_name(cls(0, 0, 1, 0)), "new");
	check_str(gate_class_name(cls(0, 0, 1, 1)), "new-failing");
	check_str(gate_class_name(cls(1, 0, 0, 0)), "vanished");
	check_str(gate_class_name(cls(1, 1, 0, 0)), "vanished");
	/* reruns that agree keep the class */
	check_str(gate_class_name(cls(6, 0, 6, 6)), "regression");
	check_str(gate_class_name(cls(6, 6, 6, 0)), "fixed");
	check_str(gate_class_name(cls(6, 6, 6, 6)), "failing");
	check_str(gate_class_name(cls(0, 0, 6, 6)), "new-failing");
	/* one disagreeing run on either side makes it flaky, whatever the other side says */
	check_str(gate_class_name(cls(6, 0, 6, 5)), "flaky");
	check_str(gate_class_name(cls(6, 1, 6, 6)), "flaky");
	check_str(gate_class_name(cls(2, 1, 1, 0)), "flaky");
	check_str(gate_class_name(cls(1, 0, 2, 1)), "flaky");
	check_str(gate_class_name(cls(2, 1, 2, 1)), "flaky");
	check_str(gate_class_name(cls(0, 0, 3, 1)), "flaky");
	check_str(gate_class_name(cls(6, 3, 6, 6)), "flaky");
	/* sides of different lengths (a flaky side's reruns stop early) */
	check_str(gate_class_name(cls(1, 0, 6, 6)), "regression");
	check_str(gate_class_name(cls(6, 6, 1, 1)), "failing");
	check_str(gate_class_name(GATE_CLASS_COUNT), "?");
}

/* Every count up to 4 runs a side: exactly one class, and the class the README's table says,
 * checked through properties rather than the same code again. */
static void test_every_small_n(void)
{
	unsigned seen[GATE_CLASS_COUNT] = {0};

	for (unsigned an = 0; an <= 4; an++)
		for (unsigned af = 0; af <= an; af++)
			for (unsigned bn = 0; bn <= 4; bn++)
				for (unsigned bf = 0; bf <= bn; bf++) {
					enum gate_class c = cls(an, af, bn, bf);
					bool amix = af && af < an, bmix = bf && bf < bn;

					seen[c]++;
					if (!bn)
						check_int(c, ==, GATE_VANISHED);
					else if (amix || bmix)
						check_int(c, ==, GATE_FLAKY);
					else if (!an)
						check_int(c, ==, bf ? GATE_NEW_FAILING : GATE_NEW);
					else if (!af && !bf)
						check_int(c, ==, GATE_PASS);
					else if (!af)
						check_int(c, ==, GATE_REGRESSION);
					else if (!bf)
						check_int(c, ==, GATE_FIXED);
					else
						check_int(c, ==, GATE_FAILING);
					/* a regression needs every A run passing, every B run
					 * failing */
					if (c == GATE_REGRESSION)
						check(an && !af && bn && bf == bn);
				}
	for (int c = 0; c < GATE_CLASS_COUNT; c++)
		check_int(seen[c], >, 0);
}

static void test_reruns(void)
{
	struct gate_counts reg = {1, 0, 1, 1}, flaky = {2, 1, 2, 2}, pass = {1, 0, 1, 0},
			   fail = {3, 3, 3, 3}, newf = {0, 0, 1, 1}, gone = {1, 1, 0, 0};

	/* a disagreement is rerun on both sides until 1 + N runs */
	check(gate_needs_rerun(&reg, false, 5, false));
	check(gate_needs_rerun(&reg, true, 5, false));
	reg = (struct gate_counts){6, 0, 6, 6};
	check(!gate_needs_rerun(&reg, false, 5, false));
	check(!gate_needs_rerun(&reg, true, 5, false));
	check(gate_needs_rerun(&reg, true, 6, false));
	/* --reruns 0: never */
	reg = (struct gate_counts){1, 0, 1, 1};
	check(!gate_needs_rerun(&reg, true, 0, false));
	/* flaky is final: no more reruns */
	check(!gate_needs_rerun(&flaky, false, 5, false));
	check(!gate_needs_rerun(&flaky, true, 5, false));
	check(!gate_needs_rerun(&pass, true, 5, false));
	/* a pass the history knows as flaky is rerun on both sides, to 1 + N runs */
	check(gate_needs_rerun(&pass, true, 5, true));
	check(gate_needs_rerun(&pass, false, 5, true));
	pass = (struct gate_counts){6, 0, 6, 0};
	check(!gate_needs_rerun(&pass, true, 5, true));
	check(!gate_needs_rerun(&flaky, true, 5, true));
	check(!gate_needs_rerun(&gone, true, 5, true));
	/* failing on both is rerun: it may be flaky */
	check(gate_needs_rerun(&fail, false, 5, false));
	check(gate_needs_rerun(&fail, true, 5, false));
	/* a new failing test is rerun on B only, a vanished one never */
	check(gate_needs_rerun(&newf, true, 5, false));
	check(!gate_needs_rerun(&newf, false, 5, false));
	check(!gate_needs_rerun(&gone, false, 5, false));
	check(!gate_needs_rerun(&gone, true, 5, false));
}

static void test_fails(void)
{
	for (int c = 0; c < GATE_CLASS_COUNT; c++) {
		bool want = c == GATE_REGRESSION || c == GATE_NEW_FAILING;

		check_int(gate_class_fails(c, false), ==, want);
		check_int(gate_class_fails(c, true), ==, want || c == GATE_FLAKY);
	}
}

static char *html_of(const char *s, size_t n)
{
	const char *p = test_write_file("html.out", "", 0, 0);
	FILE *fp = fopen(p, "w");
	char *out;

	html_putn(fp, s, n);
	fclose(fp);
	out = test_read_file(p, NULL);
	return out;
}

static void test_html_escape(void)
{
	char *o = html_of("a<b>&\"c'd", 9);

	check_str(o, "a&lt;b&gt;&amp;&quot;c&#39;d");
	free(o);
	/* invalid UTF-8 and controls become U+FFFD; valid UTF-8, tab and newline stay */
	o = html_of("\xff x\x01y\tz\n\xc3\xa9", 10);
	check_str(o, "&#xfffd; x&#xfffd;y\tz\n\xc3\xa9");
	free(o);
	o = html_of("<script>", 8);
	check(!strstr(o, "<"));
	free(o);
}

static void test_reports(void)
{
	struct gate_row rows[] = {
		{"x<&\"y",
		 {6, 0, 6, 6},
		 GATE_REGRESSION,
		 "pass pass pass pass pass pass",
		 "fail fail fail fail fail fail",
		 false},
		{"coin", {2, 1, 1, 0}, GATE_FLAKY, "pass fail", "pass", true},
	};
	struct gate_report g = {
		.a = {"debian:x86_64", "6.1.0", "a"},
		.b = {"debian:x86_64:trixie", "6.12", "b"},
		.rows = rows,
		.nrows = 2,
		.reruns = 5,
		.status = 1,
	};
	const char *jp = test_write_file("gate.json", "", 0, 0);
	const char *hp = test_write_file("gate.html", "", 0, 0);
	struct json doc;
	const struct json *t;
	char *js, *html;
	size_t len;

	check_int(gate_json_write(jp, &g), ==, 0);
	check_int(gate_html_write(hp, &g), ==, 0);
	js = test_read_file(jp, &len);
	if (check_int(json_parse(&doc, js, len, jp), ==, 0)) {
		t = json_get(&doc, "tests");
		check(t && t->type == JSON_ARRAY && t->n == 2);
		if (t && t->n == 2) {
			check_str(json_get_str(&t->items[0], "name"), "x<&\"y");
			check_str(json_get_str(&t->items[0], "class"), "regression");
			check_str(json_get_str(&t->items[1], "class"), "flaky");
		}
		check(strstr(json_get_str(&doc, "rule"), "k/N rule") != NULL);
		json_release(&doc);
	}
	html = test_read_file(hp, NULL);
	check(strstr(html, "x&lt;&amp;&quot;y") != NULL);
	check(!strstr(html, "x<&"));
	check(strstr(html, "6/6 passed") && strstr(html, "0/6 passed") &&
	      strstr(html, "1/2 passed"));
	check(strstr(html, "known flaky") != NULL);
	check(!strstr(html, "<script"));
	free(html);
	free(js);
}

/* results.html: every test and verdict, escaped; one timeline lane per VM; the crash. */
static void test_results_page(void)
{
	static char n1[] = "a<b", n2[] = "c&\"d", n3[] = "e", why[] = "exit 1",
		    crash[] = "Kernel panic - not syncing: <boom>";
	struct tap_test tests[3] = {
		{.name = n1, .verdict = VERDICT_PASS, .duration_s = 1.0, .exit_code = 0},
		{.name = n2,
		 .verdict = VERDICT_FAIL,
		 .duration_s = 0.5,
		 .exit_code = 1,
		 .reason = why},
		{.name = n3, .verdict = VERDICT_CRASH, .duration_s = 2.0, .exit_code = -1},
	};
	struct tap_summary sum = {.crash_line = crash};
	unsigned vm_of[3] = {1, 2, 1};
	struct report_run rep;
	const char *p = test_write_file("results.html", "", 0, 0);
	char *html;

	report_run_fill(&rep, tests, 3, &sum, "tapboot", "kernel panic");
	rep.vm_of = vm_of;
	rep.kernel = "k";
	check_int(report_html_write(p, &rep), ==, 0);
	html = test_read_file(p, NULL);
	check(strstr(html, "<td class=\"name\">a&lt;b</td><td class=\"v pass\">pass</td>") != NULL);
	check(strstr(html, "<td class=\"name\">c&amp;&quot;d</td><td class=\"v fail\">fail</td>") !=
	      NULL);
	check(strstr(html, "<td class=\"name\">e</td><td class=\"v crash\">crash</td>") != NULL);
	check(strstr(html, ">VM 1</text>") && strstr(html, ">VM 2</text>") &&
	      !strstr(html, ">VM 3</text>"));
	check(strstr(html, "Kernel panic - not syncing: &lt;boom&gt;") != NULL);
	check(strstr(html, "no: kernel panic") != NULL);
	/* nothing that runs or loads: no script, no src=, no link */
	check(!strstr(html, "<script") && !strstr(html, "src=") && !strstr(html, "<link"));
	free(html);
}

int main(void)
{
	TEST(test_stated_cases, "the rule's stated cases, one run a side and with reruns");
	TEST(test_every_small_n, "every count up to 4 runs a side has the README's class");
	TEST(test_reruns, "what is rerun: until 1 + N runs; never flaky or vanished; pass only "
			  "when known flaky");
	TEST(test_fails, "regression and new-failing fail the gate, flaky only with --flaky=fail");
	TEST(test_html_escape, "HTML escaping: markup, quotes, invalid UTF-8, controls");
	TEST(test_reports, "gate.json and gate.html: names escaped, counts, the rule stated");
	TEST(test_results_page, "results.html: tests, verdicts, a lane per VM, the crash, escaped");
	return test_done();
}
