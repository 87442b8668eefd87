// SPDX-License-Identifier: GPL-2.0-only
/* image.c: the image model: path rules, entries, duplicate checks, sorting, segment keys. */
#include "image.h"

#include <errno.h>
#include <inttypes.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"

/* newc stores c_filesize in 8 hex digits (the kernel's usr/gen_init_cpio.c, cpio(5)). */
#define NEWC_MAX_SIZE 0xffffffffull

void image_init(struct image *img)
{
	memset(img, 0, sizeof(*img));
}

static void entry_release(struct image_entry *e)
{
	free(e->path);
	free(e->src);
	free(e->data);
	free(e->target);
	free(e->origin);
	strlist_release(&e->links);
}

void image_release(struct image *img)
{
	for (size_t i = 0; i < img->n; i++)
		entry_release(&img->e[i]);
	free(img->e);
	for (size_t i = 0; i < img->nsegs; i++)
		free(img->segs[i].name);
	free(img->segs);
	image_init(img);
}

unsigned image_segment_new(struct image *img, const char *name)
{
	xgrow(&img->segs, &img->segs_alloc, img->nsegs + 1, sizeof(*img->segs));
	img->segs[img->nsegs].name = xstrdup(name);
	img->cur_seg = (unsigned)img->nsegs;
	return (unsigned)img->nsegs++;
}

char *image_path_normalise(const char *path, const char *origin)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = path;

	strbuf_init(&sb);
	while (*p) {
		const char *end;
		size_t len;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			strbuf_release(&sb);
			error("%s: '%s' has a '..' component (image paths must stay inside the "
			      "root)",
			      origin, path);
			return NULL;
		}
		if (len && !(len == 1 && p[0] == '.')) {
			if (sb.len)
				strbuf_addch(&sb, '/');
			strbuf_add(&sb, p, len);
		}
		p = end;
	}
	if (!sb.len) {
		strbuf_release(&sb);
		error(ORIGIN_FMT "'%s' does not name anything below the image root",
		      ORIGIN_ARGS(origin, path), path);
		return NULL;
	}
	return strbuf_detach(&sb);
}

static struct image_entry *add(struct image *img, const char *path, enum image_type type,
			       unsigned perm, const char *origin)
{
	struct image_entry *e;

	if (!img->nsegs)
		image_segment_new(img, "base");
	xgrow(&img->e, &img->alloc, img->n + 1, sizeof(*img->e));
	e = &img->e[img->n++];
	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	e->type = type;
	e->perm = perm & 07777;
	e->origin = xstrdup(origin);
	e->seg = img->cur_seg;
	strlist_init(&e->links);
	return e;
}

struct image_entry *image_add_file(struct image *img, const char *path, const char *src,
				   unsigned perm, const char *origin)
{
	struct image_entry *e;
	struct stat st;

	if (stat(src, &st)) {
		error_errno(ORIGIN_FMT "cannot read '%s'", ORIGIN_ARGS(origin, src), src);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		error(ORIGIN_FMT "'%s' is not a regular file", ORIGIN_ARGS(origin, src), src);
		return NULL;
	}
	if ((uint64_t)st.st_size > NEWC_MAX_SIZE) {
		error(ORIGIN_FMT "'%s' is 4 GiB or larger (%" PRIu64
				 " bytes): newc cpio cannot hold it",
		      ORIGIN_ARGS(origin, src), src, (uint64_t)st.st_size);
		return NULL;
	}
	e = add(img, path, IMAGE_FILE, perm, origin);
	e->src = xstrdup(src);
	e->size = (uint64_t)st.st_size;
	e->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	e->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	e->dev = (uint64_t)st.st_dev;
	e->ino = (uint64_t)st.st_ino;
	return e;
}

struct image_entry *image_add_data(struct image *img, const char *path, const void *data,
				   size_t len, unsigned perm, const char *origin)
{
	struct image_entry *e = add(img, path, IMAGE_FILE, perm, origin);

	e->data = xmalloc(len + 1);
	memcpy(e->data, data, len);
	e->data[len] = '\0';
	e->size = len;
	return e;
}

