// SPDX-License-Identifier: GPL-2.0-only
/* gate.c: tapboot gate (run.h's run_gate): first runs on both kernels, interleaved reruns of
 * the tests the class rule has not settled, the classes, the history's "known flaky", the
 * reports. Each run is a `tapboot run` of this binary into a directory under the gate's. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "gate_class.h"
#include "history.h"
#include "proc.h"
#include "results.h"
#include "run.h"
#include "strbuf.h"
#include "strlist.h"

struct gtest {
	char *name;
	struct gate_counts c;
	struct strbuf av, bv; /* verdicts in run order */
	size_t order;
	bool known; /* the history had it passing and failing before this gate (known_flaky) */
};

struct gate {
	const struct gate_opts *o;
	char *dir;
	struct gtest *t;
	size_t n, alloc;
	char *release[2]; /* A's and B's uname -r, from their first runs */
	char *first[2];	  /* their first runs' directories */
};

static struct gtest *find(struct gate *g, const char *name, bool add)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->t[i].name, name))
			return &g->t[i];
	if (!add)
		return NULL;
	xgrow(&g->t, &g->alloc, g->n + 1, sizeof(*g->t));
	memset(&g->t[g->n], 0, sizeof(*g->t));
	g->t[g->n].name = xstrdup(name);
	strbuf_init(&g->t[g->n].av);
	strbuf_init(&g->t[g->n].bv);
	g->t[g->n].order = g->n;
	return &g->t[g->n++];
}

/* A name as an fnmatch pattern that matches only itself. */
static char *glob_escape(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *s; s++) {
		if (strchr("*?[]\\", *s))
			strbuf_addch(&sb, '\\');
		strbuf_addch(&sb, *s);
	}
	return strbuf_detach(&sb);
}

/* The run being waited for: an interrupt of the gate is passed on to it, which stops its QEMU
 * and writes its partial results (exit 130); the gate then stops. A file-local static: a
 * signal handler has no other way to it. */
static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/* `tapboot run` of kernel into dir, its output in dir.log; its exit status, or -1. */
static int spawn(struct gate *g, const char *label, const char *kernel, const char *dir,
		 const struct strlist *filters)
{
	const struct gate_opts *o = g->o;
	struct strlist av;
	char *log = xasprintf("%s.log", dir), **pats = xcalloc(filters->n + 1, sizeof(*pats));
	int st = -1, fd;
	pid_t pid;

	strlist_init(&av);
	strlist_push(&av, "tapboot");
	strlist_push(&av, "run");
	for (size_t i = 0; i < o->nrun_args; i++)
		strlist_push(&av, o->run_args[i]);
	strlist_push(&av, "--kernel");
	strlist_push(&av, kernel);
	strlist_push(&av, "-o");
	strlist_push(&av, dir);
	strlist_push(&av, "-q");
	strlist_push(&av, "--history-label");
	strlist_push(&av, label);
	if (o->no_history) {
		strlist_push(&av, "--no-history");
	} else if (o->history) {
		strlist_push(&av, "--history");
		strlist_push(&av, o->history);
	}
	for (size_t i = 0; i < filters->n; i++) {
		pats[i] = glob_escape(filters->v[i]);
		strlist_push(&av, "--filter");
		strlist_push(&av, pats[i]);
	}
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error_errno("cannot create '%s'", log);
		goto out;
	}
	fflush(stdout);
	fflush(stderr);
	pid = proc_fork();
	if (pid < 0) {
		error_errno("cannot fork");
	} else if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		execv("/proc/self/exe", av.v);
		error_errno("cannot run /proc/self/exe");
		_exit(127);
	} else {
		struct sigaction sa = {.sa_handler = forward_signal}, old[3];
		static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
		int ws = 0;

		child_pid = pid;
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &sa, &old[i]);
		while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
			;
		child_pid = 0;
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &old[i], NULL);
		st = WIFEXITED(ws) ? WEXITSTATUS(ws) : EXIT_INTERRUPTED;
	}
	close(fd);
out:
	for (size_t i = 0; i < filters->n; i++)
		free(pats[i]);
	free(pats);
	free(log);
	strlist_release(&av);
	return st;
}

/* A run's results.json into the counts of side b; a first run adds its tests. The number of
 * verdicts that are not "missing", or -1 after a message. */
