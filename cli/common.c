/* common.c: what tapboot run and tapboot build share: finding the init, targets, option values. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "error.h"
#include "fs.h"

int cli_parse_compress(const char *name, enum builder_compress *out)
{
	int k = builder_compress_from_name(name);

	if (k < 0)
		return error("--compress wants none, gzip, xz, zstd or lz4, got '%s'", name);
	*out = (enum builder_compress)k;
	return 0;
}

int cli_parse_seconds(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > 7 * 86400)
		return -1;
	*out = (unsigned)v;
	return 0;
}

