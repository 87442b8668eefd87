/* SPDX-License-Identifier: GPL-2.0-only */
/* history.h: the results history, one SQLite file (Debian's libsqlite3) that every run, gate and
 * rerun writes: each test's verdict and duration with the kernel's and the test's identity, the
 * time and the run's directory. A module: sees lib/ only. Schema (version 1, in the table
 * schema_version):
 *   runs(id, time, label, dir, kernel, kernel_release, kernel_sha256, config_sha256, arch,
 *        complete, exit_status)
 *   results(run_id -> runs.id, test, test_sha256, verdict, duration_s)
 * Safe with several processes at once: WAL journal, a busy timeout (HISTORY_BUSY_MS), each run
 * one IMMEDIATE transaction. Every failure (a damaged, locked or newer file) is a warning and
 * -1: the caller has written its results directory before and goes on. */
#ifndef TAPBOOT_HISTORY_H
#define TAPBOOT_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#define HISTORY_SCHEMA_VERSION 1
/* How long a writer waits for another's transaction: a gate's run writes a few hundred rows
 * in milliseconds; 30 s covers a loaded 2-core machine with several gates at once. */
#define HISTORY_BUSY_MS 30000

/* One run as recorded; strings may be NULL (stored as NULL). */
struct history_run {
	double time;		    /* epoch seconds */
	const char *label;	    /* "run", "gate-base", "gate-kernel", "gate-rerun-base", ... */
	const char *dir;	    /* the results directory (absolute) */
	const char *kernel;	    /* as the user gave it (--kernel) */
	const char *kernel_release; /* uname -r the guest printed */
	const char *kernel_sha256, *config_sha256;
	const char *arch;
	bool complete;
	int exit_status;
};

struct history_result {
	const char *test;	 /* subtests as "parent :: sub" */
	const char *test_sha256; /* the test file's content, NULL when unknown */
	const char *verdict;	 /* verdict_name() */
	double duration_s;	 /* -1 unknown */
};

/* $TAPBOOT_HISTORY, else the cache directory's history.sqlite (cache.h); caller frees; NULL
 * after a warning when there is no cache directory. */
char *history_default_path(void);

/* Record one run and its results in path (NULL: the default) in one transaction. 0, or -1
 * after a warning naming the file (nothing of the run is half-written). */
int history_record(const char *path, const struct history_run *run,
		   const struct history_result *res, size_t n);

/* Pass rates per test and kernel (history_query.c). */
struct history_stat {
	char *test;
	char *kernel;		   /* the kernel as given, of the latest run */
	char *kernel_release;	   /* may be NULL */
	char *kernel_sha256;	   /* may be NULL */
	unsigned runs, pass, fail; /* pass: not a failure (pass, skip, xfail) */
	char *outcomes; /* one letter per run, oldest first: P pass, S skip or xfail, F failure */
	double first_fail_time; /* 0: never failed */
	char *first_fail_dir;	/* NULL: never failed */
	double last_time;
};
struct history_stats {
	struct history_stat *v;
	size_t n, alloc;
};
void history_stats_release(struct history_stats *s);
/* The rows of path (NULL: the default) whose kernel matches kernel (NULL: any; the kernel as
 * given, its release, or a prefix of its image's sha256) and whose test is test (NULL: any),
 * by test then kernel. 0 (s filled, maybe empty), or -1 after a message (a missing file is an
 * error here: nothing to read). */
int history_stats_read(const char *path, const char *kernel, const char *test,
		       struct history_stats *s);
/* Has this test both passed and failed on this kernel (sha256, or release when the sha is
 * NULL) in path's history? Never an error: false when unknown (warned). */
bool history_known_flaky(const char *path, const char *test, const char *kernel_sha256,
			 const char *kernel_release, unsigned *pass, unsigned *fail);

/* The history's page (history_html.c): per test and kernel the pass rate, each run as a
 * square and the pass rate over the runs as a line, inline SVG; written atomically. -1 after
 * a message. */
int history_html_write(const char *path, const char *history, const struct history_stats *s);

#endif
