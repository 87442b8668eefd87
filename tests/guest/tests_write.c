// SPDX-License-Identifier: GPL-2.0-only
/* tests_write.c: tries to write the tests image through its PCI window (the ivshmem device
 * 1af4:1110's BAR 2, /sys/bus/pci/devices/.../resource2), mapped writable, as a root test can.
 * Prints what it did; exit 0. The host checks that its tests.cpio did not change (issue 41). */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_hex(const char *dir, const char *name)
{
	char path[512], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return (int)strtol(buf, NULL, 16);
}

int main(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d))) {
		char path[512];
		struct stat st;
		unsigned char *p;
		int fd;

		if (e->d_name[0] == '.' || read_hex(e->d_name, "vendor") != 0x1af4 ||
		    read_hex(e->d_name, "device") != 0x1110)
			continue;
		found = 1;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/enable", e->d_name);
		fd = open(path, O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "1", 1) < 0)
				perror("enable");
			close(fd);
		}
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource2", e->d_name);
		fd = open(path, O_RDWR);
		if (fd < 0 || fstat(fd, &st) < 0) {
			printf("cannot open %s read-write\n", path);
			continue;
		}
		p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			printf("cannot map %s writable\n", path);
			close(fd);
			continue;
		}
		printf("mapped %s writable (%lld bytes), first bytes %.6s\n", path,
		       (long long)st.st_size, (const char *)p);
		/* a newc header starts "070701": scribble over the first entry and its name */
		memset(p, 'X', 512);
		msync(p, 512, MS_SYNC);
		printf("after the write: %.6s\n", (const char *)p);
		munmap(p, (size_t)st.st_size);
		close(fd);
	}
	if (!found)
		printf("no tests image device\n");
	return 0;
}
