// SPDX-License-Identifier: GPL-2.0-only
/* inputs.c: classify builder inputs and parse them (directories, gen_init_cpio lists, tapboot
 * manifests) into image entries and plan tests. Writing is cpio_writer.c's job. */
#include "inputs.h"
#include "kselftest.h"
#include "words.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elfinfo.h"
#include "error.h"
#include "fs.h"

#define TESTS_DIR "tests"

void inputs_init(struct inputs *in, struct image *img, struct plan *plan,
		 const struct builder_target *target, unsigned default_timeout)
{
	memset(in, 0, sizeof(*in));
	in->img = img;
	in->plan = plan;
	in->target = target;
	in->default_timeout = default_timeout;
	strlist_init(&in->modules);
	strlist_init(&in->interps);
}

void inputs_release(struct inputs *in)
{
	for (size_t i = 0; i < in->ndyn; i++) {
		free(in->dyn[i].host);
		free(in->dyn[i].image);
	}
	free(in->dyn);
	strlist_release(&in->modules);
	strlist_release(&in->interps);
}

static char *read_all(const char *path, size_t *len, const char *origin)
{
	char *buf;

	if (read_file(path, &buf, len) < 0) {
		/* open_regular's EINVAL: a FIFO, a device, a socket */
		if (errno == EINVAL)
			error(ORIGIN_FMT "'%s' is not a regular file", ORIGIN_ARGS(origin, path),
			      path);
		else
			error_errno(errno == EISDIR ? ORIGIN_FMT "cannot read '%s'"
						    : ORIGIN_FMT "cannot open '%s'",
				    ORIGIN_ARGS(origin, path), path);
		return NULL;
	}
	return buf;
}

/* Check a test's program: the ELF machine and class must be the target's; a dynamic one is
 * remembered for the dependency pass, a #! script for the busybox decision. */
static int check_program(struct inputs *in, const char *host, const char *image, const char *origin)
{
	struct elfinfo ei;
	int ret = 0;

	elfinfo_init(&ei);
	if (elfinfo_read(&ei, host, origin))
		return -1;
	if (!ei.is_elf) {
		char head[256];
		int fd = open_regular(host, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, head, sizeof(head) - 1) : -1;

		if (n >= 2 && head[0] == '#' && head[1] == '!') {
			char *p = head + 2, *end;

			in->shebang = true;
			head[n] = '\0';
			while (*p == ' ' || *p == '\t')
				p++;
			end = p + strcspn(p, " \t\r\n");
			*end = '\0';
			if (*p) {
				bool seen = false;

				for (size_t i = 0; i < in->interps.n; i++)
					seen = seen || !strcmp(in->interps.v[i], p);
				if (!seen)
					strlist_push(&in->interps, p);
			}
		}
		if (fd >= 0)
			close(fd);
	} else if (ei.machine != in->target->elf_machine) {
		char mine[32];

		snprintf(mine, sizeof(mine), "%s", elfinfo_machine_name(ei.machine));
		ret = error(ORIGIN_FMT "'%s' is built for %s, the kernel is %s",
			    ORIGIN_ARGS(origin, host), host, mine,
			    elfinfo_machine_name(in->target->elf_machine));
	} else if (ei.bits != in->target->elf_class) {
		ret = error(ORIGIN_FMT "'%s' is a %u-bit %s program, the kernel is %u-bit",
			    ORIGIN_ARGS(origin, host), host, ei.bits,
			    elfinfo_machine_name(ei.machine), in->target->elf_class);
	} else if (ei.interp) {
		xgrow(&in->dyn, &in->dyn_alloc, in->ndyn + 1, sizeof(*in->dyn));
		in->dyn[in->ndyn].host = xstrdup(host);
		in->dyn[in->ndyn].image = xstrdup(image);
		in->ndyn++;
	}
	elfinfo_release(&ei);
	return ret;
}

