// SPDX-License-Identifier: GPL-2.0-only
/* builder.c: builder_build(): inputs -> image model -> cpio segments (cached) -> the output. */
#include "builder.h"
#include "pack.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
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
#include "kconfig.h"
#include "proc.h"

static const char *const compress_names[] = {
	[BUILDER_COMPRESS_NONE] = "none", [BUILDER_COMPRESS_GZIP] = "gzip",
	[BUILDER_COMPRESS_XZ] = "xz",	  [BUILDER_COMPRESS_ZSTD] = "zstd",
	[BUILDER_COMPRESS_LZ4] = "lz4",
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
/* A temporary file in dir for what becomes dir/base (".BASE.XXXXXX": the rename then stays on
 * one file system): its fd and name (*tmp, caller frees); -1 after a message naming shown. */
static int temp_open(const char *dir, const char *base, const char *shown, char **tmp)
{
	int fd;

	*tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
	fd = mkstemp(*tmp);
	if (fd < 0)
		error_errno("cannot create '%s'", shown ? shown : *tmp);
	return fd;
}

/* Close fd and, when ret is 0 (its content written), rename tmp to path; on any failure tmp
 * is removed. A failed close names shown. */
static int temp_commit(int fd, int ret, const char *tmp, const char *path, const char *shown)
{
	if (close(fd) && !ret)
		ret = error_errno("cannot write '%s'", shown);
	if (!ret && rename(tmp, path))
		ret = error_errno("cannot rename '%s' to '%s'", tmp, path);
	if (ret)
		unlink(tmp);
	return ret;
}

/* The file name part of path. */
static const char *base_of(const char *path)
{
	return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

static int write_cached(const struct image *img, unsigned seg, enum builder_compress c,
			const char *cache_dir, int out, const char *what, unsigned *hits)
{
	char key[65], *path, *name;
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
	fd = temp_open(cache_dir, key, NULL, &name);
	if (fd < 0) {
		ret = -1;
		goto out;
	}
	ret = temp_commit(fd, cpio_write_segment(img, seg, c, fd, name), name, path, name);
	if (!ret)
		ret = append_file(out, path, what);
out:
	free(name);
	free(path);
	return ret;
}

static void warn_config(const char *config, enum builder_compress c)
{
	const char *opt = kconfig_rd_option(compress_names[c]);
	struct kconfig kc = KCONFIG_INIT;
	char *text;
	size_t len;

	if (!opt || !config)
		return;
	if (read_file(config, &text, &len) < 0) {
		warning_errno("cannot read the kernel config '%s'", config);
		return;
	}
	/* what it can read: a damaged line is not this warning's business */
	kconfig_parse(text, len, NULL, &kc);
	free(text);
	if (!kconfig_is_y(&kc, opt))
		warning("the kernel config '%s' lacks %s=y: this kernel cannot unpack a %s "
			"initramfs",
			config, opt, compress_names[c]);
	kconfig_release(&kc);
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
		sysroot = builder_pick_sysroot(&o->target);
		if (builder_pack_deps(img, &in, &o->target, sysroot))
			goto out;
	}
	if (o->busybox > 0 || (o->busybox == 0 && in.shebang && !image_has(img, "bin/sh")))
		if (builder_pack_busybox(img, o, &in.interps))
			goto out;
	for (size_t i = 0; i < o->load_modules.n; i++)
		strlist_push(&mods, o->load_modules.v[i]);
	for (size_t i = 0; i < in.modules.n; i++)
		strlist_push(&mods, in.modules.v[i]);
	if (o->modules_dir) {
		if (builder_pack_modules(img, o->modules_dir, &mods, &plan->modules))
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
	char *dir = builder_dir_of(path), *tmp;
	int fd = temp_open(dir, base_of(path), path, &tmp), ret = -1;

	free(dir);
	if (fd >= 0)
		ret = temp_commit(fd, cpio_write_segment(img, seg, BUILDER_COMPRESS_NONE, fd, path),
				  tmp, path, path);
	free(tmp);
	return ret;
}

/* The image's segments into fd (the output's temporary file tmp): the tests' archive apart when
 * tests_seg is one, each other segment from the cache or packed. */
static int write_output(const struct builder_opts *o, struct image *img, int fd, const char *tmp,
			const char *out_path, const char *cache, unsigned tests_seg, unsigned *hits)
{
	mode_t mask = umask(0);

	umask(mask);
	if (fchmod(fd, 0666 & ~mask))
		return error_errno("cannot chmod '%s'", tmp);
	if (tests_seg != NO_SEG && write_tests(img, tests_seg, o->tests_out))
		return -1;
	if (tests_seg != NO_SEG && o->tests_key)
		image_segment_key(img, tests_seg, BUILDER_COMPRESS_NONE, o->tests_key);
	for (unsigned s = 0; s < img->nsegs; s++) {
		size_t first, count;

		image_segment_range(img, s, &first, &count);
		if (!count || s == tests_seg)
			continue;
		if (cache ? write_cached(img, s, o->compress, cache, fd, out_path, hits)
			  : cpio_write_segment(img, s, o->compress, fd, out_path))
			return -1;
	}
	return 0;
}

int builder_build(const struct builder_opts *o, const char *const *inputs, size_t ninputs,
		  const char *out_path, struct plan *plan_out)
{
	struct image img;
	const char *cache;
	char *tmp = NULL, *dir;
	unsigned hits = 0, tests_seg;
	int fd, ret = -1;

	image_init(&img);
	if (builder_compress_name(o->compress) == NULL)
		return error("unknown compression %d", (int)o->compress);
	if (parse_epoch(&img.mtime))
		return -1;
	if (build_image(o, inputs, ninputs, &img, plan_out))
		goto out;
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
	dir = builder_dir_of(out_path);
	fd = temp_open(dir, base_of(out_path), out_path, &tmp);
	free(dir);
	if (fd < 0)
		goto out;
	ret = temp_commit(fd, write_output(o, &img, fd, tmp, out_path, cache, tests_seg, &hits),
			  tmp, out_path, out_path);
	if (!ret && !o->quiet)
		note("built '%s': %zu entries, %zu tests, %zu segments (%u cached)", out_path,
		     img.n, plan_out->n, img.nsegs, hits);
out:
	if (ret) {
		plan_release(plan_out);
		plan_init(plan_out);
	}
	free(tmp);
	image_release(&img);
	return ret;
}
