// SPDX-License-Identifier: GPL-2.0-only
/* cmd_compare.c: tapboot compare OLD NEW: what changed between two runs, for pre-merge gates.
 *
 * Tests are matched by name (subtests as "parent :: sub", to any depth; a name that occurs
 * more than once is matched by occurrence). Categories, in the order printed:
 *   regression  the old verdict was not a failure, the new one is (pass -> fail, timeout,
 *               crash, missing, xpass; also skip -> fail: a test that now runs and fails)
 *   fixed       the old verdict was a failure, the new one is pass or xfail
 *   skip        a test started or stopped skipping, without a failure involved
 *   changed     another verdict change (fail -> crash, pass -> xfail, ...)
 *   new         only in NEW
 *   vanished    only in OLD
 * Exit status 1 when there is a regression, a test that passed in OLD vanished from NEW, or a
 * test only in NEW fails: a merge gate must not let a change break its own new test or make a
 * passing test disappear (--allow-vanished and --allow-new-failures say that is expected). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands_results.h"
#include "error.h"
#include "results.h"
#include "verdict.h"

struct entry {
	char *name;	    /* owned */
	const char *reason; /* points into the side's results */
	enum verdict v;
	size_t pos, occ; /* position in its file; occurrence of this name */
	bool matched;
};

struct side {
	const char *file;
	char *path; /* owned: the results.json actually read */
	struct results res;
	struct entry *e;
	size_t n, alloc;
};

/* Flatten the results tree into entries, subtests as "parent :: sub". */
static void add_tests(struct side *s, const struct tap_test *tests, size_t n, const char *parent)
{
	for (size_t i = 0; i < n; i++) {
		const struct tap_test *t = &tests[i];
		struct entry *e;

		xgrow(&s->e, &s->alloc, s->n + 1, sizeof(*s->e));
		e = &s->e[s->n];
		memset(e, 0, sizeof(*e));
		e->name = parent ? xasprintf("%s :: %s", parent, t->name) : xstrdup(t->name);
		e->reason = t->reason;
		e->v = t->verdict;
		e->pos = s->n++;
		add_tests(s, t->subtests, t->nsub, s->e[e->pos].name);
	}
}

static int load(struct side *s, const char *arg)
{
	struct stat st;

	s->file = arg;
	results_init(&s->res);
	if (stat(arg, &st))
		return error_errno("cannot open '%s'", arg);
	s->path = S_ISDIR(st.st_mode) ? xasprintf("%s/results.json", arg) : xstrdup(arg);
	if (results_load_json(&s->res, s->path) < 0)
		return -1;
	add_tests(s, s->res.tests, s->res.ntests, NULL);
	return 0;
}

static void side_release(struct side *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->e[i].name);
	free(s->e);
	free(s->path);
	results_release(&s->res);
}

