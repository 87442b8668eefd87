/* fs.c: mkdir -p. */
#include "fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);

	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			int saved = errno;

			free(p);
			errno = saved;
			return -1;
		}
		*s = '/';
	}
	free(p);
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}
