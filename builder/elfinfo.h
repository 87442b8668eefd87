/* SPDX-License-Identifier: GPL-2.0-only */
/* elfinfo.h: what the builder needs from an ELF file (machine, class, interpreter, DT_NEEDED,
 * RPATH/RUNPATH), read with libelf. Private to builder/. */
#ifndef TAPBOOT_BUILDER_ELFINFO_H
#define TAPBOOT_BUILDER_ELFINFO_H

#include <stdbool.h>

#include "plan.h"

struct elfinfo {
	bool is_elf;
	unsigned machine; /* e_machine */
	unsigned bits;	  /* 32 or 64 */
	unsigned type;	  /* e_type */
	bool shared_lib;  /* ET_DYN without interpreter nor DF_1_PIE: a library, not a program */
	char *interp;	  /* owned, PT_INTERP, or NULL (static) */
	struct strlist needed, rpath, runpath;
};

void elfinfo_init(struct elfinfo *ei);
void elfinfo_release(struct elfinfo *ei);
/* Read path. A file that is not ELF gives 0 with is_elf false; a damaged ELF file or an
 * unreadable one gives -1 after an error naming origin and path, with ei left empty (nothing
 * to release). */
int elfinfo_read(struct elfinfo *ei, const char *path, const char *origin);
/* "x86_64", "aarch64", ... or "machine N" (in a static buffer for unknown ones). */
const char *elfinfo_machine_name(unsigned machine);

#endif
