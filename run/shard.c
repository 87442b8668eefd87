// SPDX-License-Identifier: GPL-2.0-only
/* shard.c: which VMs run which tests: --filter as the init applies it, -j shards, disruptive
 * tests in VMs of their own, balancing with the durations of earlier runs. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "error.h"
#include "fs.h"
#include "protocol.h"
#include "shard.h"
#include "strbuf.h"

/* The plan indices that survive --filter, as the init selects them (fnmatch on the name). */
size_t *shard_filter(const struct run *r, size_t *n)
{
	size_t *sel = xcalloc(r->plan.n + 1, sizeof(*sel));

	*n = 0;
	for (size_t i = 0; i < r->plan.n; i++) {
		bool ok = !r->o->filters.n;

		for (size_t j = 0; j < r->o->filters.n && !ok; j++)
			ok = !fnmatch(r->o->filters.v[j], r->plan.tests[i].name, 0);
		if (ok)
			sel[(*n)++] = i;
	}
	return sel;
}

char *durations_path(const char *arch)
{
	char *dir = cache_dir(), *p = xasprintf("%s/durations-%s", dir, arch);

	free(dir);
	return p;
}

void durations_load(struct durations *d, const char *path)
{
	char *line = NULL;
	size_t len = 0;
	FILE *fp = fopen(path, "r");

	strlist_init(&d->names);
	d->secs = NULL;
	d->alloc = 0;
	while (fp && getline(&line, &len, fp) > 0) {
		char *tab = strchr(line, '\t'), *end;
		double v;

		line[strcspn(line, "\n")] = '\0';
		if (!tab)
			continue;
		*tab = '\0';
		v = strtod(line, &end);
		if (end == line || *end || v < 0)
			continue;
		xgrow(&d->secs, &d->alloc, d->names.n + 1, sizeof(*d->secs));
		d->secs[d->names.n] = v;
		strlist_push(&d->names, tab + 1);
	}
	if (fp)
		fclose(fp);
	free(line);
}

double *durations_find(const struct durations *d, const char *name)
{
	for (size_t i = 0; i < d->names.n; i++)
		if (!strcmp(d->names.v[i], name))
			return &d->secs[i];
	return NULL;
}

void durations_release(struct durations *d)
{
	strlist_release(&d->names);
	free(d->secs);
}

static int durations_write(FILE *fp, const void *ctx)
{
	const struct durations *d = ctx;

	for (size_t i = 0; i < d->names.n; i++)
		if (!strchr(d->names.v[i], '\n'))
			fprintf(fp, "%.3f\t%s\n", d->secs[i], d->names.v[i]);
	return 0;
}

void durations_save(const char *path, const struct tap_test *tests, size_t n)
{
	struct durations d;

	durations_load(&d, path);
	for (size_t i = 0; i < n; i++) {
		double *v;

		if (tests[i].duration_s < 0 || tests[i].verdict >= VERDICT_CRASH)
			continue;
		v = durations_find(&d, tests[i].name);
		if (!v) {
			xgrow(&d.secs, &d.alloc, d.names.n + 1, sizeof(*d.secs));
			d.secs[d.names.n] = 0;
			strlist_push(&d.names, tests[i].name);
			v = &d.secs[d.names.n - 1];
		}
		*v = tests[i].duration_s;
	}
	/* concurrent runs of one arch share the file: each writes its own temporary */
	write_file_atomic(path, WRITE_FILE_QUIET | WRITE_FILE_SHARED, 0, durations_write, &d);
	durations_release(&d);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* tapboot.only=1,4,7-9 for plan indices idx (sorted, 0-based). */
static char *only_arg(const size_t *idx, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, TAPBOOT_ARG_ONLY);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && idx[j + 1] == idx[j] + 1)
			j++;
		strbuf_addf(&sb, "%s%zu", i ? "," : "", idx[i] + 1);
		if (j > i)
			strbuf_addf(&sb, "-%zu", idx[j] + 1);
		i = j + 1;
	}
	return strbuf_detach(&sb);
}

/* Estimates est[0..n) of plan tests idx[0..n) from earlier runs' durations (d NULL: none),
 * the unknown ones the mean of the known (0 when none is), and both sorted by them, longest
 * first (insertion sort: stable, ties keep idx's order; plans are small). How many were known. */
static size_t sort_longest_first(const struct run *r, const struct durations *d, size_t *idx,
				 double *est, size_t n)
{
	size_t known = 0;
	double mean = 0;

	for (size_t i = 0; i < n; i++) {
		double *sec = d ? durations_find(d, r->plan.tests[idx[i]].name) : NULL;

		est[i] = sec ? *sec : -1;
		if (sec) {
			mean += *sec;
			known++;
		}
	}
	if (known)
		mean /= (double)known;
	for (size_t i = 0; i < n; i++)
		if (est[i] < 0)
			est[i] = mean;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && est[j] > est[j - 1]; j--) {
			double te = est[j];
			size_t ti = idx[j];

			est[j] = est[j - 1];
			idx[j] = idx[j - 1];
			est[j - 1] = te;
			idx[j - 1] = ti;
		}
	return known;
}

