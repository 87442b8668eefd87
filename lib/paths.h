/* SPDX-License-Identifier: GPL-2.0-only */
/* paths.h: where the host tool finds its own files (configs, inits, helper scripts, data). */
#ifndef TAPBOOT_PATHS_H
#define TAPBOOT_PATHS_H

/* Where this tapboot's files are, decided in this order:
 *   1. the environment: $TAPBOOT_CONFIGS (the configs directory), $TAPBOOT_INIT_DIR (holding
 *      ARCH/init or init/ARCH/init), $TAPBOOT_SRCDIR (a source tree: its configs/, scripts/,
 *      builder/kselftest-disruptive.txt);
 *   2. a binary in the build directory it was compiled in: the source tree and build tree;
 *   3. an installed binary: the tree beside it (BINDIR/../libexec/tapboot, ../share/tapboot,
 *      the layout make install writes), so a moved prefix keeps working; in the BINDIR it
 *      was built for, that prefix (LIBEXECDIR/tapboot, DATADIR/tapboot);
 *   4. a binary elsewhere (a build-tree binary copied, a unit test): the source tree it was
 *      built from while it exists, else the prefix.
 * Every member is allocated; tapboot_dirs_release frees them. */
struct tapboot_dirs {
	char *configs;	/* the configs/ directory (ARCH.conf files) */
	char *inits;	/* holds ARCH/init */
	char *scripts;	/* fetch-kernel.sh, fetch-busybox.sh, apt-state.sh */
	char *data;	/* kselftest-disruptive.txt */
	const char *layout; /* "build tree", "installed", "relocated", "environment": messages */
	int installed;	/* 1: an installed layout (the inits come from make install or a package) */
};

void tapboot_dirs_get(struct tapboot_dirs *d);
void tapboot_dirs_release(struct tapboot_dirs *d);

/* The configs directory (as tapboot_dirs_get decides). Caller frees. */
char *tapboot_configs_dir(void);
/* A helper script by its file name ("fetch-kernel.sh"). Caller frees. */
char *tapboot_script_path(const char *name);
/* A data file shipped with tapboot ("kselftest-disruptive.txt"). Caller frees. */
char *tapboot_data_path(const char *name);

#endif
