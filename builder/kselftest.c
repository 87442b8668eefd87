// SPDX-License-Identifier: GPL-2.0-only
/* kselftest.c: a kselftest install tree -> a tapboot manifest (selection, settings, disruptive
 * list, config fragments); see kselftest.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "kconfig.h"
#include "kselftest.h"
#include "paths.h"
#include "strbuf.h"
#include "text.h"


void kselftest_opts_init(struct kselftest_opts *o)
{
	memset(o, 0, sizeof(*o));
	strlist_init(&o->targets);
	strlist_init(&o->skip_targets);
	strlist_init(&o->tests);
}

void kselftest_opts_release(struct kselftest_opts *o)
{
	strlist_release(&o->targets);
	strlist_release(&o->skip_targets);
	strlist_release(&o->tests);
}

void kselftest_info_init(struct kselftest_info *info)
{
	memset(info, 0, sizeof(*info));
}

void kselftest_info_release(struct kselftest_info *info)
{
	for (size_t i = 0; i < info->nskipped; i++) {
		free(info->skipped[i].collection);
		free(info->skipped[i].reason);
	}
	free(info->skipped);
	free(info->config_note);
	memset(info, 0, sizeof(*info));
}

void kselftest_info_describe(const struct kselftest_info *info, struct strbuf *out)
{
	strbuf_addf(out, "kselftest: %zu test%s from %zu collection%s (%zu disruptive)\n",
		    info->ntests, info->ntests == 1 ? "" : "s", info->ncollections,
		    info->ncollections == 1 ? "" : "s", info->ndisruptive);
	for (size_t i = 0; i < info->nskipped; i++)
		strbuf_addf(out, "kselftest: %s (%zu test%s) skipped: %s\n",
			    info->skipped[i].collection, info->skipped[i].ntests,
			    info->skipped[i].ntests == 1 ? "" : "s", info->skipped[i].reason);
	if (info->config_note)
		strbuf_addf(out, "kselftest: %s\n", info->config_note);
}

/* ---- small helpers ---- */

/* Read a whole file. Returns 0, 1 when it does not exist and missing_ok, or -1 after a message. */
static int read_whole(const char *path, struct strbuf *sb, bool missing_ok)
{
	char *buf;
	size_t len;

	if (read_file(path, &buf, &len) < 0) {
		strbuf_reset(sb);
		if (missing_ok && errno == ENOENT)
			return 1;
		/* open_regular's EINVAL: a FIFO, a device, a socket */
		if (errno == EINVAL)
			return error("'%s' is not a regular file", path);
		/* a directory opens and fails at the read */
		return error_errno(errno == EISDIR ? "cannot read '%s'" : "cannot open '%s'", path);
	}
	strbuf_attach(sb, buf, len);
	return 0;
}

static bool parse_seconds(const char *s, size_t len, unsigned *out)
{
	unsigned long v = 0;

	if (!len || len > 9)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	*out = (unsigned)v;
	return true;
}

