// SPDX-License-Identifier: GPL-2.0-only
/* history_query.c: what the results history says: pass rates per test and kernel, the outcome
 * of each run in order, the first failure (tapboot history, gate's "known flaky"). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "history.h"
#include "history_db.h"
#include "strbuf.h"
#include "verdict.h"

static const char stats_sql[] =
	"SELECT r.test, u.kernel, u.kernel_release, u.kernel_sha256, r.verdict, u.time, u.dir"
	" FROM results r JOIN runs u ON u.id = r.run_id"
	" WHERE (?1 IS NULL OR u.kernel = ?1 OR u.kernel_release = ?1"
	"        OR (length(?1) >= 6 AND u.kernel_sha256 LIKE ?1 || '%'))"
	"   AND (?2 IS NULL OR r.test = ?2)"
	" ORDER BY r.test, u.kernel_release, u.kernel_sha256, u.time, u.id";

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

static char outcome_of(const char *verdict)
{
	int v = verdict_from_name(verdict);

	if (v < 0 || verdict_is_failure((enum verdict)v))
		return 'F';
	return v == VERDICT_PASS ? 'P' : 'S';
}

/* The row's stat: the last one when it is the same test and kernel, else a new one. */
static struct history_stat *stat_for(struct history_stats *s, sqlite3_stmt *st)
{
	const char *test = (const char *)sqlite3_column_text(st, 0);
	const char *rel = (const char *)sqlite3_column_text(st, 2);
	const char *sha = (const char *)sqlite3_column_text(st, 3);
	struct history_stat *h = s->n ? &s->v[s->n - 1] : NULL;

	if (h && same_str(h->test, test) && same_str(h->kernel_release, rel) &&
	    same_str(h->kernel_sha256, sha))
		return h;
	xgrow(&s->v, &s->alloc, s->n + 1, sizeof(*s->v));
	h = &s->v[s->n++];
	memset(h, 0, sizeof(*h));
	h->test = col(st, 0);
	h->kernel_release = col(st, 2);
	h->kernel_sha256 = col(st, 3);
	h->outcomes = xstrdup("");
	return h;
}

static void add_row(struct history_stats *s, sqlite3_stmt *st)
{
	struct history_stat *h = stat_for(s, st);
	char o = outcome_of((const char *)sqlite3_column_text(st, 4));
	size_t len = strlen(h->outcomes);

	h->outcomes = xrealloc(h->outcomes, len + 2);
	h->outcomes[len] = o;
	h->outcomes[len + 1] = '\0';
	h->runs++;
	h->last_time = sqlite3_column_double(st, 5);
	free(h->kernel);
	h->kernel = col(st, 1);
	if (o == 'F') {
		h->fail++;
		if (!h->first_fail_dir) {
			h->first_fail_time = h->last_time;
			h->first_fail_dir = col(st, 6);
			if (!h->first_fail_dir)
				h->first_fail_dir = xstrdup("");
		}
	} else {
		h->pass++;
	}
}

int history_stats_read(const char *path, const char *kernel, const char *test,
		       struct history_stats *s)
{
	struct history_db h;
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	memset(s, 0, sizeof(*s));
	if (history_db_open(&h, path, false) < 0)
		return -1;
	if (sqlite3_prepare_v2(h.db, stats_sql, -1, &st, NULL) != SQLITE_OK) {
		history_db_fail(&h, "read it");
		goto out;
	}
	if (kernel)
		sqlite3_bind_text(st, 1, kernel, -1, SQLITE_TRANSIENT);
	if (test)
		sqlite3_bind_text(st, 2, test, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		add_row(s, st);
	if (rc != SQLITE_DONE)
		history_db_fail(&h, "read it");
	else
		ret = 0;
	sqlite3_finalize(st);
out:
	history_db_close(&h);
	return ret;
}

void history_stats_release(struct history_stats *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].test);
		free(s->v[i].kernel);
		free(s->v[i].kernel_release);
		free(s->v[i].kernel_sha256);
		free(s->v[i].outcomes);
		free(s->v[i].first_fail_dir);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

bool history_known_flaky(const char *path, const char *test, const char *kernel_sha256,
			 const char *kernel_release, unsigned *pass, unsigned *fail)
{
	struct history_stats s;
	const char *k = kernel_sha256 && *kernel_sha256 ? kernel_sha256 : kernel_release;
	bool flaky = false;

	*pass = *fail = 0;
	if (!k || history_stats_read(path, k, test, &s) < 0)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		*pass += s.v[i].pass;
		*fail += s.v[i].fail;
	}
	flaky = *pass && *fail;
	history_stats_release(&s);
	return flaky;
}
