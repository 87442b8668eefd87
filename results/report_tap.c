// SPDX-License-Identifier: GPL-2.0-only
/* report_tap.c: results.tap, clean TAP 13 regenerated from the result tree (lib/tap.h): tests
 * renumbered 1..N in order, subtests nested 4 spaces deeper before their parent's result line,
 * a YAML block with duration_s, exit and reason. crash and missing have no TAP directive: they
 * are "not ok" with a YAML "result:" key, which tap_parser reads back. */
#include <string.h>

#include "report.h"
#include "report_util.h"
#include "results.h"
#include "strbuf.h"
#include "tap.h"

static void tap_tests(struct strbuf *sb, const struct tap_test *t, size_t n, unsigned depth)
{
	tap_plan(sb, depth, (unsigned)n);
	for (size_t i = 0; i < n; i++) {
		const char *dir = NULL;
		bool ok = false;

		if (t[i].nsub) {
			struct strbuf h = STRBUF_INIT;

			strbuf_init(&h);
			strbuf_addf(&h, "Subtest: %s", t[i].name ? t[i].name : "");
			tap_diag(sb, depth + 1, h.buf);
			strbuf_release(&h);
			tap_tests(sb, t[i].subtests, t[i].nsub, depth + 1);
		}
		switch (t[i].verdict) {
		case VERDICT_PASS:
			ok = true;
			break;
		case VERDICT_SKIP:
			ok = true;
			dir = "SKIP";
			break;
		case VERDICT_XFAIL:
			ok = true;
			dir = "XFAIL";
			break;
		case VERDICT_XPASS:
			dir = "XPASS";
			break;
		case VERDICT_TIMEOUT:
			dir = "TIMEOUT";
			break;
		default:
			break;
		}
		tap_result(sb, depth, ok, (unsigned)(i + 1), t[i].name, dir,
			   dir ? t[i].reason : NULL);
		if (t[i].duration_s >= 0 || t[i].exit_code >= 0 || t[i].reason ||
		    t[i].verdict >= VERDICT_CRASH) {
			tap_yaml_begin(sb, depth);
			if (t[i].verdict >= VERDICT_CRASH)
				tap_yaml_raw(sb, depth, "result", verdict_name(t[i].verdict));
			if (t[i].duration_s >= 0)
				tap_yaml_rawf(sb, depth, "duration_s", "%.3f", t[i].duration_s);
			if (t[i].exit_code >= 0)
				tap_yaml_rawf(sb, depth, "exit", "%d", t[i].exit_code);
			if (t[i].reason)
				tap_yaml_str(sb, depth, "reason", t[i].reason);
			tap_yaml_end(sb, depth);
		}
	}
}

int report_tap_fprint(FILE *fp, const struct report_run *r)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb);
	tap_version(&sb, 0);
	tap_tests(&sb, r->tests, r->ntests, 0);
	if (!r->complete) {
		struct strbuf d = STRBUF_INIT;

		strbuf_init(&d);
		strbuf_addf(&d, "incomplete: %s", results_error_text(r));
		tap_diag(&sb, 0, d.buf);
		strbuf_release(&d);
	}
	fwrite(sb.buf, 1, sb.len, fp);
	strbuf_release(&sb);
	return ferror(fp) ? -1 : 0;
}

int report_tap_write(const char *path, const struct report_run *r)
{
	return report_write_atomic(path, report_tap_fprint, r);
}
