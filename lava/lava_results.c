// SPDX-License-Identifier: GPL-2.0-only
/* lava_results.c: tapboot lava-results: a LAVA job log back into a tapboot results directory.
 * tapboot's own parser judges the console LAVA recorded (nonce, end marker, crash attribution,
 * missing tests); LAVA's monitor verdicts are cross-checked against it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fs.h"
#include "lava_log.h"
#include "lava_results.h"
#include "report.h"
#include "results.h"
#include "run.h"

/* One conversion: what was read, and what the parser made of it. */
struct lava_conv {
	const struct lava_results_opts *o;
	struct lava_run l;
	struct strlist names; /* --job's planned tests */
	char job_nonce[33];
	char *why; /* why the run did not complete, in LAVA's terms, then tapboot's parser's */
	struct tap_parser *p;
	unsigned contradictions;
	char *dir, *url, *arch;
};

int lava_job_names_read(const char *path, struct strlist *names, char nonce[33])
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;

	if (!fp)
		return error_errno("cannot open '%s'", path);
	while (getline(&line, &cap, fp) > 0) {
		char *p = strstr(line, "tapboot.test."), *colon;
		unsigned long k;
		struct json v;
		char *err = NULL, *doc;

		lineno++;
		if (!strncmp(line, "  tapboot.nonce: '", 18) && strlen(line) >= 18 + 32 + 1 &&
		    line[18 + 32] == '\'') {
			memcpy(nonce, line + 18, 32);
			nonce[32] = '\0';
		}
		if (!p || strncmp(line, "  tapboot.test.", 15))
			continue;
		k = strtoul(p + 13, &colon, 10);
		if (*colon != ':' || k != names->n + 1) {
			ret = error_at(path, lineno, "tapboot.test.%lu out of order", k);
			break;
		}
		/* the value is a YAML scalar: decode it as a one-entry flow mapping */
		colon[strcspn(colon, "\r\n")] = '\0';
		doc = xasprintf("{\"v\": %s}", colon + 1);
		if (lava_flow_parse(doc, strlen(doc), &v, &err) < 0 || !json_get_str(&v, "v")) {
			ret = error_at(path, lineno, "bad test name: %s",
				       err ? err : "not a string");
			free(err);
			free(doc);
			break;
		}
		strlist_push(names, json_get_str(&v, "v"));
		json_release(&v);
		free(doc);
	}
	free(line);
	fclose(fp);
	if (!ret && !names->n)
		ret = error("'%s' names no tests (no tapboot.test.N metadata: not written by "
			    "tapboot lava-job?)",
			    path);
	return ret;
}

/* tapboot's verdict as LAVA's monitor records it (job.yaml's fixupdict): NULL when LAVA records
 * nothing (a crash or a missing test never printed its result line). */
static const char *lava_expected(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
	case VERDICT_XFAIL: /* "ok ... # XFAIL" */
		return "pass";
	case VERDICT_FAIL:
	case VERDICT_XPASS:
	case VERDICT_TIMEOUT: /* "not ok ... # TIMEOUT" */
		return "fail";
	case VERDICT_SKIP:
		return "skip";
	default:
		return NULL;
	}
}

unsigned lava_cross_check(const struct lava_run *l, const struct tap_test *t, size_t n)
{
	unsigned bad = 0;

	for (size_t c = 0; c < l->ncases; c++) {
		const struct tap_test *match = NULL;

		for (size_t i = 0; i < n && !match; i++) {
			char *id = lava_case_id(t[i].name ? t[i].name : "");

			if (!strcmp(id, l->cases[c].id))
				match = &t[i];
			free(id);
		}
		if (!match) {
			error("LAVA recorded '%s' (%s), a test tapboot's parser did not see",
			      l->cases[c].id, l->cases[c].result);
			bad++;
		} else if (!lava_expected(match->verdict) ||
			   strcmp(lava_expected(match->verdict), l->cases[c].result)) {
			error("LAVA recorded '%s' as %s, tapboot's parser as %s", match->name,
			      l->cases[c].result, verdict_name(match->verdict));
			bad++;
		}
	}
	return bad;
}

/* -o DIR (empty, or --force), else a new one under ./tapboot-out/. Caller frees; NULL after a
 * message. */
static char *make_dir(const char *out, bool force)
{
	struct stat st;

	if (!out)
		return run_new_results_dir("lava");
	if (mkdir(out, 0755) < 0) {
		if (errno != EEXIST || stat(out, &st) < 0 || !S_ISDIR(st.st_mode)) {
			error_errno("cannot create results directory '%s'", out);
			return NULL;
		}
		if (!force && !dir_is_empty(out)) {
			error("results directory '%s' is not empty: pass --force to write into it, "
			      "or choose another -o",
			      out);
			return NULL;
		}
	}
	return xstrdup(out);
}