struct image_entry *image_add_dir(struct image *img, const char *path, unsigned perm,
				  const char *origin)
{
	return add(img, path, IMAGE_DIR, perm, origin);
}

struct image_entry *image_add_symlink(struct image *img, const char *path, const char *target,
				      const char *origin)
{
	struct image_entry *e;

	if (!*target) {
		error(ORIGIN_FMT "symlink '%s' has an empty target", ORIGIN_ARGS(origin, path),
		      path);
		return NULL;
	}
	e = add(img, path, IMAGE_SYMLINK, 0777, origin);
	e->target = xstrdup(target);
	e->size = strlen(target);
	return e;
}

struct image_entry *image_add_special(struct image *img, const char *path, enum image_type type,
				      unsigned perm, unsigned rmajor, unsigned rminor,
				      const char *origin)
{
	struct image_entry *e = add(img, path, type, perm, origin);

	e->rmajor = rmajor;
	e->rminor = rminor;
	return e;
}

struct image_entry *image_find(struct image *img, const char *path)
{
	for (size_t i = 0; i < img->n; i++) {
		if (!strcmp(img->e[i].path, path))
			return &img->e[i];
		for (size_t j = 0; j < img->e[i].links.n; j++)
			if (!strcmp(img->e[i].links.v[j], path))
				return &img->e[i];
	}
	return NULL;
}

bool image_has(const struct image *img, const char *path)
{
	return image_find((struct image *)img, path) != NULL;
}

/* One name of an entry, for the duplicate check (hard links are names too). */
struct name_ref {
	const char *name;
	size_t idx;
};

static int cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool same_entry(const struct image_entry *a, const struct image_entry *b)
{
	if (a->type != b->type || a->perm != b->perm || a->uid != b->uid || a->gid != b->gid)
		return false;
	switch (a->type) {
	case IMAGE_DIR:
		return true;
	case IMAGE_FILE:
		if (a->links.n || b->links.n)
			return false;
		if (a->src && b->src)
			return a->dev == b->dev && a->ino == b->ino;
		return !a->src && !b->src && a->size == b->size &&
		       !memcmp(a->data, b->data, a->size);
	case IMAGE_SYMLINK:
		return !strcmp(a->target, b->target);
	default:
		return a->rmajor == b->rmajor && a->rminor == b->rminor;
	}
}

/* Remove entries marked by a NULL path (released already). */
static void compact(struct image *img)
{
	size_t j = 0;

	for (size_t i = 0; i < img->n; i++)
		if (img->e[i].path)
			img->e[j++] = img->e[i];
	img->n = j;
}

