// SPDX-License-Identifier: GPL-2.0-only
/* series.c: tapboot series: every commit of a range in turn, in one git worktree of the tree
 * and one incremental build directory, built and tested by `tapboot run --build --bisect` (this
 * binary again, so each commit's run is exactly a run); a table commit x test, and the first
 * commit that broke each test (or the build) that passed at BASE. ktest.pl's patchcheck does
 * the same one commit at a time on a real machine. */
#include "series.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "json.h"
#include "json_read.h"
#include "kbuild.h"
#include "proc.h"
#include "run.h"
#include "strbuf.h"

/* One commit's outcome. */
struct commit {
	char sha[41];
	char *subject;
	char *dir;  /* its results directory */
	int status; /* run's exit status; EXIT_BISECT_SKIP: did not build */
	struct json results;
	bool have_results;
};

/* git -C src ARGS..., its stdout. -1 after a message. */
static int git(const char *src, struct strbuf *out, const char *a1, const char *a2, const char *a3,
	       const char *a4)
{
	const char *argv[] = {"/usr/bin/git", "-C", src, a1, a2, a3, a4, NULL};
	int st;

	strbuf_reset(out);
	st = proc_capture(argv, out, false);
	if (st != 0)
		return error("git -C %s %s %s%s%s failed (exit %d)", src, a1, a2 ? a2 : "",
			     a3 ? " " : "", a3 ? a3 : "", st);
	while (out->len && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = '\0';
	return 0;
}

/* The commits: BASE, then BASE..HEAD oldest first. -1 after a message. */
static int list_commits(const char *src, const char *range, struct commit **cs, size_t *n)
{
	const char *dots = strstr(range, "..");
	struct strbuf out = STRBUF_INIT;
	char *base;
	size_t alloc = 0;
	int ret = -1;

	*cs = NULL;
	*n = 0;
	if (!dots || dots == range || strstr(range, "...")) {
		strbuf_release(&out);
		return error("series: '%s' is not a range BASE..HEAD", range);
	}
	base = xstrndup(range, dots - range);
	{
		char *spec = xasprintf("%s^{commit}", base);

		if (git(src, &out, "rev-parse", "--verify", spec, NULL) < 0) {
			free(spec);
			goto out;
		}
		free(spec);
	}
	xgrow(cs, &alloc, 1, sizeof(**cs));
	memset(&(*cs)[0], 0, sizeof(**cs));
	snprintf((*cs)[0].sha, sizeof((*cs)[0].sha), "%s", out.buf);
	*n = 1;
	if (git(src, &out, "rev-list", "--reverse", range, NULL) < 0)
		goto out;
	for (char *p = out.buf, *save = NULL, *l; (l = strtok_r(p, "\n", &save)); p = NULL) {
		xgrow(cs, &alloc, *n + 1, sizeof(**cs));
		memset(&(*cs)[*n], 0, sizeof(**cs));
		snprintf((*cs)[*n].sha, sizeof((*cs)[*n].sha), "%s", l);
		(*n)++;
	}
	for (size_t i = 0; i < *n; i++) {
		if (git(src, &out, "log", "-1", "--format=%s", (*cs)[i].sha) < 0)
			goto out;
		(*cs)[i].subject = xstrdup(out.buf);
	}
	ret = 0;
out:
	free(base);
	strbuf_release(&out);
	return ret;
}

/* The worktree the series checks out commits in: cache/series/NAME-HASH, made once per tree
 * (git worktree add) and reused, so its build directory stays incremental across series. */
static char *worktree(const char *src)
{
	char *wt = kbuild_cache_dir("series", src, NULL), *parent = xstrdup(wt), *gitfile;
	struct strbuf out = STRBUF_INIT;
	struct stat st;

	*strrchr(parent, '/') = '\0';
	gitfile = xasprintf("%s/.git", wt);
	if (mkdir_p(parent) < 0)
		goto fail;
	if (stat(wt, &st) == 0) {
		if (access(gitfile, F_OK) == 0)
			goto done;
		error("'%s' is in the way of the series' worktree: remove it", wt);
		goto fail;
	}
	note("series: a worktree of %s in %s", src, wt);
	if (git(src, &out, "worktree", "add", "--detach", wt) < 0)
		goto fail;
done:
	free(gitfile);
	strbuf_release(&out);
	free(parent);
	return wt;
fail:
	free(gitfile);
	strbuf_release(&out);
	free(parent);
	free(wt);
	return NULL;
}

/* Run this binary with argv; its exit status (128 + signal), -1 when it could not start. */
static int run_self(struct strlist *argv)
{
	pid_t pid = proc_fork();
	int st;

	if (pid < 0)
		return error_errno("cannot fork");
	if (pid == 0) {
		execv("/proc/self/exe", argv->v);
		fprintf(stderr, "tapboot: cannot run itself: %s\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return error_errno("cannot wait for the run");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The result of test name in c's results.json; NULL when it has none. */
static const char *result_of(const struct commit *c, const char *name)
{
	const struct json *tests = c->have_results ? json_get(&c->results, "tests") : NULL;

	for (size_t i = 0; tests && tests->type == JSON_ARRAY && i < tests->n; i++) {
		const char *n = json_get_str(&tests->items[i], "name");

		if (n && !strcmp(n, name))
			return json_get_str(&tests->items[i], "result");
	}
	return NULL;
}

static void load_results(struct commit *c)
{
	char *path = xasprintf("%s/results.json", c->dir), *buf;
	size_t len;

	if (read_file(path, &buf, &len) == 0) {
		c->have_results = json_parse(&c->results, buf, len, path) == 0;
		free(buf);
	}
	free(path);
}

/* The names of every test in any commit's results, in first-seen order. */
static void all_tests(const struct commit *cs, size_t n, struct strlist *names)
{
	for (size_t i = 0; i < n; i++) {
		const struct json *t = cs[i].have_results ? json_get(&cs[i].results, "tests") : NULL;

		for (size_t k = 0; t && t->type == JSON_ARRAY && k < t->n; k++) {
			const char *name = json_get_str(&t->items[k], "name");
			bool seen = false;

			for (size_t j = 0; name && j < names->n; j++)
				seen |= !strcmp(names->v[j], name);
			if (name && !seen)
				strlist_push(names, name);
		}
	}
}

static const char *cell(const struct commit *c, const char *name)
{
	const char *r;

	if (c->status == EXIT_BISECT_SKIP)
		return "no-build";
	r = result_of(c, name);
	return r ? r : "-";
}

static void print_table(const struct commit *cs, size_t n, const struct strlist *names)
{
	printf("\n%-12s", "commit");
	for (size_t t = 0; t < names->n; t++)
		printf(" %-12.12s", names->v[t]);
	printf("  subject\n");
	for (size_t i = 0; i < n; i++) {
		printf("%-12.12s", cs[i].sha);
		for (size_t t = 0; t < names->n; t++)
			printf(" %-12.12s", cell(&cs[i], names->v[t]));
		printf("  %s%s\n", i == 0 ? "(base) " : "", cs[i].subject);
	}
	printf("\n");
}

/* One broken thing (test NULL: the build) at commit c: said, and in series.json. */
static void broke(FILE *fp, bool *first, const char *test, const struct commit *c, const char *what)
{
	printf("%s broke at %.12s %s (%s)\n", test ? test : "the build", c->sha, c->subject, what);
	if (!fp)
		return;
	fputs(*first ? "\n  {\"test\": " : ",\n  {\"test\": ", fp);
	if (test)
		json_put_str(fp, test);
	else
		fputs("null", fp);
	fprintf(fp, ", \"commit\": \"%s\"}", c->sha);
	*first = false;
}

/* The table, the verdicts and series.json; the exit status. */
static int report(const struct commit *cs, size_t n, const char *out_dir)
{
	struct strlist names;
	char *jpath = xasprintf("%s/series.json", out_dir);
	FILE *fp = fopen(jpath, "w");
	bool first = true;

	strlist_init(&names);
	all_tests(cs, n, &names);
	print_table(cs, n, &names);
	if (fp)
		fputs("{\"commits\": [", fp);
	for (size_t i = 0; fp && i < n; i++) {
		fprintf(fp, "%s\n  {\"commit\": \"%s\", \"subject\": ", i ? "," : "", cs[i].sha);
		json_put_str(fp, cs[i].subject);
		fprintf(fp, ", \"built\": %s, \"exit\": %d, \"dir\": ",
			cs[i].status == EXIT_BISECT_SKIP ? "false" : "true", cs[i].status);
		json_put_str(fp, cs[i].dir);
		fputc('}', fp);
	}
	if (fp)
		fputs("\n], \"broken\": [", fp);
	for (size_t i = 1; i < n; i++) {
		if (cs[i].status == EXIT_BISECT_SKIP) {
			broke(fp, &first, NULL, &cs[i], "it does not build");
			break;
		}
	}
	for (size_t t = 0; t < names.n; t++) {
		const char *r0 = result_of(&cs[0], names.v[t]);

		for (size_t i = 1; r0 && !strcmp(r0, "pass") && i < n; i++) {
			const char *r = result_of(&cs[i], names.v[t]);
			char *what;

			if (cs[i].status == EXIT_BISECT_SKIP || (r && !strcmp(r, "pass")))
				continue;
			what = xasprintf("%s there, pass at the base", r ? r : "not run");
			broke(fp, &first, names.v[t], &cs[i], what);
			free(what);
			break;
		}
	}
	if (first)
		printf("no commit broke the build or a test that passed at the base\n");
	if (!fp || fputs("\n]}\n", fp) < 0 || fclose(fp) != 0)
		warning_errno("cannot write '%s'", jpath);
	free(jpath);
	strlist_release(&names);
	return first ? EXIT_PASS : EXIT_TESTS_FAILED;
}

/* One commit: checked out in the worktree, then run --build there. */
static int test_commit(struct commit *c, size_t idx, const char *wt, const char *bdir,
		       const char *out, const struct strlist *pass)
{
	struct strbuf sink = STRBUF_INIT;
	struct strlist argv;
	char num[24];

	snprintf(num, sizeof(num), "%02zu", idx);
	c->dir = xasprintf("%s/%s-%.12s", out, num, c->sha);
	if (git(wt, &sink, "checkout", "-q", "--detach", c->sha) < 0) {
		strbuf_release(&sink);
		return -1;
	}
	strbuf_release(&sink);
	printf("== %s %.12s %s\n", num, c->sha, c->subject);
	fflush(stdout);
	strlist_init(&argv);
	strlist_push(&argv, "tapboot");
	strlist_push(&argv, "run");
	strlist_push(&argv, "--build");
	strlist_push(&argv, wt);
	strlist_push(&argv, "--bisect");
	if (bdir) {
		strlist_push(&argv, "-O");
		strlist_push(&argv, bdir);
	}
	strlist_push(&argv, "-o");
	strlist_push(&argv, c->dir);
	strlist_push(&argv, "--force");
	for (size_t i = 0; i < pass->n; i++)
		strlist_push(&argv, pass->v[i]);
	c->status = run_self(&argv);
	strlist_release(&argv);
	load_results(c);
	return 0;
}

int series_run(const struct series_opts *o)
{
	struct commit *cs = NULL;
	size_t n = 0;
	char *wt = NULL, *out_dir = NULL;
	int status = EXIT_USAGE;

	if (list_commits(o->src, o->range, &cs, &n) < 0 || !(wt = worktree(o->src)))
		goto out;
	if (o->out) {
		if (mkdir_p(o->out) < 0)
			goto out;
		out_dir = xstrdup(o->out);
	} else if (!(out_dir = run_new_results_dir("series"))) {
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (test_commit(&cs[i], i, wt, o->build_dir, out_dir, &o->pass) < 0)
			goto out;
		if (cs[i].status == EXIT_INTERRUPTED) {
			status = EXIT_INTERRUPTED;
			goto out;
		}
		if (i == 0 && cs[0].status == EXIT_BISECT_SKIP) {
			error("series: the base %.12s does not build: nothing to compare with",
			      cs[0].sha);
			goto out;
		}
	}
	status = report(cs, n, out_dir);
out:
	for (size_t i = 0; i < n; i++) {
		free(cs[i].subject);
		free(cs[i].dir);
		if (cs[i].have_results)
			json_release(&cs[i].results);
	}
	free(cs);
	free(wt);
	free(out_dir);
	return status;
}
