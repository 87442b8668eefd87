// SPDX-License-Identifier: GPL-2.0-only
/* run_plan.c: the whole console stream: begin marker, TAP header, every test, end marker. */
#include "init.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "protocol.h"
#include "tap.h"

#define DISRUPTIVE_REASON "disruptive (run with --disruptive)"

static void run_one(struct init_ctx *c, const struct plan_test *t, unsigned num)
{
	struct init_result r;
	struct strbuf name;

	strbuf_init(&name);
	init_sanitize(&name, t->name, strlen(t->name));
	strbuf_addf(&c->out, "%s%u %s\n", TAPBOOT_MARK_RUN, num, name.buf);
	init_flush(c);
	if (t->skip_reason || ((t->flags & PLAN_FLAG_DISRUPTIVE) && !c->opt.disruptive)) {
		/* The host knew it cannot run here (a missing kernel option), or it would
		 * disturb the tests after it: reported, not run. */
		memset(&r, 0, sizeof(r));
		r.verdict = VERDICT_SKIP;
		r.reason = xstrdup(t->skip_reason ? t->skip_reason : DISRUPTIVE_REASON);
	} else {
		init_run_test(c, t, num, &r);
	}
	init_report(&c->out, num, t->name, &r, c->keyed);
	c->counts[r.verdict]++;
	/* not flushed here: the next run line or the end line follows at once and goes out in
	 * the same write (a system call is 25-85 us on arm64 under TCG) */
	init_result_release(&r);
	strbuf_release(&name);
}

unsigned init_run_plan(struct init_ctx *c, const struct plan *p)
{
	struct utsname u;
	unsigned failures = 0;
	size_t n, *sel = init_select(p, &c->opt, &n);

	if (uname(&u) < 0)
		strcpy(u.release, "unknown");
	strbuf_addf(&c->out, "%snonce=%s tests=%zu kernel=%s\n", TAPBOOT_MARK_BEGIN, c->opt.nonce,
		    n, u.release);
	tap_version(&c->out, 0);
	tap_plan(&c->out, 0, (unsigned)n);
	for (size_t i = 0; i < c->opt.warnings.n; i++) {
		char *w = xasprintf("init: %s", c->opt.warnings.v[i]);

		tap_diag(&c->out, 0, w);
		free(w);
	}
	init_flush(c);
	if (c->modules_loaded) {
		/* loaded before the ready point (snapshot boot): what that said goes here */
		strbuf_add(&c->out, c->module_diag.buf, c->module_diag.len);
		init_flush(c);
	} else if (p->modules.n) {
		init_load_modules(&p->modules, c->root, &c->out);
		init_flush(c);
	}
	for (size_t i = 0; i < n; i++)
		run_one(c, &p->tests[sel[i]], (unsigned)i + 1);
	strbuf_addf(&c->out, "%snonce=%s pass=%u fail=%u skip=%u xfail=%u xpass=%u timeout=%u\n",
		    TAPBOOT_MARK_END, c->opt.nonce, c->counts[VERDICT_PASS],
		    c->counts[VERDICT_FAIL], c->counts[VERDICT_SKIP], c->counts[VERDICT_XFAIL],
		    c->counts[VERDICT_XPASS], c->counts[VERDICT_TIMEOUT]);
	init_flush(c);
	for (int v = 0; v < VERDICT_COUNT; v++)
		if (verdict_is_failure((enum verdict)v))
			failures += c->counts[v];
	free(sel);
	return failures;
}
