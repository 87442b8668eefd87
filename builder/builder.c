/* builder.c: builder_build(): inputs -> image model -> cpio segments (cached) -> the output. */
#include "builder.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch_config.h"
#include "cache.h"
#include "elfinfo.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "inputs.h"
#include "proc.h"

/* Binaries of the host's machine run here: from the configs (lib/arch_config.c). */
static bool runs_here(const struct builder_target *t)
{
	const struct arch_config *h = arch_config_host();

	return h && h->elf_machine == t->elf_machine;
}

static const char *const compress_names[] = {
	[BUILDER_COMPRESS_NONE] = "none", [BUILDER_COMPRESS_GZIP] = "gzip",
	[BUILDER_COMPRESS_XZ] = "xz",	  [BUILDER_COMPRESS_ZSTD] = "zstd",
	[BUILDER_COMPRESS_LZ4] = "lz4",
};

/* The kernel option that lets it unpack each compression (usr/Kconfig). */
static const char *const compress_config[] = {
	[BUILDER_COMPRESS_NONE] = NULL,		  [BUILDER_COMPRESS_GZIP] = "CONFIG_RD_GZIP",
	[BUILDER_COMPRESS_XZ] = "CONFIG_RD_XZ",	  [BUILDER_COMPRESS_ZSTD] = "CONFIG_RD_ZSTD",
	[BUILDER_COMPRESS_LZ4] = "CONFIG_RD_LZ4",
};

int builder_compress_from_name(const char *name)
{
	for (unsigned i = 0; i < ARRAY_SIZE(compress_names); i++)
		if (!strcmp(compress_names[i], name))
			return (int)i;
	return -1;
}

const char *builder_compress_name(enum builder_compress c)
{
	return (unsigned)c < ARRAY_SIZE(compress_names) ? compress_names[c] : NULL;
}

void builder_opts_init(struct builder_opts *o)
{
	const struct arch_config *h = arch_config_host();

	memset(o, 0, sizeof(*o));
	o->target.elf_machine = h ? h->elf_machine : EM_NONE;
	o->target.elf_class = h ? h->elf_class : sizeof(void *) == 8 ? 64 : 32;
	o->compress = BUILDER_COMPRESS_NONE;
	o->busybox = 0;
	o->default_timeout = PLAN_DEFAULT_TIMEOUT;
	strlist_init(&o->load_modules);
}

void builder_opts_release(struct builder_opts *o)
{
	strlist_release(&o->load_modules);
}

/* The target's configs/<arch>.conf (by its arch, else by its ELF machine and class): its
 * multiarch triple and cross sysroot. -1 when no config names it. */
