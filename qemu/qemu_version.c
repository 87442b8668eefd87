// SPDX-License-Identifier: GPL-2.0-only
/* qemu_version.c: which QEMU a binary is, asked once per binary. */
#include "qemu_version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "error.h"
#include "proc.h"
#include "strbuf.h"

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
	char *bin = path_lookup(qemu);
	const char *argv[] = { NULL, "--version", NULL };
	struct strbuf sb = STRBUF_INIT;

	if (bin && stat_cache_get(STAT_CACHE_QEMU_VERSION, bin, out, n))
		goto out;
	snprintf(out, n, "unknown");
	if (!bin)
		goto out;
	/* proc_capture forks with proc_fork: even this 20 ms child dies with tapboot */
	argv[0] = bin;
	if (proc_capture(argv, &sb, true) == 0 && sb.len) {
		snprintf(out, n, "%.*s", (int)strcspn(sb.buf, "\n"), sb.buf);
		stat_cache_put(STAT_CACHE_QEMU_VERSION, bin, out);
	}
out:
	strbuf_release(&sb);
	free(bin);
}