static int load(struct gate *g, const char *dir, bool b, bool first)
{
	struct results res;
	char *path = xasprintf("%s/results.json", dir);
	int seen = 0;

	results_init(&res);
	if (results_load_json(&res, path) < 0) {
		free(path);
		return -1;
	}
	for (size_t i = 0; i < res.ntests; i++) {
		const struct tap_test *t = &res.tests[i];
		struct gtest *x = find(g, t->name, first);
		struct strbuf *v;

		if (!x)
			continue;
		v = b ? &x->bv : &x->av;
		if (v->len)
			strbuf_addch(v, ' ');
		strbuf_addstr(v, verdict_name(t->verdict));
		*(b ? &x->c.b_runs : &x->c.a_runs) += 1;
		*(b ? &x->c.b_fail : &x->c.a_fail) += verdict_is_failure(t->verdict);
		seen += t->verdict != VERDICT_MISSING;
	}
	if (first) {
		g->release[b] = res.sum.kernel ? xstrdup(res.sum.kernel) : NULL;
		g->first[b] = xstrdup(dir);
	}
	results_release(&res);
	free(path);
	return seen;
}

/* Show a run's output (it explains bad input). */
static void show_log(const char *dir)
{
	char *log = xasprintf("%s.log", dir), *buf;
	size_t len;

	if (read_file(log, &buf, &len) == 0) {
		fwrite(buf, 1, len, stderr);
		free(buf);
	}
	free(log);
}

/* One run and its counts: 0, or the gate's exit status when it must stop. */
static int one_run(struct gate *g, bool b, const char *label, const char *kernel, const char *dir,
		   const struct strlist *filters)
{
	bool first = !filters->n;
	int st = spawn(g, label, kernel, dir, filters), seen;

	if (st < 0)
		return EXIT_USAGE;
	if (st == EXIT_INTERRUPTED) {
		error("gate: interrupted; the runs so far are in '%s/'", g->dir);
		return EXIT_INTERRUPTED;
	}
	if (st == EXIT_USAGE) {
		show_log(dir);
		error("gate: tapboot run on '%s' refused its input (its output is above)", kernel);
		return EXIT_USAGE;
	}
	seen = load(g, dir, b, first);
	if (seen < 0 || (first && seen == 0)) {
		error("gate: the run on '%s' gave no verdicts (exit %d, see '%s' and '%s.log')",
		      kernel, st, dir, dir);
		return seen < 0 && st != EXIT_VM ? EXIT_USAGE : EXIT_VM;
	}
	printf("gate: %s %s: exit %d (%s/)\n", label, kernel, st, dir);
	return 0;
}

/* Interleaved reruns, A then B each round, of what the rule has not settled. */
static int reruns(struct gate *g)
{
	const struct gate_opts *o = g->o;

	for (unsigned round = 1; round <= o->reruns; round++) {
		struct strlist f[2];
		int st = 0;

		strlist_init(&f[0]);
		strlist_init(&f[1]);
		for (size_t i = 0; i < g->n; i++)
			for (int b = 0; b < 2; b++)
				if ((b || o->base) &&
				    gate_needs_rerun(&g->t[i].c, b, o->reruns, g->t[i].known))
					strlist_push(&f[b], g->t[i].name);
		for (int b = 0; b < 2 && !st; b++) {
			char *dir =
				xasprintf("%s/rerun-%u-%s", g->dir, round, b ? "kernel" : "base");

			if (f[b].n)
				st = one_run(g, b, b ? "gate-rerun-kernel" : "gate-rerun-base",
					     b ? o->kernel : o->base, dir, &f[b]);
			free(dir);
		}
		if (!f[0].n && !f[1].n)
			round = o->reruns;
		strlist_release(&f[0]);
		strlist_release(&f[1]);
		if (st)
			return st;
	}
	return 0;
}

/* The history's runs of this test before this gate, on either kernel of the gate: flaky
 * when it both passed and failed on one of them (this gate's own runs, recorded already,
 * taken out). A test's flakiness is its own more than a kernel's: a flaky side on A explains
 * a failure on B. */
static bool known_flaky(struct gate *g, const struct gtest *t)
{
	const struct gate_counts *c = &t->c;

	if (g->o->no_history)
		return false;
	for (int s = 0; s < 2; s++) {
		const char *rel = g->release[s];
		unsigned pass, fail, own_pass = 0, own_fail = 0;

		if (!rel || (s && g->release[0] && !strcmp(rel, g->release[0])))
			continue;
		history_known_flaky(g->o->history, t->name, NULL, rel, &pass, &fail);
		for (int side = 0; side < 2; side++) {
			if (!g->release[side] || strcmp(g->release[side], rel))
				continue;
			own_fail += side ? c->b_fail : c->a_fail;
			own_pass += side ? c->b_runs - c->b_fail : c->a_runs - c->a_fail;
		}
		if (pass > own_pass && fail > own_fail)
			return true;
	}
	return false;
}