static int target_config(const struct builder_target *t, struct arch_config *c)
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
static char *pick_sysroot(const struct builder_target *t)
{
	bool host = runs_here(t);
	struct arch_config c;
	char *root;

	if (t->sysroot && (is_dir(t->sysroot) || !host))
		return xstrdup(t->sysroot);
	if (host || target_config(t, &c) < 0 || !c.sysroot || !*c.sysroot)
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
static bool elf_matches(const char *path, const struct builder_target *t)
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

static char *dir_of(const char *p)
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
	char *obj_hdir = dir_of(host), *obj_idir = dir_of(image);
	char *test_hdir = dir_of(test_host), *test_idir = dir_of(test_image);
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
			if (!access(h, R_OK) && elf_matches(h, d->t)) {
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

		if (!access(h, R_OK) && elf_matches(h, d->t)) {
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

		if (h && elf_matches(h, d->t))
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

static int pack_deps(struct image *img, const struct inputs *in, const struct builder_target *t,
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
	if (target_config(t, &c) == 0 && c.multiarch && *c.multiarch)
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

/* ---- busybox: which one, and its applets ---- */

static bool elf_for(const char *path, const struct builder_target *t)
{
	return !access(path, R_OK) && elf_matches(path, t);
}

/* opts->busybox_path, else the host's /bin/busybox (Debian's busybox-static) when it is built
 * for the target, else the copy scripts/fetch-busybox.sh keeps in the cache, else what the
 * caller's fetch_busybox brings (the builder runs no scripts of its own). */
static char *find_busybox(const struct builder_opts *o)
{
	char *top, *cached, *got;

	if (o->busybox_path) {
		if (access(o->busybox_path, R_OK)) {
			error_errno("cannot read busybox '%s'", o->busybox_path);
			return NULL;
		}
		return xstrdup(o->busybox_path);
	}
	if (elf_for("/bin/busybox", &o->target))
		return xstrdup("/bin/busybox");
	if (!o->target.arch) {
		error("no busybox for this architecture: pass its path");
		return NULL;
	}
	top = cache_dir();
	cached = xasprintf("%s/busybox/%s/bin/busybox", top, o->target.arch);
	free(top);
	if (elf_for(cached, &o->target))
		return cached;
	if (!o->fetch_busybox) {
		error("no busybox for %s at hand (none in '%s'): pass its path", o->target.arch,
		      cached);
		free(cached);
		return NULL;
	}
	free(cached);
	got = o->fetch_busybox(o->target.arch);
	if (got && !elf_for(got, &o->target)) {
		error("'%s' is no busybox for %s", got, o->target.arch);
		free(got);
		got = NULL;
	}
	return got;
}

/* Applets of Debian 12's busybox-static when no busybox can run here to say: the shells and
 * the tools kselftest's scripts use. */
static const char *const fallback_applets[] = {
	"bin/sh",	  "bin/ash",	      "bin/cat",	  "bin/chmod",
	"bin/cp",	  "bin/date",	      "bin/dd",		  "bin/dmesg",
	"bin/echo",	  "bin/false",	      "bin/grep",	  "bin/kill",
	"bin/ln",	  "bin/ls",	      "bin/mkdir",	  "bin/mknod",
	"bin/mount",	  "bin/mv",	      "bin/ps",		  "bin/pwd",
	"bin/rm",	  "bin/rmdir",	      "bin/sed",	  "bin/sleep",
	"bin/sync",	  "bin/true",	      "bin/umount",	  "bin/uname",
	"sbin/insmod",	  "sbin/lsmod",	      "sbin/modprobe",	  "sbin/rmmod",
	"sbin/sysctl",	  "sbin/ip",	      "usr/bin/[",	  "usr/bin/[[",
	"usr/bin/awk",	  "usr/bin/basename", "usr/bin/cmp",	  "usr/bin/cut",
	"usr/bin/diff",	  "usr/bin/dirname",  "usr/bin/env",	  "usr/bin/expr",
	"usr/bin/find",	  "usr/bin/head",     "usr/bin/id",	  "usr/bin/od",
	"usr/bin/printf", "usr/bin/readlink", "usr/bin/realpath", "usr/bin/seq",
	"usr/bin/sort",	  "usr/bin/stat",     "usr/bin/tail",	  "usr/bin/tee",
	"usr/bin/test",	  "usr/bin/timeout",  "usr/bin/touch",	  "usr/bin/tr",
	"usr/bin/uniq",	  "usr/bin/wc",	      "usr/bin/which",	  "usr/bin/xargs",
	"usr/bin/yes",
};

/* The applet paths in list (separated by sep) into out. */
static void applets_from(char *list, int sep, struct strlist *out)
{
	char *p = list;

	while (p && *p) {
		char *end = strchr(p, sep);

		if (end)
			*end = '\0';
		/* linuxrc (the old initrd entry point) is no applet link we want */
		if (strchr(p, '/') && strcmp(p, "bin/busybox"))
			strlist_push(out, p);
		p = end ? end + 1 : NULL;
	}
}

/* The applet links: `busybox --list-full` of the busybox itself when it runs here, else of
 * the host's /bin/busybox. A foreign busybox cannot run on the host (no binfmt emulation is
 * assumed), and Debian builds busybox-static with one configuration for every architecture,
 * so the host's list (same Debian release) names the foreign binary's applets; without any
 * busybox here, a shipped list of common applets. The list is kept in the stat cache while
 * that busybox is unchanged: running it was 9-10 ms of a 40 ms build of the bench's
 * kselftest tree. */
static void busybox_applets(const char *bb, const struct builder_target *t, struct strlist *out)
{
	const char *runner = NULL;
	struct strbuf sb = STRBUF_INIT;
	char cached[8192];

	if (runs_here(t) && !access(bb, X_OK))
		runner = bb;
	else if (!access("/bin/busybox", X_OK))
		runner = "/bin/busybox";
	if (runner && stat_cache_get(STAT_CACHE_APPLETS, runner, cached, sizeof(cached)) &&
	    strlen(cached) < sizeof(cached) - 1) {
		applets_from(cached, ' ', out);
		if (out->n)
			return;
	}
	strbuf_init(&sb);
	if (runner) {
		const char *argv[] = {runner, "--list-full", NULL};

		if (proc_capture(argv, &sb, true) == 0) {
			applets_from(sb.buf, '\n', out);
			strbuf_reset(&sb);
			for (size_t i = 0; i < out->n; i++)
				strbuf_addf(&sb, "%s%s", i ? " " : "", out->v[i]);
			if (out->n && !strpbrk(sb.buf, "\n\r") && sb.len < sizeof(cached) - 1)
				stat_cache_put(STAT_CACHE_APPLETS, runner, sb.buf);
		}
	}
	strbuf_release(&sb);
	if (!out->n)
		for (unsigned i = 0; i < ARRAY_SIZE(fallback_applets); i++)
			strlist_push(out, fallback_applets[i]);
}

static int pack_busybox(struct image *img, const struct builder_opts *o,
			const struct strlist *interps)
{
	struct strlist applets;
	char *bb = find_busybox(o);
	int ret = 0;

	if (!bb)
		return -1;
	if (!elf_for(bb, &o->target)) {
		error("busybox '%s' is not a %u-bit %s program", bb, o->target.elf_class,
		      elfinfo_machine_name(o->target.elf_machine));
		free(bb);
		return -1;
	}
	if (!image_has(img, "bin/busybox") && !image_add_file(img, "bin/busybox", bb, 0755, bb)) {
		free(bb);
		return -1;
	}
	strlist_init(&applets);
	busybox_applets(bb, &o->target, &applets);
	for (size_t i = 0; i < applets.n && !ret; i++) {
		const char *a = applets.v[i];
		struct strbuf target = STRBUF_INIT;
		char *norm = image_path_normalise(a, bb);

		if (!norm) {
			ret = -1;
			break;
		}
		/* a relative target from the link's directory: bin/ -> busybox,
		 * usr/sbin/ -> ../../bin/busybox */
		strbuf_init(&target);
		for (const char *s = strchr(norm, '/'); s; s = strchr(s + 1, '/'))
			strbuf_addstr(&target, "../");
		strbuf_addstr(&target, "bin/busybox");
		if (!strncmp(norm, "bin/", 4) && !strchr(norm + 4, '/')) {
			strbuf_reset(&target);
			strbuf_addstr(&target, "busybox");
		}
		/* What the inputs pack wins over an applet link. */
		if (!image_has(img, norm) && !image_add_symlink(img, norm, target.buf, bb))
			ret = -1;
		strbuf_release(&target);
		free(norm);
	}
	/* Debian's busybox has no bash applet, but kselftest's #!/bin/bash scripts mostly run
	 * under its ash: point a missing bash there rather than fail the exec. */
	for (size_t i = 0; i < interps->n && !ret; i++) {
		const char *ip = interps->v[i];
		char *norm;

		if (strcmp(ip, "/bin/bash") && strcmp(ip, "/usr/bin/bash"))
			continue;
		norm = image_path_normalise(ip, bb);
		if (norm && !image_has(img, norm)) {
			if (!o->quiet)
				warning("no %s in the image: it runs the #! scripts as busybox ash",
					ip);
			if (!image_add_symlink(img, norm,
					       !strcmp(norm, "bin/bash") ? "busybox"
									 : "../../bin/busybox",
					       bb))
				ret = -1;
		}
		free(norm);
	}
	strlist_release(&applets);
	free(bb);
	return ret;
}

/* ---- modules ---- */

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

static int add_tree_at(struct image *img, const char *host, const char *image);

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

/* With modules requested: the modules.* indexes plus each requested module and its
 * dependencies, the plan's list in load order; without: the whole tree. */
static int pack_modules(struct image *img, const char *dir, const struct strlist *want,
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

/* ---- output ---- */

/* Append the open segment fd (path, for messages) to out; closes fd. */
static int append_fd(int fd, int out, const char *path, const char *what)
{
	char *buf;
	int ret = 0;

	for (;;) {
		ssize_t r = copy_file_range(fd, NULL, out, NULL, 1 << 30, 0);

		if (r == 0)
			goto out_close;
		if (r < 0)
			break;
	}
	/* copy_file_range refused (another file system, old kernel): read and write */
	if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
		ret = error_errno("cannot write '%s'", what);
		goto out_close;
	}
	buf = xmalloc(1 << 20);
	for (;;) {
		ssize_t r = read(fd, buf, 1 << 20), w = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = error_errno("cannot read cached segment '%s'", path);
			break;
		}
		if (!r)
			break;
		while (w < r) {
			ssize_t n = write(out, buf + w, (size_t)(r - w));

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				ret = error_errno("cannot write '%s'", what);
				break;
			}
			w += n;
		}
		if (ret)
			break;
	}
	free(buf);
out_close:
	close(fd);
	return ret;
}

static int append_file(int out, const char *path, const char *what)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error_errno("cannot open cached segment '%s'", path);
	return append_fd(fd, out, path, what);
}

/* One segment through the cache: reuse cache_dir/KEY.cpio, or write it there (temporary
 * name, renamed) and append it. A reused segment's mtime is set to now: the cache's upkeep
 * (cache_prune) removes the least recently used first. */
static int write_cached(const struct image *img, unsigned seg, enum builder_compress c,
			const char *cache_dir, int out, const char *what, unsigned *hits)
{
	char key[65], *path, *tmp;
	int fd, ret;

	image_segment_key(img, seg, c, key);
	path = xasprintf("%s/%s.cpio", cache_dir, key);
	/* opened, not tested with access(): once open, a concurrent upkeep cannot take it away */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		(*hits)++;
		futimens(fd, NULL);
		ret = append_fd(fd, out, path, what);
		free(path);
		return ret;
	}
	tmp = xasprintf("%s/.%s.XXXXXX", cache_dir, key);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = error_errno("cannot create '%s'", tmp);
		goto out;
	}
	ret = cpio_write_segment(img, seg, c, fd, tmp);
	if (close(fd) && !ret)
		ret = error_errno("cannot write '%s'", tmp);
	if (!ret && rename(tmp, path))
		ret = error_errno("cannot rename '%s' to '%s'", tmp, path);
	if (ret)
		unlink(tmp);
	else
		ret = append_file(out, path, what);
