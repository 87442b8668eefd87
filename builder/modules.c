// SPDX-License-Identifier: GPL-2.0-only
/* modules.c: kernel modules in the image: the requested ones with their dependencies
 * (modules.dep), in load order, or the whole tree. */
#include "pack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "inputs.h"
#include "plan.h"
#include "strbuf.h"

static void module_name(const char *path, struct strbuf *out)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *ko = strstr(base, ".ko");

	strbuf_reset(out);
	for (const char *s = base; *s && s != ko; s++)
		strbuf_addch(out, *s == '-' ? '_' : *s);
}

static bool same_module(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (!((*a == *b) || ((*a == '-' || *a == '_') && (*b == '-' || *b == '_'))))
			return false;
	return !*a && !*b;
}

/* modules.dep lines: "kernel/x/foo.ko: kernel/y/bar.ko kernel/z/baz.ko" (deps in load order
 * reversed: the last one loads first, as modprobe does). */
struct moddep {
	char **path; /* [i]: module path relative to the tree */
	char **deps; /* [i]: the rest of its line */
	size_t n, alloc, dalloc;
};

static long moddep_find(const struct moddep *m, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb);
	for (size_t i = 0; i < m->n; i++) {
		module_name(m->path[i], &sb);
		if (same_module(sb.buf, name)) {
			strbuf_release(&sb);
			return (long)i;
		}
	}
	strbuf_release(&sb);
	return -1;
}

static int moddep_add(struct moddep *m, size_t i, struct strlist *order, struct strlist *files,
		      int depth)
{
	char *deps, *p, *w;
	struct strbuf sb = STRBUF_INIT;
	struct strlist list;

	for (size_t k = 0; k < files->n; k++)
		if (!strcmp(files->v[k], m->path[i]))
			return 0;
	if (depth > 64)
		return error("modules.dep: dependency loop at '%s'", m->path[i]);
	deps = xstrdup(m->deps[i]);
	strlist_init(&list);
	for (p = deps; (w = strtok_r(p, " \t", &p));)
		strlist_push(&list, w);
	for (size_t k = list.n; k-- > 0;) {
		long j = -1;

		for (size_t q = 0; q < m->n; q++)
			if (!strcmp(m->path[q], list.v[k]))
				j = (long)q;
		if (j >= 0 && moddep_add(m, (size_t)j, order, files, depth + 1)) {
			free(deps);
			strlist_release(&list);
			return -1;
		}
	}
	strlist_push(files, m->path[i]);
	strbuf_init(&sb);
	module_name(m->path[i], &sb);
	strlist_push(order, sb.buf);
	strbuf_release(&sb);
	free(deps);
	strlist_release(&list);
	return 0;
}

