// SPDX-License-Identifier: GPL-2.0-only
/* nap.c: sleeps argv[1] seconds (default 5), then prints argv[2] lines of 79 characters
 * (default 0) and exits 0. usage: nap [SECONDS [LINES]].
 * Expected verdict: pass, unless its timeout is shorter than its sleep (then timeout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts = {argc > 1 ? atoi(argv[1]) : 5, 0};
	int lines = argc > 2 ? atoi(argv[2]) : 0;
	char line[80];

	printf("nap: sleeping %ld s\n", (long)ts.tv_sec);
	fflush(stdout);
	while (nanosleep(&ts, &ts) != 0)
		;
	memset(line, 'z', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	for (int i = 0; i < lines; i++)
		printf("%s\n", line);
	printf("nap: awake\n");
	return 0;
}
