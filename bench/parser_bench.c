/* parser_bench.c: feeds a console log to tap_parser in 64 KiB chunks (as the console reader
 * does) from memory and prints the throughput; the file is read first so the disk is not
 * measured. usage: parser_bench FILE [REPEAT] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tap_parser.h"

int main(int argc, char **argv)
{
	FILE *fp = argc > 1 ? fopen(argv[1], "rb") : NULL;
	int repeat = argc > 2 ? atoi(argv[2]) : 3;
	double best = 1e30;
	size_t len, ntests = 0;
	char *buf;

	if (!fp) {
		fprintf(stderr, "usage: parser_bench FILE [REPEAT]\n");
		return 2;
	}
	fseek(fp, 0, SEEK_END);
	len = (size_t)ftell(fp);
	rewind(fp);
	buf = malloc(len);
	if (!buf || fread(buf, 1, len, fp) != len)
		return 2;
	fclose(fp);
	for (int r = 0; r < repeat; r++) {
		struct timespec a, b;
		struct tap_parser *p;
		double s;

		clock_gettime(CLOCK_MONOTONIC, &a);
		p = tap_parser_new("c0ffee", NULL);
		for (size_t off = 0; off < len; off += 65536)
			tap_parser_feed(p, buf + off, len - off < 65536 ? len - off : 65536);
		tap_parser_finish(p, NULL);
		clock_gettime(CLOCK_MONOTONIC, &b);
		tap_parser_tests(p, &ntests);
		tap_parser_free(p);
		s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		if (s < best)
			best = s;
	}
	printf("tap_parser: %.1f MB in %.3f s: %.0f MB/s, %zu tests\n", (double)len / 1e6, best,
	       (double)len / 1e6 / best, ntests);
	free(buf);
	return 0;
}
