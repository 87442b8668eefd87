// SPDX-License-Identifier: GPL-2.0-only
/* cpio_writer.c: image entries -> newc cpio through libarchive; the builder's only file that
 * includes <archive.h> (qemu/kernel_image.c is the other: it reads compressed kernels). Every
 * call is checked, archive_write_close() comes before archive_write_free()
 * (libarchive's examples/tarfilter.c). */
#include "image.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"

#define COPY_CHUNK (1u << 20)
#define OUT_BUF (256u << 10)

/* The client writer: libarchive runs unblocked (bytes_per_block 0, so nothing pads the output),
 * and small header writes are gathered here instead of costing a write(2) each. */
struct sink {
	int fd;
	const char *what;
	char *buf;
	size_t len;
	int err; /* errno of a failed write */
};

static int sink_flush(struct sink *s)
{
	size_t off = 0;

	while (off < s->len) {
		ssize_t w = write(s->fd, s->buf + off, s->len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			s->err = errno;
			return -1;
		}
		off += (size_t)w;
	}
	s->len = 0;
	return 0;
}

static la_ssize_t sink_write(struct archive *a, void *data, const void *buf, size_t n)
{
	struct sink *s = data;

	if (s->len + n > OUT_BUF && sink_flush(s)) {
		archive_set_error(a, s->err, "cannot write '%s'", s->what);
		return -1;
	}
	if (n >= OUT_BUF) {
		size_t off = 0;

		while (off < n) {
			ssize_t w = write(s->fd, (const char *)buf + off, n - off);

			if (w < 0) {
				if (errno == EINTR)
					continue;
				s->err = errno;
				archive_set_error(a, errno, "cannot write '%s'", s->what);
				return -1;
			}
			off += (size_t)w;
		}
		return (la_ssize_t)n;
	}
	memcpy(s->buf + s->len, buf, n);
	s->len += n;
	return (la_ssize_t)n;
}

static int sink_close(struct archive *a, void *data)
{
	struct sink *s = data;

	if (sink_flush(s)) {
		archive_set_error(a, s->err, "cannot write '%s'", s->what);
		return ARCHIVE_FATAL;
	}
	return ARCHIVE_OK;
}

static int la_error(struct archive *a, const char *what, const char *call)
{
	const char *msg = archive_error_string(a);

	return error("cannot write '%s': %s: %s", what, call,
		     msg ? msg : "unknown libarchive error");
}

/* The kernel's decompressors need options libarchive's defaults do not give (FACTS.md):
 * gzip must not stamp the time; xz must use CRC32 (lib/xz/xz_dec_stream.c knows no CRC64)
 * and libarchive 3.6.2's xz filter has no check option, so xz runs as a program, single
 * threaded for reproducible block layout, with the 1 MiB dictionary the kernel's
 * usr/Kconfig suggests; the kernel's unlz4 reads only the legacy format and libarchive writes
 * only the frame format, so lz4 -l runs as a program too, at level 1: on a 61 MB kselftest
 * image 0.27 s for 40.5 MB against 2.8 s for 33.9 MB at -9 (measured here). */