static struct plan_test *add_test(struct inputs *in, const char *name, const char *image,
				  const char *host, const char *origin)
{
	struct plan_test *t;
	char *path, *slash;

	if (check_test_name(name, origin) < 0)
		return NULL;
	for (size_t i = 0; i < in->plan->n; i++)
		if (!strcmp(in->plan->tests[i].name, name)) {
			error("%s: a test named '%s' already exists", origin, name);
			return NULL;
		}
	if (host && check_program(in, host, image, origin))
		return NULL;
	path = xasprintf("/%s", image);
	t = plan_add(in->plan, name, path);
	slash = strrchr(path, '/');
	*(slash == path ? slash + 1 : slash) = '\0';
	t->cwd = path;
	t->timeout_s = in->default_timeout;
	return t;
}

static int cmp_test_name(const void *a, const void *b)
{
	return strcmp(((const struct plan_test *)a)->name, ((const struct plan_test *)b)->name);
}

/* ---- directories ---- */

struct walk {
	struct inputs *in;
	bool split; /* a segment per top-level directory */
	bool tests; /* executables become tests */
};

static int skip_dots(const struct dirent *de)
{
	return strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
}

/* Byte order, not the locale's (alphasort): the same tree gives the same image anywhere. */
static int cmp_dirent(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int walk_dir(struct walk *w, const char *host, const char *image, const char *rel)
{
	struct dirent **names;
	int nnames = scandir(host, &names, skip_dots, cmp_dirent), ret = 0;

	if (nnames < 0)
		return error_errno("cannot open directory '%s'", host);
	for (int k = 0; k < nnames; k++) {
		struct dirent *de = names[k];
		char *h, *i, *r;
		struct stat st;

		h = xasprintf("%s/%s", host, de->d_name);
		i = *image ? xasprintf("%s/%s", image, de->d_name) : xstrdup(de->d_name);
		r = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		if (lstat(h, &st)) {
			ret = error_errno("cannot read '%s'", h);
		} else if (S_ISDIR(st.st_mode)) {
			unsigned seg = w->in->img->cur_seg;

			/* Each top-level directory (a kselftest collection) is a segment of its
			 * own, so that changing one test re-packs only its collection. */
			if (w->split && !*rel)
				image_segment_new(w->in->img, h);
			if (!image_add_dir(w->in->img, i, st.st_mode, h))
				ret = -1;
			else
				ret = walk_dir(w, h, i, r);
			w->in->img->cur_seg = seg;
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(h, target, sizeof(target) - 1);

			if (n < 0) {
				ret = error_errno("cannot read symlink '%s'", h);
			} else {
				target[n] = '\0';
				if (!image_add_symlink(w->in->img, i, target, h))
					ret = -1;
			}
		} else if (S_ISREG(st.st_mode)) {
			if (!image_add_file(w->in->img, i, h, st.st_mode, h))
				ret = -1;
			else if (w->tests && (st.st_mode & 0111)) {
				struct elfinfo ei;

				/* gcc makes shared libraries executable: they are not tests. */
				elfinfo_init(&ei);
				if (elfinfo_read(&ei, h, h))
					ret = -1;
				else if (!ei.shared_lib && !add_test(w->in, r, i, h, h))
					ret = -1;
				elfinfo_release(&ei);
			}
		} else {
			enum image_type t = S_ISCHR(st.st_mode)	   ? IMAGE_CHR
					    : S_ISBLK(st.st_mode)  ? IMAGE_BLK
					    : S_ISFIFO(st.st_mode) ? IMAGE_FIFO
								   : IMAGE_SOCK;

			image_add_special(w->in->img, i, t, st.st_mode, major(st.st_rdev),
					  minor(st.st_rdev), h);
		}
		free(h);
		free(i);
		free(r);
		if (ret)
			break;
	}
	for (int k = 0; k < nnames; k++)
		free(names[k]);
	free(names);
	return ret;
}

/* A manifest's first line is its word "tapboot-manifest" (with any version: a wrong one is then
 * the manifest's error, naming its line) and blanks; a trailing space made it read as a
 * gen_init_cpio list, with that format's error. */
static bool is_manifest(const char *buf, size_t len)
{
	size_t n = 0;

	if (len < 16 || strncmp(buf, "tapboot-manifest", 16))
		return false;
	n = 16;
	return n == len || buf[n] == ' ' || buf[n] == '\t' || buf[n] == '\n' || buf[n] == '\r';
}

/* A kselftest install tree (`make -C tools/testing/selftests install`) lists its tests in
 * kselftest-list.txt as COLLECTION:TEST; the other executables there are helpers. Each
 * collection's `settings` file may set `timeout=N`: parsed (kselftest_parse_settings), never
 * evaluated as runner.sh does. Names are COLLECTION:TEST, as under `tapboot run --kselftest`. */
static int kselftest_timeout(const char *host, const char *collection, unsigned dflt,
			     unsigned *out)
{
	char *path = xasprintf("%s/%s/settings", host, collection), *buf;
	size_t len;
	unsigned t = dflt;
	bool has = false;
	int ret = 0;

	*out = dflt;
	if (access(path, F_OK) == 0) {
		buf = read_all(path, &len, path);
		if (!buf || kselftest_parse_settings(buf, len, path, &t, &has) < 0)
			ret = -1;
		else if (has)
			*out = t;
		free(buf);
	}
	free(path);
	return ret;
}

static int kselftest_list(struct inputs *in, const char *host, const char *image, const char *list)
{
	size_t len;
	char *buf = read_all(list, &len, list), *p, *nl;
	unsigned line = 0;
	int ret = 0;

	if (!buf)
		return -1;
	for (p = buf; !ret && p && *p; p = nl ? nl + 1 : NULL) {
		char *colon, *name, *img, *origin;
		struct image_entry *e;
		struct plan_test *t;

		line++;
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!*p || *p == '#')
			continue;
		colon = strchr(p, ':');
		if (!colon || colon == p || !colon[1]) {
			ret = error_at(list, line, "expected 'COLLECTION:TEST'");
			break;
		}
		*colon = '\0';
		origin = xasprintf("%s:%u", list, line);
		name = xasprintf("%s:%s", p, colon + 1);
		img = xasprintf("%s/%s/%s", image, p, colon + 1);
		e = image_find(in->img, img);
		if (!e || e->type != IMAGE_FILE || !e->src)
			ret = error_at(list, line, "test '%s' is not a file in '%s'", name, host);
		else if (!(t = add_test(in, name, img, e->src, origin)))
			ret = -1;
		else
			ret = kselftest_timeout(host, p, in->default_timeout, &t->timeout_s);
		free(origin);
		free(name);
		free(img);
	}
	free(buf);
	return ret;
}

