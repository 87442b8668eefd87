// SPDX-License-Identifier: GPL-2.0-only
/* deps.c: what the tests need besides themselves: their interpreters and shared libraries,
 * found in the target's sysroot the way ld.so finds them. */
#include "pack.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch_config.h"
#include "elfinfo.h"
#include "error.h"
#include "strbuf.h"

/* Binaries of the host's machine run here: from the configs (lib/arch_config.c). */
bool builder_runs_here(const struct builder_target *t)
{
	const struct arch_config *h = arch_config_host();

	return h && h->elf_machine == t->elf_machine;
}

/* The target's configs/<arch>.conf (by its arch, else by its ELF machine and class): its
 * multiarch triple and cross sysroot. -1 when no config names it. */
int builder_target_config(const struct builder_target *t, struct arch_config *c)
{
	char *arch = t->arch ? xasprintf("%s/%s.conf", arch_config_dir(), t->arch) : NULL;
	int ret = -1;

	/* an arch without a config is no error here: it has no triple, no cross sysroot */
	if (arch && access(arch, R_OK) == 0) {
		free(arch);
		arch = xstrdup(t->arch);
	} else if (arch) {
		free(arch);
		arch = NULL;
	} else {
		arch = arch_config_find_elf(arch_config_dir(), t->elf_machine, t->elf_class, false);
	}
	arch_config_init(c);
	if (arch && arch_config_load(c, arch_config_dir(), arch) == 0 &&
	    c->elf_machine == t->elf_machine && c->elf_class == t->elf_class)
		ret = 0;
	free(arch);
	return ret;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* --sysroot, else / for the host's architecture and Debian's cross sysroot for others. A
 * configured cross sysroot that is missing for the host's own architecture (configs/x86_64.conf
 * names /usr/x86_64-linux-gnu, absent on an x86_64 host) falls back to /. */
char *builder_pick_sysroot(const struct builder_target *t)
{
	bool host = builder_runs_here(t);
	struct arch_config c;
	char *root;

	if (t->sysroot && (is_dir(t->sysroot) || !host))
		return xstrdup(t->sysroot);
	if (host || builder_target_config(t, &c) < 0 || !c.sysroot || !*c.sysroot)
		root = xstrdup("/");
	else
		root = xstrdup(c.sysroot);
	if (!host)
		arch_config_release(&c);
	return root;
}

/* ---- dynamic dependencies ---- */

struct deps {
	struct image *img;
	const struct builder_target *t;
	const char *sysroot;
	struct strlist dirs; /* sysroot-relative library directories, search order */
	struct strlist done; /* image paths already followed */
	char *interp_base;   /* the current test's interpreter's file name (its soname) */
};

static char *join(const char *root, const char *p)
{
	if (!strcmp(root, "/"))
		return xstrdup(p);
	return xasprintf("%s%s%s", root, p[0] == '/' ? "" : "/", p);
}

/* Follow symlinks of the last components inside root: an absolute target means root/target,
 * as the guest will see it. Returns the host path of a regular file, or NULL. */
