// SPDX-License-Identifier: GPL-2.0-only
/* report_kcidb.c: kcidb.json, KernelCI's KCIDB I/O schema v5.3 (kernelci/kcidb-io): one checkout,
 * one build and the tests of one run, every id unique to the run.
 *
 * Ids are ORIGIN:RUN[:...] where RUN is the run's nonce (or a LAVA job's): KCIDB merges objects
 * that share an id property by property, so two runs of one kernel must never share one.
 * tapboot does not build the kernel, so the checkout and build describe the kernel it booted;
 * they exist so that the tests appear in KCIDB's reports (a test whose build is absent is
 * stored but never shown).
 *
 * Status mapping: pass and xfail PASS; fail and xpass FAIL; skip SKIP; missing MISS (the test
 * never ran because the run stopped); timeout ERROR (the test did not complete); crash FAIL: a
 * kernel crash while a test runs is a fault of the tested code, the kernel, not of the test. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "crash_sig.h"
#include "error.h"
#include "report.h"
#include "report_util.h"
#include "strbuf.h"

#ifndef TAPBOOT_VERSION
#define TAPBOOT_VERSION "0.0.0"
#endif

/* KCIDB's log_excerpt limit (schema v5.3: maxLength 16384) */
#define KCIDB_EXCERPT_MAX 16384

bool report_kcidb_origin_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* One path component in the schema's charset ([a-zA-Z0-9_-]+) after a '.' when sb is not
 * empty: anything else becomes '_', runs of '_' collapse, none at the ends. Nothing is added
 * when nothing is left; returns whether something was. */
static bool path_component(struct strbuf *sb, const char *s, size_t n)
{
	size_t start = sb->len;

	if (sb->len)
		strbuf_addch(sb, '.');
	for (size_t i = 0, comp = sb->len; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(isalnum(c) || c == '-'))
			c = '_';
		if (c == '_' && (sb->len == comp || sb->buf[sb->len - 1] == '_'))
			continue;
		strbuf_addch(sb, (char)c);
	}
	while (sb->len > start && (sb->buf[sb->len - 1] == '_' || sb->buf[sb->len - 1] == '.'))
		sb->buf[--sb->len] = '\0';
	return sb->len > start;
}

/* parent + "." + name's components: a top-level name splits at ':' and '/' (kselftest's
 * "collection:test" and "selftests: proc: fd"), a subtest's name is one component. A name
 * with nothing of the charset left is "unnamed". */
static void path_build(struct strbuf *sb, const char *parent, const char *name, bool split)
{
	bool any = false;

	strbuf_addstr(sb, parent);
	if (!strncmp(name, "selftests: ", 11))
		name += 11;
	for (const char *s = name;;) {
		size_t n = split ? strcspn(s, ":/") : strlen(s);

		any |= path_component(sb, s, n);
		if (!s[n])
			break;
		s += n + 1;
	}
	if (!any)
		path_component(sb, "unnamed", 7);
}

static const char *kcidb_status(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
	case VERDICT_XFAIL: /* an expected failure is the expected outcome */
		return "PASS";
	case VERDICT_FAIL:
	case VERDICT_XPASS:
	case VERDICT_CRASH: /* the kernel failed, see the file comment */
		return "FAIL";
	case VERDICT_SKIP:
		return "SKIP";
	case VERDICT_MISSING:
		return "MISS";
	case VERDICT_INTERRUPTED:
		/* "did not run or complete ... the status of both the test and the tested code is
		 * unknown": SKIP, the lowest priority, so that a Ctrl-C never rates a build as
		 * ERROR (the test's own failure) or FAIL */
		return "SKIP";
	default: /* timeout: the test did not complete */
		return "ERROR";
	}
}

/* A JSON string without NUL characters (KCIDB forbids them in every string). */
static void put_str_nonul(FILE *fp, const char *s, size_t n)
{
	char *c = xmalloc(n + 1);
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i])
			c[k++] = s[i];
	json_put_strn(fp, c, k);
	free(c);
}

/* The last KCIDB_EXCERPT_MAX bytes of s (a crash's end is what says most), starting on a
 * UTF-8 sequence boundary. Bytes bound characters, so the schema's limit holds. */
static void put_excerpt(FILE *fp, const char *s, size_t n)
{
	if (n > KCIDB_EXCERPT_MAX) {
		s += n - KCIDB_EXCERPT_MAX;
		n = KCIDB_EXCERPT_MAX;
		while (n && ((unsigned char)*s & 0xC0) == 0x80) {
			s++;
			n--;
		}
	}
	put_str_nonul(fp, s, n);
}

static void put_time(FILE *fp, double t)
{
	time_t sec = (time_t)t;
	struct tm tm;
	char buf[40];
	int ms = (int)((t - (double)sec) * 1000);

	if (ms < 0 || ms > 999)
		ms = 0;
	gmtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(fp, "\"%s.%03dZ\"", buf, ms);
}