/* modules.builtin lists the modules built into the kernel, one path a line. */
static bool module_builtin(const char *dir, const char *name)
{
	char *path = xasprintf("%s/modules.builtin", dir), *line = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t len = 0;
	bool found = false;
	FILE *fp = fopen(path, "r");

	strbuf_init(&sb);
	while (fp && !found && getline(&line, &len, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		module_name(line, &sb);
		found = same_module(sb.buf, name);
	}
	if (fp)
		fclose(fp);
	free(line);
	free(path);
	strbuf_release(&sb);
	return found;
}

/* A host directory into the image at image, packed as the tests' trees are (inputs.c). */
static int add_tree_at(struct image *img, const char *host, const char *image)
{
	struct builder_target none = {0};
	struct plan p;
	struct inputs in;
	int ret;

	plan_init(&p);
	inputs_init(&in, img, &p, &none, 0);
	ret = inputs_add_tree(&in, host, image, false);
	inputs_release(&in);
	plan_release(&p);
	return ret;
}

/* With modules requested: the modules.* indexes plus each requested module and its
 * dependencies, the plan's list in load order; without: the whole tree. */
int builder_pack_modules(struct image *img, const char *dir, const struct strlist *want,
			 struct strlist *order)
{
	char *real = realpath(dir, NULL), *version, *top, *depfile, *buf = NULL;
	struct moddep m = {0};
	struct strlist files;
	size_t len = 0;
	FILE *fp;
	int ret = -1;

	if (!real)
		return error_errno("cannot read modules directory '%s'", dir);
	/* An INSTALL_MOD_PATH root holding lib/modules/VERSION (one version) works too. */
	{
		char *mods = xasprintf("%s/lib/modules", real),
		     *dep = xasprintf("%s/modules.dep", real);
		struct dirent **names;
		int n = access(dep, R_OK) ? scandir(mods, &names, NULL, alphasort) : -1;
		int found = 0;
		char *one = NULL;

		for (int i = 0; i < n; i++) {
			if (names[i]->d_name[0] != '.') {
				found++;
				free(one);
				one = xasprintf("%s/%s", mods, names[i]->d_name);
			}
			free(names[i]);
		}
		if (n >= 0)
			free(names);
		if (found == 1) {
			free(real);
			real = one;
			one = NULL;
		}
		free(one);
		free(mods);
		free(dep);
	}
	version = strrchr(real, '/') + 1;
	top = xasprintf("lib/modules/%s", version);
	strlist_init(&files);
	if (!want->n) {
		ret = add_tree_at(img, real, top);
		goto out;
	}
	depfile = xasprintf("%s/modules.dep", real);
	fp = fopen(depfile, "r");
	if (!fp) {
		error_errno("cannot open '%s' (run depmod for the tree)", depfile);
		free(depfile);
		goto out;
	}
	while (getline(&buf, &len, fp) > 0) {
		char *colon = strchr(buf, ':');

		if (!colon)
			continue;
		*colon = '\0';
		buf[strcspn(colon + 1, "\n") + (size_t)(colon + 1 - buf)] = '\0';
		xgrow(&m.path, &m.alloc, m.n + 1, sizeof(*m.path));
		xgrow(&m.deps, &m.dalloc, m.n + 1, sizeof(*m.deps));
		m.path[m.n] = xstrdup(buf);
		m.deps[m.n] = xstrdup(colon + 1);
		m.n++;
	}
	free(buf);
	fclose(fp);
	for (size_t i = 0; i < want->n; i++) {
		long j = moddep_find(&m, want->v[i]);

		if (j < 0 && module_builtin(real, want->v[i]))
			continue; /* built in: nothing to load */
		if (j < 0) {
			error("module '%s' is not in '%s'", want->v[i], depfile);
			free(depfile);
			goto out_free;
		}
		if (moddep_add(&m, (size_t)j, order, &files, 0)) {
			free(depfile);
			goto out_free;
		}
	}
	free(depfile);
	{
		static const char *const idx[] = {"modules.dep",
						  "modules.dep.bin",
						  "modules.alias",
						  "modules.alias.bin",
						  "modules.builtin",
						  "modules.builtin.bin",
						  "modules.builtin.modinfo",
						  "modules.order",
						  "modules.softdep",
						  "modules.symbols",
						  "modules.symbols.bin",
						  "modules.devname"};

		for (unsigned i = 0; i < ARRAY_SIZE(idx); i++)
			strlist_push(&files, idx[i]);
	}
	ret = 0;
	for (size_t i = 0; i < files.n && !ret; i++) {
		char *h = xasprintf("%s/%s", real, files.v[i]);
		char *im = xasprintf("%s/%s", top, files.v[i]);
		char *norm = image_path_normalise(im, h);

		if (!norm)
			ret = -1;
		else if (!access(h, R_OK) && !image_add_file(img, norm, h, 0644, h))
			ret = -1;
		else if (access(h, R_OK) && strncmp(files.v[i], "modules.", 8))
			ret = error_errno("cannot read module '%s'", h);
		free(norm);
		free(h);
		free(im);
	}
out_free:
	for (size_t i = 0; i < m.n; i++) {
		free(m.path[i]);
		free(m.deps[i]);
	}
	free(m.path);
	free(m.deps);
out:
	strlist_release(&files);
	free(top);
	free(real);
	return ret;
}