/* The log (and the job), and whether they are a LAVA job's and belong together. -1 after a
 * message. */
static int read_inputs(struct lava_conv *c)
{
	const struct lava_results_opts *o = c->o;

	if ((o->job && lava_job_names_read(o->job, &c->names, c->job_nonce) < 0) ||
	    lava_run_read(o->log, &c->l) < 0)
		return -1;
	if (o->job && c->l.nonce && *c->job_nonce && strcmp(c->job_nonce, c->l.nonce))
		return error("'%s' is not the log of '%s': its boot command carries nonce %s, the "
			     "job %s",
			     o->log, o->job, c->l.nonce, c->job_nonce);
	if (!c->l.version && !c->l.job_result && !c->l.saw_target && !c->l.ncases)
		return error("'%s' is not a LAVA job log: no lava-dispatcher version, console or "
			     "results in it",
			     o->log);
	return 0;
}

/* tapboot's parser on the console LAVA recorded, told the planned tests and why LAVA says the
 * run is not complete; then LAVA's verdicts against its. */
static void judge(struct lava_conv *c)
{
	const struct tap_test *tests;
	size_t ntests = 0;

	c->p = tap_parser_new(c->l.nonce, NULL);
	if (c->names.n)
		tap_parser_expect(c->p, (const char *const *)c->names.v, c->names.n);
	tap_parser_feed(c->p, c->l.console.buf ? c->l.console.buf : "", c->l.console.len);
	tap_parser_finish(c->p, c->why);
	tests = tap_parser_tests(c->p, &ntests);
	c->contradictions = lava_cross_check(&c->l, tests, ntests);
}

/* The report's run record: what the log says of the run, and tapboot's verdicts. */
static void fill_report(struct lava_conv *c, struct report_run *rep)
{
	const struct tap_summary *sum = tap_parser_summary(c->p);
	const struct tap_test *tests;
	size_t ntests = 0;
	char *abs = realpath(c->o->log, NULL);

	free(c->why);
	c->why = lava_run_incomplete(&c->l, sum);
	tests = tap_parser_tests(c->p, &ntests);
	report_run_fill(rep, tests, ntests, sum, "tapboot", c->why);
	c->arch = lava_run_arch(&c->l);
	c->url = c->o->job_url ? xstrdup(c->o->job_url)
			       : xasprintf("file://%s", abs ? abs : c->o->log);
	free(abs);
	rep->arch = c->arch;
	rep->kernel = c->l.kernel_url;
	rep->accel = c->l.kvm ? "kvm" : "tcg";
	rep->kcidb_origin = c->o->origin;
	rep->run_id = rep->nonce = c->l.nonce;
	rep->machine = c->l.machine;
	rep->start_time = c->l.start_time;
	rep->log_url = c->url;
}

/* console.log and the reports into c->dir, the summary on stdout; the exit status. */
static int write_results(struct lava_conv *c, const struct report_run *rep)
{
	char *path = xasprintf("%s/console.log", c->dir);
	int status, ret = write_string_atomic(path, 0, 0, c->l.console.buf ? c->l.console.buf : "",
					      c->l.console.len);

	free(path);
	if (ret == 0) {
		report_write_all(c->dir, rep);
		report_summary_fprint(stdout, rep);
		if (rep->error)
			error("%s", rep->error);
		printf("results: %s/\n", c->dir);
	}
	status = report_exit_status(rep);
	if (c->contradictions || (!c->l.saw_begin && status < EXIT_VM))
		status = EXIT_VM;
	return status;
}

int lava_results(const struct lava_results_opts *o)
{
	struct lava_conv c;
	struct report_run rep;
	int status = EXIT_USAGE;

	memset(&c, 0, sizeof(c));
	c.o = o;
	lava_run_init(&c.l);
	strlist_init(&c.names);
	if (read_inputs(&c) < 0)
		goto out;
	/* why the run is not complete, in LAVA's terms (tapboot's parser adds its own) */
	c.why = lava_run_incomplete(&c.l, NULL);
	c.dir = make_dir(o->out, o->force);
	if (!c.dir)
		goto out;
	judge(&c);
	fill_report(&c, &rep);
	status = write_results(&c, &rep);
out:
	tap_parser_free(c.p);
	lava_run_release(&c.l);
	strlist_release(&c.names);
	free(c.why);
	free(c.dir);
	free(c.url);
	free(c.arch);
	return status;
}
