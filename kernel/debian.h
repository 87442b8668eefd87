/* SPDX-License-Identifier: GPL-2.0-only */
/* debian.h: Debian's packaged kernels: the debian:ARCH[:RELEASE] spelling of --kernel, fetching
 * one into the cache (scripts/fetch-kernel.sh), and the list of the cached ones. */
#ifndef TAPBOOT_KERNEL_DEBIAN_H
#define TAPBOOT_KERNEL_DEBIAN_H

#include <stdbool.h>
#include <stdio.h>

#include "strbuf.h"

/* --kernel debian:ARCH[:RELEASE]: Debian's packaged kernel, fetched into the cache. */
#define KERNEL_DEBIAN_PREFIX "debian:"

/* Whether spec is a debian:... kernel spec (anything else is a path). */
bool kernel_debian_is_spec(const char *spec);
/* spec is "debian:ARCH[:RELEASE]": *arch (caller frees) is ARCH, *release points into spec
 * after the first colon following ARCH (NULL without one; "" for "debian:ARCH:"), not checked
 * here. want_arch (--arch, may be NULL) must agree with ARCH. -1 after a message (no ARCH,
 * another arch than want_arch), with *arch NULL. */
int kernel_debian_spec_parse(const char *spec, const char *want_arch, char **arch,
			     const char **release);
/* Whether s can be a Debian release name (bookworm, trixie, ...): [a-z0-9-]+. */
bool kernel_debian_release_ok(const char *s);
/* The VERSION_CODENAME of an os-release file read from fp, "unknown" when it has none. Caller
 * frees. */
char *kernel_debian_codename(FILE *fp);

/* What the fetch script left: out is its standard output, wstatus its wait status. On success
 * (exit 0, one line naming a readable file) out holds that path alone and EXIT_PASS is
 * returned; otherwise a message naming arch, release (may be NULL) and script, and EXIT_USAGE
 * when the script said bad usage (exit 2), else EXIT_VM. */
int kernel_debian_fetch_result(struct strbuf *out, int wstatus, const char *arch,
			       const char *release, const char *script);
/* Fetch (or find cached) Debian's kernel for arch from release (NULL: the machine's apt
 * sources) with the fetch-kernel.sh helper, which says on stderr what it downloads. Returns the
 * image's path (caller frees), or NULL after a message with *status 2 (bad arch or release) or
 * 3 (the download failed). */
char *kernel_debian_fetch(const char *arch, const char *release, int *status);
/* kernel_debian_spec_parse, then kernel_debian_fetch: the image's path and *arch_out (both for
 * the caller to free), or NULL after a message. */
char *kernel_debian_resolve(const char *spec, const char *want_arch, char **arch_out);

/* One line of the cached kernels' list to fp: dir is the cache's kernels/ subdirectory (ARCH or
 * ARCH-RELEASE; host_release names the release of a bare ARCH), image the path it holds. */
void kernel_debian_list_line(FILE *fp, const char *dir, const char *image,
			     const char *host_release);
/* Every cached kernel (kernels/DIR/image the fetch script left, naming a readable image) to
 * fp, one line each: ARCH, RELEASE, VERSION, IMAGE. Returns how many; none: a note on stderr
 * saying how to fetch one. */
int kernel_debian_list(FILE *fp);

#endif
