/* SPDX-License-Identifier: GPL-2.0-only */
/* strlist.h: a growable list of owned strings (arguments, names, globs), used all over the
 * host tool and the init. */
#ifndef TAPBOOT_STRLIST_H
#define TAPBOOT_STRLIST_H

#include <stddef.h>

struct strlist {
	char **v; /* owned strings, NULL-terminated when n > 0 */
	size_t n, alloc;
};

void strlist_init(struct strlist *l);
void strlist_release(struct strlist *l);
void strlist_push(struct strlist *l, const char *s);

#endif