static bool strlist_has(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

/* A manifest word: bare when it is plain, else double-quoted with \\ and \" escaped (the
 * manifest's word syntax, builder/inputs.c). */
static void add_word(struct strbuf *out, const char *s)
{
	bool plain = *s && *s != '#';

	for (const char *p = s; *p && plain; p++)
		if (*p == ' ' || *p == '\t' || *p == '"' || *p == '\\' || *p == '\n' || *p == '#')
			plain = false;
	if (plain) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_addch(out, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addch(out, '\\');
		if (*p == '\n')
			strbuf_addstr(out, "\\n");
		else if (*p == '\t')
			strbuf_addstr(out, "\\t");
		else
			strbuf_addch(out, *p);
	}
	strbuf_addch(out, '"');
}

/* ---- settings files ---- */

int kselftest_parse_settings(const char *buf, size_t len, const char *file, unsigned *timeout,
			     bool *has_timeout)
{
	struct line_iter it = {buf, buf + len, 0};
	const char *s;
	size_t n;

	*has_timeout = false;
	while (line_iter_next(&it, &s, &n)) {
		const char *eq;

		if (!n || *s == '#')
			continue;
		eq = memchr(s, '=', n);
		if (!eq || !text_is_ident(s, (size_t)(eq - s)))
			return error_at(file, it.no,
					"expected 'KEY=VALUE' (e.g. 'timeout=45'), not '%.*s'",
					(int)n, s);
		if ((size_t)(eq - s) == 7 && !memcmp(s, "timeout", 7)) {
			const char *v = eq + 1;
			size_t vn = n - (size_t)(v - s);

			if (!parse_seconds(v, vn, timeout))
				return error_at(file, it.no,
						"timeout '%.*s' is not a number of seconds",
						(int)vn, v);
			*has_timeout = true;
		} else {
			warning("%s:%u: unknown setting '%.*s' ignored", file, it.no, (int)(eq - s),
				s);
		}
	}
	return 0;
}

/* ---- kernel configs and fragments ---- */

/* The reason a fragment is not satisfied, or NULL. A fragment's =y or =m option is satisfied
 * by =y in the kernel, and by =m only when the kernel's modules go into the image: tapboot's
 * initramfs holds no modules otherwise, so a modular option is as absent as an unset one.
 * Options with other values (numbers, strings, =n) are not requirements a test can miss. */
static char *fragment_missing(const struct kconfig *frag, const struct kconfig *kernel,
			      bool modules)
{
	struct strbuf sb = STRBUF_INIT;
	size_t nmissing = 0;

	for (size_t i = 0; i < frag->n; i++) {
		const struct kconfig_opt *o = &frag->v[i];
		const char *have;
		bool dup = false;

		if (strcmp(o->value, "y") && strcmp(o->value, "m"))
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = !strcmp(frag->v[j].name, o->name);
		if (dup)
			continue;
		have = kconfig_get(kernel, o->name);
		if (have && (!strcmp(have, "y") || (modules && !strcmp(have, "m"))))
			continue;
		strbuf_addstr(&sb, nmissing++ ? ", " : KSELFTEST_MISSING_PREFIX);
		strbuf_addstr(&sb, o->name);
		if (have && !strcmp(have, "m"))
			strbuf_addstr(&sb, " (=m, no modules in the image)");
	}
	return nmissing ? strbuf_detach(&sb) : NULL;
}

/* ---- the list, the disruptive list, selection ---- */

struct entry {
	char *collection, *test; /* owned */
	unsigned line;
	bool selected;
};

struct collection {
	char *name; /* owned */
	unsigned timeout;
	struct strlist configs; /* the fragment's =y/=m options, in order */
	char *skip;		/* owned, the missing-options reason or NULL */
	size_t nselected;
};

struct ks {
	const struct kselftest_opts *o;
	char *list_path; /* owned */
	struct entry *e;
	size_t n, alloc;
	struct collection *c;
	size_t nc, calloc_;
	struct strlist disruptive; /* "collection" or "collection:test" */
	struct strlist privileged; /* the same */
	struct kconfig kernel;
	bool have_kernel;
};

static void ks_release(struct ks *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->e[i].collection);
		free(k->e[i].test);
	}
	free(k->e);
	for (size_t i = 0; i < k->nc; i++) {
		free(k->c[i].name);
		free(k->c[i].skip);
		strlist_release(&k->c[i].configs);
	}
	free(k->c);
	free(k->list_path);
	strlist_release(&k->disruptive);
	strlist_release(&k->privileged);
	kconfig_release(&k->kernel);
}

/* "collection:test": both parts non-empty, no blanks. */
static bool split_name(const char *s, size_t n, size_t *colon)
{
	const char *c = memchr(s, ':', n);

	if (!c || c == s || (size_t)(c - s) + 1 == n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == ' ' || s[i] == '\t')
			return false;
	*colon = (size_t)(c - s);
	return true;
}

static int parse_list(struct ks *k, const char *buf, size_t len)
{
	struct line_iter it = {buf, buf + len, 0};
	const char *s;
	size_t n, colon;

	while (line_iter_next(&it, &s, &n)) {
		size_t bad = 0;

		if (!n)
			continue;
		/* a name is one field of a console line (the builder's check_test_name): said
		 * here, where the line number is the list's */
		while (bad < n && (unsigned char)s[bad] >= 0x20 && s[bad] != 0x7f)
			bad++;
		if (bad < n)
			return error_at(k->list_path, it.no,
					"control character 0x%02x in a test name (a name is one "
					"field of a console line)",
					(unsigned char)s[bad]);
		if (!split_name(s, n, &colon) || memchr(s + colon + 1, '/', n - colon - 1))
			return error_at(k->list_path, it.no,
					"expected 'COLLECTION:TEST', not '%.*s'", (int)n, s);
		xgrow(&k->e, &k->alloc, k->n + 1, sizeof(*k->e));
		k->e[k->n] = (struct entry){xstrndup(s, colon),
					    xstrndup(s + colon + 1, n - colon - 1), it.no, false};
		k->n++;
	}
	return 0;
}

