/* fs.h: file-system helpers the host tool's parts share. */
#ifndef TAPBOOT_FS_H
#define TAPBOOT_FS_H

/* Create path and its missing parents (mode 0755), like mkdir -p. 0, or -1 with errno set
 * (the caller names the path in its message). */
int mkdir_p(const char *path);

#endif