int inputs_add_tree(struct inputs *in, const char *host, const char *image, bool tests)
{
	char *list = xasprintf("%s/kselftest-list.txt", host);
	bool kselftest = tests && !access(list, R_OK);
	struct walk w = {in, tests, tests && !kselftest};
	size_t first = in->plan->n;
	int ret;

	if (!image_add_dir(in->img, image, 0755, host)) {
		free(list);
		return -1;
	}
	ret = walk_dir(&w, host, image, "");
	/* the tests in name order; a kselftest list keeps its own (the runner's) order */
	if (!ret && kselftest)
		ret = kselftest_list(in, host, image, list);
	else if (in->plan->n > first)
		qsort(in->plan->tests + first, in->plan->n - first, sizeof(*in->plan->tests),
		      cmp_test_name);
	free(list);
	return ret;
}

/* ---- gen_init_cpio lists (the kernel's usr/gen_init_cpio.c) ---- */

/* What one gen_init_cpio line's handler gets: the words after the keyword, parsed mode and
 * the normalised name. */
struct list_args {
	struct inputs *in;
	char **w;
	char *extra, **rest; /* file: the first hard link and the rest of the line */
	const char *file, *name, *origin, *usage;
	unsigned line, mode;
};

static struct image_entry *list_file(struct list_args *a)
{
	char *loc = expand_env(a->w[1], a->file, a->line);
	struct image_entry *e;

	if (!loc)
		return NULL;
	e = image_add_file(a->in->img, a->name, loc, a->mode, a->origin);
	if (e) {
		for (char *l = a->extra; l; l = next_word(a->rest)) {
			char *ln = image_path_normalise(l, a->origin);

			if (!ln) {
				e = NULL;
				break;
			}
			strlist_push(&e->links, ln);
			free(ln);
		}
	}
	if (e && (a->mode & 0111) && !strncmp(a->name, TESTS_DIR "/", strlen(TESTS_DIR) + 1) &&
	    !add_test(a->in, a->name + strlen(TESTS_DIR) + 1, a->name, loc, a->origin))
		e = NULL;
	free(loc);
	return e;
}