/* , "key": "value" when value is not NULL: KCIDB allows no null property. */
static void put_kv(FILE *fp, const char *key, const char *value)
{
	if (!value)
		return;
	fprintf(fp, ", \"%s\": ", key);
	put_str_nonul(fp, value, strlen(value));
}

struct kcidb_ctx {
	FILE *fp;
	const struct report_run *r;
	const char *origin, *run_id, *build_id;
	char *env; /* the environment object, same for every test */
	unsigned seq;
	bool first;
	const struct tap_test *crash_test; /* gets the crash's title and excerpt */
};

/* The test the crash cut short; a crash before any test ran: the first test it kept from
 * running. NULL without a crash. */
static const struct tap_test *find_crash_test(const struct report_run *r)
{
	if (!r->crash && !(r->summary && r->summary->crashed))
		return NULL;
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].verdict == VERDICT_CRASH)
			return &r->tests[i];
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].verdict == VERDICT_MISSING)
			return &r->tests[i];
	return NULL;
}

static void put_crash(struct kcidb_ctx *k, const struct tap_test *t)
{
	const struct crash_sig *c = k->r->crash;
	const char *title =
		c && c->title ? c->title : (k->r->summary ? k->r->summary->crash_line : NULL);

	if (title) {
		char *one = report_one_line(title);

		fputs(", \"comment\": ", k->fp);
		put_str_nonul(k->fp, one, strlen(one));
		free(one);
	}
	if (c && c->excerpt) {
		fputs(", \"log_excerpt\": ", k->fp);
		put_excerpt(k->fp, c->excerpt, strlen(c->excerpt));
	} else if (t->log && t->log_len) {
		fputs(", \"log_excerpt\": ", k->fp);
		put_excerpt(k->fp, t->log, t->log_len);
	}
}

static void kcidb_tests(struct kcidb_ctx *k, const struct tap_test *t, size_t n, const char *parent,
			bool top)
{
	const struct report_run *r = k->r;

	for (size_t i = 0; i < n; i++) {
		struct strbuf path = STRBUF_INIT;
		bool crash = top && &t[i] == k->crash_test;
		char *id;

		strbuf_init(&path);
		path_build(&path, parent, t[i].name ? t[i].name : "", top);
		fputs(k->first ? "\n" : ",\n", k->fp);
		k->first = false;
		id = xasprintf("%s:%s:%u:%s", k->origin, k->run_id, ++k->seq, path.buf);
		fputs("    {\"id\": ", k->fp);
		json_put_str(k->fp, id);
		free(id);
		fputs(", \"build_id\": ", k->fp);
		json_put_str(k->fp, k->build_id);
		fputs(", \"origin\": ", k->fp);
		json_put_str(k->fp, k->origin);
		fputs(", \"path\": ", k->fp);
		json_put_str(k->fp, path.buf);
		fprintf(k->fp, ", \"status\": \"%s\"", kcidb_status(t[i].verdict));
		if (t[i].duration_s >= 0) {
			fputs(", \"duration\": ", k->fp);
			json_put_secs(k->fp, t[i].duration_s);
		}
		if (r->start_time > 0) {
			fputs(", \"start_time\": ", k->fp);
			put_time(k->fp, r->start_time);
		}
		if (r->log_url) {
			fputs(", \"log_url\": ", k->fp);
			json_put_str(k->fp, r->log_url);
		}
		fprintf(k->fp, ", \"environment\": %s", k->env);
		if (crash)
			put_crash(k, &t[i]);
		fputs(", \"misc\": {\"verdict\": ", k->fp);
		json_put_str(k->fp, verdict_name(t[i].verdict));
		fputs(", \"name\": ", k->fp);
		put_str_nonul(k->fp, t[i].name ? t[i].name : "", t[i].name ? strlen(t[i].name) : 0);
		if (t[i].reason) {
			fputs(", \"reason\": ", k->fp);
			put_str_nonul(k->fp, t[i].reason, strlen(t[i].reason));
		}
		if (t[i].exit_code >= 0)
			fprintf(k->fp, ", \"exit_code\": %d", t[i].exit_code);
		put_kv(k->fp, "nonce", r->nonce);
		put_kv(k->fp, "reproduce", r->reproduce);
		if (crash && r->crash && r->crash->nids) {
			fputs(", \"crash_ids\": [", k->fp);
			for (size_t j = 0; j < r->crash->nids; j++) {
				fputs(j ? ", " : "", k->fp);
				json_put_str(k->fp, r->crash->ids[j]);
			}
			fputc(']', k->fp);
		}
		fputs("}}", k->fp);
		kcidb_tests(k, t[i].subtests, t[i].nsub, path.buf, false);
		strbuf_release(&path);
	}
}

/* {"comment": "QEMU x86_64 -M pc, tcg", "misc": {...}}: the schema allows only comment,
 * compatible and misc in a test's environment. */