/* Longest first onto the least loaded shard (LPT), with durations from earlier runs; tests
 * never seen count as the mean of the known ones. Returns false (leaving the modulo shards)
 * when fewer than half the tests are known or the lists would not fit the kernel's command
 * line (2048 bytes on x86 and arm64; a margin for the rest). */
static bool balance_shards(struct run *r, size_t nshards, const struct durations *d)
{
	size_t n = 0, known, total_len = 0;
	size_t *order, **saved = NULL, *saved_n = NULL;
	double *est, *load;
	bool ok = false;

	for (size_t v = 0; v < nshards; v++)
		n += r->vms[v].ntests;
	order = xcalloc(n + 1, sizeof(*order));
	est = xcalloc(n + 1, sizeof(*est));
	load = xcalloc(nshards, sizeof(*load));
	n = 0;
	for (size_t v = 0; v < nshards; v++)
		for (size_t k = 0; k < r->vms[v].ntests; k++)
			order[n++] = r->vms[v].tests[k];
	known = sort_longest_first(r, d, order, est, n);
	if (!n || known * 2 < n)
		goto out;
	saved = xcalloc(nshards, sizeof(*saved));
	saved_n = xcalloc(nshards, sizeof(*saved_n));
	for (size_t v = 0; v < nshards; v++) {
		saved[v] = xcalloc(r->vms[v].ntests + 1, sizeof(**saved));
		memcpy(saved[v], r->vms[v].tests, r->vms[v].ntests * sizeof(**saved));
		saved_n[v] = r->vms[v].ntests;
	}
	for (size_t v = 0; v < nshards; v++)
		r->vms[v].ntests = 0;
	for (size_t i = 0; i < n; i++) {
		size_t best = 0;

		for (size_t v = 1; v < nshards; v++)
			if (load[v] < load[best])
				best = v;
		load[best] += est[i];
		r->vms[best].tests[r->vms[best].ntests++] = order[i];
	}
	ok = true;
	for (size_t v = 0; v < nshards; v++) {
		struct vm *vm = &r->vms[v];
		char *only;

		if (!vm->ntests) {
			ok = false;
			break;
		}
		qsort(vm->tests, vm->ntests, sizeof(*vm->tests), cmp_size);
		only = only_arg(vm->tests, vm->ntests);
		total_len = strlen(only) > total_len ? strlen(only) : total_len;
		free(vm->select_args);
		vm->select_args = only;
	}
	if (!ok || total_len >= 1200) {
		/* back to the modulo assignment the init's shards make */
		ok = false;
		for (size_t v = 0; v < nshards; v++) {
			memcpy(r->vms[v].tests, saved[v], saved_n[v] * sizeof(**saved));
			r->vms[v].ntests = saved_n[v];
			free(r->vms[v].select_args);
			r->vms[v].select_args = NULL;
		}
	} else {
		/* the shard expected to take longest runs at full priority, the others niced
		 * (vm.c); disruptive tests' own VMs are not shards and are not niced */
		size_t crit = 0;

		for (size_t v = 1; v < nshards; v++)
			if (load[v] > load[crit])
				crit = v;
		for (size_t v = 0; v < nshards; v++)
			r->vms[v].background = v != crit;
	}
out:
	if (saved)
		for (size_t v = 0; v < nshards; v++)
			free(saved[v]);
	free(saved);
	free(saved_n);
	free(order);
	free(est);
	free(load);
	return ok;
}

static char *console_path(const struct run *r, size_t v)
{
	return r->nvms == 1 ? xasprintf("%s/console.log", r->dir)
			    : xasprintf("%s/console.%zu.log", r->dir, v + 1);
}

/* --isolate: every test in a VM of its own (started from the snapshot: no test sees the kernel
 * state another left), disruptive ones run there too when --disruptive asks for them. The
 * pool starts the VMs in order: the longest known first (LPT), so a long test does not start
 * last and hold the run alone; unknown ones count as the mean of the known, ties keep the
 * plan's order. */