out:
	free(tmp);
	free(path);
	return ret;
}

static void warn_config(const char *config, enum builder_compress c)
{
	const char *opt = compress_config[c];
	char *line = NULL;
	size_t len = 0, olen;
	bool found = false;
	FILE *fp;

	if (!opt || !config)
		return;
	fp = fopen(config, "r");
	if (!fp) {
		warning_errno("cannot read the kernel config '%s'", config);
		return;
	}
	olen = strlen(opt);
	while (!found && getline(&line, &len, fp) > 0)
		found = !strncmp(line, opt, olen) && !strncmp(line + olen, "=y", 2);
	free(line);
	fclose(fp);
	if (!found)
		warning("the kernel config '%s' lacks %s=y: this kernel cannot unpack a %s "
			"initramfs",
			config, opt, compress_names[c]);
}

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

static int parse_epoch(int64_t *out)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	*out = 0;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0 || v > 0xffffffffLL)
		return error(
			"SOURCE_DATE_EPOCH '%s' is not a number of seconds (newc holds 32 bits)",
			s);
	*out = v;
	return 0;
}

static int build_image(const struct builder_opts *o, const char *const *inputs, size_t ninputs,
		       struct image *img, struct plan *plan)
{
	struct inputs in;
	struct strlist mods;
	struct strbuf pl = STRBUF_INIT;
	char *sysroot = NULL;
	int ret = -1;

