/* SPDX-License-Identifier: GPL-2.0-only */
/* tap_parser.h: streaming TAP 13 / TAP 14 / KTAP parser for dirty serial consoles.
 *
 * Feed it bytes as they arrive (any chunking); it splits lines (CRLF, NUL, non-UTF-8 tolerated,
 * very long lines truncated for parsing but never lost for logs), strips kernel log prefixes
 * ("[    1.234567] " with or without a printk caller id) per line, recognises kernel lines
 * interleaved between and inside test lines, and builds a tree of results. It also knows the
 * tapboot markers (lib/protocol.h) and the kernel's crash reports (panic, Oops, BUG, soft lockup,
 * RCU stall, "No working init found", ...). Memory: bounded by nesting depth plus one small record
 * per result (and a capped log per top-level test), not by the size of the log. */
#ifndef TAPBOOT_TAP_PARSER_H
#define TAPBOOT_TAP_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "verdict.h"

/* A test's log kept in memory for reports (junit system-out) is capped; full logs are written
 * through on_line by the caller. */
#define TAP_LOG_CAP (64 * 1024)

struct tap_test {
	char *name; /* owned; "" when the line had no description */
	unsigned num; /* the number on its line (0 when absent or synthesised) */
	enum verdict verdict;
	char *reason; /* owned, may be NULL: directive text, timeout, signal, crash line */
	double duration_s; /* from the YAML block's duration_s, -1 when unknown */
	int exit_code; /* from YAML "exit", -1 when unknown */
	char *log; /* owned, may be NULL: the test's diagnostics/output, at most TAP_LOG_CAP */
	size_t log_len;
	bool log_truncated;
	struct tap_test *subtests; /* owned array, nsub elements */
	size_t nsub, sub_alloc;
};

/* What happened to the stream as a whole. */
struct tap_summary {
	unsigned count[VERDICT_COUNT]; /* top-level tests by verdict */
	unsigned total;
	bool saw_version;
	bool saw_begin; /* tapboot begin marker */
	bool complete; /* tapboot end marker with the expected nonce, or (no nonce expected) a
			* plan whose every test was seen */
	/* (no nonce given but a begin marker seen: its nonce is the one expected; no nonce and no
	 * markers: also no crash report seen.) */
	bool bailed_out;
	char *bail_reason; /* owned, may be NULL */
	bool crashed; /* a kernel crash report was seen */
	char *crash_line; /* owned, may be NULL: the first line of the first crash report */
	char *kernel; /* owned, may be NULL: kernel= from the begin marker */
	int planned; /* top-level plan, -1 when none seen */
};

struct tap_parser_events {
	void *ctx;
	/* # tapboot: begin nonce=... tests=N */
	void (*on_begin)(void *ctx, const char *nonce, unsigned ntests);
	/* # tapboot: run N NAME: test N is running now */
	void (*on_run)(void *ctx, unsigned num, const char *name);
	/* A top-level result is complete (its YAML block, if any, read). */
	void (*on_result)(void *ctx, const struct tap_test *t);
	/* Every console line after prefix stripping, with the number of the top-level test it
	 * belongs to (0 outside any test) and whether it is a kernel line. For per-test logs. */
	void (*on_line)(void *ctx, unsigned test_num, bool kernel_line, const char *line,
			size_t len);
	/* The first line of a kernel crash report. */
	void (*on_crash)(void *ctx, const char *line);
	/* # tapboot: end nonce=... (called only when the nonce matches, see tap_parser_new) */
	void (*on_end)(void *ctx);
};

struct tap_parser;

/* Which lines may make results.
 *   FOREIGN  any TAP/KTAP line at the top level, kernel lines included (a KUnit console, a
 *            robot's dmesg): the behaviour before sequencing, for logs that are not tapboot's.
 *   TAPBOOT  a tapboot run's console: only the init's own lines (with a key: the ones whose
 *            tag is right, line_tag.h) are protocol, and a result for test N counts only after
 *            `# tapboot: run N`, once, in plan order; the end line only after the last planned
 *            result. Every other line, whatever it looks like, is output of the running test
 *            (kernel lines too: TAP through printk or /dev/kmsg), kept in its log.
 *   AUTO     FOREIGN until a tapboot begin line, TAPBOOT (without a key) from there on; then a
 *            tagged begin line means untagged lines are not the init's. The default. */
enum tap_parser_mode { TAP_PARSE_AUTO, TAP_PARSE_FOREIGN, TAP_PARSE_TAPBOOT };

/* nonce: the value the host put on the command line, or NULL to parse a foreign log (then the
 * end marker is not required for completeness). events may be NULL. */
struct tap_parser *tap_parser_new(const char *nonce, const struct tap_parser_events *events);
void tap_parser_free(struct tap_parser *p);
/* The names of the planned tests, in plan order, so that tests never reached are reported as
 * missing by name (the parser copies them). Optional. */
void tap_parser_expect(struct tap_parser *p, const char *const *names, size_t n);
/* Keep at most cap bytes of log per top-level test in memory (default and maximum
 * TAP_LOG_CAP; 0: keep none, log_truncated then says whether there was any). A runner that
 * writes logs through on_line and needs no junit system-out saves memory with 0: with the
 * default, the logs held are about as large as the console itself. */
void tap_parser_set_log_cap(struct tap_parser *p, size_t cap);
/* Set before the first tap_parser_feed. key: LINE_TAG_KEY_LEN bytes, the run's secret, or NULL. */
void tap_parser_set_mode(struct tap_parser *p, enum tap_parser_mode mode,
			 const unsigned char *key);
/* Protocol-shaped lines that were taken as output (forged, out of sequence, bad tag). */
unsigned long tap_parser_rejected(const struct tap_parser *p);
void tap_parser_feed(struct tap_parser *p, const char *buf, size_t len);
/* End of stream. When the stream did not complete, the test that was running gets `crash` with
 * the crash line (or cut_reason, e.g. "no console output for 60 s") as reason, and every planned
 * test not seen gets `missing`. cut_reason may be NULL. */
void tap_parser_finish(struct tap_parser *p, const char *cut_reason);
/* Before tap_parser_finish: the stream was cut because tapboot was interrupted; the test
 * running then is `interrupted` (not `crash`, unless a kernel crash report came). */
void tap_parser_interrupted(struct tap_parser *p);
/* The top-level results in plan order (valid until tap_parser_free). */
const struct tap_test *tap_parser_tests(const struct tap_parser *p, size_t *n);
const struct tap_summary *tap_parser_summary(const struct tap_parser *p);

#endif
