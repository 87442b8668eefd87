// SPDX-License-Identifier: GPL-2.0-only
/* test_tap_parser_regress.c: inputs the fuzzer once crashed the parser with
 * (fuzz/regress/tap_parser/), replayed under ASan/UBSan with the harness's checks: the first
 * byte is the mode (chunk size, nonce, cut reason), chunked and whole feeding must agree, and
 * every writer must accept the result. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "report.h"
#include "strbuf.h"
#include "tap_parser.h"

#ifndef TAPBOOT_SRCDIR
#define TAPBOOT_SRCDIR "."
#endif

static void render(struct strbuf *sb, const struct tap_test *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(sb, "%u:%d:%s:%s:%g:%d:%zu{", t[i].num, (int)t[i].verdict, t[i].name,
			    t[i].reason ? t[i].reason : "", t[i].duration_s, t[i].exit_code,
			    t[i].log_len);
		render(sb, t[i].subtests, t[i].nsub);
		strbuf_addstr(sb, "}");
	}
}

static struct tap_parser *run(const char *nonce, const char *cut, const char *buf, size_t len,
			      size_t chunk, struct strbuf *out)
{
	struct tap_parser *p = tap_parser_new(nonce, NULL);
	const struct tap_test *t;
	size_t n;

	for (size_t off = 0; off < len; off += chunk)
		tap_parser_feed(p, buf + off, len - off < chunk ? len - off : chunk);
	tap_parser_finish(p, cut);
	t = tap_parser_tests(p, &n);
	render(out, t, n);
	strbuf_addf(out, "|%d", tap_parser_summary(p)->complete);
	return p;
}

static void replay(const char *path)
{
	size_t len, n;
	char *data = test_read_file(path, &len);
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct tap_parser *p, *q;
	const char *nonce, *cut;
	struct report_run r;
	FILE *null;

	if (!check(data != NULL) || !len) {
		free(data);
		return;
	}
	strbuf_init(&a);
	strbuf_init(&b);
	nonce = data[0] & 0x40 ? "c0ffee" : NULL;
	cut = data[0] & 0x80 ? "no console output for 60 s" : NULL;
	p = run(nonce, cut, data + 1, len - 1, (size_t)(data[0] & 0x3f) + 1, &a);
	q = run(nonce, cut, data + 1, len - 1, len, &b);
	check_str(a.buf, b.buf);
	memset(&r, 0, sizeof(r));
	r.tests = tap_parser_tests(p, &n);
	r.ntests = n;
	r.summary = tap_parser_summary(p);
	r.complete = r.summary->complete;
	r.wall_s = -1;
	null = fopen("/dev/null", "w");
	if (check(null != NULL)) {
		check_int(report_json_fprint(null, &r), ==, 0);
		check_int(report_tap_fprint(null, &r), ==, 0);
		check_int(report_junit_fprint(null, &r), ==, 0);
		check_int(report_kcidb_fprint(null, &r), ==, 0);
		fclose(null);
	}
	tap_parser_free(p);
	tap_parser_free(q);
	strbuf_release(&a);
	strbuf_release(&b);
	free(data);
}

static void t_regress(void)
{
	char dir[512];
	DIR *d;
	struct dirent *e;
	unsigned count = 0;

	snprintf(dir, sizeof(dir), "%s/fuzz/regress/tap_parser", TAPBOOT_SRCDIR);
	d = opendir(dir);
	if (!check(d != NULL))
		return;
	while ((e = readdir(d))) {
		char path[1024];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		replay(path);
		count++;
	}
	closedir(d);
	check(count > 0);
}

int main(void)
{
	TEST(t_regress, "fuzzer-found inputs replay cleanly");
	return test_done();
}
