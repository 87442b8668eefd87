// SPDX-License-Identifier: GPL-2.0-only
/* run_build.c: run's --build SRC: the build directory (under the cache unless -O), the config
 * made again only when what it is made of changed (a config costs 10-15 s of olddefconfig on a
 * 2-core machine: too much for every run of an edit-build-test loop), then the incremental
 * build. */
#include "run_build.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch_config.h"
#include "cache.h"
#include "commands.h"
#include "error.h"
#include "fs.h"
#include "kbuild.h"
#include "strbuf.h"

void cli_build_init(struct cli_build *b)
{
	memset(b, 0, sizeof(*b));
	strlist_init(&b->frags);
	strlist_init(&b->debug);
}

void cli_build_release(struct cli_build *b)
{
	strlist_release(&b->frags);
	strlist_release(&b->debug);
}

int cli_build_option(struct cli_build *b, int c, const char *arg)
{
	char *copy, *save = NULL, *end;
	unsigned long j;

	switch (c) {
	case CLI_OPT_BUILD:
		b->src = arg;
		return 1;
	case 'O':
		b->dir = arg;
		return 1;
	case CLI_OPT_BASE:
		b->base = arg;
		return 1;
	case CLI_OPT_FRAGMENT:
		strlist_push(&b->frags, arg);
		return 1;
	case CLI_OPT_DEBUG:
		copy = xstrdup(arg);
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			strlist_push(&b->debug, t);
		free(copy);
		return 1;
	case CLI_OPT_BISECT:
		b->bisect = true;
		return 1;
	case CLI_OPT_LLVM:
		b->llvm = true;
		return 1;
	case CLI_OPT_BUILD_JOBS:
		j = strtoul(arg, &end, 10);
		if (*end || !*arg || j < 1 || j > 1024)
			return error("--build-jobs wants 1 to 1024, got '%s'", arg);
		b->jobs = j;
		return 1;
	default:
		return 0;
	}
}

/* FNV-1a, 64 bits: names a directory and a config's inputs, no secret in it. */
static unsigned long long fnv1a(const void *data, size_t n, unsigned long long h)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}
#define FNV_START 0xcbf29ce484222325ULL

/* The default build directory: cache/builds/NAME-HASH/ARCH, HASH of the tree's real path. */
static char *default_dir(const char *src, const char *arch)
{
	char real[PATH_MAX], *cache = cache_dir(), *dir;
	const char *name;

	if (!realpath(src, real))
		snprintf(real, sizeof(real), "%s", src);
	name = strrchr(real, '/') && strrchr(real, '/')[1] ? strrchr(real, '/') + 1 : "tree";
	dir = xasprintf("%s/builds/%s-%016llx/%s", cache ? cache : ".tapboot", name,
			fnv1a(real, strlen(real), FNV_START), arch);
	free(cache);
	return dir;
}

/* What the config is made of, as one line: tapboot's version, the arch and its fragment, the
 * base and every fragment's bytes, the debug names. -1 after a message (a fragment unreadable). */
static int config_key(const struct cli_build *b, const struct arch_config *cfg, char out[17])
{
	char *arch_frag = xasprintf("%s/kernel/%s.config", arch_config_dir(), cfg->arch);
	const char **files = xcalloc(2 + b->frags.n, sizeof(*files));
	unsigned long long h = FNV_START;
	size_t nf = 0;

	h = fnv1a(TAPBOOT_VERSION, strlen(TAPBOOT_VERSION), h);
	h = fnv1a(cfg->arch, strlen(cfg->arch) + 1, h);
	h = fnv1a(b->base ? b->base : "tinyconfig", strlen(b->base ? b->base : "tinyconfig") + 1, h);
	files[nf++] = arch_frag;
	if (b->base && access(b->base, F_OK) == 0)
		files[nf++] = b->base;
	for (size_t i = 0; i < b->frags.n; i++)
		files[nf++] = b->frags.v[i];
	for (size_t i = 0; i < nf; i++) {
		char *buf;
		size_t len;

		if (read_file(files[i], &buf, &len) < 0) {
			free(files);
			free(arch_frag);
			return -1;
		}
		h = fnv1a(files[i], strlen(files[i]) + 1, h);
		h = fnv1a(buf, len, h);
		free(buf);
	}
	for (size_t i = 0; i < b->debug.n; i++)
		h = fnv1a(b->debug.v[i], strlen(b->debug.v[i]) + 1, h);
	snprintf(out, 17, "%016llx", h);
	free(files);
	free(arch_frag);
	return 0;
}

/* Configure DIR unless its .config was made from the same inputs (DIR/tapboot-config.key). */
static int configure_if_needed(const struct cli_build *b, const struct kbuild *kb, bool *done)
{
	char key[17], *key_path = xasprintf("%s/tapboot-config.key", kb->out);
	char *cfg_path = xasprintf("%s/.config", kb->out), *old = NULL;
	struct kbuild_config kc;
	size_t len;
	int ret = -1;

	*done = false;
	kbuild_config_init(&kc);
	if (config_key(b, kb->cfg, key) < 0)
		goto out;
	if (access(cfg_path, R_OK) == 0 && read_file(key_path, &old, &len) == 0 && len >= 16 &&
	    !memcmp(old, key, 16)) {
		ret = 0;
		goto out;
	}
	kc.base = b->base;
	kc.configs_dir = arch_config_dir();
	for (size_t i = 0; i < b->frags.n; i++)
		strlist_push(&kc.fragments, b->frags.v[i]);
	for (size_t i = 0; i < b->debug.n; i++)
		strlist_push(&kc.debug, b->debug.v[i]);
	if (!kb->quiet)
		note("configuring %s for %s in %s", kb->src, kb->cfg->arch, kb->out);
	if (kbuild_configure(kb, &kc) < 0) {
		unlink(key_path);
		goto out;
	}
	*done = true;
	ret = write_string_atomic(key_path, 0, 0644, key, 16);
out:
	kbuild_config_release(&kc);
	free(old);
	free(cfg_path);
	free(key_path);
	return ret;
}

int cli_build_kernel(const struct cli_build *b, const char *arch, bool quiet, char **dir,
		     char **arch_out)
{
	const struct arch_config *host = arch_config_host();
	struct arch_config cfg;
	struct kbuild kb = {0};
	char *image = NULL;
	bool configured;
	int status = b->bisect ? EXIT_BISECT_SKIP : EXIT_USAGE;

	*dir = *arch_out = NULL;
	arch_config_init(&cfg);
	if (!arch && !host) {
		error("--build: this host's architecture has no configs/ file: say --arch");
		status = EXIT_USAGE;
		goto out;
	}
	if (arch_config_load(&cfg, arch_config_dir(), arch ? arch : host->arch) < 0) {
		status = EXIT_USAGE;
		goto out;
	}
	*dir = b->dir ? xstrdup(b->dir) : default_dir(b->src, cfg.arch);
	kb = (struct kbuild){.src = b->src, .out = *dir, .cfg = &cfg, .jobs = b->jobs,
			     .llvm = b->llvm, .quiet = quiet};
	if (kbuild_check_tree(&kb) < 0) {
		status = EXIT_USAGE; /* not a tree at all: bad usage, even when bisecting */
		goto out;
	}
	if (configure_if_needed(b, &kb, &configured) < 0 || kbuild_build(&kb, &image) < 0)
		goto out;
	if (!quiet)
		note("built %s", image);
	*arch_out = xstrdup(cfg.arch);
	status = EXIT_PASS;
out:
	if (status != EXIT_PASS) {
		free(*dir);
		*dir = NULL;
	}
	free(image);
	arch_config_release(&cfg);
	return status;
}
