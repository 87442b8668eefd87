// SPDX-License-Identifier: GPL-2.0-only
/* results.c: the results model: merge of shards, counts, the incomplete-run reason, the exit
 * status, and results.json read back (tapboot compare). */
#include "results.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "json_read.h"

unsigned results_count(const struct tap_test *tests, size_t n, unsigned count[VERDICT_COUNT])
{
	memset(count, 0, VERDICT_COUNT * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		count[tests[i].verdict]++;
	return (unsigned)n;
}

void results_init(struct results *r)
{
	memset(r, 0, sizeof(*r));
	r->sum.planned = -1;
}

static void test_free(struct tap_test *t)
{
	free(t->name);
	free(t->reason);
	free(t->log);
	for (size_t i = 0; i < t->nsub; i++)
		test_free(&t->subtests[i]);
	free(t->subtests);
}

void results_release(struct results *r)
{
	if (r->owned) {
		for (size_t i = 0; i < r->ntests; i++)
			test_free(&r->tests[i]);
		free(r->sum.bail_reason);
		free(r->sum.crash_line);
		free(r->sum.kernel);
	}
	free(r->tests);
	results_init(r);
}

/* The run as a whole: complete only when every VM completed; the first of each VM's texts. */
static void merge_summary(struct tap_summary *into, const struct tap_summary *s)
{
	into->complete &= s->complete;
	into->saw_version |= s->saw_version;
	into->saw_begin |= s->saw_begin;
	into->bailed_out |= s->bailed_out;
	if (!into->bail_reason)
		into->bail_reason = s->bail_reason;
	into->crashed |= s->crashed;
	if (!into->crash_line)
		into->crash_line = s->crash_line;
	if (!into->kernel)
		into->kernel = s->kernel;
	into->planned += s->planned > 0 ? s->planned : 0;
}

void results_merge(struct results *r, const struct results_shard *shards, size_t nshards,
		   const char *const *plan_names, size_t nplan)
{
	struct tap_test *byplan = xcalloc(nplan + 1, sizeof(*byplan));
	bool *used = xcalloc(nplan + 1, sizeof(*used));

	r->sum.complete = true;
	r->sum.planned = 0;
	r->unmatched = 0;
	r->first_unmatched = NULL;
	for (size_t v = 0; v < nshards; v++)
		if (shards[v].sum)
			merge_summary(&r->sum, shards[v].sum);
	for (size_t v = 0; v < nshards; v++) {
		const struct results_shard *sh = &shards[v];

		for (size_t k = 0; k < sh->nplan; k++) {
			size_t i = sh->plan_idx[k];

			for (size_t j = 0; j < sh->ntests; j++)
				if (!strcmp(sh->tests[j].name, plan_names[i])) {
					byplan[i] = sh->tests[j];
					used[i] = true;
					break;
				}
			/* a VM that never started has no parser: its tests are missing. One whose
			 * stream completed and still has no verdict for a planned name (the name
			 * changed on its way through the console) cannot count as complete:
			 * nothing planned is missing in a complete run. */
			if (!used[i] && sh->sum && sh->sum->complete) {
				r->sum.complete = false;
				if (!r->unmatched++)
					r->first_unmatched = plan_names[i];
			}
			if (!used[i]) {
				byplan[i].name = (char *)plan_names[i];
				byplan[i].verdict = VERDICT_MISSING;
				byplan[i].duration_s = -1;
				byplan[i].exit_code = -1;
				used[i] = true;
			}
		}
	}
	r->tests = xcalloc(nplan + 1, sizeof(*r->tests));
	r->ntests = 0;
	for (size_t i = 0; i < nplan; i++)
		if (used[i])
			r->tests[r->ntests++] = byplan[i];
	r->sum.total = results_count(r->tests, r->ntests, r->sum.count);
	free(used);
	free(byplan);
}

static char *stream_reason(const struct tap_summary *s)
{
	if (s->crash_line)
		return xasprintf("kernel crash: %s", s->crash_line);
	if (s->bailed_out)
		return xasprintf("bailed out: %s", s->bail_reason ? s->bail_reason : "no reason");
	if (s->saw_begin)
		return xstrdup("no tapboot end line with the run's nonce");
	if (s->planned < 0)
		return xstrdup("no TAP plan found");
	return xstrdup("the stream ended before every planned test reported");
}

static char *vm_reason(const struct tap_summary *s, const struct results_why *w)
{
	if (s->crashed && s->crash_line)
		return xasprintf("kernel crashed: %s", s->crash_line);
	if (w->cut)
		return xstrdup(w->cut);
	if (!w->spawned)
		return xasprintf("QEMU could not be started ('%s')", w->qemu);
	if (!w->begun)
		return xasprintf("the guest never reached tapboot's init (QEMU %s%s%s)",
				 w->qemu_failed ? "exited with an error" : "exited",
				 w->qemu_last ? ": " : "", w->qemu_last ? w->qemu_last : "");
	return xstrdup("the guest stopped before the end of the run (no end marker with this "
		       "run's nonce)");
}

/* What a LAVA log says about its job (tapboot's parser adds its own). */
static char *lava_reason(const struct results_why *w)
{
	if (w->log_truncated)
		return xstrdup("the LAVA log ends before the job's result (truncated)");
	if (!w->saw_begin)
		return xasprintf(
			"the job never reached tapboot's init (no '%s' on the console)%s%s",
			"# tapboot: begin", w->error_msg ? ": " : "",
			w->error_msg ? w->error_msg : "");
	if (w->error_msg)
		return xasprintf("LAVA: %s%s%s", w->error_type ? w->error_type : "error",
				 w->error_type ? " error: " : "", w->error_msg);
	return NULL;
}

char *results_incomplete_text(const struct tap_summary *s, const struct results_why *why)
{
	if (why && why->origin == RESULTS_LAVA) {
		char *e = lava_reason(why);

		if (e || !s || s->complete)
			return e;
		return xstrdup(s->crash_line ? s->crash_line
					     : "no tapboot end line with the run's nonce");
	}
	if (s->complete)
		return NULL;
	if (why && why->origin == RESULTS_VM)
		return vm_reason(s, why);
	return stream_reason(s);
}

char *results_incomplete_reason(const struct tap_summary *s)
{
	return results_incomplete_text(s, NULL);
}

void report_run_fill(struct report_run *rep, const struct tap_test *tests, size_t ntests,
		     const struct tap_summary *sum, const char *suite, const char *error)
{
	memset(rep, 0, sizeof(*rep));
	rep->tests = tests;
	rep->ntests = ntests;
	rep->summary = sum;
	rep->kernel_release = sum->kernel;
	rep->suite = suite;
	rep->error = error;
	rep->complete = sum->complete && !error;
	rep->wall_s = -1;
}

const char *results_error_text(const struct report_run *r)
{
	return r->error ? r->error : "the run did not complete";
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

int results_exit_status(const struct report_run *r, const struct report_policy *pol,
			bool interrupted)
{
	return interrupted ? EXIT_INTERRUPTED : report_exit_status_policy(r, pol, NULL);
}

/* ---- results.json read back ---- */

static int load_tests(const char *path, const struct json *arr, struct tap_test **out, size_t *n)
{
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	if (!arr || arr->type != JSON_ARRAY)
		return error("'%s': \"tests\" is not an array", path);
	for (size_t i = 0; i < arr->n; i++) {
		const struct json *j = &arr->items[i], *sub = json_get(j, "subtests"), *v;
		const char *name = json_get_str(j, "name"), *result = json_get_str(j, "result");
		const char *reason = json_get_str(j, "reason");
		struct tap_test *t;
		int verdict;

		if (!name || !result)
			return error("'%s': a test without \"name\" or \"result\"", path);
		verdict = verdict_from_name(result);
		if (verdict < 0)
			return error("'%s': unknown result '%s' of test '%s'", path, result, name);
		xgrow(out, &alloc, *n + 1, sizeof(**out));
		t = &(*out)[(*n)++];
		memset(t, 0, sizeof(*t));
		t->name = xstrdup(name);
		t->reason = reason ? xstrdup(reason) : NULL;
		t->verdict = (enum verdict)verdict;
		v = json_get(j, "duration_s");
		t->duration_s = v && v->type == JSON_NUMBER ? v->num : -1;
		v = json_get(j, "exit_code");
		t->exit_code = v && v->type == JSON_NUMBER ? (int)v->num : -1;
		if (sub && sub->type != JSON_NULL &&
		    load_tests(path, sub, &t->subtests, &t->nsub) < 0)
			return -1;
		t->sub_alloc = t->nsub;
	}
	return 0;
}

int results_load_json(struct results *r, const char *path)
{
	struct json doc;
	const struct json *v;
	char *buf;
	size_t len;
	int ret;

	r->owned = true;
	if (read_file(path, &buf, &len) < 0)
		return error_errno("cannot open '%s'", path);
	ret = json_parse(&doc, buf, len, path);
	free(buf);
	if (ret)
		return -1;
	if (doc.type != JSON_OBJECT) {
		json_release(&doc);
		return error("'%s': not a tapboot results.json (no top-level object)", path);
	}
	ret = load_tests(path, json_get(&doc, "tests"), &r->tests, &r->ntests);
	v = json_get(&doc, "complete");
	r->sum.complete = v && v->type == JSON_BOOL && v->b;
	if (json_get_str(&doc, "kernel_release"))
		r->sum.kernel = xstrdup(json_get_str(&doc, "kernel_release"));
	r->sum.total = results_count(r->tests, r->ntests, r->sum.count);
	json_release(&doc);
	return ret;
}
