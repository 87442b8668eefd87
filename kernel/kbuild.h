/* SPDX-License-Identifier: GPL-2.0-only */
/* kbuild.h: a test kernel from a kernel tree: its .config (a base, what tapboot needs on the
 * architecture, fragments, checked after Kconfig resolved them) and its build (the tree's own
 * make with the architecture table's ARCH and CROSS_COMPILE, the log kept, the first error). */
#ifndef TAPBOOT_KBUILD_H
#define TAPBOOT_KBUILD_H

#include <stdbool.h>

#include "arch_config.h"
#include "strbuf.h"
#include "strlist.h"

/* One tree and one build directory (O=). Strings are the caller's. */
struct kbuild {
	const char *src;		/* the kernel tree: its Makefile and scripts/kconfig */
	const char *out;		/* O=: .config, the objects, the image, build.log */
	const struct arch_config *cfg;	/* the architecture (ARCH, CROSS_COMPILE, image path) */
	unsigned jobs;			/* make -j (0: the CPUs online) */
	bool llvm;			/* LLVM=1: clang and LLVM's binutils, no cross prefix */
	bool quiet;			/* no progress line on stderr */
};

/* What `tapboot kernel config` merges, in this order, after the base. */
struct kbuild_config {
	const char *base;	    /* "tinyconfig", "defconfig", another *config target, or a file */
	const char *configs_dir;    /* configs/: kernel/ARCH.config, what the arch needs of it */
	bool modules;		    /* the run loads modules: CONFIG_MODULES */
	/* without the tests image device's options (PCI): the tests then ride in the initramfs */
	bool minimal;
	struct strlist debug;	    /* --debug names: kasan, kfence, lockdep, ubsan, ... */
	struct strlist fragments;   /* the user's fragment files, a .kunitconfig, kselftest's */
};

/* The tree has a Makefile and scripts/kconfig/merge_config.sh; out exists (made). -1 after a
 * message. */
int kbuild_check_tree(const struct kbuild *kb);

void kbuild_config_init(struct kbuild_config *c);
void kbuild_config_release(struct kbuild_config *c);
/* The debug fragment names --debug takes, "kasan, kfence, ...". */
const char *kbuild_debug_names(void);
/* Append the options of one --debug name to out ("CONFIG_X=y\n" lines); -1 after a message
 * for an unknown name. */
int kbuild_debug_fragment(const char *name, struct strbuf *out);
/* Writes kb->out/.config: the base, tapboot's needs (out/tapboot.config: the kconfig check's
 * list, the console, power-off and the tests image device), the fragments, merged with the
 * tree's merge_config.sh and resolved with olddefconfig. An option a fragment asked for that
 * Kconfig did not keep is an error naming it, what it depends on (its Kconfig entry) and which
 * of those are off. -1 after a message (bad input: exit 2). */
int kbuild_configure(const struct kbuild *kb, const struct kbuild_config *c);
/* kbuild_configure, unless kb->out/.config was made from the same inputs (c, the arch's
 * fragment, tapboot's version: a key in out/tapboot-config.key); *configured says whether it
 * ran. -1 after a message. */
int kbuild_configure_if_changed(const struct kbuild *kb, const struct kbuild_config *c,
				bool *configured);
/* A directory of the cache for the tree src: cache/KIND/NAME-HASH[/ARCH] (NAME the tree's
 * directory name, HASH of its real path). Caller frees. */
char *kbuild_cache_dir(const char *kind, const char *src, const char *arch);
/* The tree's make in kb->out: the image (the arch's first image path) and, when the config has
 * CONFIG_MODULES, the modules; ccache when it is installed. The log in out/build.log. 0 and the
 * image's path in *image (caller frees); -1 after a message naming the compiler's first error
 * (exit 2). */
int kbuild_build(const struct kbuild *kb, char **image);
/* The first error of a build log (a compiler's or linker's "error:" line, else make's "***"
 * line), with up to two lines after it; "" when none. Caller frees. */
char *kbuild_first_error(const char *log, size_t len);
/* Why opt (CONFIG_X) did not stick: its Kconfig entries' "depends on" lines in the tree and,
 * of the symbols they name, the ones config does not have on. Appended to out as one clause
 * ("it depends on X && Y (drivers/foo/Kconfig:12), and CONFIG_Y is not set"); "it is not an
 * option of this tree" when no Kconfig defines it. */
void kbuild_explain(const char *src, const char *config_text, size_t config_len, const char *opt,
		    struct strbuf *out);

#endif