static struct image_entry *list_dir(struct list_args *a)
{
	return image_add_dir(a->in->img, a->name, a->mode, a->origin);
}

static struct image_entry *list_nod(struct list_args *a)
{
	unsigned maj, min;

	if (strcmp(a->w[4], "c") && strcmp(a->w[4], "b")) {
		error_at(a->file, a->line, "device type '%s' is not 'c' or 'b' (expected '%s')",
			 a->w[4], a->usage);
		return NULL;
	}
	if (!parse_uint(a->w[5], &maj) || !parse_uint(a->w[6], &min)) {
		error_at(a->file, a->line, "bad device number '%s %s' (expected '%s')", a->w[5],
			 a->w[6], a->usage);
		return NULL;
	}
	return image_add_special(a->in->img, a->name, a->w[4][0] == 'c' ? IMAGE_CHR : IMAGE_BLK,
				 a->mode, maj, min, a->origin);
}

static struct image_entry *list_slink(struct list_args *a)
{
	struct image_entry *e = image_add_symlink(a->in->img, a->name, a->w[1], a->origin);

	if (e)
		e->perm = a->mode;
	return e;
}

static struct image_entry *list_pipe(struct list_args *a)
{
	return image_add_special(a->in->img, a->name, IMAGE_FIFO, a->mode, 0, 0, a->origin);
}

static struct image_entry *list_sock(struct list_args *a)
{
	return image_add_special(a->in->img, a->name, IMAGE_SOCK, a->mode, 0, 0, a->origin);
}

/* The gen_init_cpio list format, a keyword -> handler table as usr/gen_init_cpio.c has it:
 * words after the keyword, where the mode (then uid, gid) stands, whether more words may
 * follow (a file's hard links). */
static const struct list_type {
	const char *kw;
	const char *usage;
	unsigned nwords, mode_at;
	bool links;
	struct image_entry *(*add)(struct list_args *a);
} list_types[] = {
	{ "file", "file <name> <location> <mode> <uid> <gid> [<hard links>]", 5, 2, true,
	  list_file },
	{ "dir", "dir <name> <mode> <uid> <gid>", 4, 1, false, list_dir },
	{ "nod", "nod <name> <mode> <uid> <gid> <dev_type> <maj> <min>", 7, 1, false, list_nod },
	{ "slink", "slink <name> <target> <mode> <uid> <gid>", 5, 2, false, list_slink },
	{ "pipe", "pipe <name> <mode> <uid> <gid>", 4, 1, false, list_pipe },
	{ "sock", "sock <name> <mode> <uid> <gid>", 4, 1, false, list_sock },
};

static int list_line(struct inputs *in, char *p, const char *file, unsigned line)
{
	char *kw = next_word(&p), *w[8] = {0}, *extra, *origin, *name = NULL;
	const struct list_type *t = NULL;
	struct list_args a;
	struct image_entry *e;
	unsigned nw = 0, mode, uid, gid;
	int ret = -1;

	for (size_t i = 0; i < ARRAY_SIZE(list_types) && !t; i++)
		if (!strcmp(list_types[i].kw, kw))
			t = &list_types[i];
	if (!t)
		return error_at(file, line,
				"unknown type '%s' (expected file, dir, nod, slink, pipe or sock; "
				"a file without execute permission is read as a gen_init_cpio list: "
				"chmod +x it if it is a test)",
				kw);
	while (nw < t->nwords && (w[nw] = next_word(&p)))
		nw++;
	extra = next_word(&p);
	if (nw < t->nwords || (extra && !t->links))
		return error_at(file, line, "expected '%s'", t->usage);
	if (!parse_octal(w[t->mode_at], &mode))
		return error_at(file, line, "'%s' is not an octal mode (expected '%s')",
				w[t->mode_at], t->usage);
	if (!parse_uint(w[t->mode_at + 1], &uid) || !parse_uint(w[t->mode_at + 2], &gid))
		return error_at(file, line, "bad uid or gid '%s %s' (expected '%s')",
				w[t->mode_at + 1], w[t->mode_at + 2], t->usage);
	origin = xasprintf("%s:%u", file, line);
	name = image_path_normalise(w[0], origin);
	if (!name)
		goto out;
	if (!strcmp(name, "init")) {
		/* A CONFIG_INITRAMFS_SOURCE list brings its own /init; the image needs tapboot's.
		 */
		warning("%s: the list's /init is replaced by tapboot's init", origin);
		ret = 0;
		goto out;
	}
	a = (struct list_args){ .in = in, .w = w, .extra = extra, .rest = &p, .file = file,
				.name = name, .origin = origin, .usage = t->usage, .line = line,
				.mode = mode };
	e = t->add(&a);
	if (e) {
		e->uid = uid;
		e->gid = gid;
		ret = 0;
	}
out:
	free(name);
	free(origin);
	return ret;
}