static char *environment(const struct report_run *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct strbuf c = STRBUF_INIT;
	char *comment;

	strbuf_addstr(&c, "QEMU");
	if (r->arch)
		strbuf_addf(&c, " %s", r->arch);
	if (r->machine)
		strbuf_addf(&c, " -M %s", r->machine);
	if (r->accel)
		strbuf_addf(&c, ", %s", r->accel);
	comment = strbuf_detach(&c);

	if (!fp)
		die_errno(EXIT_VM, "cannot open a memory stream");
	fputs("{\"comment\": ", fp);
	json_put_str(fp, comment);
	fputs(", \"misc\": {\"platform\": \"qemu\"", fp);
	put_kv(fp, "arch", r->arch);
	put_kv(fp, "machine", r->machine);
	put_kv(fp, "accel", r->accel);
	fputs("}}", fp);
	fclose(fp);
	free(comment);
	return buf;
}

/* Architecture for build.architecture (^[a-z0-9_]*$). */
static char *arch_name(const char *arch)
{
	char *a = xstrdup(arch ? arch : "");

	for (char *p = a; *p; p++)
		*p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
	return a;
}

int report_kcidb_fprint(FILE *fp, const struct report_run *r)
{
	const char *release = r->kernel_release;
	const char *origin = r->kcidb_origin ? r->kcidb_origin : "tapboot";
	struct strbuf root = STRBUF_INIT;
	struct kcidb_ctx k = {fp, r, origin, NULL, NULL, NULL, 0, true, find_crash_test(r)};
	char rnd[33], *checkout_id, *build_id, *arch;

	if (!release && r->summary)
		release = r->summary->kernel;
	if (!r->run_id) {
		/* tapboot parse of a foreign log: no nonce, still one id per run */
		unsigned char b[16];

		if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
			return error_errno("cannot read random bytes for a KCIDB run id");
		for (size_t i = 0; i < sizeof(b); i++)
			snprintf(rnd + 2 * i, 3, "%02x", b[i]);
		k.run_id = rnd;
	} else {
		k.run_id = r->run_id;
	}
	checkout_id = xasprintf("%s:%s:checkout", origin, k.run_id);
	build_id = xasprintf("%s:%s:build", origin, k.run_id);
	k.build_id = build_id;
	k.env = environment(r);
	arch = arch_name(r->arch);
	strbuf_init(&root);
	if (!path_component(&root, r->suite ? r->suite : "", strlen(r->suite ? r->suite : "")))
		path_component(&root, "tapboot", 7);

	fputs("{\"version\": {\"major\": 5, \"minor\": 3},\n \"checkouts\": [\n    {\"id\": ", fp);
	json_put_str(fp, checkout_id);
	fputs(", \"origin\": ", fp);
	json_put_str(fp, origin);
	if (r->start_time > 0) {
		fputs(", \"start_time\": ", fp);
		put_time(fp, r->start_time);
	}
	fputs(", \"comment\": ", fp);
	{
		char *c = xasprintf("kernel %s booted by tapboot (its source is not known here)",
				    release ? release : "of unknown release");

		json_put_str(fp, c);
		free(c);
	}
	fputs(", \"misc\": {\"booted_by\": \"tapboot\"", fp);
	put_kv(fp, "kernel_release", release);
	fputs("}}\n ],\n \"builds\": [\n    {\"id\": ", fp);
	json_put_str(fp, build_id);
	fputs(", \"origin\": ", fp);
	json_put_str(fp, origin);
	fputs(", \"checkout_id\": ", fp);
	json_put_str(fp, checkout_id);
	if (*arch) {
		fputs(", \"architecture\": ", fp);
		json_put_str(fp, arch);
	}
	/* the image exists and booted far enough to be tested */
	fputs(", \"status\": \"PASS\"", fp);
	if (r->start_time > 0) {
		fputs(", \"start_time\": ", fp);
		put_time(fp, r->start_time);
	}
	fputs(", \"misc\": {\"tapboot_version\": \"" TAPBOOT_VERSION "\"", fp);
	put_kv(fp, "kernel", r->kernel);
	put_kv(fp, "kernel_release", release);
	fputs(", \"complete\": ", fp);
	fputs(r->complete ? "true" : "false", fp);
	put_kv(fp, "error", r->error);
	fputs("}}\n ],\n \"tests\": [", fp);
	kcidb_tests(&k, r->tests, r->ntests, root.buf, true);
	fputs(k.first ? "]}\n" : "\n ]}\n", fp);
	strbuf_release(&root);
	free(k.env);
	free(arch);
	free(checkout_id);
	free(build_id);
	return ferror(fp) ? -1 : 0;
}

int report_kcidb_write(const char *path, const struct report_run *r)
{
	return report_write_atomic(path, report_kcidb_fprint, r);
}