/* A list of COLLECTION or COLLECTION:TEST lines (kselftest-disruptive.txt,
 * kselftest-privileged.txt) into list: the one given, else the one tapboot ships (builder/ in
 * the source tree, DATADIR/tapboot installed). */
static int load_list(const char *given, const char *name, struct strlist *list)
{
	char *shipped = given ? NULL : tapboot_data_path(name);
	const char *path = shipped ? shipped : given;
	struct strbuf sb = STRBUF_INIT;
	struct line_iter it;
	char *d;
	const char *s;
	size_t n;
	int ret = read_whole(path, &sb, false);

	if (ret)
		goto out;
	it = (struct line_iter){sb.buf, sb.buf + sb.len, 0};
	while (line_iter_next(&it, &s, &n)) {
		const char *hash = memchr(s, '#', n);
		size_t colon;

		if (hash)
			n = (size_t)(hash - s);
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (!n)
			continue;
		if (memchr(s, ' ', n) || memchr(s, '\t', n) ||
		    (memchr(s, ':', n) && !split_name(s, n, &colon))) {
			ret = error_at(path, it.no,
				       "expected 'COLLECTION' or 'COLLECTION:TEST', not '%.*s'",
				       (int)n, s);
			goto out;
		}
		d = xstrndup(s, n);
		strlist_push(list, d);
		free(d);
	}
out:
	strbuf_release(&sb);
	free(shipped);
	return ret;
}

static bool is_listed(const struct strlist *list, const struct entry *e)
{
	for (size_t i = 0; i < list->n; i++) {
		const char *d = list->v[i];
		size_t cl = strlen(e->collection);

		if (!strcmp(d, e->collection))
			return true;
		if (!strncmp(d, e->collection, cl) && d[cl] == ':' && !strcmp(d + cl + 1, e->test))
			return true;
	}
	return false;
}

static int select_tests(struct ks *k)
{
	const struct kselftest_opts *o = k->o;
	bool all = !o->targets.n && !o->tests.n;
	int ret = 0;

	for (size_t i = 0; i < o->targets.n; i++) {
		bool found = false;

		for (size_t j = 0; j < k->n && !found; j++)
			found = !strcmp(k->e[j].collection, o->targets.v[i]);
		if (!found)
			ret = error("no collection '%s' in '%s'", o->targets.v[i], k->list_path);
	}
	for (size_t i = 0; i < o->tests.n; i++) {
		const char *t = o->tests.v[i];
		size_t colon;
		bool found = false;

		if (!split_name(t, strlen(t), &colon)) {
			ret = error("test '%s' is not COLLECTION:TEST", t);
			continue;
		}
		for (size_t j = 0; j < k->n && !found; j++)
			found = !strncmp(k->e[j].collection, t, colon) &&
				!k->e[j].collection[colon] && !strcmp(k->e[j].test, t + colon + 1);
		if (!found)
			ret = error("no test '%s' in '%s'", t, k->list_path);
	}
	/* The kernel ignores SKIP_TARGETS it does not build; a typo deserves a word, not a stop. */
	for (size_t i = 0; i < o->skip_targets.n; i++) {
		bool found = false;

		for (size_t j = 0; j < k->n && !found; j++)
			found = !strcmp(k->e[j].collection, o->skip_targets.v[i]);
		if (!found)
			warning("skipped collection '%s' is not in '%s'", o->skip_targets.v[i],
				k->list_path);
	}
	if (ret)
		return ret;
	for (size_t j = 0; j < k->n; j++) {
		struct entry *e = &k->e[j];
		char *full = xasprintf("%s:%s", e->collection, e->test);

		e->selected = all || strlist_has(&o->targets, e->collection) ||
			      strlist_has(&o->tests, full);
		if (strlist_has(&o->skip_targets, e->collection))
			e->selected = false;
		free(full);
	}
	return 0;
}

/* ---- per-collection data ---- */

static struct collection *collection_get(struct ks *k, const char *name)
{
	for (size_t i = 0; i < k->nc; i++)
		if (!strcmp(k->c[i].name, name))
			return &k->c[i];
	return NULL;
}

