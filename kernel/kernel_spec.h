/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel_spec.h: what a --kernel names (an image or build directory, make's O=DIR, Debian's
 * debian:ARCH[:RELEASE]), resolved to the path to boot and the architecture it implies. */
#ifndef TAPBOOT_KERNEL_SPEC_H
#define TAPBOOT_KERNEL_SPEC_H

/* A resolved --kernel. path and arch point into the spec, the want_arch given, or the owned
 * copies below (kernel_spec_release frees those: path and arch must not outlive it). */
struct kernel_spec {
	const char *path; /* the image or kernel build directory to boot */
	const char *arch; /* want_arch, else the architecture a debian: spec names, else NULL */
	char *own_path, *own_arch;
};

/* spec as a user typed it: "O=DIR" is the build directory DIR (make's O=, as a user types it);
 * "debian:ARCH[:RELEASE]" Debian's packaged kernel, fetched into the cache when not there
 * (kernel/debian.h; want_arch, from --arch, may be NULL and must agree); anything else is the
 * path as it is. 0, or -1 after a message (ks then holds nothing: path and arch NULL). */
int kernel_spec_resolve(struct kernel_spec *ks, const char *spec, const char *want_arch);
void kernel_spec_release(struct kernel_spec *ks);

#endif
