// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_tap_parser.c: libFuzzer harness for results/tap_parser.c and the report writers.
 * The first byte picks a chunk size (low 6 bits), whether a nonce is expected (0x40) and a cut
 * reason (0x80); the rest is the console.
 * Checks beyond "no crash": feeding in chunks gives the same tree as feeding at once, and
 * every writer accepts the result. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "strbuf.h"
#include "tap_parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	const struct tap_summary *s;
	const struct tap_test *t;
	size_t n;

	for (size_t off = 0; off < len; off += chunk)
		tap_parser_feed(p, buf + off, len - off < chunk ? len - off : chunk);
	tap_parser_finish(p, cut);
	t = tap_parser_tests(p, &n);
	s = tap_parser_summary(p);
	render(out, t, n);
	strbuf_addf(out, "|%d%d%d%d%d", s->complete, s->crashed, s->bailed_out, s->planned,
		    s->total);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct tap_parser *p, *q;
	const char *nonce, *cut;
	size_t chunk, n;
	struct report_run r;

	if (size < 1)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	chunk = (size_t)(data[0] & 0x3f) + 1;
	nonce = data[0] & 0x40 ? "c0ffee" : NULL;
	strbuf_init(&a);
	strbuf_init(&b);
	cut = data[0] & 0x80 ? "no console output for 60 s" : NULL;
	p = run(nonce, cut, (const char *)data + 1, size - 1, chunk, &a);
	q = run(nonce, cut, (const char *)data + 1, size - 1, size, &b);
	if (strcmp(a.buf, b.buf)) {
		fprintf(stderr, "chunked:  %s\nat once:  %s\n", a.buf, b.buf);
		abort();
	}
	memset(&r, 0, sizeof(r));
	r.tests = tap_parser_tests(p, &n);
	r.ntests = n;
	r.summary = tap_parser_summary(p);
	r.complete = r.summary->complete;
	r.error = r.summary->crash_line;
	r.wall_s = -1;
	r.suite = "fuzz";
	if (devnull) {
		report_json_fprint(devnull, &r);
		report_tap_fprint(devnull, &r);
		report_junit_fprint(devnull, &r);
		report_kcidb_fprint(devnull, &r);
		report_summary_fprint(devnull, &r);
	}
	report_exit_status(&r);
	tap_parser_free(p);
	tap_parser_free(q);
	strbuf_release(&a);
	strbuf_release(&b);
	return 0;
}
