// SPDX-License-Identifier: GPL-2.0-only
/* flood.c: prints 10 MiB (80-byte lines) and exits 0. Expected verdict: pass; the console shows
 * the first part and "# output truncated: showed N of 10485760 bytes". */
#include <stdio.h>
#include <string.h>

int main(void)
{
	char line[81];

	memset(line, 'x', 79);
	line[79] = '\n';
	line[80] = '\0';
	for (int i = 0; i < 10 * 1024 * 1024 / 80; i++)
		fputs(line, stdout);
	return 0;
}
