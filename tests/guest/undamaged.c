// SPDX-License-Identifier: GPL-2.0-only
/* undamaged.c: fails when an earlier test in the same kernel left its mark (damage.c's host
 * name); passes in a kernel of its own. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char name[256] = "";

	if (gethostname(name, sizeof(name) - 1) < 0) {
		perror("gethostname");
		return 1;
	}
	printf("host name: '%s'\n", name);
	return strcmp(name, "tapboot-damaged") ? 0 : 1;
}
