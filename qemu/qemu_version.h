/* SPDX-License-Identifier: GPL-2.0-only */
/* qemu_version.h: which QEMU a binary is (its --version line), asked once per binary. */
#ifndef TAPBOOT_QEMU_VERSION_H
#define TAPBOOT_QEMU_VERSION_H

#include <stddef.h>

/* QEMU's version line into out ("unknown" when it cannot be had). `qemu --version` costs about
 * 20 ms at the end of every run, so the answer is cached per binary (the stat cache: a
 * reinstalled QEMU has a new inode, mtime and ctime). qemu: a path or a name on PATH. */
void qemu_version(const char *qemu, char *out, size_t n);

#endif