static int by_name(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a,
			   *y = *(const struct entry *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

static struct entry **sorted(struct side *s)
{
	struct entry **v = xcalloc(s->n + 1, sizeof(*v));

	for (size_t i = 0; i < s->n; i++)
		v[i] = &s->e[i];
	qsort(v, s->n, sizeof(*v), by_name);
	for (size_t i = 0; i < s->n; i++)
		v[i]->occ = i && !strcmp(v[i - 1]->name, v[i]->name) ? v[i - 1]->occ + 1 : 0;
	return v;
}

static int cmp_key(const struct entry *a, const struct entry *b)
{
	int c = strcmp(a->name, b->name);

	return c ? c : (a->occ > b->occ) - (a->occ < b->occ);
}

enum cat { C_REGRESSION, C_FIXED, C_SKIP, C_CHANGED, C_NEW, C_VANISHED, C_COUNT };
static const char *const cat_names[C_COUNT] = {"regression", "fixed", "skip",
					       "changed",    "new",   "vanished"};

struct change {
	enum cat cat;
	const struct entry *old, *new_;
	size_t order;
};

static int by_cat(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	if (x->cat != y->cat)
		return (int)x->cat - (int)y->cat;
	return (x->order > y->order) - (x->order < y->order);
}

static bool good(enum verdict v)
{
	return v == VERDICT_PASS || v == VERDICT_XFAIL;
}

static void print_one(const struct change *c)
{
	const struct entry *e = c->new_ ? c->new_ : c->old;
	const char *reason = e->reason;

	printf("%-10s  %s: ", cat_names[c->cat], e->name);
	if (c->old && c->new_)
		printf("%s -> %s", verdict_name(c->old->v), verdict_name(c->new_->v));
	else
		printf("%s", verdict_name(e->v));
	if (reason && *reason) {
		fputs(" (", stdout);
		for (const char *s = reason; *s; s++)
			putchar((unsigned char)*s < 0x20 ? ' ' : *s);
		putchar(')');
	}
	putchar('\n');
}

static const char compare_usage[] =
	"usage: tapboot compare [--allow-vanished] [--allow-new-failures] OLD NEW\n"
	"OLD and NEW are results directories (tapboot run -o DIR) or results.json\n"
	"files. Exit status 1 when a test regressed, a test that passed in OLD is missing\n"
	"from NEW (unless --allow-vanished) or a test only in NEW fails (unless\n"
	"--allow-new-failures); 2 on bad input.\n";

int cmd_compare(int argc, char **argv)
{
	struct side o = {0}, n = {0};
	struct entry **ov = NULL, **nv = NULL;
	struct change *ch = NULL;
	size_t nch = 0, challoc = 0, i = 0, j = 0;
	unsigned count[C_COUNT] = {0}, vanished_pass = 0, new_fail = 0;
	bool allow_vanished = false, allow_new_fail = false;
	const char *paths[2];
	int status = EXIT_USAGE, npaths = 0;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			fputs(compare_usage, stdout);
			return EXIT_PASS;
		} else if (!strcmp(argv[a], "--allow-vanished")) {
			allow_vanished = true;
		} else if (!strcmp(argv[a], "--allow-new-failures")) {
			allow_new_fail = true;
		} else if (argv[a][0] == '-' && argv[a][1]) {
			error("compare: unknown option '%s'", argv[a]);
			fputs(compare_usage, stderr);
			return EXIT_USAGE;
		} else if (npaths < 2) {
			paths[npaths++] = argv[a];
		} else {
			npaths = 3;
		}
	}
	if (npaths != 2) {
		error("compare wants two arguments: OLD NEW (results directories or JSON files)");
		fputs("usage: tapboot compare [--allow-vanished] [--allow-new-failures] OLD NEW\n",
		      stderr);
		return EXIT_USAGE;
	}
	if (load(&o, paths[0]) || load(&n, paths[1]))
		goto out;
	ov = sorted(&o);
	nv = sorted(&n);
	while (i < o.n || j < n.n) {
		int c = i >= o.n ? 1 : j >= n.n ? -1 : cmp_key(ov[i], nv[j]);
		struct change x = {C_CHANGED, NULL, NULL, 0};

		if (c < 0) {
			x.cat = C_VANISHED;
			x.old = ov[i++];
			vanished_pass += good(x.old->v);
			x.order = n.n + x.old->pos;
		} else if (c > 0) {
			x.cat = C_NEW;
			x.new_ = nv[j++];
			new_fail += verdict_is_failure(x.new_->v);
			x.order = x.new_->pos;
		} else {
			x.old = ov[i++];
			x.new_ = nv[j++];
			x.order = x.new_->pos;
			if (x.old->v == x.new_->v)
				continue;
			if (!verdict_is_failure(x.old->v) && verdict_is_failure(x.new_->v))
				x.cat = C_REGRESSION;
			else if (verdict_is_failure(x.old->v) && good(x.new_->v))
				x.cat = C_FIXED;
			else if (x.old->v == VERDICT_SKIP || x.new_->v == VERDICT_SKIP)
				x.cat = C_SKIP;
			else
				x.cat = C_CHANGED;
		}
		xgrow(&ch, &challoc, nch + 1, sizeof(*ch));
		ch[nch++] = x;
		count[x.cat]++;
	}
	if (nch)
		qsort(ch, nch, sizeof(*ch), by_cat);
	for (size_t k = 0; k < nch; k++)
		print_one(&ch[k]);
	printf("%u regressions, %u fixed, %u skip changes, %u other changes, %u new, %u vanished\n",
	       count[C_REGRESSION], count[C_FIXED], count[C_SKIP], count[C_CHANGED], count[C_NEW],
	       count[C_VANISHED]);
	status = count[C_REGRESSION] ? EXIT_TESTS_FAILED : EXIT_PASS;
	if (vanished_pass && !allow_vanished) {
		printf("%u passing test%s vanished (--allow-vanished if that is expected)\n",
		       vanished_pass, vanished_pass == 1 ? "" : "s");
		status = EXIT_TESTS_FAILED;
	}
	if (new_fail && !allow_new_fail) {
		printf("%u new test%s fail%s (--allow-new-failures if that is expected)\n", new_fail,
		       new_fail == 1 ? "" : "s", new_fail == 1 ? "s" : "");
		status = EXIT_TESTS_FAILED;
	}
out:
	free(ov);
	free(nv);
	free(ch);
	side_release(&o);
	side_release(&n);
	return status;
}
