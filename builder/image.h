/* SPDX-License-Identifier: GPL-2.0-only */
/* image.h: the builder's private model of an image: entries (path, type, mode, owner, content) in
 * segments, filled by the input parsers (inputs.c) and written by cpio_writer.c. Private to
 * builder/. */
#ifndef TAPBOOT_BUILDER_IMAGE_H
#define TAPBOOT_BUILDER_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "builder.h"
#include "strbuf.h"

/* Messages about a file name the input line it came from (origin, "list:3") first, unless that
 * is the file itself: error(ORIGIN_FMT "cannot read '%s'", ORIGIN_ARGS(origin, path), path). */
#define ORIGIN_FMT "%s%s"
#define ORIGIN_ARGS(origin, subject)                                                               \
	(strcmp((origin), (subject)) ? (origin) : ""), (strcmp((origin), (subject)) ? ": " : "")

enum image_type {
	IMAGE_FILE,
	IMAGE_DIR,
	IMAGE_SYMLINK,
	IMAGE_CHR,
	IMAGE_BLK,
	IMAGE_FIFO,
	IMAGE_SOCK,
};

struct image_entry {
	char *path; /* owned, normalised: no leading '/', no '.', '..' or empty components */
	enum image_type type;
	unsigned perm; /* 07777 bits */
	unsigned uid, gid;
	unsigned rmajor, rminor; /* devices */
	char *src;		 /* owned: host file with the content (IMAGE_FILE), or NULL */
	char *data;		 /* owned: in-memory content (IMAGE_FILE without src) */
	uint64_t size;		 /* of the content */
	char *target;		 /* owned: symlink target */
	struct strlist links;	 /* hard-link names (normalised), written with the same inode */
	bool implicit;		 /* a parent directory nobody asked for */
	char *origin;		 /* owned: "file" or "file:line", for messages */
	unsigned seg;		 /* segment index */
	/* stat of src, for the segment cache key */
	int64_t mtime_ns, ctime_ns;
	uint64_t dev, ino;
};

struct image_segment {
	char *name; /* owned: what it holds, for messages ("base", the input's path) */
};

struct image {
	struct image_entry *e; /* owned array */
	size_t n, alloc;
	struct image_segment *segs;
	size_t nsegs, segs_alloc;
	unsigned cur_seg; /* where image_add* put entries */
	int64_t mtime;	  /* SOURCE_DATE_EPOCH or 0 */
};

void image_init(struct image *img);
void image_release(struct image *img);
unsigned image_segment_new(struct image *img, const char *name);

/* Normalise an image path (leading '/' optional). Returns an owned string, or NULL after an
 * error naming origin when the path is empty, has a ".." component or escapes the root. */
char *image_path_normalise(const char *path, const char *origin);

/* Add entries to the current segment; path is normalised by the caller. The entry's strings
 * are copied. The file variants stat src (errors name origin) and refuse files of 4 GiB or
 * more (the newc header's size field has 32 bits). Return the entry or NULL after an error. */
struct image_entry *image_add_file(struct image *img, const char *path, const char *src,
				   unsigned perm, const char *origin);
struct image_entry *image_add_data(struct image *img, const char *path, const void *data,
				   size_t len, unsigned perm, const char *origin);
struct image_entry *image_add_dir(struct image *img, const char *path, unsigned perm,
				  const char *origin);
struct image_entry *image_add_symlink(struct image *img, const char *path, const char *target,
				      const char *origin);
struct image_entry *image_add_special(struct image *img, const char *path, enum image_type type,
				      unsigned perm, unsigned rmajor, unsigned rminor,
				      const char *origin);

/* The entry for path (normalised) anywhere in the image, or NULL. Linear: for few lookups. */
struct image_entry *image_find(struct image *img, const char *path);
bool image_has(const struct image *img, const char *path);

/* Reject duplicates (identical files and directories merge, an explicit directory wins over an
 * implicit one), add implicit parent directories to every segment that needs them, and sort
 * each segment's entries by path so that parents come first. one_archive first moves every
 * entry into segment 0. Returns 0 or -1 after an error naming both origins. */
int image_finish(struct image *img, bool one_archive);

/* Entries of segment seg after image_finish: [*first, *first + *count). */
void image_segment_range(const struct image *img, unsigned seg, size_t *first, size_t *count);

/* A hash of everything that makes segment seg's bytes (paths, types, modes, owners, sizes,
 * sources' stat data, in-memory content), hex, for the cache. out must hold 65 bytes. */
void image_segment_key(const struct image *img, unsigned seg, enum builder_compress c,
		       char out[65]);

/* cpio_writer.c: write the entries of segment seg as one newc archive (trailer included)
 * through compression c to fd. Inode numbers are 1, 2, ... within the archive (the kernel
 * forgets hard-link inodes at each TRAILER!!!, init/initramfs.c do_name(), so archives in one
 * image may reuse them). Returns 0 or -1 after an error naming what_for (the output file). */
int cpio_write_segment(const struct image *img, unsigned seg, enum builder_compress c, int fd,
		       const char *what_for);

#endif
