// SPDX-License-Identifier: GPL-2.0-only
/* key_segment.c: appends the run's secret to a built image as one more small newc archive
 * (/tapboot/key, mode 0400), per run: the cached segments and `tapboot build`'s images never
 * hold a secret. Written by hand, not with libarchive: one file entry and the trailer. */
#include "builder.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "protocol.h"
#include "strbuf.h"

static void newc_entry(struct strbuf *sb, unsigned ino, unsigned mode, const char *name,
		       const void *data, size_t len)
{
	size_t namesize = strlen(name) + 1;

	strbuf_addf(sb, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", ino, mode,
		    0u, 0u, 1u, 0u, len, 0u, 0u, 0u, 0u, namesize, 0u);
	strbuf_add(sb, name, namesize);
	while (sb->len % 4)
		strbuf_addch(sb, '\0');
	strbuf_add(sb, data, len);
	while (sb->len % 4)
		strbuf_addch(sb, '\0');
}

/* The kernel's LZ4 reader (lib/decompress_unlz4.c) takes the legacy format only and reads to
 * the end of the image, taking a repeated magic number as the next stream's start: an
 * uncompressed archive after an lz4 image fails to decode ("Initramfs unpacking failed:
 * Decoding failed", seen here). So after lz4 the archive is an lz4 legacy stream of its own:
 * one block of literals only, which every LZ4 decoder takes. */
static void lz4_legacy_literals(struct strbuf *out, const char *data, size_t n)
{
	struct strbuf blk = STRBUF_INIT;
	size_t rest;

	strbuf_init(&blk);
	strbuf_addch(&blk, (char)((n >= 15 ? 15 : n) << 4));
	if (n >= 15) {
		for (rest = n - 15; rest >= 255; rest -= 255)
			strbuf_addch(&blk, (char)255);
		strbuf_addch(&blk, (char)rest);
	}
	strbuf_add(&blk, data, n);
	strbuf_add(out, "\x02\x21\x4c\x18", 4); /* 0x184C2102, little-endian */
	for (int i = 0; i < 4; i++)
		strbuf_addch(out, (char)(blk.len >> (8 * i)));
	strbuf_add(out, blk.buf, blk.len);
	strbuf_release(&blk);
}

int builder_append_key(const char *image, enum builder_compress c, const unsigned char *key,
		       size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int fd = open(image, O_WRONLY | O_CLOEXEC), ret = -1;
	ssize_t w;

	if (fd < 0)
		return error_errno("cannot open '%s'", image);
	if (fstat(fd, &st) < 0) {
		error_errno("cannot stat '%s'", image);
		goto out_close;
	}
	strbuf_init(&sb);
	/* The kernel takes the next archive only at a 4-byte boundary of the whole image
	 * (init/initramfs.c: "this_header & 3"), and skips the zeros before it; inside an lz4
	 * stream a zero would be read as a block size. */
	while (c != BUILDER_COMPRESS_LZ4 && (st.st_size + (off_t)sb.len) % 4)
		strbuf_addch(&sb, '\0');
	{
		/* newc's 4-byte alignment counts from the archive's start */
		struct strbuf arc = STRBUF_INIT;

		strbuf_init(&arc);
		/* the image's own segments create /tapboot (the plan); a high inode number
		 * keeps clear of theirs, and nlink 1 keeps it out of hard-link matching */
		newc_entry(&arc, 0x7ab00001u, S_IFREG | 0400, TAPBOOT_KEY_PATH + 1, key, len);
		newc_entry(&arc, 0, 0, "TRAILER!!!", "", 0);
		if (c == BUILDER_COMPRESS_LZ4)
			lz4_legacy_literals(&sb, arc.buf, arc.len);
		else
			strbuf_add(&sb, arc.buf, arc.len);
		strbuf_release(&arc);
	}
	w = pwrite(fd, sb.buf, sb.len, st.st_size);
	if (w != (ssize_t)sb.len) {
		if (w >= 0)
			errno = ENOSPC;
		error_errno("cannot write '%s'", image);
		/* nothing half-written: the image as it was */
		if (ftruncate(fd, st.st_size) < 0)
			error_errno("cannot truncate '%s'", image);
		goto out_release;
	}
	ret = 0;
out_release:
	strbuf_release(&sb);
out_close:
	if (close(fd) < 0 && !ret)
		ret = error_errno("cannot write '%s'", image);
	return ret;
}