int inputs_parse_list(struct inputs *in, const char *buf, size_t len, const char *file)
{
	char *copy = copy_bytes(buf, len), *p = copy;
	unsigned line = 0;
	int ret = 0;

	while (p && p < copy + len && !ret) {
		char *nl = memchr(p, '\n', (size_t)(copy + len - p)), *s;

		line++;
		if (nl)
			*nl = '\0';
		if (strlen(p) != (size_t)((nl ? nl : copy + len) - p)) {
			ret = error_at(file, line, "NUL byte in a list line");
			break;
		}
		s = p;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s && *s != '#') {
			char *end = s + strlen(s);

			while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
				*--end = '\0';
			/* a line of only "\r" and blanks is blank (found by fuzz/fuzz_inputs.c) */
			if (*s)
				ret = list_line(in, s, file, line);
		}
		p = nl ? nl + 1 : NULL;
	}
	free(copy);
	return ret;
}

/* ---- tapboot manifests (docs/DESIGN.md) ---- */

static char *host_path(const char *dir, const char *p)
{
	return p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", dir, p);
}

/* A test whose program is already in the image (from a tree line), checked after parsing. */
struct pending {
	size_t test; /* index in the plan */
	char *image; /* normalised */
	char *file;  /* where its line is reported (#origin's file), NULL until set */
	unsigned line;
};

static int manifest_test_attr(struct plan_test *t, struct strlist *w, const char *file,
			      unsigned line)
{
	const char *k = w->v[0];

	if (w->n != 2)
		return error_at(file, line, "'%s' takes one value (expected '%s VALUE')", k, k);
	if (!strcmp(k, "timeout")) {
		unsigned v;

		if (!parse_uint(w->v[1], &v))
			return error_at(file, line, "timeout '%s' is not a number of seconds",
					w->v[1]);
		t->timeout_s = v;
	} else if (!strcmp(k, "cwd")) {
		if (w->v[1][0] != '/')
			return error_at(file, line, "cwd '%s' is not an absolute image path",
					w->v[1]);
		free(t->cwd);
		t->cwd = xstrdup(w->v[1]);
	} else if (!strcmp(k, "arg")) {
		strlist_push(&t->args, w->v[1]);
	} else if (!strcmp(k, "env")) {
		if (!strchr(w->v[1], '=') || w->v[1][0] == '=')
			return error_at(file, line, "env '%s' is not KEY=VALUE", w->v[1]);
		strlist_push(&t->env, w->v[1]);
	} else if (!strcmp(k, "flag")) {
		int f = plan_flag_from_name(w->v[1]);

		if (f < 0)
			return error_at(file, line, "unknown flag '%s' (known: disruptive, privileged)",
					w->v[1]);
		t->flags |= (unsigned)f;
	} else if (!strcmp(k, "config")) {
		if (strncmp(w->v[1], "CONFIG_", 7))
			return error_at(file, line, "config '%s' does not start with CONFIG_",
					w->v[1]);
		strlist_push(&t->configs, w->v[1]);
	} else if (!strcmp(k, "skip")) {
		/* the host knows the test cannot run (e.g. missing kernel options): plan.h */
		free(t->skip_reason);
		t->skip_reason = xstrdup(w->v[1]);
	} else {
		return error_at(
			file, line,
			"unknown test attribute '%s' (expected timeout, cwd, arg, env, flag, "
			"config or skip)",
			k);
	}
	return 0;
}