static void isolate_vms(struct run *r, size_t *sel, size_t nsel, const struct durations *d)
{
	double *est = xcalloc(nsel + 1, sizeof(*est));
	size_t known = sort_longest_first(r, d, sel, est, nsel);

	free(est);
	r->nvms = nsel;
	r->vms = xcalloc(r->nvms, sizeof(*r->vms));
	for (size_t v = 0; v < nsel; v++) {
		struct vm *vm = &r->vms[v];

		vm->r = r;
		vm->index = (unsigned)v + 1;
		vm->background = known && v > 0;
		vm->tests = xcalloc(1, sizeof(size_t));
		vm->tests[vm->ntests++] = sel[v];
		vm->console_path = console_path(r, v);
		vm->select_args =
			r->o->disruptive && (r->plan.tests[sel[v]].flags & PLAN_FLAG_DISRUPTIVE)
				? xasprintf(TAPBOOT_ARG_ONLY "%zu " TAPBOOT_ARG_DISRUPTIVE "1",
					    sel[v] + 1)
				: xasprintf(TAPBOOT_ARG_ONLY "%zu", sel[v] + 1);
	}
}

/* Does test t run in a VM of its own? A disruptive one with --disruptive; a privileged one
 * (it keeps the capabilities the others lose, init/privilege.c, and could forge the lines of
 * any test beside it) always, unless it is disruptive and so left to the disruptive rule. */
static bool own_vm(const struct run *r, const struct plan_test *t)
{
	if (t->flags & PLAN_FLAG_DISRUPTIVE)
		return r->o->disruptive;
	return t->flags & PLAN_FLAG_PRIVILEGED;
}

/* The select args of a shard: its K/N, and what runs elsewhere. Caller frees. */
static char *shard_args(size_t v, size_t nshards, size_t ndisr, size_t npriv)
{
	struct strbuf a = STRBUF_INIT;

	strbuf_grow(&a, 0);
	if (nshards > 1)
		strbuf_addf(&a, TAPBOOT_ARG_SHARD "%zu/%zu", v, nshards);
	if (ndisr)
		strbuf_addf(&a, "%s" TAPBOOT_ARG_DISRUPTIVE "elsewhere", a.len ? " " : "");
	if (npriv)
		strbuf_addf(&a, "%s" TAPBOOT_ARG_PRIVILEGED "elsewhere", a.len ? " " : "");
	return strbuf_detach(&a);
}

void shard_plan_vms(struct run *r, const struct durations *d)
{
	size_t nsel, *sel = shard_filter(r, &nsel), nshards = r->jobs ? r->jobs : 1;
	size_t nown = 0, ndisr = 0, npriv = 0;

	if (r->o->isolate && nsel) {
		isolate_vms(r, sel, nsel, d);
		free(sel);
		return;
	}
	for (size_t i = 0; i < nsel; i++) {
		const struct plan_test *t = &r->plan.tests[sel[i]];

		if (own_vm(r, t)) {
			nown++;
			if (t->flags & PLAN_FLAG_DISRUPTIVE)
				ndisr++;
			else
				npriv++;
		}
	}
	if (nshards > nsel - nown && nsel > nown)
		nshards = nsel - nown;
	if (nsel == nown)
		nshards = nown ? 0 : 1;
	r->nvms = nshards + nown;
	r->vms = xcalloc(r->nvms, sizeof(*r->vms));
	for (size_t v = 0; v < r->nvms; v++) {
		r->vms[v].r = r;
		r->vms[v].index = (unsigned)v + 1;
		r->vms[v].tests = xcalloc(nsel + 1, sizeof(size_t));
		r->vms[v].console_path = console_path(r, v);
	}
	for (size_t i = 0, nd = 0, seen = 0; i < nsel; i++) {
		const struct plan_test *t = &r->plan.tests[sel[i]];
		struct vm *vm;

		if (own_vm(r, t)) {
			vm = &r->vms[nshards + nd++];
			vm->select_args =
				t->flags & PLAN_FLAG_DISRUPTIVE
					? xasprintf(TAPBOOT_ARG_ONLY "%zu " TAPBOOT_ARG_DISRUPTIVE "1",
						    sel[i] + 1)
					: xasprintf(TAPBOOT_ARG_ONLY "%zu", sel[i] + 1);
		} else {
			/* the init's shard counts over what it selects: the filtered tests less
			 * the ones that run elsewhere */
			vm = &r->vms[nshards > 1 ? seen % nshards : 0];
			seen++;
		}
		vm->tests[vm->ntests++] = sel[i];
	}
	if (nshards > 1 && d && balance_shards(r, nshards, d)) {
		free(sel);
		return;
	}
	/* No history to balance with (or too long a list): the init's own modulo shards,
	 * which need the same assignment as above. */
	for (size_t v = 0; v < nshards; v++)
		r->vms[v].select_args = shard_args(v, nshards, ndisr, npriv);
	free(sel);
}

unsigned run_test_timeout(const struct run *r, size_t i)
{
	return r->o->timeout_given ? r->o->timeout_s : r->plan.tests[i].timeout_s;
}
