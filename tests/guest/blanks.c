// SPDX-License-Identifier: GPL-2.0-only
/* blanks.c: a test that leaves the console in the middle of a line: it writes argv[1] spaces
 * (default 40) to /dev/console without a newline and exits 0, so the init's next line may
 * follow them on the same console line (issue 41, item 5).
 * Expected verdict: pass; the test after it keeps its own verdict. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096];
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 40;
	int con = open("/dev/console", O_WRONLY);

	if (con < 0)
		return 1;
	if (n < 0 || n > (long)sizeof(buf))
		n = 40;
	memset(buf, ' ', (size_t)n);
	if (write(con, buf, (size_t)n) != (ssize_t)n)
		return 1;
	return 0;
}
