// SPDX-License-Identifier: GPL-2.0-only
/* modules.c: load the plan's kernel modules, dependencies first, as modprobe would. */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4 /* include/uapi/linux/module.h, Linux 5.17 */
#endif

/* "kernel/lib/test_bpf.ko.xz" -> does it name module "test_bpf" (- and _ are the same)? */
static bool names_module(const char *path, size_t n, const char *name)
{
	const char *base = path, *p;
	size_t i;

	for (p = path; p < path + n; p++)
		if (*p == '/')
			base = p + 1;
	for (i = 0; name[i] && base + i < path + n; i++) {
		char a = base[i] == '-' ? '_' : base[i], b = name[i] == '-' ? '_' : name[i];

		if (a != b)
			return false;
	}
	return !name[i] && base + i + 3 <= path + n && !strncmp(base + i, ".ko", 3);
}

static int load_one(const char *dir, const char *rel, struct strbuf *out)
{
	char *path = xasprintf("%s/%s", dir, rel);
	size_t n = strlen(rel);
	int flags = n > 3 && strcmp(rel + n - 3, ".ko") ? MODULE_INIT_COMPRESSED_FILE : 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0 || (syscall(SYS_finit_module, fd, "", flags) < 0 && errno != EEXIST)) {
		strbuf_addf(out, "# init: cannot load module '%s': %s\n", path, strerror(errno));
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	free(path);
	return ret;
}

static void load_module(const char *name, const char *dir, const char *dep, size_t len,
			struct strbuf *out)
{
	for (size_t pos = 0; pos < len;) {
		const char *line = dep + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		const char *colon = memchr(line, ':', n);
		struct strlist deps;
		char *rest, *tok, *save;
		int ret = 0;

		pos += n + 1;
		if (!colon || !names_module(line, (size_t)(colon - line), name))
			continue;
		strlist_init(&deps);
		rest = xstrndup(colon + 1, n - (size_t)(colon + 1 - line));
		for (tok = strtok_r(rest, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			strlist_push(&deps, tok);
		/* modules.dep lists what a module needs, the deepest last: load from the end. */
		for (size_t i = deps.n; i-- > 0;)
			load_one(dir, deps.v[i], out);
		tok = xstrndup(line, (size_t)(colon - line));
		ret = load_one(dir, tok, out);
		if (!ret)
			strbuf_addf(out, "# init: module %s loaded\n", name);
		free(tok);
		free(rest);
		strlist_release(&deps);
		return;
	}
	strbuf_addf(out, "# init: module %s not found in %s/modules.dep (built in?)\n", name, dir);
}

void init_load_modules(const struct strlist *modules, const char *root, struct strbuf *out)
{
	struct utsname u;
	char *dir, *path, *dep;
	size_t len = 0;

	if (uname(&u) < 0)
		strcpy(u.release, "unknown");
	dir = xasprintf("%s/lib/modules/%s", root, u.release);
	path = xasprintf("%s/modules.dep", dir);
	if (read_file(path, &dep, &len) < 0) {
		strbuf_addf(out, "# init: cannot load modules: cannot read '%s': %s\n", path,
			    strerror(errno));
	} else {
		for (size_t i = 0; i < modules->n; i++)
			load_module(modules->v[i], dir, dep, len, out);
	}
	free(dep);
	free(path);
	free(dir);
}
