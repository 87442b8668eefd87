/* SPDX-License-Identifier: GPL-2.0-only */
/* harness.h: TAP-printing checks for the unit tests (after git's t/unit-tests/test-lib.h).
 * Every check records file and line; test_done() prints the plan and returns the exit status. */
#ifndef TAPBOOT_HARNESS_H
#define TAPBOOT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#define check(cond) check_impl(__FILE__, __LINE__, (cond), #cond)
/* Each operand is evaluated once (a GNU statement expression), so a call is never repeated. */
#define check_int(a, op, b) \
	({ \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
		check_int_impl(__FILE__, __LINE__, check_a_ op check_b_, #a " " #op " " #b, \
			       check_a_, check_b_); \
	})
#define check_str(a, b) check_str_impl(__FILE__, __LINE__, (a), (b), #a, #b)
#define check_mem(a, b, n) check_mem_impl(__FILE__, __LINE__, (a), (b), (n), #a, #b)

/* Start a named group of checks: one TAP line "ok N - name" per test_begin/test_end pair. */
void test_begin(const char *name);
void test_end(void);
/* Run fn as one TAP test point. */
#define TEST(fn, desc) \
	do { \
		test_begin(desc); \
		fn(); \
		test_end(); \
	} while (0)

bool check_impl(const char *file, int line, bool ok, const char *expr);
bool check_int_impl(const char *file, int line, bool ok, const char *expr, long long a,
		    long long b);
bool check_str_impl(const char *file, int line, const char *a, const char *b, const char *ea,
		    const char *eb);
bool check_mem_impl(const char *file, int line, const void *a, const void *b, size_t n,
		    const char *ea, const char *eb);
/* Mark the current test (between test_begin and test_end) skipped: test_end prints
 * "ok N - name # SKIP reason" (a printf format); the test then returns without checking. */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where other projects' data lives (KCIDB's schema, lkp's dmesg pairs): $TAPBOOT_SHARED, else
 * TAPBOOT_SRCDIR/../shared. A test needing it skips, naming the path and TAPBOOT_SHARED, when it
 * is absent (.ci/run fails on such a skip); caller frees. */
char *test_shared_dir(void);

/* Print the plan; return 0 when everything passed, 1 otherwise. */
int test_done(void);

/* Helpers for tests that need files: a fresh mkdtemp directory, removed by test_done(). */
const char *test_tmpdir(void);
/* Write len bytes to a file under the temp dir (mode 0644 unless mode given); returns its path
 * (owned by the harness until test_done). */
const char *test_write_file(const char *rel, const void *data, size_t len, unsigned mode);
/* Read a whole file; *len gets its size; caller frees. NULL when it cannot be read. */
char *test_read_file(const char *path, size_t *len);
/* Capture stderr while running fn(arg); returns the captured text (caller frees). */
char *test_capture_stderr(int (*fn)(void *), void *arg, int *ret);

#endif
