// SPDX-License-Identifier: GPL-2.0-only
/* test_history.c: the results history (history/): what a run records and what the queries
 * count, two processes writing at once (every row lands), a damaged file and a newer schema
 * (a warning, -1, the file untouched), "known flaky", tapboot history's text, JSON and page. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands_gate.h"
#include "error.h"
#include "harness.h"
#include "history.h"

static int record(const char *db, const char *dir, const char *release, const char *const *tests,
		  const char *const *verdicts, size_t n)
{
	struct history_result res[16];

	for (size_t i = 0; i < n; i++)
		res[i] = (struct history_result){tests[i], NULL, verdicts[i], 0.5};
	return history_record(db,
			      &(struct history_run){.time = 1000.0 + (double)n,
						    .label = "run",
						    .dir = dir,
						    .kernel = "debian:x86_64",
						    .kernel_release = release,
						    .kernel_sha256 = "abcdef0123",
						    .arch = "x86_64",
						    .complete = true},
			      res, n);
}

static long long count_rows(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	long long n = -1;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return n;
}

static void test_record_and_stats(void)
{
	char *db = xasprintf("%s/h1.sqlite", test_tmpdir());
	const char *t[] = {"a", "b", "c <&>"};
	const char *v1[] = {"pass", "fail", "skip"}, *v2[] = {"pass", "pass", "timeout"};
	struct history_stats s;

	check_int(record(db, "/r/1", "6.1.0", t, v1, 3), ==, 0);
	check_int(record(db, "/r/2", "6.1.0", t, v2, 3), ==, 0);
	check_int(record(db, "/r/3", "6.12.0", t, v1, 2), ==, 0);
	check_int(count_rows(db, "SELECT count(*) FROM results"), ==, 8);
	check_int(count_rows(db, "SELECT max(version) FROM schema_version"), ==, 1);
	check_int(count_rows(db, "SELECT count(*) FROM schema_version"), ==, 1);
	check_int(history_stats_read(db, NULL, NULL, &s), ==, 0);
	/* by test, then kernel: a 6.1, a 6.12, b 6.1, b 6.12, "c <&>" 6.1 */
	check_int(s.n, ==, 5);
	if (s.n == 5) {
		check_str(s.v[0].test, "a");
		check_str(s.v[0].kernel_release, "6.1.0");
		check_int(s.v[0].runs, ==, 2);
		check_int(s.v[0].pass, ==, 2);
		check(!s.v[0].first_fail_dir);
		check_str(s.v[2].test, "b");
		check_int(s.v[2].fail, ==, 1);
		check_str(s.v[2].outcomes, "FP");
		check_str(s.v[2].first_fail_dir, "/r/1");
		check_str(s.v[4].test, "c <&>");
		check_str(s.v[4].outcomes, "SF"); /* skip is not a failure, timeout is */
	}
	history_stats_release(&s);
	/* --kernel by release, by sha256 prefix, and a test */
	check_int(history_stats_read(db, "6.12.0", NULL, &s), ==, 0);
	check_int(s.n, ==, 2);
	history_stats_release(&s);
	check_int(history_stats_read(db, "abcdef", "b", &s), ==, 0);
	check_int(s.n, ==, 2);
	history_stats_release(&s);
	check_int(history_stats_read(db, "nosuch", NULL, &s), ==, 0);
	check_int(s.n, ==, 0);
	history_stats_release(&s);
	free(db);
}

static void test_known_flaky(void)
{
	char *db = xasprintf("%s/h2.sqlite", test_tmpdir());
	const char *t[] = {"coin", "steady"};
	const char *v1[] = {"pass", "fail"}, *v2[] = {"fail", "fail"};
	unsigned p, f;

	record(db, "/r/1", "6.1.0", t, v1, 2);
	record(db, "/r/2", "6.1.0", t, v2, 2);
	check(history_known_flaky(db, "coin", NULL, "6.1.0", &p, &f));
	check_int(p, ==, 1);
	check_int(f, ==, 1);
	check(!history_known_flaky(db, "steady", NULL, "6.1.0", &p, &f));
	check_int(f, ==, 2);
	check(!history_known_flaky(db, "coin", NULL, "6.12.0", &p, &f));
	free(db);
}

