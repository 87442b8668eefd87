/* SPDX-License-Identifier: GPL-2.0-only */
/* kconfig.h: the one reader of a kernel's .config (and of config fragments, the same syntax),
 * and the CONFIG_RD_* option each initramfs compression needs. */
#ifndef TAPBOOT_KCONFIG_H
#define TAPBOOT_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* One line of a config: "CONFIG_X=VALUE" or "# CONFIG_X is not set". */
struct kconfig_opt {
	char *name;  /* owned, "CONFIG_FOO" */
	char *value; /* owned, "y", "m", "n" (from "# ... is not set"), "128", a string unquoted */
};

/* The options in file order (v, n: read them, do not change them); lookups go through a
 * sorted index. Zeroed (KCONFIG_INIT, or kconfig_read/kconfig_parse on a zeroed one) before
 * use, kconfig_release after. */
struct kconfig {
	struct kconfig_opt *v;
	size_t n, alloc;
	size_t *by_name; /* indices into v sorted by name (the first of equal names first) */
};
#define KCONFIG_INIT { NULL, 0, 0, NULL }

/* Read path: -1 with a message naming the file when it cannot be read or a line is neither an
 * option, a comment nor blank. */
int kconfig_read(const char *path, struct kconfig *kc);
/* Parse text (adds to kc). "CONFIG_X=VALUE", "# CONFIG_X is not set", other comments and
 * blank lines, spaces around a line ignored. With name_for_errors, any other line is an error
 * ("NAME:LINE: expected 'CONFIG_NAME=VALUE', not '...'", -1); with NULL such lines are skipped
 * (a check that reads what it can). */
int kconfig_parse(const char *text, size_t len, const char *name_for_errors, struct kconfig *kc);
/* opt with or without "CONFIG_": "y", "m", the value with its quotes removed, or NULL when the
 * option is not set ("# ... is not set", "=n") or absent. The first line for opt counts. */
const char *kconfig_get(const struct kconfig *kc, const char *opt);
/* Like kconfig_get, but "n" for "# ... is not set" or "=n": NULL only when the config does not
 * mention opt at all (an option the kernel does not have, against one switched off). */
const char *kconfig_value(const struct kconfig *kc, const char *opt);
/* Whether opt is =y (built in). */
bool kconfig_is_y(const struct kconfig *kc, const char *opt);
void kconfig_release(struct kconfig *kc);

/* The initramfs compressions a kernel can unpack, each with its option (usr/Kconfig), in the
 * order tapboot names them; NULL-terminated. */
extern const char *const kconfig_rd_compressions[];
/* The option that lets the kernel unpack compression ("gzip" -> "CONFIG_RD_GZIP"); NULL for
 * "none", NULL or an unknown name. */
const char *kconfig_rd_option(const char *compression);

#endif