static int collection_load(struct ks *k, const char *name, struct collection **out)
{
	const struct kselftest_opts *o = k->o;
	struct collection *c = collection_get(k, name);
	struct strbuf sb = STRBUF_INIT;
	struct kconfig frag = KCONFIG_INIT;
	char *path;
	int r, ret = -1;

	if (c) {
		*out = c;
		return 0;
	}
	xgrow(&k->c, &k->calloc_, k->nc + 1, sizeof(*k->c));
	c = &k->c[k->nc++];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(name);
	strlist_init(&c->configs);
	c->timeout = PLAN_DEFAULT_TIMEOUT;

	path = xasprintf("%s/%s/settings", o->install_dir, name);
	r = read_whole(path, &sb, true);
	if (r < 0)
		goto out;
	if (r == 0) {
		unsigned t;
		bool has;

		if (kselftest_parse_settings(sb.buf, sb.len, path, &t, &has))
			goto out;
		if (has)
			c->timeout = t;
	}
	if (o->src_dir) {
		free(path);
		path = xasprintf("%s/%s/config", o->src_dir, name);
		r = read_whole(path, &sb, true);
		if (r < 0)
			goto out;
		if (r == 0) {
			if (kconfig_parse(sb.buf, sb.len, path, &frag))
				goto out;
			for (size_t i = 0; i < frag.n; i++)
				if ((!strcmp(frag.v[i].value, "y") ||
				     !strcmp(frag.v[i].value, "m")) &&
				    !strlist_has(&c->configs, frag.v[i].name))
					strlist_push(&c->configs, frag.v[i].name);
			if (k->have_kernel)
				c->skip = fragment_missing(&frag, &k->kernel, o->modules);
		}
	}
	*out = c;
	ret = 0;
out:
	kconfig_release(&frag);
	strbuf_release(&sb);
	free(path);
	return ret;
}

static int load_kernel_config(struct ks *k, struct kselftest_info *info)
{
	const struct kselftest_opts *o = k->o;
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	if (!o->src_dir) {
		info->config_note =
			xstrdup("no kselftest source (--kselftest-src): config fragments "
				"not checked");
		return 0;
	}
	if (!o->kernel_config) {
		info->config_note =
			xstrdup("kernel config unknown (--config): config fragments not "
				"checked, no tests skipped for missing options");
		return 0;
	}
	if (read_whole(o->kernel_config, &sb, false) ||
	    kconfig_parse(sb.buf, sb.len, o->kernel_config, &k->kernel)) {
		ret = -1;
	} else {
		k->have_kernel = true;
		info->config_checked = true;
	}
	strbuf_release(&sb);
	return ret;
}

/* ---- the manifest ---- */

static int put_strbuf(FILE *fp, const void *sb)
{
	const struct strbuf *b = sb;

	return fwrite(b->buf, 1, b->len, fp) == b->len ? 0 : -1;
}

static void note_skip(struct kselftest_info *info, const struct collection *c)
{
	for (size_t i = 0; i < info->nskipped; i++) {
		if (!strcmp(info->skipped[i].collection, c->name)) {
			info->skipped[i].ntests++;
			return;
		}
	}
	xgrow(&info->skipped, &info->skipped_alloc, info->nskipped + 1, sizeof(*info->skipped));
	info->skipped[info->nskipped++] =
		(struct kselftest_skip){xstrdup(c->name), xstrdup(c->skip), 1};
}

static int write_test(struct ks *k, const struct entry *e, struct strbuf *out,
		      struct kselftest_info *info)
{
	const struct kselftest_opts *o = k->o;
	struct collection *c;
	struct stat st;
	char *host, *s;

	if (collection_load(k, e->collection, &c))
		return -1;
	host = xasprintf("%s/%s/%s", o->install_dir, e->collection, e->test);
	if (stat(host, &st) || !S_ISREG(st.st_mode)) {
		/* run_kselftest.sh reports such a test "not ok"; a manifest cannot say "fail
		 * without running", so stop and say what is wrong with the tree. */
		error_at(k->list_path, e->line,
			 "test '%s:%s' is listed but '%s' is not a file (did "
			 "the collection build?)",
			 e->collection, e->test, host);
		free(host);
		return -1;
	}
	free(host);

