/* SPDX-License-Identifier: GPL-2.0-only */
/* kbuild_run.h: kernel/'s own: the tree's make and scripts run with their output in the build
 * directory's build.log (kbuild.c), for kbuild_config.c. */
#ifndef TAPBOOT_KBUILD_RUN_H
#define TAPBOOT_KBUILD_RUN_H

#include "kbuild.h"

/* make -C src O=out ARCH= [CROSS_COMPILE=|LLVM=1] targets, appended to out/build.log; what
 * says what the step is in the error. -1 after a message with the first error. */
int kbuild_make(const struct kbuild *kb, const char *const *targets, const char *what);
/* argv (argv->v[0] a path) the same way. */
int kbuild_run_logged(const struct kbuild *kb, const struct strlist *argv, const char *what);

#endif
