/* SPDX-License-Identifier: GPL-2.0-only */
/* filehash.h: a file's sha256, computed once while the file is unchanged (the stat cache). */
#ifndef TAPBOOT_FILEHASH_H
#define TAPBOOT_FILEHASH_H

/* sha256 of path as 64 hex digits into hex[65]; -1 on error (message printed). The value is
 * kept in the cache's stat cache (STAT_CACHE_SHA256) and taken from there while the file's
 * path, inode, size, mtime and ctime are unchanged: hashing a Debian kernel costs 30-60 ms. */
int file_sha256(const char *path, char hex[65]);
/* The same, always read and hashed (nothing cached). */
int file_sha256_uncached(const char *path, char hex[65]);

#endif
