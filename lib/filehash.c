// SPDX-License-Identifier: GPL-2.0-only
/* filehash.c: a file's sha256 (nettle), stat-cached. */
#include "filehash.h"

#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "error.h"
#include "fs.h"

int file_sha256_uncached(const char *path, char hex[65])
{
	unsigned char buf[1 << 16], dig[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	ssize_t n;
	int fd = open_regular(path, O_RDONLY);

	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	sha256_init(&ctx);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(&ctx, (size_t)n, buf);
	if (n < 0) {
		error_errno("cannot read '%s'", path);
		close(fd);
		return -1;
	}
	close(fd);
	sha256_digest(&ctx, sizeof(dig), dig);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(hex + 2 * i, "%02x", dig[i]);
	return 0;
}

int file_sha256(const char *path, char hex[65])
{
	if (stat_cache_get(STAT_CACHE_SHA256, path, hex, 65) && strlen(hex) == 64)
		return 0;
	if (file_sha256_uncached(path, hex) < 0)
		return -1;
	stat_cache_put(STAT_CACHE_SHA256, path, hex);
	return 0;
}
