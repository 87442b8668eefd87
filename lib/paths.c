// SPDX-License-Identifier: GPL-2.0-only
/* paths.c: where the host tool finds its configs, inits, helper scripts and data (paths.h). */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "paths.h"

/* The Makefile passes these to the host build (make install's directories and the trees the
 * binary was built in); the guest init links lib/ too but never calls this file. */
#ifndef TAPBOOT_SRCDIR
#define TAPBOOT_SRCDIR "."
#endif
#ifndef TAPBOOT_BUILDDIR
#define TAPBOOT_BUILDDIR "./build"
#endif
#ifndef TAPBOOT_INST_BINDIR
#define TAPBOOT_INST_BINDIR "/usr/local/bin"
#endif
#ifndef TAPBOOT_INST_LIBEXECDIR
#define TAPBOOT_INST_LIBEXECDIR "/usr/local/libexec/tapboot"
#endif
#ifndef TAPBOOT_INST_DATADIR
#define TAPBOOT_INST_DATADIR "/usr/local/share/tapboot"
#endif
/* LIBEXECDIR/tapboot and DATADIR/tapboot relative to BINDIR, for a moved prefix */
#ifndef TAPBOOT_REL_LIBEXECDIR
#define TAPBOOT_REL_LIBEXECDIR "../libexec/tapboot"
#endif
#ifndef TAPBOOT_REL_DATADIR
#define TAPBOOT_REL_DATADIR "../share/tapboot"
#endif

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The directory holding the running binary, or NULL (no /proc). */
static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return xstrdup(*buf ? buf : "/");
}

static void set_source_tree(struct tapboot_dirs *d, const char *src, const char *build)
{
	d->configs = xasprintf("%s/configs", src);
	d->inits = xasprintf("%s/init", build);
	d->scripts = xasprintf("%s/scripts", src);
	d->data = xasprintf("%s/builder", src);
	d->layout = "build tree";
	d->installed = 0;
}

static void set_installed(struct tapboot_dirs *d, const char *libexec, const char *data,
			  const char *layout)
{
	d->configs = xasprintf("%s/configs", data);
	d->inits = xasprintf("%s/init", libexec);
	d->scripts = xstrdup(libexec);
	d->data = xstrdup(data);
	d->layout = layout;
	d->installed = 1;
}

void tapboot_dirs_get(struct tapboot_dirs *d)
{
	const char *env_src = getenv("TAPBOOT_SRCDIR");
	const char *env_configs = getenv("TAPBOOT_CONFIGS");
	const char *env_init = getenv("TAPBOOT_INIT_DIR");
	char *exe = exe_dir();

	memset(d, 0, sizeof(*d));
	if (env_src && *env_src) {
		set_source_tree(d, env_src, TAPBOOT_BUILDDIR);
		d->layout = "environment";
	} else if (exe && same_dir(exe, TAPBOOT_BUILDDIR) && is_dir(TAPBOOT_SRCDIR "/configs")) {
		set_source_tree(d, TAPBOOT_SRCDIR, TAPBOOT_BUILDDIR);
	} else {
		char *rl = exe ? xasprintf("%s/" TAPBOOT_REL_LIBEXECDIR, exe) : NULL;
		char *rd = exe ? xasprintf("%s/" TAPBOOT_REL_DATADIR, exe) : NULL;
		char *rc = rd ? xasprintf("%s/configs", rd) : NULL;

		if (exe && same_dir(exe, TAPBOOT_INST_BINDIR))
			set_installed(d, TAPBOOT_INST_LIBEXECDIR, TAPBOOT_INST_DATADIR, "installed");
		else if (rc && is_dir(rc))
			set_installed(d, rl, rd, "relocated");
		else if (is_dir(TAPBOOT_SRCDIR "/configs"))
			set_source_tree(d, TAPBOOT_SRCDIR, TAPBOOT_BUILDDIR);
		else
			set_installed(d, TAPBOOT_INST_LIBEXECDIR, TAPBOOT_INST_DATADIR, "installed");
		free(rl);
		free(rd);
		free(rc);
	}
	if (env_configs && *env_configs) {
		free(d->configs);
		d->configs = xstrdup(env_configs);
	}
	if (env_init && *env_init) {
		/* $TAPBOOT_INIT_DIR has ARCH/init or init/ARCH/init (a build directory) */
		char *sub = xasprintf("%s/init", env_init);

		free(d->inits);
		if (is_dir(sub)) {
			d->inits = sub;
		} else {
			d->inits = xstrdup(env_init);
			free(sub);
		}
		d->layout = "environment";
	}
	free(exe);
}

void tapboot_dirs_release(struct tapboot_dirs *d)
{
	free(d->configs);
	free(d->inits);
	free(d->scripts);
	free(d->data);
	memset(d, 0, sizeof(*d));
}

/* One directory of tapboot_dirs_get's, by its member's offset in the struct: the caller's. */
static char *dirs_take(size_t member)
{
	struct tapboot_dirs d;
	char **dir, *s;

	tapboot_dirs_get(&d);
	dir = (char **)((char *)&d + member);
	s = *dir;
	*dir = NULL;
	tapboot_dirs_release(&d);
	return s;
}

static char *dirs_path(size_t member, const char *name)
{
	char *dir = dirs_take(member), *s = xasprintf("%s/%s", dir, name);

	free(dir);
	return s;
}

char *tapboot_configs_dir(void)
{
	return dirs_take(offsetof(struct tapboot_dirs, configs));
}

char *tapboot_script_path(const char *name)
{
	return dirs_path(offsetof(struct tapboot_dirs, scripts), name);
}

char *tapboot_data_path(const char *name)
{
	return dirs_path(offsetof(struct tapboot_dirs, data), name);
}
