/* builder.h: inputs (tests, directories, gen_init_cpio lists, tapboot manifests) -> newc cpio.
 *
 * Image layout: /init (the static init), /tapboot/plan (lib/plan.h), tests under /tests/: a lone
 * executable at /tests/BASENAME, a directory's contents at /tests/ (so a test's name is its path
 * relative to the directory), busybox at /bin/busybox with applet links, shared libraries and the
 * ELF interpreter at their sysroot-relative paths, modules under /lib/modules/VERSION. */
#ifndef TAPBOOT_BUILDER_H
#define TAPBOOT_BUILDER_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

enum builder_compress {
	BUILDER_COMPRESS_NONE,
	BUILDER_COMPRESS_GZIP,
	BUILDER_COMPRESS_XZ,
	BUILDER_COMPRESS_ZSTD,
	BUILDER_COMPRESS_LZ4,
};

/* -1 when name is unknown. */
int builder_compress_from_name(const char *name);
const char *builder_compress_name(enum builder_compress c);

/* The architecture the image is for, from configs/<arch>.conf (filled in by the caller). */
struct builder_target {
	const char *arch; /* "x86_64", "arm64", ... */
	unsigned elf_machine; /* EM_X86_64, EM_AARCH64, ... */
	unsigned elf_class; /* 32 or 64 */
	const char *sysroot; /* where DT_NEEDED libraries are looked up; "/" for the host */
};

struct builder_opts {
	struct builder_target target;
	const char *init_path; /* host path of the static init for the target (required) */
	enum builder_compress compress;
	int busybox; /* 1: always add, 0: when a #! test needs a shell and none is packed, -1: never */
	const char *busybox_path; /* host path of a static busybox for the target; NULL: find it */
	const char *modules_dir; /* a lib/modules/VERSION tree, or NULL */
	struct strlist load_modules; /* modules the init loads before the tests */
	unsigned default_timeout; /* seconds, for tests without their own */
	const char *cache_dir; /* segment cache directory, NULL: no cache */
	const char *kernel_config; /* the kernel's .config when known (CONFIG_RD_* warning), or NULL */
	bool quiet;
};

void builder_opts_init(struct builder_opts *o);
void builder_opts_release(struct builder_opts *o);

/* Build the image at out_path (written to a temporary file in the same directory and renamed, so
 * a failure leaves nothing). plan_out (initialised by the caller) receives the plan written into
 * the image. Returns 0, or -1 after a message naming the file (and line) at fault: the caller
 * exits 2 for bad input. */
int builder_build(const struct builder_opts *o, const char *const *inputs, size_t ninputs,
		  const char *out_path, struct plan *plan_out);

#endif
