// SPDX-License-Identifier: GPL-2.0-only
/* kbuild_cache.c: where a tree's builds and series worktrees live in the cache, and the config
 * made again only when what it is made of changed: a `kernel config` costs 10-15 s of
 * olddefconfig on a 2-core machine, too much for every run of an edit-build-test loop. */
#include "kbuild.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "error.h"
#include "fs.h"

/* FNV-1a, 64 bits: names a directory and a config's inputs; no secret in it. */
static unsigned long long fnv1a(const void *data, size_t n, unsigned long long h)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}
#define FNV_START 0xcbf29ce484222325ULL

char *kbuild_cache_dir(const char *kind, const char *src, const char *arch)
{
	char real[PATH_MAX], *cache = cache_dir(), *dir;
	const char *name;

	if (!realpath(src, real))
		snprintf(real, sizeof(real), "%s", src);
	name = strrchr(real, '/') && strrchr(real, '/')[1] ? strrchr(real, '/') + 1 : "tree";
	dir = xasprintf("%s/%s/%s-%016llx%s%s", cache ? cache : ".tapboot", kind, name,
			fnv1a(real, strlen(real), FNV_START), arch ? "/" : "", arch ? arch : "");
	free(cache);
	return dir;
}

static unsigned long long hash_str(const char *s, unsigned long long h)
{
	return fnv1a(s ? s : "", strlen(s ? s : "") + 1, h);
}

/* What the config is made of: tapboot's version, the arch and its fragment, the base (and its
 * bytes when a file), every fragment's bytes, the debug names, the flags. -1 after a message. */
static int config_key(const struct kbuild *kb, const struct kbuild_config *c, char out[17])
{
	char *arch_frag = xasprintf("%s/kernel/%s.config", c->configs_dir, kb->cfg->arch);
	const char **files = xcalloc(2 + c->fragments.n, sizeof(*files));
	unsigned long long h = FNV_START;
	size_t nf = 0;
	int ret = -1;

	h = hash_str(TAPBOOT_VERSION, h);
	h = hash_str(kb->cfg->arch, h);
	h = hash_str(c->base ? c->base : "tinyconfig", h);
	h = hash_str(c->modules ? "modules" : "", h);
	h = hash_str(c->minimal ? "minimal" : "", h);
	files[nf++] = arch_frag;
	if (c->base && access(c->base, F_OK) == 0)
		files[nf++] = c->base;
	for (size_t i = 0; i < c->fragments.n; i++)
		files[nf++] = c->fragments.v[i];
	for (size_t i = 0; i < nf; i++) {
		char *buf;
		size_t len;

		if (read_file(files[i], &buf, &len) < 0)
			goto out;
		h = hash_str(files[i], h);
		h = fnv1a(buf, len, h);
		free(buf);
	}
	for (size_t i = 0; i < c->debug.n; i++)
		h = hash_str(c->debug.v[i], h);
	snprintf(out, 17, "%016llx", h);
	ret = 0;
out:
	free(files);
	free(arch_frag);
	return ret;
}

int kbuild_configure_if_changed(const struct kbuild *kb, const struct kbuild_config *c,
				bool *configured)
{
	char key[17], *key_path = xasprintf("%s/tapboot-config.key", kb->out);
	char *cfg_path = xasprintf("%s/.config", kb->out), *old = NULL;
	size_t len;
	int ret = -1;

	*configured = false;
	if (config_key(kb, c, key) < 0)
		goto out;
	if (access(cfg_path, R_OK) == 0 && read_file(key_path, &old, &len) == 0 && len >= 16 &&
	    !memcmp(old, key, 16)) {
		ret = 0;
		goto out;
	}
	if (!kb->quiet)
		note("configuring %s for %s in %s", kb->src, kb->cfg->arch, kb->out);
	unlink(key_path);
	if (kbuild_configure(kb, c) < 0)
		goto out;
	*configured = true;
	ret = write_string_atomic(key_path, 0, 0644, key, 16);
out:
	free(old);
	free(cfg_path);
	free(key_path);
	return ret;
}
