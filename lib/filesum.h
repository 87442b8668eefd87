/* SPDX-License-Identifier: GPL-2.0-only */
/* filesum.h: checksums that find a truncated or damaged cache file (not cryptographic: whoever
 * can write the cache can run anything as the user anyway), and the sparse copy of snapshot
 * boot's guest RAM. */
#ifndef TAPBOOT_FILESUM_H
#define TAPBOOT_FILESUM_H

#include <stdint.h>

/* Every byte of the file at path: *sum, and *size the bytes read. -1 with errno set. */
int file_checksum(const char *path, uint64_t *sum, uint64_t *size);

/* A file whose holes and all-zero 4 KiB blocks do not count (a guest's RAM: 512 MB of which
 * the guest wrote 60-100): the sum over (offset, block) of its other blocks, *data their bytes
 * and *size the file's size. A copy made by file_copy_sparse has the sum of its original,
 * whatever holes either file system keeps. -1 with errno set. */
int file_checksum_sparse(int fd, uint64_t *sum, uint64_t *data, uint64_t *size);

/* Copy from's non-zero blocks to the same offsets of to (empty, its size set to from's: the
 * rest stays holes), with the sums file_checksum_sparse gives of from. -1 with errno set. */
int file_copy_sparse(int from, int to, uint64_t *sum, uint64_t *data, uint64_t *size);

#endif
