/* SPDX-License-Identifier: GPL-2.0-only */
/* pack.h: what builder_build adds to an image besides its inputs (builder/ only): the tests'
 * shared libraries and the sysroot they come from (deps.c), busybox and its applets
 * (busybox.c), kernel modules (modules.c), and the helpers those share. */
#ifndef TAPBOOT_BUILDER_PACK_H
#define TAPBOOT_BUILDER_PACK_H

#include <stdbool.h>

#include "arch_config.h"
#include "builder.h"
#include "image.h"
#include "inputs.h"
#include "strlist.h"

/* Binaries of the host's machine run here: from the configs (lib/arch_config.c). */
bool builder_runs_here(const struct builder_target *t);
/* The target's configs/<arch>.conf (by its arch, else by its ELF machine and class): its
 * multiarch triple and cross sysroot. -1 when no config names it. */
int builder_target_config(const struct builder_target *t, struct arch_config *c);
/* --sysroot, else / for the host's architecture and Debian's cross sysroot for others;
 * caller frees. */
char *builder_pick_sysroot(const struct builder_target *t);
/* Whether path is an ELF file for t's machine and class. */
bool builder_elf_matches(const char *path, const struct builder_target *t);
/* The directory part of p ("." without a slash); caller frees. */
char *builder_dir_of(const char *p);

/* The dynamic tests' interpreters and DT_NEEDED libraries, looked up the way ld.so does. */
int builder_pack_deps(struct image *img, const struct inputs *in, const struct builder_target *t,
		      const char *sysroot);
/* busybox and the applets a plan needs (interps: the #! interpreters of script tests). */
int builder_pack_busybox(struct image *img, const struct builder_opts *o,
			 const struct strlist *interps);
/* Kernel modules from dir: with want, each and its dependencies (order: the load order the
 * plan gets); without, the whole tree. */
int builder_pack_modules(struct image *img, const char *dir, const struct strlist *want,
			 struct strlist *order);

#endif