	inputs_init(&in, img, plan, &o->target, o->default_timeout);
	strlist_init(&mods);
	strbuf_init(&pl);
	image_segment_new(img, "base");
	if (!o->init_path) {
		error("no init for the image (the static init of the target)");
		goto out;
	}
	if (!image_add_file(img, "init", o->init_path, 0755, o->init_path))
		goto out;
	{
		struct elfinfo ei;
		bool bad;

		/* an init for another architecture panics the kernel ("No working init") */
		elfinfo_init(&ei);
		if (elfinfo_read(&ei, o->init_path, o->init_path))
			goto out;
		bad = ei.is_elf &&
		      (ei.machine != o->target.elf_machine || ei.bits != o->target.elf_class);
		if (bad)
			error("the init '%s' is built for %s (%u-bit), the kernel is %s (%u-bit)",
			      o->init_path, elfinfo_machine_name(ei.machine), ei.bits,
			      o->target.arch ? o->target.arch
					     : elfinfo_machine_name(o->target.elf_machine),
			      o->target.elf_class);
		elfinfo_release(&ei);
		if (bad)
			goto out;
	}
	for (size_t i = 0; i < ninputs; i++)
		if (inputs_add(&in, inputs[i]))
			goto out;
	/* The base segment takes libraries, busybox and modules. */
	img->cur_seg = 0;
	if (in.ndyn) {
		sysroot = pick_sysroot(&o->target);
		if (pack_deps(img, &in, &o->target, sysroot))
			goto out;
	}
	if (o->busybox > 0 || (o->busybox == 0 && in.shebang && !image_has(img, "bin/sh")))
		if (pack_busybox(img, o, &in.interps))
			goto out;
	for (size_t i = 0; i < o->load_modules.n; i++)
		strlist_push(&mods, o->load_modules.v[i]);
	for (size_t i = 0; i < in.modules.n; i++)
		strlist_push(&mods, in.modules.v[i]);
	if (o->modules_dir) {
		if (pack_modules(img, o->modules_dir, &mods, &plan->modules))
			goto out;
		if (!mods.n)
			strlist_release(&plan->modules);
	} else {
		for (size_t i = 0; i < mods.n; i++)
			strlist_push(&plan->modules, mods.v[i]);
	}
	/* The plan changes with every test: its own small last segment. */
	image_segment_new(img, "plan");
	plan_write(plan, &pl);
	if (!image_add_data(img, "tapboot/plan", pl.buf, pl.len, 0644, "(plan)"))
		goto out;
	ret = 0;
out:
	free(sysroot);
	strbuf_release(&pl);
	strlist_release(&mods);
	inputs_release(&in);
	return ret;
}