	/* the builder's errors about this test name the list's line, not this file's */
	strbuf_addf(out, "#origin %s:%u\n", k->list_path, e->line);
	s = xasprintf("%s:%s", e->collection, e->test);
	strbuf_addstr(out, "test ");
	add_word(out, s);
	free(s);
	s = xasprintf(KSELFTEST_IMAGE_DIR "/%s/%s", e->collection, e->test);
	strbuf_addch(out, ' ');
	add_word(out, s);
	free(s);
	s = xasprintf(KSELFTEST_IMAGE_DIR "/%s", e->collection);
	strbuf_addstr(out, "\n    cwd ");
	add_word(out, s);
	free(s);
	strbuf_addf(out, "\n    timeout %u\n", o->timeout ? o->timeout : c->timeout);
	if (is_listed(&k->disruptive, e)) {
		strbuf_addstr(out, "    flag disruptive\n");
		info->ndisruptive++;
	}
	/* the capabilities every other test runs without (init/privilege.c) */
	if (is_listed(&k->privileged, e))
		strbuf_addstr(out, "    flag privileged\n");
	for (size_t i = 0; i < c->configs.n; i++)
		strbuf_addf(out, "    config %s\n", c->configs.v[i]);
	if (c->skip) {
		strbuf_addstr(out, "    skip ");
		add_word(out, c->skip);
		strbuf_addch(out, '\n');
		info->nconfig_skipped++;
		note_skip(info, c);
	}
	if (!c->nselected++)
		info->ncollections++;
	info->ntests++;
	return 0;
}

int kselftest_manifest(const struct kselftest_opts *o, const char *manifest_path,
		       struct kselftest_info *info)
{
	struct ks k = {0};
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	char *abs = NULL;
	int ret = -1;

	k.o = o;
	strlist_init(&k.disruptive);
	strlist_init(&k.privileged);
	if (!o->install_dir) {
		error("no kselftest install directory given");
		goto out;
	}
	abs = realpath(o->install_dir, NULL);
	if (!abs) {
		error_errno("cannot read kselftest install directory '%s'", o->install_dir);
		goto out;
	}
	k.list_path = xasprintf("%s/" KSELFTEST_LIST, o->install_dir);
	if (read_whole(k.list_path, &sb, false) || parse_list(&k, sb.buf, sb.len))
		goto out;
	if (!k.n) {
		error("'%s' lists no tests", k.list_path);
		goto out;
	}
	if (select_tests(&k) ||
	    load_list(o->disruptive_list, "kselftest-disruptive.txt", &k.disruptive) ||
	    load_list(o->privileged_list, "kselftest-privileged.txt", &k.privileged) || load_kernel_config(&k, info))
		goto out;

	strbuf_addstr(&out,
		      "tapboot-manifest 1\n# a kselftest install tree, written by tapboot\ntree ");
	add_word(&out, abs);
	strbuf_addstr(&out, " " KSELFTEST_IMAGE_DIR "\n");
	for (size_t i = 0; i < k.n; i++)
		if (k.e[i].selected && write_test(&k, &k.e[i], &out, info))
			goto out;
	if (!info->ntests) {
		error("no tests selected from '%s' (all left out by --skip-targets)", k.list_path);
		goto out;
	}
	ret = write_file_atomic(manifest_path, 0, 0644, put_strbuf, &out);
out:
	free(abs);
	strbuf_release(&sb);
	strbuf_release(&out);
	ks_release(&k);
	return ret;
}

/* ---- names ---- */

char *kselftest_name_to_runner(const char *name)
{
	size_t colon;

	if (!split_name(name, strlen(name), &colon))
		return NULL;
	return xasprintf(KSELFTEST_RUNNER_PREFIX "%.*s: %s", (int)colon, name, name + colon + 1);
}

char *kselftest_name_from_runner(const char *runner_name)
{
	size_t pl = strlen(KSELFTEST_RUNNER_PREFIX);
	const char *c, *sep;

	if (strncmp(runner_name, KSELFTEST_RUNNER_PREFIX, pl))
		return NULL;
	c = runner_name + pl;
	sep = strstr(c, ": ");
	if (!sep || sep == c || !sep[2] || strchr(sep + 2, ' ') ||
	    memchr(c, ' ', (size_t)(sep - c)))
		return NULL;
	return xasprintf("%.*s:%s", (int)(sep - c), c, sep + 2);
}
