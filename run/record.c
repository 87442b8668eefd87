// SPDX-License-Identifier: GPL-2.0-only
/* record.c: a finished run into the results history (run.h's run_record_history): read back
 * from its results.json, which is written first, so a history that fails loses nothing. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "error.h"
#include "filehash.h"
#include "history.h"
#include "results.h"
#include "vm.h"

/* Sub-second: a gate's runs follow each other within a second, and the history orders by it. */
static double now_epoch(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct rows {
	struct history_result *v;
	char **names; /* owned, one per row */
	size_t n, alloc, nalloc;
};

/* The content hash of the TEST argument the test name came from (a tapboot test is named by
 * its file's base name), NULL when none is a file (kselftest's, a manifest's). */
static const char *test_hash(const struct run_opts *o, const char *name, char (*hashes)[65])
{
	for (size_t i = 0; i < o->ntests; i++) {
		const char *base = strrchr(o->tests[i], '/');

		base = base ? base + 1 : o->tests[i];
		if (strcmp(base, name) || !hashes[i][0])
			continue;
		return hashes[i];
	}
	return NULL;
}

static void add_rows(struct rows *r, const struct tap_test *t, size_t n, const char *parent,
		     const struct run_opts *o, char (*hashes)[65])
{
	for (size_t i = 0; i < n; i++) {
		char *name = parent ? xasprintf("%s :: %s", parent, t[i].name) : xstrdup(t[i].name);

		xgrow(&r->v, &r->alloc, r->n + 1, sizeof(*r->v));
		xgrow(&r->names, &r->nalloc, r->n + 1, sizeof(*r->names));
		r->names[r->n] = name;
		r->v[r->n] = (struct history_result){
			.test = name,
			.test_sha256 = parent ? NULL : test_hash(o, name, hashes),
			.verdict = verdict_name(t[i].verdict),
			.duration_s = t[i].duration_s,
		};
		r->n++;
		add_rows(r, t[i].subtests, t[i].nsub, name, o, hashes);
	}
}

void run_record_history(struct run *r, const char *kernel, int status)
{
	struct results res;
	struct rows rows = {0};
	char(*hashes)[65] = xcalloc(r->o->ntests + 1, sizeof(*hashes));
	char cfg_sha[65] = "", *json, *dir;
	struct stat st;

	if (r->o->no_history || !r->dir)
		goto out_hashes;
	results_init(&res);
	json = xasprintf("%s/results.json", r->dir);
	if (results_load_json(&res, json) < 0) {
		warning("the results history is not written: no results.json in '%s'", r->dir);
		goto out;
	}
	for (size_t i = 0; i < r->o->ntests; i++)
		if (!stat(r->o->tests[i], &st) && S_ISREG(st.st_mode))
			file_sha256(r->o->tests[i], hashes[i]);
	if (r->kernel_config && file_sha256(r->kernel_config, cfg_sha) < 0)
		cfg_sha[0] = '\0';
	add_rows(&rows, res.tests, res.ntests, NULL, r->o, hashes);
	dir = realpath(r->dir, NULL);
	history_record(r->o->history,
		       &(struct history_run){
			       .time = now_epoch(),
			       .label = r->o->history_label,
			       .dir = dir ? dir : r->dir,
			       .kernel = kernel,
			       .kernel_release = res.sum.kernel,
			       .kernel_sha256 = r->kernel_sha256,
			       .config_sha256 = cfg_sha,
			       .arch = r->cfg.arch,
			       .complete = res.sum.complete,
			       .exit_status = status,
		       },
		       rows.v, rows.n);
	free(dir);
	for (size_t i = 0; i < rows.n; i++)
		free(rows.names[i]);
	free(rows.names);
	free(rows.v);
out:
	free(json);
	results_release(&res);
out_hashes:
	free(hashes);
}