#define NO_SEG (~0u)

/* Snapshot boot: the entries under tests/ into a segment of their own (the last); with
 * one_archive, everything else into segment 0 first. Its index. */
static unsigned split_tests(struct image *img, bool one_archive)
{
	unsigned seg;

	if (one_archive) {
		for (size_t i = 0; i < img->n; i++)
			img->e[i].seg = 0;
		for (size_t i = 1; i < img->nsegs; i++)
			free(img->segs[i].name);
		img->nsegs = img->nsegs ? 1 : 0;
	}
	seg = image_segment_new(img, "tests");
	for (size_t i = 0; i < img->n; i++) {
		const char *p = img->e[i].path;

		if (!strcmp(p, "tests") || !strncmp(p, "tests/", 6))
			img->e[i].seg = seg;
	}
	return seg;
}

/* The tests segment as one uncompressed newc archive at path (a temporary name, renamed). */
static int write_tests(const struct image *img, unsigned seg, const char *path)
{
	char *dir = dir_of(path), *tmp;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int fd, ret;

	tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
	free(dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = error_errno("cannot create '%s'", path);
		free(tmp);
		return ret;
	}
	ret = cpio_write_segment(img, seg, BUILDER_COMPRESS_NONE, fd, path);
	if (close(fd) && !ret)
		ret = error_errno("cannot write '%s'", path);
	if (!ret && rename(tmp, path))
		ret = error_errno("cannot rename '%s' to '%s'", tmp, path);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int builder_build(const struct builder_opts *o, const char *const *inputs, size_t ninputs,
		  const char *out_path, struct plan *plan_out)
{
	struct image img;
	const char *cache;
	char *tmp = NULL, *dir;
	unsigned hits = 0, tests_seg;
	int fd = -1, ret = -1;
	mode_t mask;

	image_init(&img);
	if (builder_compress_name(o->compress) == NULL)
		return error("unknown compression %d", (int)o->compress);
	if (parse_epoch(&img.mtime))
		return -1;
	if (build_image(o, inputs, ninputs, &img, plan_out))
		goto out;
	/* Without a cache one archive (what cpio -t lists whole); with one, segments. */
	/* Uncompressed, packing from the page cache is as fast as copying a cached segment
	 * (a 61 MB kselftest tree: 0.086 s packed, 0.11 s from the cache), so the cache and
	 * its segments serve compressed images only; without them the image is one archive
	 * (what `cpio -t` lists whole). */
	cache = o->compress != BUILDER_COMPRESS_NONE ? o->cache_dir : NULL;
	tests_seg = o->tests_out ? split_tests(&img, cache == NULL) : NO_SEG;
	if (image_finish(&img, cache == NULL && tests_seg == NO_SEG))
		goto out;
	warn_config(o->kernel_config, o->compress);
	if (cache && mkdir_p(cache) < 0) {
		error_errno("cannot create directory '%s'", cache);
		goto out;
	}
	dir = dir_of(out_path);
	tmp = xasprintf("%s/.%s.XXXXXX", dir,
			strrchr(out_path, '/') ? strrchr(out_path, '/') + 1 : out_path);
	free(dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		error_errno("cannot create '%s'", out_path);
		goto out;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		error_errno("cannot chmod '%s'", tmp);
		goto out_unlink;
	}
	if (tests_seg != NO_SEG && write_tests(&img, tests_seg, o->tests_out))
		goto out_unlink;
	if (tests_seg != NO_SEG && o->tests_key)
		image_segment_key(&img, tests_seg, BUILDER_COMPRESS_NONE, o->tests_key);
	for (unsigned s = 0; s < img.nsegs; s++) {
		size_t first, count;

		image_segment_range(&img, s, &first, &count);
		if (!count || s == tests_seg)
			continue;
		if (cache ? write_cached(&img, s, o->compress, cache, fd, out_path, &hits)
			  : cpio_write_segment(&img, s, o->compress, fd, out_path))
			goto out_unlink;
	}
	if (close(fd)) {
		fd = -1;
		error_errno("cannot write '%s'", out_path);
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, out_path)) {
		error_errno("cannot rename '%s' to '%s'", tmp, out_path);
		goto out_unlink;
	}
	if (!o->quiet)
		fprintf(stderr,
			"%s: built '%s': %zu entries, %zu tests, %zu segments (%u cached)\n",
			error_prog(), out_path, img.n, plan_out->n, img.nsegs, hits);
	ret = 0;
	goto out;
out_unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	if (ret) {
		plan_release(plan_out);
		plan_init(plan_out);
	}
	free(tmp);
	image_release(&img);
	return ret;
}
