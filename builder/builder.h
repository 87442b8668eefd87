/* SPDX-License-Identifier: GPL-2.0-only */
/* builder.h: inputs (tests, directories, gen_init_cpio lists, tapboot manifests) -> newc cpio.
 *
 * Image layout: /init (the static init), /tapboot/plan (lib/plan.h), tests under /tests/: a lone
 * executable at /tests/BASENAME, a directory's contents at /tests/ (so a test's name is its path
 * relative to the directory), busybox at /bin/busybox with applet links, shared libraries and the
 * ELF interpreter at their sysroot-relative paths, modules under /lib/modules/VERSION.
 *
 * Inputs (builder/inputs.c):
 *   - an executable file: packed at /tests/BASENAME, one test;
 *   - a directory: its contents at /tests/ (modes and symlinks kept, entries in byte order);
 *     each executable regular file is a test named by its relative path (shared libraries,
 *     ELF ET_DYN without interpreter, are not); a kselftest install tree (kselftest-list.txt
 *     at its top) has exactly the listed tests, named COLLECTION/TEST, in the list's order,
 *     with COLLECTION/settings' timeout=N;
 *   - a regular file without execute permission: a tapboot manifest when its first line is
 *     `tapboot-manifest 1` (docs/DESIGN.md), else a gen_init_cpio list (usr/gen_init_cpio.c:
 *     file/dir/nod/slink/pipe/sock, file lines with extra hard-link names, ${VAR} in file
 *     locations, relative locations from the working directory as gen_init_cpio reads them);
 *     executable `file` entries under /tests/ are tests; the list's own /init is dropped
 *     with a warning.
 * Every test gets cwd = its directory and timeout = default_timeout unless it says otherwise.
 * A test whose ELF machine or class is not the target's is refused; a dynamic one brings its
 * PT_INTERP and DT_NEEDED closure from the sysroot (DT_RPATH/DT_RUNPATH with $ORIGIN and the
 * test's own directory first). A #! test without /bin/sh in the image brings busybox
 * (busybox = 0); #!/bin/bash then runs as busybox ash.
 *
 * Output: newc, entries sorted, owner 0:0 unless a list says otherwise, every mtime
 * SOURCE_DATE_EPOCH or 0, inodes numbered in archive order: the same inputs give the same
 * bytes. Uncompressed, or compressed without cache_dir: one archive. Compressed with
 * cache_dir: concatenated archives (segments: base = init, libraries, busybox, modules; one
 * per input, and one per top-level directory of a directory input; the plan last), each
 * compressed on its own and kept in cache_dir under a hash of its entries and their sources'
 * stat data, so a rebuild re-packs only what changed. Nothing evicts old segments. */
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
	/* When no busybox for the target is at hand (the host's is for another machine, none is
	 * cached): fetch one and return its path (caller frees), or NULL after a message. NULL:
	 * none is fetched. The builder runs no scripts; tapboot passes run_fetch_busybox. */
	char *(*fetch_busybox)(const char *arch);
	const char *modules_dir; /* a lib/modules/VERSION tree, or NULL */
	struct strlist load_modules; /* modules the init loads before the tests */
	unsigned default_timeout; /* seconds, for tests without their own */
	const char *cache_dir; /* segment cache directory, NULL: no cache */
	const char *kernel_config; /* the kernel's .config when known (CONFIG_RD_* warning), or NULL */
	/* snapshot boot: everything under /tests/ goes into this second, uncompressed newc archive
	 * instead of the image (the init unpacks it after its ready point); NULL: in the image */
	const char *tests_out;
	/* with tests_out: 65 bytes where the builder puts that archive's key (the segment
	 * cache's: the entries and their files' stat data), so a VM whose saved state holds the
	 * same tests need not read them again; NULL: not wanted */
	char *tests_key;
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

/* Append the run's secret (len bytes) to the image at path as a last newc archive holding
 * TAPBOOT_KEY_PATH, which the init reads and unlinks (c: the image's compression; gzip, xz and
 * zstd images take an uncompressed archive after them, lz4 needs its own). On failure the image is left as it was. */
int builder_append_key(const char *image, enum builder_compress c, const unsigned char *key,
		       size_t len);

#endif
