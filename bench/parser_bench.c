// SPDX-License-Identifier: GPL-2.0-only
/* parser_bench.c: feeds a console log to tap_parser in 64 KiB chunks (as the console reader
 * does) from memory and prints the throughput, best of REPEAT runs, with the default per-test
 * logs in memory and without them (tap_parser_set_log_cap 0); the file is read first so the
 * disk is not measured. Time is the thread's CPU time (one core; other load on the machine
 * does not count), parse and free included. usage: parser_bench FILE [REPEAT] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tap_parser.h"

static double run(const char *buf, size_t len, size_t cap, size_t *ntests)
{
	struct timespec a, b;
	struct tap_parser *p;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	p = tap_parser_new("c0ffee", NULL);
	tap_parser_set_log_cap(p, cap);
	for (size_t off = 0; off < len; off += 65536)
		tap_parser_feed(p, buf + off, len - off < 65536 ? len - off : 65536);
	tap_parser_finish(p, NULL);
	tap_parser_tests(p, ntests);
	tap_parser_free(p);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	FILE *fp = argc > 1 ? fopen(argv[1], "rb") : NULL;
	int repeat = argc > 2 ? atoi(argv[2]) : 3;
	static const size_t caps[] = {TAP_LOG_CAP, 0};
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
	for (size_t c = 0; c < 2; c++) {
		double best = 1e30;

		for (int r = 0; r < repeat; r++) {
			double s = run(buf, len, caps[c], &ntests);

			if (s < best)
				best = s;
		}
		printf("tap_parser (%s): %.1f MB in %.3f s CPU: %.0f MB/s, %zu tests\n",
		       caps[c] ? "logs kept" : "no logs", (double)len / 1e6, best,
		       (double)len / 1e6 / best, ntests);
	}
	free(buf);
	return 0;
}
