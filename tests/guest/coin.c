// SPDX-License-Identifier: GPL-2.0-only
/* coin.c: a flaky test for tapboot gate: fails at random half the time (one bit of
 * /dev/urandom; VMs restored from one snapshot get their own seed, DESIGN.md "Snapshot boot").
 * Expected verdict: pass or fail ("exit 1"), about half each. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	unsigned char b;
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, &b, 1) != 1) {
		perror("/dev/urandom");
		return 2;
	}
	printf("coin: %s\n", b & 1 ? "tails, failing" : "heads, passing");
	return b & 1;
}