static char *root_resolve(const char *root, const char *image_path)
{
	char *p = xstrdup(image_path);

	for (int hops = 0; hops < 40; hops++) {
		char *h = join(root, p), target[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (lstat(h, &st)) {
			free(h);
			break;
		}
		if (S_ISREG(st.st_mode)) {
			free(p);
			return h;
		}
		if (!S_ISLNK(st.st_mode) || (n = readlink(h, target, sizeof(target) - 1)) < 0) {
			free(h);
			break;
		}
		target[n] = '\0';
		free(h);
		if (target[0] == '/') {
			free(p);
			p = xstrdup(target);
		} else {
			char *slash = strrchr(p, '/');
			char *np = xasprintf("%.*s/%s", slash ? (int)(slash - p) : 0, p, target);

			free(p);
			p = np;
		}
	}
	free(p);
	return NULL;
}

/* Whether path is an ELF file for t's machine and class (a damaged one says so). A library of
 * another architecture in the same directory is skipped, as ld.so does. */
bool builder_elf_matches(const char *path, const struct builder_target *t)
{
	struct elfinfo ei;
	bool ok;

	elfinfo_init(&ei);
	ok = !elfinfo_read(&ei, path, path) && ei.is_elf && ei.machine == t->elf_machine &&
	     ei.bits == t->elf_class;
	elfinfo_release(&ei);
	return ok;
}

static int deps_follow(struct deps *d, const char *host, const char *image, const char *test_host,
		       const char *test_image, const char *origin);

/* Pack host at image (unless the image has it) and follow its own dependencies. */
static int deps_pack(struct deps *d, const char *host, const char *image, const char *test_host,
		     const char *test_image, const char *origin)
{
	char *norm = image_path_normalise(image, origin);
	int ret = 0;

	if (!norm)
		return -1;
	for (size_t i = 0; i < d->done.n; i++)
		if (!strcmp(d->done.v[i], norm)) {
			free(norm);
			return 0;
		}
	strlist_push(&d->done, norm);
	if (!image_has(d->img, norm) && !image_add_file(d->img, norm, host, 0755, origin))
		ret = -1;
	if (!ret)
		ret = deps_follow(d, host, norm, test_host, test_image, origin);
	free(norm);
	return ret;
}

char *builder_dir_of(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash ? xstrndup(p, (size_t)(slash - p)) : xstrdup(".");
}

/* Look a DT_NEEDED name up the way ld.so does: DT_RPATH (when there is no DT_RUNPATH), then
 * DT_RUNPATH, then the test's own directory (kselftest's rseq links a library there, found
 * through -rpath=./ and the test's working directory), then the system directories. */
static int deps_lookup(struct deps *d, const struct elfinfo *ei, const char *name, const char *host,
		       const char *image, const char *test_host, const char *test_image,
		       const char *origin)
{
	const struct strlist *paths[2] = {ei->runpath.n ? NULL : &ei->rpath, &ei->runpath};
	char *obj_hdir = builder_dir_of(host), *obj_idir = builder_dir_of(image);
	char *test_hdir = builder_dir_of(test_host), *test_idir = builder_dir_of(test_image);
	int ret = 1;

	for (int k = 0; k < 2 && ret > 0; k++) {
		for (size_t i = 0; paths[k] && i < paths[k]->n && ret > 0; i++) {
			const char *e = paths[k]->v[i];
			char *h, *im;

			if (!strncmp(e, "$ORIGIN", 7) || !strncmp(e, "${ORIGIN}", 9)) {
				const char *rest = e + (e[1] == '{' ? 9 : 7);

				h = xasprintf("%s%s/%s", obj_hdir, rest, name);
				im = xasprintf("%s%s/%s", obj_idir, rest, name);
			} else if (e[0] == '/') {
				char *r = join(d->sysroot, e);

				h = xasprintf("%s/%s", r, name);
				im = xasprintf("%s/%s", e, name);
				free(r);
			} else {
				/* relative to the working directory: the test's directory */
				h = xasprintf("%s/%s/%s", test_hdir, e, name);
				im = xasprintf("%s/%s/%s", test_idir, e, name);
			}
			if (!access(h, R_OK) && builder_elf_matches(h, d->t)) {
				char *real = realpath(h, NULL);

				ret = deps_pack(d, real ? real : h, im, test_host, test_image,
						origin);
				free(real);
			}
			free(h);
			free(im);
		}
	}
	if (ret > 0) {
		char *h = xasprintf("%s/%s", test_hdir, name);

		if (!access(h, R_OK) && builder_elf_matches(h, d->t)) {
			char *real = realpath(h, NULL), *im = xasprintf("%s/%s", test_idir, name);

			ret = deps_pack(d, real ? real : h, im, test_host, test_image, origin);
			free(real);
			free(im);
		}
		free(h);
	}
	for (size_t i = 0; i < d->dirs.n && ret > 0; i++) {
		char *im = xasprintf("%s/%s", d->dirs.v[i], name);
		char *h = root_resolve(d->sysroot, im);

		if (h && builder_elf_matches(h, d->t))
			ret = deps_pack(d, h, im, test_host, test_image, origin);
		free(h);
		free(im);
	}
	if (ret > 0)
		ret = error(ORIGIN_FMT
			    "'%s' needs '%s', which is not in the sysroot '%s' (searched %s/lib, "
			    "%s/usr/lib and the multiarch directories)",
			    ORIGIN_ARGS(origin, host), host, name, d->sysroot,
			    strcmp(d->sysroot, "/") ? d->sysroot : "",
			    strcmp(d->sysroot, "/") ? d->sysroot : "");
	free(obj_hdir);
	free(obj_idir);
	free(test_hdir);
	free(test_idir);
	return ret;
}

static int deps_follow(struct deps *d, const char *host, const char *image, const char *test_host,
		       const char *test_image, const char *origin)
{
	struct elfinfo ei;
	int ret = 0;

	elfinfo_init(&ei);
	if (elfinfo_read(&ei, host, origin))
		return -1;
	if (ei.interp) {
		char *h = root_resolve(d->sysroot, ei.interp);

		free(d->interp_base);
		d->interp_base =
			xstrdup(strrchr(ei.interp, '/') ? strrchr(ei.interp, '/') + 1 : ei.interp);
		if (!h)
			ret = error(ORIGIN_FMT "'%s' needs the interpreter '%s', which is not in "
					       "the sysroot '%s'",
				    ORIGIN_ARGS(origin, host), host, ei.interp, d->sysroot);
		else
			ret = deps_pack(d, h, ei.interp, test_host, test_image, origin);
		free(h);
	}
	for (size_t i = 0; !ret && i < ei.needed.n; i++) {
		const char *n = ei.needed.v[i];

		if (strchr(n, '/'))
			continue; /* a path: ld.so opens it as it is; nothing to look up */
		/* libc needs ld.so by its soname: the running interpreter satisfies it. */
		if (d->interp_base && !strcmp(n, d->interp_base))
			continue;
		ret = deps_lookup(d, &ei, n, host, image, test_host, test_image, origin);
	}
	elfinfo_release(&ei);
	return ret;
}

int builder_pack_deps(struct image *img, const struct inputs *in, const struct builder_target *t,
		      const char *sysroot)
{
	/* "@" stands for the multiarch triple. */
	static const char *const dirs[] = {"/lib/@", "/usr/lib/@", "/lib64",   "/usr/lib64",
					   "/lib32", "/lib",	   "/usr/lib", "/usr/local/lib"};
	struct deps d = {img, t, sysroot, {0}, {0}, NULL};
	struct arch_config c;
	const char *multiarch = NULL;
	int ret = 0;

	strlist_init(&d.dirs);
	strlist_init(&d.done);
	if (builder_target_config(t, &c) == 0 && c.multiarch && *c.multiarch)
		multiarch = c.multiarch;
	for (unsigned i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *dir;

		if (strchr(dirs[i], '@')) {
			if (!multiarch)
				continue;
			dir = xasprintf("%.*s%s", (int)(strchr(dirs[i], '@') - dirs[i]), dirs[i],
					multiarch);
		} else {
			dir = xstrdup(dirs[i]);
		}
		strlist_push(&d.dirs, dir);
		free(dir);
	}
	for (size_t i = 0; !ret && i < in->ndyn; i++)
		ret = deps_follow(&d, in->dyn[i].host, in->dyn[i].image, in->dyn[i].host,
				  in->dyn[i].image, in->dyn[i].host);
	strlist_release(&d.dirs);
	strlist_release(&d.done);
	free(d.interp_base);
	arch_config_release(&c);
	return ret;
}