static int set_filter(struct archive *a, enum builder_compress c, const char *what)
{
	switch (c) {
	case BUILDER_COMPRESS_NONE:
		if (archive_write_add_filter_none(a) != ARCHIVE_OK)
			return la_error(a, what, "archive_write_add_filter_none");
		return 0;
	case BUILDER_COMPRESS_GZIP:
		if (archive_write_add_filter_gzip(a) != ARCHIVE_OK)
			return la_error(a, what, "archive_write_add_filter_gzip");
		if (archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK)
			return la_error(a, what, "gzip option !timestamp");
		return 0;
	case BUILDER_COMPRESS_XZ:
		if (archive_write_add_filter_program(
			    a, "xz --check=crc32 --lzma2=dict=1MiB -T1 -c") != ARCHIVE_OK)
			return la_error(a, what, "archive_write_add_filter_program(xz)");
		return 0;
	case BUILDER_COMPRESS_ZSTD:
		if (archive_write_add_filter_zstd(a) != ARCHIVE_OK)
			return la_error(a, what, "archive_write_add_filter_zstd");
		if (archive_write_set_filter_option(a, "zstd", "compression-level", "3") !=
		    ARCHIVE_OK)
			return la_error(a, what, "zstd option compression-level");
		/* zstd's multi-threaded output does not depend on the number of workers (zstd.h,
		 * ZSTD_c_nbWorkers), so threads keep the image reproducible. */
		if (archive_write_set_filter_option(a, "zstd", "threads", "0") != ARCHIVE_OK)
			return la_error(a, what, "zstd option threads");
		return 0;
	case BUILDER_COMPRESS_LZ4:
		if (archive_write_add_filter_program(a, "lz4 -l -1 -q -c") != ARCHIVE_OK)
			return la_error(a, what, "archive_write_add_filter_program(lz4)");
		return 0;
	}
	return error("cannot write '%s': unknown compression %d", what, (int)c);
}

struct name_ref {
	const char *name;
	size_t idx;
	bool last; /* the group's last name in sorted order carries the data */
};

static int cmp_ref(const void *a, const void *b)
{
	return strcmp(((const struct name_ref *)a)->name, ((const struct name_ref *)b)->name);
}

static mode_t type_bits(enum image_type t)
{
	switch (t) {
	case IMAGE_FILE:
		return AE_IFREG;
	case IMAGE_DIR:
		return AE_IFDIR;
	case IMAGE_SYMLINK:
		return AE_IFLNK;
	case IMAGE_CHR:
		return AE_IFCHR;
	case IMAGE_BLK:
		return AE_IFBLK;
	case IMAGE_FIFO:
		return AE_IFIFO;
	case IMAGE_SOCK:
		return AE_IFSOCK;
	}
	return 0;
}

static int copy_data(struct archive *a, const struct image_entry *e, char *buf, const char *what)
{
	uint64_t left = e->size;
	int fd;

	if (!e->src) {
		if (e->size && archive_write_data(a, e->data, e->size) != (la_ssize_t)e->size)
			return la_error(a, what, "archive_write_data");
		return 0;
	}
	fd = open_regular(e->src, O_RDONLY);
	if (fd < 0)
		return error_errno("%s: cannot open '%s'", e->origin, e->src);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	while (left) {
		ssize_t r = read(fd, buf, left < COPY_CHUNK ? (size_t)left : COPY_CHUNK);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			error_errno("%s: cannot read '%s'", e->origin, e->src);
			goto out_close;
		}
		if (r == 0) {
			/* The header already promised e->size bytes. */
			error("%s: '%s' shrank while being packed", e->origin, e->src);
			goto out_close;
		}
		if (archive_write_data(a, buf, (size_t)r) != r) {
			la_error(a, what, "archive_write_data");
			goto out_close;
		}
		left -= (uint64_t)r;
	}
	close(fd);
	return 0;
out_close:
	close(fd);
	return -1;
}