/* Two processes, each recording 40 runs of 16 tests as fast as it can, at once. */
static void test_concurrent_writers(void)
{
	char *db = xasprintf("%s/h3.sqlite", test_tmpdir());
	const char *t[16], *v[16];
	pid_t pid[2];
	char names[16][16];

	for (unsigned i = 0; i < 16; i++) {
		snprintf(names[i], sizeof(names[i]), "t%u", i);
		t[i] = names[i];
		v[i] = i % 3 ? "pass" : "fail";
	}
	for (int k = 0; k < 2; k++) {
		pid[k] = fork();
		if (pid[k] == 0) {
			int bad = 0;

			for (int r = 0; r < 40; r++)
				bad += record(db, k ? "/w/1" : "/w/0", "6.1.0", t, v, 16) < 0;
			_exit(bad ? 1 : 0);
		}
	}
	for (int k = 0; k < 2; k++) {
		int st = -1;

		check(pid[k] > 0 && waitpid(pid[k], &st, 0) == pid[k]);
		check(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	check_int(count_rows(db, "SELECT count(*) FROM runs"), ==, 80);
	check_int(count_rows(db, "SELECT count(*) FROM results"), ==, 80 * 16);
	check_int(count_rows(db, "SELECT count(*) FROM runs WHERE dir = '/w/1'"), ==, 40);
	check_int(count_rows(db, "SELECT count(*) FROM schema_version"), ==, 1);
	free(db);
}

struct rec_arg {
	const char *db;
};

static int record_one(void *arg)
{
	const struct rec_arg *a = arg;
	const char *t[] = {"a"}, *v[] = {"pass"};

	return record(a->db, "/r/x", "6.1.0", t, v, 1);
}

static void test_damaged(void)
{
	static const char junk[] = "this is not an SQLite database, but a results.json someone "
				   "renamed................................................\n";
	char *big = xcalloc(8192, 1), *err, *after;
	const char *db;
	struct rec_arg a;
	size_t len;
	int ret;

	for (size_t i = 0; i < 8192; i++)
		big[i] = junk[i % (sizeof(junk) - 1)];
	db = test_write_file("damaged.sqlite", big, 8192, 0);
	a.db = db;
	err = test_capture_stderr(record_one, &a, &ret);
	check_int(ret, ==, -1);
	check(strstr(err, "warning") && strstr(err, db));
	check(strstr(err, "not a database") != NULL);
	after = test_read_file(db, &len);
	check_int(len, ==, 8192);
	check(after && !memcmp(after, big, 8192));
	free(after);
	free(err);
	free(big);
}

static void test_newer_schema(void)
{
	char *db = xasprintf("%s/h4.sqlite", test_tmpdir());
	struct rec_arg a = {db};
	sqlite3 *h;
	char *err;
	int ret;

	check_int(sqlite3_open(db, &h), ==, SQLITE_OK);
	check_int(sqlite3_exec(h,
			       "CREATE TABLE schema_version(version INTEGER NOT NULL);"
			       "INSERT INTO schema_version VALUES (2)",
			       NULL, NULL, NULL),
		  ==, SQLITE_OK);
	sqlite3_close(h);
	err = test_capture_stderr(record_one, &a, &ret);
	check_int(ret, ==, -1);
	check(strstr(err, "schema version 2") != NULL);
	/* rolled back: not even the tables this version would have made */
	check_int(count_rows(db, "SELECT count(*) FROM sqlite_master WHERE name = 'runs'"), ==, 0);
	check_int(count_rows(db, "SELECT max(version) FROM schema_version"), ==, 2);
	free(err);
	free(db);
}

static int run_cmd(const char *const *args, char **out)
{
	char opath[512];
	pid_t pid;
	int st, argc = 0;

	while (args[argc])
		argc++;
	snprintf(opath, sizeof(opath), "%s/stdout", test_tmpdir());
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen(opath, "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(99);
		st = cmd_history(argc, (char **)args);
		fflush(stdout);
		_exit(st);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	*out = test_read_file(opath, NULL);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void test_command(void)
{
	char *db = xasprintf("%s/h5.sqlite", test_tmpdir());
	char *html = xasprintf("%s/h5.html", test_tmpdir());
	char *missing = xasprintf("%s/none.sqlite", test_tmpdir());
	const char *t[] = {"a", "x<y"}, *v1[] = {"pass", "fail"}, *v2[] = {"fail", "fail"};
	char *out = NULL, *page;

	record(db, "/r/1", "6.1.0", t, v1, 2);
	record(db, "/r/2", "6.1.0", t, v2, 2);
	check_int(run_cmd((const char *[]){"history", "--history", db, "--json", NULL}, &out), ==,
		  0);
	check(strstr(out, "\"test\": \"a\"") && strstr(out, "\"runs\": 2, \"pass\": 1, "
							    "\"fail\": 1, \"flaky\": true"));
	check(strstr(out, "\"test\": \"x<y\"") &&
	      strstr(out, "\"runs\": 2, \"pass\": 0, \"fail\": 2, \"flaky\": false"));
	free(out);
	check_int(run_cmd((const char *[]){"history", "--history", db, "a", NULL}, &out), ==, 0);
	check(strstr(out, "1 tests and kernels, 1 flaky") != NULL);
	free(out);
	check_int(run_cmd((const char *[]){"history", "--history", db, "--html", html, NULL}, &out),
		  ==, 0);
	free(out);
	page = test_read_file(html, NULL);
	check(page && strstr(page, "x&lt;y") && !strstr(page, "x<y") && strstr(page, "<svg"));
	check(page && !strstr(page, "<script"));
	free(page);
	check_int(run_cmd((const char *[]){"history", "--history", missing, NULL}, &out), ==, 2);
	free(out);
	check(access(missing, F_OK) != 0); /* reading never creates one */
	free(missing);
	free(html);
	free(db);
}

int main(void)
{
	TEST(test_record_and_stats, "a run's rows; pass rates, outcomes, first failure, filters");
	TEST(test_known_flaky, "known flaky: both passed and failed on that kernel");
	TEST(test_concurrent_writers, "two processes writing at once: every row lands");
	TEST(test_damaged, "a damaged file: a warning naming it, -1, the file untouched");
	TEST(test_newer_schema, "a newer schema version: a warning, nothing written");
	TEST(test_command, "tapboot history: --json counts, TEST, --html escaped, missing file");
	return test_done();
}
