// SPDX-License-Identifier: GPL-2.0-only
/* test_filesum.c: the checksums that guard snapshot boot's files (lib/filesum.c): the sparse
 * copy of a guest's RAM has its original's bytes and sum, keeps zeros as holes, and a changed,
 * moved or cut-off block changes the sum. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "filesum.h"
#include "harness.h"

#define MB (1 << 20)

/* A 8 MiB file: holes, written zero blocks, data at a block's start, in its middle, across a
 * 1 MiB read, and a last partial block. */
static char *make_ram(const char *name, off_t size)
{
	char *path = xasprintf("%s/%s", test_tmpdir(), name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	static char zeros[3 * 4096], text[] = "the guest's page";

	check(fd >= 0);
	check(ftruncate(fd, size) == 0);
	check(pwrite(fd, text, sizeof(text), 0) == (ssize_t)sizeof(text));
	check(pwrite(fd, zeros, sizeof(zeros), 3 * 4096) == (ssize_t)sizeof(zeros));
	check(pwrite(fd, text, sizeof(text), 5 * 4096 + 100) == (ssize_t)sizeof(text));
	check(pwrite(fd, text, sizeof(text), MB - 5) == (ssize_t)sizeof(text));
	check(pwrite(fd, text, 3, size - 3) == 3);
	close(fd);
	return path;
}

static void sums(const char *path, uint64_t *sum, uint64_t *data, uint64_t *size)
{
	int fd = open(path, O_RDONLY);

	check(fd >= 0);
	check(file_checksum_sparse(fd, sum, data, size) == 0);
	close(fd);
}

static void test_copy(void)
{
	const off_t size = 8 * MB + 1000;
	char *src = make_ram("ram", size), *dst = xasprintf("%s/copy", test_tmpdir());
	uint64_t s1, d1, z1, s2, d2, z2, s3, d3, z3;
	int from = open(src, O_RDONLY), to = open(dst, O_RDWR | O_CREAT | O_TRUNC, 0600);
	char *a, *b;
	size_t la, lb;
	struct stat st;

	check(from >= 0 && to >= 0);
	check(file_copy_sparse(from, to, &s1, &d1, &z1) == 0);
	close(from);
	close(to);
	check_int(z1, ==, size);
	/* the blocks with data: 0, 5, the two around 1 MiB and the last (partial: 1000 bytes) */
	check_int(d1, ==, 4 * 4096 + 1000);
	sums(src, &s2, &d2, &z2);
	sums(dst, &s3, &d3, &z3);
	check(s1 == s2 && s2 == s3);
	check_int(d3, ==, d1);
	check_int(z3, ==, size);
	a = test_read_file(src, &la);
	b = test_read_file(dst, &lb);
	check(a && b);
	check_int(la, ==, lb);
	check(a && b && la == lb && !memcmp(a, b, la));
	free(a);
	free(b);
	/* the written zero blocks stayed holes: 5 data blocks, not 8 */
	check(stat(dst, &st) == 0);
	check_int((long long)st.st_blocks * 512, <=, 8 * 4096);
	free(src);
	free(dst);
}

static void test_changes(void)
{
	const off_t size = 4 * MB;
	char *path = make_ram("ram2", size);
	uint64_t s0, s, d, z;
	int fd;

	sums(path, &s0, &d, &z);
	fd = open(path, O_RDWR);
	check(fd >= 0);
	/* one byte in a block */
	check(pwrite(fd, "x", 1, 5 * 4096 + 101) == 1);
	sums(path, &s, &d, &z);
	check(s != s0);
	check(pwrite(fd, "h", 1, 5 * 4096 + 101) == 1); /* back: "the guest's page"[1] */
	sums(path, &s, &d, &z);
	check(s == s0);
	/* the same block at another offset */
	{
		char blk[4096];

		check(pread(fd, blk, sizeof(blk), 5 * 4096) == (ssize_t)sizeof(blk));
		check(pwrite(fd, blk, sizeof(blk), 6 * 4096) == (ssize_t)sizeof(blk));
		memset(blk, 0, sizeof(blk));
		check(pwrite(fd, blk, sizeof(blk), 5 * 4096) == (ssize_t)sizeof(blk));
		sums(path, &s, &d, &z);
		check(s != s0);
	}
	/* cut off: the size says it */
	check(ftruncate(fd, size / 2) == 0);
	sums(path, &s, &d, &z);
	check_int(z, ==, size / 2);
	close(fd);
	free(path);
}

static void test_whole_file(void)
{
	const char *p = test_write_file("state", "abcdefgh", 8, 0600);
	uint64_t s1, s2, n;

	check(file_checksum(p, &s1, &n) == 0);
	check_int(n, ==, 8);
	p = test_write_file("state", "abcdefgi", 8, 0600);
	check(file_checksum(p, &s2, &n) == 0);
	check(s1 != s2);
	check(file_checksum("/nonexistent/state", &s1, &n) < 0);
}

int main(void)
{
	TEST(test_copy, "a sparse copy: the same bytes and sum, zero blocks left holes");
	TEST(test_changes, "a changed or moved block changes the sum; a cut file its size");
	TEST(test_whole_file, "the whole-file checksum");
	return test_done();
}
