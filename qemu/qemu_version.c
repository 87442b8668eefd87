/* qemu_version.c: which QEMU a binary is, asked once per binary. */
#include "qemu_version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "error.h"

/* The binary a command name runs (PATH search, as execvp does); NULL when none. */
static char *path_lookup(const char *name)
{
	const char *p = getenv("PATH"), *end;

	if (strchr(name, '/'))
		return access(name, X_OK) ? NULL : xstrdup(name);
	for (p = p ? p : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		char *cand;

		end = strchrnul(p, ':');
		cand = xasprintf("%.*s/%s", (int)(end - p), p, name);
		if (!access(cand, X_OK))
			return cand;
		free(cand);
	}
	return NULL;
}

void qemu_version(const char *qemu, char *out, size_t n)
{
	char *bin = path_lookup(qemu), *vcmd;
	FILE *fp;

	if (bin && stat_cache_get(STAT_CACHE_QEMU_VERSION, bin, out, n))
		goto out;
	snprintf(out, n, "unknown");
	vcmd = xasprintf("%s --version 2>/dev/null", bin ? bin : qemu);
	fp = popen(vcmd, "r");
	free(vcmd);
	if (!fp)
		goto out;
	if (!fgets(out, (int)n, fp))
		snprintf(out, n, "unknown");
	out[strcspn(out, "\n")] = '\0';
	if (pclose(fp) == 0 && bin && strcmp(out, "unknown"))
		stat_cache_put(STAT_CACHE_QEMU_VERSION, bin, out);
out:
	free(bin);
}