static int manifest_line(struct inputs *in, struct strlist *w, bool indented, const char *dir,
			 const char *file, unsigned line, long *cur, struct pending **pend,
			 size_t *npend, size_t *palloc)
{
	const char *k = w->v[0];
	char *origin = xasprintf("%s:%u", file, line);
	char *host = NULL, *img = NULL;
	int ret = -1;

	if (indented) {
		if (*cur < 0) {
			error_at(file, line, "indented line '%s' without a test above it", k);
			goto out;
		}
		ret = manifest_test_attr(&in->plan->tests[*cur], w, file, line);
		goto out;
	}
	*cur = -1;
	if (!strcmp(k, "tree")) {
		struct stat st;

		if (w->n != 3) {
			error_at(file, line, "expected 'tree HOSTDIR IMAGEDIR'");
			goto out;
		}
		host = host_path(dir, w->v[1]);
		if (stat(host, &st)) {
			error_errno(ORIGIN_FMT "cannot read '%s'", ORIGIN_ARGS(origin, host), host);
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			error(ORIGIN_FMT "'%s' is not a directory", ORIGIN_ARGS(origin, host),
			      host);
			goto out;
		}
		img = image_path_normalise(w->v[2], origin);
		if (img)
			ret = inputs_add_tree(in, host, img, false);
	} else if (!strcmp(k, "file")) {
		unsigned mode = 0;
		struct stat st;

		if (w->n != 3 && w->n != 4) {
			error_at(file, line, "expected 'file HOSTPATH IMAGEPATH [MODE]'");
			goto out;
		}
		if (w->n == 4 && !parse_octal(w->v[3], &mode)) {
			error_at(file, line, "'%s' is not an octal mode", w->v[3]);
			goto out;
		}
		host = host_path(dir, w->v[1]);
		if (w->n == 3) {
			if (stat(host, &st)) {
				error_errno(ORIGIN_FMT "cannot read '%s'",
					    ORIGIN_ARGS(origin, host), host);
				goto out;
			}
			mode = st.st_mode & 07777;
		}
		img = image_path_normalise(w->v[2], origin);
		if (img && image_add_file(in->img, img, host, mode, origin))
			ret = 0;
	} else if (!strcmp(k, "test")) {
		char *name;
		struct plan_test *t;

		if (w->n != 3) {
			error_at(file, line, "expected 'test NAME PATH'");
			goto out;
		}
		name = image_path_normalise(w->v[1], origin);
		if (!name)
			goto out;
		if (w->v[2][0] == '/') {
			img = image_path_normalise(w->v[2], origin);
			t = img ? add_test(in, name, img, NULL, origin) : NULL;
			if (t) {
				xgrow(pend, palloc, *npend + 1, sizeof(**pend));
				(*pend)[*npend] =
					(struct pending){in->plan->n - 1, xstrdup(img), NULL, line};
				(*npend)++;
			}
		} else {
			struct stat st;

			host = host_path(dir, w->v[2]);
			img = xasprintf(TESTS_DIR "/%s", name);
			t = NULL;
			if (stat(host, &st))
				error_errno(ORIGIN_FMT "cannot read '%s'",
					    ORIGIN_ARGS(origin, host), host);
			else if (image_add_file(in->img, img, host, (st.st_mode & 07777) | 0111,
						origin))
				t = add_test(in, name, img, host, origin);
		}
		free(name);
		if (t) {
			*cur = (long)(in->plan->n - 1);
			ret = 0;
		}
	} else if (!strcmp(k, "module")) {
		if (w->n != 2) {
			error_at(file, line, "expected 'module NAME'");
			goto out;
		}
		strlist_push(&in->modules, w->v[1]);
		ret = 0;
	} else {
		error_at(file, line, "unknown keyword '%s' (expected tree, file, test or module)",
			 k);
	}
out:
	free(host);
	free(img);
	free(origin);
	return ret;
}