static int by_class(const void *x, const void *y)
{
	const struct gate_row *a = x, *b = y;

	if (a->cls != b->cls)
		return (int)a->cls - (int)b->cls;
	return strcmp(a->name, b->name);
}

static int report(struct gate *g)
{
	struct gate_row *rows = xcalloc(g->n + 1, sizeof(*rows));
	unsigned count[GATE_CLASS_COUNT] = {0};
	struct gate_report rep = {
		.a = {g->o->base, g->release[0], g->first[0]},
		.b = {g->o->kernel, g->release[1], g->first[1]},
		.rows = rows,
		.nrows = g->n,
		.reruns = g->o->reruns,
		.flaky_fails = g->o->flaky_fails,
		.status = EXIT_PASS,
	};
	char *p;

	if (!rep.a.kernel)
		rep.a.kernel = g->o->base_results;
	for (size_t i = 0; i < g->n; i++) {
		struct gtest *t = &g->t[i];

		rows[i] = (struct gate_row){t->name,   t->c,	  gate_classify(&t->c),
					    t->av.buf, t->bv.buf, t->known};
		count[rows[i].cls]++;
		if (gate_class_fails(rows[i].cls, g->o->flaky_fails))
			rep.status = EXIT_TESTS_FAILED;
	}
	qsort(rows, g->n, sizeof(*rows), by_class);
	for (size_t i = 0; i < g->n; i++) {
		const struct gate_row *r = &rows[i];

		printf("%-11s  %s: A %u/%u passed, B %u/%u passed%s\n", gate_class_name(r->cls),
		       r->name, r->c.a_runs - r->c.a_fail, r->c.a_runs, r->c.b_runs - r->c.b_fail,
		       r->c.b_runs,
		       r->known_flaky ? " (known flaky: the history has it both "
					"passing and failing before)"
				      : "");
	}
	printf("gate:");
	for (int c = 0; c < GATE_CLASS_COUNT; c++)
		printf("%s %u %s", c ? "," : "", count[c], gate_class_name(c));
	printf(" (up to %u reruns a side; flaky %s)\n", g->o->reruns,
	       g->o->flaky_fails ? "fails the gate" : "is reported, does not fail the gate");
	p = xasprintf("%s/gate.json", g->dir);
	gate_json_write(p, &rep);
	free(p);
	p = xasprintf("%s/gate.html", g->dir);
	gate_html_write(p, &rep);
	free(p);
	printf("results: %s/\n", g->dir);
	free(rows);
	return rep.status;
}

int run_gate(const struct gate_opts *o)
{
	struct gate g = {.o = o};
	struct strlist none;
	int st = 0;

	strlist_init(&none);
	if (o->out_dir) {
		if (mkdir(o->out_dir, 0755) < 0 && (errno != EEXIST || !dir_is_empty(o->out_dir))) {
			error_errno("gate: cannot use '%s' (a new or empty directory, please)",
				    o->out_dir);
			return EXIT_USAGE;
		}
		g.dir = xstrdup(o->out_dir);
	} else if (!(g.dir = run_new_results_dir("gate"))) {
		return EXIT_USAGE;
	}
	if (o->base_results) {
		if (load(&g, o->base_results, false, true) <= 0) {
			error("gate: --base-results '%s': no verdicts to reuse", o->base_results);
			st = EXIT_USAGE;
		}
	} else {
		char *d = xasprintf("%s/base", g.dir);

		st = one_run(&g, false, "gate-base", o->base, d, &none);
		free(d);
	}
	if (!st) {
		char *d = xasprintf("%s/kernel", g.dir);

		st = one_run(&g, true, "gate-kernel", o->kernel, d, &none);
		free(d);
	}
	/* before the reruns: a pass the history knows as flaky is rerun too */
	for (size_t i = 0; !st && i < g.n; i++)
		g.t[i].known = known_flaky(&g, &g.t[i]);
	if (!st)
		st = reruns(&g);
	if (!st)
		st = report(&g);
	for (size_t i = 0; i < g.n; i++) {
		free(g.t[i].name);
		strbuf_release(&g.t[i].av);
		strbuf_release(&g.t[i].bv);
	}
	free(g.t);
	for (int b = 0; b < 2; b++) {
		free(g.release[b]);
		free(g.first[b]);
	}
	free(g.dir);
	return st;
}
