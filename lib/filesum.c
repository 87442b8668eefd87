// SPDX-License-Identifier: GPL-2.0-only
/* filesum.c: four 64-bit lanes, multiply and rotate: a 70 MB file is read and summed in a few
 * tens of milliseconds. The sparse form walks the file's data extents (SEEK_DATA/SEEK_HOLE)
 * in 4 KiB blocks and leaves the all-zero ones out, so a hole and a written zero block are the
 * same to it. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "filesum.h"

#define BLOCK 4096
#define BUFSIZE (1 << 20)

static const uint64_t k[4] = {0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull,
			      0xd6e8feb86659fd93ull};

struct sum {
	uint64_t lane[4];
	uint64_t total;
};

static void sum_init(struct sum *s)
{
	for (int l = 0; l < 4; l++)
		s->lane[l] = (uint64_t)l + 1;
	s->total = 0;
}

static void mix(struct sum *s, int l, uint64_t w)
{
	s->lane[l] = (s->lane[l] ^ w) * k[l];
	s->lane[l] = s->lane[l] << 29 | s->lane[l] >> 35;
}

/* n bytes; only the last piece of a file may have a length that is not a multiple of 32 */
static void sum_update(struct sum *s, const unsigned char *buf, size_t n)
{
	size_t whole = n & ~(size_t)31, i;

	for (i = 0; i < whole; i += 32)
		for (int l = 0; l < 4; l++) {
			uint64_t w;

			memcpy(&w, buf + i + 8 * l, 8);
			mix(s, l, w);
		}
	for (; i < n; i++)
		s->lane[i & 3] = (s->lane[i & 3] ^ buf[i]) * k[i & 3];
	s->total += (uint64_t)n;
}

static uint64_t sum_final(const struct sum *s)
{
	uint64_t v = s->total;

	for (int l = 0; l < 4; l++)
		v = (v ^ s->lane[l]) * k[l] + (uint64_t)l;
	return v;
}

int file_checksum(const char *path, uint64_t *sum, uint64_t *size)
{
	unsigned char *buf = xmalloc(BUFSIZE);
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved;
	struct sum s;
	ssize_t n;

	if (fd < 0) {
		free(buf);
		return -1;
	}
	sum_init(&s);
	while ((n = read(fd, buf, BUFSIZE)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			sum_update(&s, buf, (size_t)n); /* short only at the end: a regular file */
	saved = errno;
	free(buf);
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	*sum = sum_final(&s);
	*size = s.total;
	return 0;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		uint64_t w[8], acc = 0;

		memcpy(w, p + i, sizeof(w));
		for (int j = 0; j < 8; j++)
			acc |= w[j];
		if (acc)
			return false;
	}
	for (; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static int pwrite_all(int fd, const unsigned char *p, size_t n, off_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* The blocks of [off, off + n) (buf; off a multiple of BLOCK): summed, and written to `to`
 * (when >= 0) in runs of consecutive non-zero blocks. */
static int take(struct sum *s, uint64_t *data, int to, const unsigned char *buf, size_t n,
		off_t off)
{
	size_t run = 0, run_len = 0;

	for (size_t i = 0; i < n; i += BLOCK) {
		size_t bl = n - i < BLOCK ? n - i : BLOCK;

		if (all_zero(buf + i, bl)) {
			if (run_len && to >= 0 && pwrite_all(to, buf + run, run_len, off + (off_t)run) < 0)
				return -1;
			run_len = 0;
			continue;
		}
		/* where the block is, then what it holds */
		mix(s, 0, (uint64_t)off + i);
		sum_update(s, buf + i, bl);
		*data += bl;
		if (!run_len)
			run = i;
		run_len += bl;
	}
	if (run_len && to >= 0 && pwrite_all(to, buf + run, run_len, off + (off_t)run) < 0)
		return -1;
	return 0;
}

static int sparse_walk(int from, int to, uint64_t *sum, uint64_t *data, uint64_t *size)
{
	unsigned char *buf;
	struct stat st;
	struct sum s;
	off_t pos = 0, end;
	int saved = 0;

	if (fstat(from, &st) < 0)
		return -1;
	end = st.st_size;
	buf = xmalloc(BUFSIZE);
	sum_init(&s);
	*data = 0;
	while (pos < end) {
		off_t d = lseek(from, pos, SEEK_DATA), h;

		if (d < 0 && errno == ENXIO)
			break; /* a hole to the end */
		if (d < 0 && errno != EINVAL)
			goto fail;
		if (d < 0) {
			d = pos; /* no SEEK_DATA on this file system: every byte is read */
			h = end;
		} else {
			h = lseek(from, d, SEEK_HOLE);
			if (h < 0)
				h = end;
		}
		/* whole blocks: a block a hole splits is read once, from its start */
		d &= ~(off_t)(BLOCK - 1);
		if (d < pos)
			d = pos;
		h = (h + BLOCK - 1) & ~(off_t)(BLOCK - 1);
		if (h > end)
			h = end;
		while (d < h) {
			size_t want = h - d < BUFSIZE ? (size_t)(h - d) : BUFSIZE;
			ssize_t n = pread(from, buf, want, d);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				goto fail;
			if (n == 0) {
				h = end = d; /* it shrank under us: what is there */
				break;
			}
			if (take(&s, data, to, buf, (size_t)n, d) < 0)
				goto fail;
			d += n;
		}
		pos = h > d ? h : d;
	}
	if (to >= 0 && ftruncate(to, end) < 0)
		goto fail;
	free(buf);
	*sum = sum_final(&s);
	*size = (uint64_t)end;
	return 0;
fail:
	saved = errno;
	free(buf);
	errno = saved;
	return -1;
}

int file_checksum_sparse(int fd, uint64_t *sum, uint64_t *data, uint64_t *size)
{
	return sparse_walk(fd, -1, sum, data, size);
}

int file_copy_sparse(int from, int to, uint64_t *sum, uint64_t *data, uint64_t *size)
{
	return sparse_walk(from, to, sum, data, size);
}
