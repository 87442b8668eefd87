// SPDX-License-Identifier: GPL-2.0-only
/* history.c: opening the results history (WAL, busy timeout, the schema and its version) and
 * recording a run in it (history.h). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "error.h"
#include "history.h"
#include "history_db.h"

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS runs("
	" id INTEGER PRIMARY KEY, time REAL NOT NULL, label TEXT NOT NULL, dir TEXT,"
	" kernel TEXT, kernel_release TEXT, kernel_sha256 TEXT, config_sha256 TEXT, arch TEXT,"
	" complete INTEGER NOT NULL, exit_status INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS results("
	" run_id INTEGER NOT NULL REFERENCES runs(id), test TEXT NOT NULL, test_sha256 TEXT,"
	" verdict TEXT NOT NULL, duration_s REAL);"
	"CREATE INDEX IF NOT EXISTS results_test ON results(test);"
	"CREATE INDEX IF NOT EXISTS results_run ON results(run_id);";

char *history_default_path(void)
{
	const char *env = getenv("TAPBOOT_HISTORY");
	char *dir, *p;

	if (env && *env)
		return xstrdup(env);
	if (!(dir = cache_dir())) {
		warning("no cache directory: the results history is not used");
		return NULL;
	}
	p = xasprintf("%s/history.sqlite", dir);
	free(dir);
	return p;
}

int history_db_fail(struct history_db *h, const char *what)
{
	warning("results history '%s': cannot %s: %s", h->path, what,
		h->db ? sqlite3_errmsg(h->db) : "out of memory");
	return -1;
}

int history_db_exec(struct history_db *h, const char *sql, const char *what)
{
	if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return history_db_fail(h, what);
	return 0;
}

int history_db_open(struct history_db *h, const char *path, bool create)
{
	int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE;

	memset(h, 0, sizeof(*h));
	h->path = path ? xstrdup(path) : history_default_path();
	if (!h->path)
		return -1;
	if (sqlite3_open_v2(h->path, &h->db, flags, NULL) != SQLITE_OK) {
		history_db_fail(h, "open it");
		history_db_close(h);
		return -1;
	}
	sqlite3_busy_timeout(h->db, HISTORY_BUSY_MS);
	/* WAL: readers never block the writer, and a writer waits (busy timeout) for another;
	 * setting it on a file already in WAL changes nothing */
	if (create && history_db_exec(h, "PRAGMA journal_mode=WAL", "use a WAL journal") < 0) {
		history_db_close(h);
		return -1;
	}
	return 0;
}

void history_db_close(struct history_db *h)
{
	if (h->db)
		sqlite3_close(h->db);
	h->db = NULL;
	free(h->path);
	h->path = NULL;
}

/* Inside the write transaction: the tables, and a version this code writes. */
static int check_schema(struct history_db *h)
{
	sqlite3_stmt *st = NULL;
	int version = -1, rc;

	if (history_db_exec(h, schema_sql, "create its tables") < 0)
		return -1;
	if (sqlite3_prepare_v2(h->db, "SELECT max(version) FROM schema_version", -1, &st, NULL))
		return history_db_fail(h, "read its schema version");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return history_db_fail(h, "read its schema version");
	if (version < 0)
		return history_db_exec(h, "INSERT INTO schema_version VALUES (1)",
				       "write its schema version");
	if (version != HISTORY_SCHEMA_VERSION) {
		warning("results history '%s' has schema version %d, this tapboot writes %d: not "
			"recorded",
			h->path, version, HISTORY_SCHEMA_VERSION);
		return -1;
	}
	return 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int insert_run(struct history_db *h, const struct history_run *run, sqlite3_int64 *id)
{
	static const char sql[] =
		"INSERT INTO runs(time, label, dir, kernel, kernel_release, kernel_sha256,"
		" config_sha256, arch, complete, exit_status) VALUES (?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return history_db_fail(h, "record the run");
	sqlite3_bind_double(st, 1, run->time);
	sqlite3_bind_text(st, 2, run->label ? run->label : "run", -1, SQLITE_TRANSIENT);
	bind_text(st, 3, run->dir);
	bind_text(st, 4, run->kernel);
	bind_text(st, 5, run->kernel_release);
	bind_text(st, 6, run->kernel_sha256);
	bind_text(st, 7, run->config_sha256);
	bind_text(st, 8, run->arch);
	sqlite3_bind_int(st, 9, run->complete);
	sqlite3_bind_int(st, 10, run->exit_status);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return history_db_fail(h, "record the run");
	*id = sqlite3_last_insert_rowid(h->db);
	return 0;
}

static int insert_results(struct history_db *h, sqlite3_int64 id, const struct history_result *res,
			  size_t n)
{
	static const char sql[] = "INSERT INTO results(run_id, test, test_sha256, verdict,"
				  " duration_s) VALUES (?,?,?,?,?)";
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return history_db_fail(h, "record the results");
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, res[i].test, -1, SQLITE_TRANSIENT);
		bind_text(st, 3, res[i].test_sha256);
		sqlite3_bind_text(st, 4, res[i].verdict, -1, SQLITE_TRANSIENT);
		if (res[i].duration_s < 0)
			sqlite3_bind_null(st, 5);
		else
			sqlite3_bind_double(st, 5, res[i].duration_s);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return history_db_fail(h, "record the results");
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int history_record(const char *path, const struct history_run *run,
		   const struct history_result *res, size_t n)
{
	struct history_db h;
	sqlite3_int64 id;
	int ret = -1;

	if (history_db_open(&h, path, true) < 0)
		return -1;
	/* IMMEDIATE: the write lock is taken (or waited for) here, not at the first insert,
	 * where a reader's upgrade would fail with SQLITE_BUSY without waiting */
	if (history_db_exec(&h, "BEGIN IMMEDIATE", "start a transaction") < 0)
		goto out;
	if (check_schema(&h) < 0 || insert_run(&h, run, &id) < 0 ||
	    insert_results(&h, id, res, n) < 0) {
		sqlite3_exec(h.db, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	if (history_db_exec(&h, "COMMIT", "commit the run") == 0)
		ret = 0;
out:
	history_db_close(&h);
	return ret;
}