static int dedupe(struct image *img)
{
	struct name_ref *refs;
	size_t nrefs = 0, total = 0;
	int ret = 0;

	for (size_t i = 0; i < img->n; i++)
		total += 1 + img->e[i].links.n;
	refs = xcalloc(total ? total : 1, sizeof(*refs));
	for (size_t i = 0; i < img->n; i++) {
		refs[nrefs++] = (struct name_ref){img->e[i].path, i};
		for (size_t j = 0; j < img->e[i].links.n; j++)
			refs[nrefs++] = (struct name_ref){img->e[i].links.v[j], i};
	}
	qsort(refs, nrefs, sizeof(*refs), cmp_name_ref);
	for (size_t i = 0, k; i < nrefs; i = k) {
		struct image_entry *first = &img->e[refs[i].idx], *win = first;
		bool all_dirs = true;

		for (k = i; k < nrefs && !strcmp(refs[k].name, refs[i].name); k++) {
			struct image_entry *b = &img->e[refs[k].idx];

			if (k > i && refs[k].idx == refs[k - 1].idx) {
				ret = error("%s: '/%s' is named twice", b->origin, refs[k].name);
				goto out;
			}
			if (b->type != IMAGE_DIR)
				all_dirs = false;
			else if (win->implicit && !b->implicit)
				win = b;
		}
		if (k == i + 1)
			continue;
		if (all_dirs) {
			/* One directory per segment (each archive creates its own parents), all
			 * with the mode of the first explicit one. */
			for (size_t m = i; m < k; m++) {
				struct image_entry *b = &img->e[refs[m].idx];
				bool seen = false;

				for (size_t q = i; q < m; q++)
					if (img->e[refs[q].idx].path &&
					    img->e[refs[q].idx].seg == b->seg)
						seen = true;
				if (seen) {
					entry_release(b);
					b->path = NULL;
					continue;
				}
				b->perm = win->perm;
				b->uid = win->uid;
				b->gid = win->gid;
				b->implicit = win->implicit;
			}
			continue;
		}
		/* Anything else merges only when identical (a library two tests need); the copy
		 * in the earliest segment stays. */
		for (size_t m = i + 1; m < k; m++) {
			struct image_entry *b = &img->e[refs[m].idx];

			if (!same_entry(first, b)) {
				ret = error("duplicate name '/%s': from %s and from %s",
					    refs[i].name, first->origin, b->origin);
				goto out;
			}
		}
		for (size_t m = i + 1; m < k; m++) {
			struct image_entry *b = &img->e[refs[m].idx];

			if (b->seg < first->seg) {
				struct image_entry tmp = *first;

				*first = *b;
				*b = tmp;
			}
		}
		for (size_t m = i + 1; m < k; m++) {
			entry_release(&img->e[refs[m].idx]);
			img->e[refs[m].idx].path = NULL;
		}
	}
out:
	free(refs);
	if (!ret)
		compact(img);
	return ret;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct image_entry *x = a, *y = b;

	if (x->seg != y->seg)
		return x->seg < y->seg ? -1 : 1;
	/* A parent is a prefix of its children, so plain byte order puts it first. */
	return strcmp(x->path, y->path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the missing parents of every name in segment order: a hash-free approach that sorts the
 * wanted parents and the existing names of each segment and merges. */
static void add_parents(struct image *img)
{
	size_t n0 = img->n;
	char **want = NULL;
	size_t nwant = 0, walloc = 0;

	for (unsigned seg = 0; seg < img->nsegs; seg++) {
		char **have = NULL;
		size_t nhave = 0, halloc = 0;

		nwant = 0;
		for (size_t i = 0; i < n0; i++) {
			struct image_entry *e = &img->e[i];

			if (e->seg != seg)
				continue;
			for (size_t j = 0; j <= e->links.n; j++) {
				const char *name = j ? e->links.v[j - 1] : e->path;
				const char *slash = strrchr(name, '/');

				xgrow(&have, &halloc, nhave + 1, sizeof(*have));
				have[nhave++] = (char *)name;
				while (slash) {
					xgrow(&want, &walloc, nwant + 1, sizeof(*want));
					want[nwant++] = xstrndup(name, (size_t)(slash - name));
					slash = memrchr(name, '/', (size_t)(slash - name));
				}
			}
		}
		/* qsort with a NULL base is undefined even for 0 elements */
		if (nwant)
			qsort(want, nwant, sizeof(*want), cmp_str);
		if (nhave)
			qsort(have, nhave, sizeof(*have), cmp_str);
		for (size_t i = 0, h = 0; i < nwant; i++) {
			if (i && !strcmp(want[i], want[i - 1]))
				continue;
			while (h < nhave && strcmp(have[h], want[i]) < 0)
				h++;
			if (h < nhave && !strcmp(have[h], want[i]))
				continue;
			{
				unsigned saved = img->cur_seg;
				struct image_entry *d;

				img->cur_seg = seg;
				d = add(img, want[i], IMAGE_DIR, 0755, "(parent directory)");
				d->implicit = true;
				img->cur_seg = saved;
			}
		}
		for (size_t i = 0; i < nwant; i++)
			free(want[i]);
		free(have);
	}
	free(want);
}

int image_finish(struct image *img, bool one_archive)
{
	if (one_archive) {
		for (size_t i = 0; i < img->n; i++)
			img->e[i].seg = 0;
		if (img->nsegs > 1) {
			for (size_t i = 1; i < img->nsegs; i++)
				free(img->segs[i].name);
			img->nsegs = 1;
		}
	}
	add_parents(img);
	if (dedupe(img))
		return -1;
	if (img->n)
		qsort(img->e, img->n, sizeof(*img->e), cmp_entry);
	for (size_t i = 0; i < img->n; i++) {
		struct image_entry *e = &img->e[i];

		for (size_t j = 0; j <= e->links.n; j++) {
			const char *name = j ? e->links.v[j - 1] : e->path;
			const char *slash = strrchr(name, '/');
			struct image_entry key, *p;
			size_t first, count;

			if (!slash)
				continue;
			key.seg = e->seg;
			key.path = xstrndup(name, (size_t)(slash - name));
			image_segment_range(img, e->seg, &first, &count);
			p = bsearch(&key, img->e + first, count, sizeof(*img->e), cmp_entry);
			if (p && p->type != IMAGE_DIR) {
				error("%s: '/%s' is not a directory, but %s puts '/%s' in it",
				      p->origin, p->path, e->origin, name);
				free(key.path);
				return -1;
			}
			free(key.path);
		}
	}
	return 0;
}

void image_segment_range(const struct image *img, unsigned seg, size_t *first, size_t *count)
{
	size_t i = 0, j;

	while (i < img->n && img->e[i].seg < seg)
		i++;
	j = i;
	while (j < img->n && img->e[j].seg == seg)
		j++;
	*first = i;
	*count = j - i;
}

static void hash_str(struct sha256_ctx *c, const char *s)
{
	sha256_update(c, strlen(s ? s : "") + 1, (const uint8_t *)(s ? s : ""));
}

static void hash_u64(struct sha256_ctx *c, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	sha256_update(c, sizeof(b), b);
}

void image_segment_key(const struct image *img, unsigned seg, enum builder_compress c, char out[65])
{
	struct sha256_ctx ctx;
	uint8_t dig[SHA256_DIGEST_SIZE];
	size_t first, count;

	sha256_init(&ctx);
	/* Bump when the bytes written for the same entries change. */
	hash_str(&ctx, "tapboot-segment 1");
	hash_u64(&ctx, (uint64_t)c);
	hash_u64(&ctx, (uint64_t)img->mtime);
	image_segment_range(img, seg, &first, &count);
	for (size_t i = first; i < first + count; i++) {
		const struct image_entry *e = &img->e[i];

		hash_str(&ctx, e->path);
		hash_u64(&ctx, e->type);
		hash_u64(&ctx, e->perm);
		hash_u64(&ctx, e->uid);
		hash_u64(&ctx, e->gid);
		hash_u64(&ctx, e->rmajor);
		hash_u64(&ctx, e->rminor);
		hash_u64(&ctx, e->size);
		hash_str(&ctx, e->target);
		hash_u64(&ctx, e->links.n);
		for (size_t j = 0; j < e->links.n; j++)
			hash_str(&ctx, e->links.v[j]);
		if (e->src) {
			/* stat data instead of the content (make's and ccache's direct mode):
			 * a changed file has a new mtime or ctime. */
			hash_str(&ctx, e->src);
			hash_u64(&ctx, (uint64_t)e->mtime_ns);
			hash_u64(&ctx, (uint64_t)e->ctime_ns);
			hash_u64(&ctx, e->dev);
			hash_u64(&ctx, e->ino);
		} else if (e->data) {
			sha256_update(&ctx, e->size, (const uint8_t *)e->data);
		}
	}
	sha256_digest(&ctx, sizeof(dig), dig);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(out + 2 * i, "%02x", dig[i]);
}