static int write_entries(struct archive *a, const struct image *img, size_t first, size_t count,
			 const char *what)
{
	struct archive_entry *ae = archive_entry_new();
	struct name_ref *refs = NULL;
	size_t nrefs = 0, alloc = 0;
	char *buf = xmalloc(COPY_CHUNK);
	int ret = -1;

	if (!ae) {
		free(buf);
		return error("cannot write '%s': out of memory", what);
	}
	for (size_t i = first; i < first + count; i++) {
		const struct image_entry *e = &img->e[i];

		for (size_t j = 0; j <= e->links.n; j++) {
			xgrow(&refs, &alloc, nrefs + 1, sizeof(*refs));
			refs[nrefs++] =
				(struct name_ref){j ? e->links.v[j - 1] : e->path, i, false};
		}
	}
	if (nrefs)
		qsort(refs, nrefs, sizeof(*refs), cmp_ref);
	/* newc convention (gen_init_cpio's cpio_mkfile(), cpio(5)): the data of a hard-link
	 * group goes with its last name; the others have size 0. */
	for (size_t i = 0; i < nrefs; i++) {
		bool later = false;

		for (size_t k = i + 1; img->e[refs[i].idx].links.n && k < nrefs && !later; k++)
			later = refs[k].idx == refs[i].idx;
		refs[i].last = !later;
	}
	for (size_t i = 0; i < nrefs; i++) {
		const struct image_entry *e = &img->e[refs[i].idx];
		/* Inodes number the entries in archive order; a hard-link group shares the one of
		 * its first name. */
		unsigned ino = (unsigned)(refs[i].idx - first) + 1;
		unsigned nlink = e->type == IMAGE_DIR ? 2 : 1 + (unsigned)e->links.n;
		bool data = e->type == IMAGE_FILE && refs[i].last;

		archive_entry_clear(ae);
		archive_entry_set_pathname(ae, refs[i].name);
		archive_entry_set_filetype(ae, (unsigned)type_bits(e->type));
		archive_entry_set_perm(ae, e->perm);
		archive_entry_set_uid(ae, e->uid);
		archive_entry_set_gid(ae, e->gid);
		archive_entry_set_mtime(ae, img->mtime, 0);
		archive_entry_set_ino(ae, ino);
		archive_entry_set_nlink(ae, nlink);
		archive_entry_set_dev(ae, 0);
		if (e->type == IMAGE_CHR || e->type == IMAGE_BLK) {
			archive_entry_set_rdevmajor(ae, e->rmajor);
			archive_entry_set_rdevminor(ae, e->rminor);
		}
		if (e->type == IMAGE_SYMLINK)
			archive_entry_set_symlink(ae, e->target);
		archive_entry_set_size(ae, data ? (la_int64_t)e->size : 0);
		if (archive_write_header(a, ae) != ARCHIVE_OK) {
			la_error(a, what, "archive_write_header");
			goto out;
		}
		if (data && copy_data(a, e, buf, what))
			goto out;
	}
	ret = 0;
out:
	archive_entry_free(ae);
	free(refs);
	free(buf);
	return ret;
}

int cpio_write_segment(const struct image *img, unsigned seg, enum builder_compress c, int fd,
		       const char *what_for)
{
	struct sink sink = {fd, what_for, NULL, 0, 0};
	struct archive *a = archive_write_new();
	size_t first, count;
	int ret = -1;

	if (!a)
		return error("cannot write '%s': out of memory", what_for);
	sink.buf = xmalloc(OUT_BUF);
	image_segment_range(img, seg, &first, &count);
	if (archive_write_set_format_cpio_newc(a) != ARCHIVE_OK) {
		la_error(a, what_for, "archive_write_set_format_cpio_newc");
		goto out_free;
	}
	if (set_filter(a, c, what_for))
		goto out_free;
	if (archive_write_set_bytes_per_block(a, 0) != ARCHIVE_OK) {
		la_error(a, what_for, "archive_write_set_bytes_per_block");
		goto out_free;
	}
	if (archive_write_open2(a, &sink, NULL, sink_write, sink_close, NULL) != ARCHIVE_OK) {
		la_error(a, what_for, "archive_write_open");
		goto out_free;
	}
	if (write_entries(a, img, first, count, what_for)) {
		archive_write_close(a);
		goto out_free;
	}
	if (archive_write_close(a) != ARCHIVE_OK) {
		la_error(a, what_for, "archive_write_close");
		goto out_free;
	}
	ret = 0;
out_free:
	if (archive_write_free(a) != ARCHIVE_OK && !ret)
		ret = error("cannot write '%s': archive_write_free failed", what_for);
	free(sink.buf);
	return ret;
}