static int manifest_parse(struct inputs *in, const char *buf, size_t len, const char *mfile,
			  const char *dir)
{
	char *copy = copy_bytes(buf, len), *p = copy, *ofile = NULL;
	struct pending *pend = NULL;
	size_t npend = 0, palloc = 0;
	unsigned nr = 0, oline = 0;
	long cur = -1;
	int ret = 0;

	while (p && p < copy + len && !ret) {
		char *nl = memchr(p, '\n', (size_t)(copy + len - p));
		const char *file = ofile ? ofile : mfile;
		unsigned line = ofile ? oline : nr + 1;
		struct strlist w;

		nr++;
		if (nl)
			*nl = '\0';
		/* a NUL byte would end the line (and, at a line's start, the manifest) silently */
		if (strlen(p) != (size_t)((nl ? nl : copy + len) - p)) {
			ret = error_at(file, line, "NUL byte in a manifest line");
			break;
		}
		if (nl && nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		strlist_init(&w);
		if (nr == 1) {
			size_t n = strlen(p);

			while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
				n--;
			if (n != 18 || strncmp(p, "tapboot-manifest 1", 18))
				ret = error_at(file, line, "expected 'tapboot-manifest 1'");
		} else if (!strncmp(p, "#origin ", 8)) {
			manifest_origin(p, &ofile, &oline);
		} else if (!(ret = split_words(p, &w, file, line)) && w.n) {
			ret = manifest_line(in, &w, *p == ' ' || *p == '\t', dir, file, line, &cur,
					    &pend, &npend, &palloc);
			if (!ret && npend && !pend[npend - 1].file)
				pend[npend - 1].file = xstrdup(file);
		}
		strlist_release(&w);
		p = nl ? nl + 1 : NULL;
	}
	for (size_t i = 0; i < npend; i++) {
		struct image_entry *e;
		const char *file = pend[i].file ? pend[i].file : mfile;
		char *origin = xasprintf("%s:%u", file, pend[i].line);

		if (!ret) {
			e = image_find(in->img, pend[i].image);
			if (!e || e->type != IMAGE_FILE)
				ret = error_at(
					file, pend[i].line,
					"test program '/%s' is not a file in the image (pack it "
					"with a tree or file line)",
					pend[i].image);
			else if (e->src)
				ret = check_program(in, e->src, pend[i].image, origin);
		}
		free(origin);
		free(pend[i].image);
		free(pend[i].file);
	}
	free(pend);
	free(ofile);
	free(copy);
	return ret;
}

int inputs_parse_manifest(struct inputs *in, const char *buf, size_t len, const char *file)
{
	char *d = xstrdup(file), *slash = strrchr(d, '/');
	int ret;

	if (slash)
		*(slash == d ? slash + 1 : slash) = '\0';
	ret = manifest_parse(in, buf, len, file, slash ? d : ".");
	free(d);
	return ret;
}

int inputs_add(struct inputs *in, const char *path)
{
	struct stat st;
	char *buf, *base;
	size_t len;
	int ret;

	if (stat(path, &st))
		return error_errno("cannot read input '%s'", path);
	image_segment_new(in->img, path);
	if (S_ISDIR(st.st_mode))
		return inputs_add_tree(in, path, TESTS_DIR, true);
	if (!S_ISREG(st.st_mode))
		return error("input '%s' is not a file or directory", path);
	if (st.st_mode & 0111) {
		char *img;

		base = strrchr(path, '/') ? strrchr(path, '/') + 1 : (char *)path;
		img = xasprintf(TESTS_DIR "/%s", base);
		ret = image_add_file(in->img, img, path, st.st_mode, path) &&
				      add_test(in, base, img, path, path)
			      ? 0
			      : -1;
		free(img);
		return ret;
	}
	buf = read_all(path, &len, path);
	if (!buf)
		return -1;
	if (is_manifest(buf, len))
		ret = inputs_parse_manifest(in, buf, len, path);
	else
		ret = inputs_parse_list(in, buf, len, path);
	free(buf);
	return ret;
}
