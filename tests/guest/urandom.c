// SPDX-License-Identifier: GPL-2.0-only
/* urandom.c: prints 16 bytes of /dev/urandom as hex ("urandom: 0f3a..."), so a test can see
 * that two VMs started from one snapshot do not share the kernel's random state. Expected
 * verdict: pass. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
		perror("/dev/urandom");
		return 1;
	}
	printf("urandom: ");
	for (size_t i = 0; i < sizeof(b); i++)
		printf("%02x", b[i]);
	printf("\n");
	return 0;
}
