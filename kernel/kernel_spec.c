// SPDX-License-Identifier: GPL-2.0-only
/* kernel_spec.c: resolving a --kernel: O=DIR, debian:ARCH[:RELEASE] or a path. */
#include "kernel_spec.h"

#include <stdlib.h>
#include <string.h>

#include "debian.h"

int kernel_spec_resolve(struct kernel_spec *ks, const char *spec, const char *want_arch)
{
	memset(ks, 0, sizeof(*ks));
	ks->path = spec;
	ks->arch = want_arch;
	if (!strncmp(spec, "O=", 2)) {
		ks->path = spec + 2;
		return 0;
	}
	if (!kernel_debian_is_spec(spec))
		return 0;
	ks->own_path = kernel_debian_resolve(spec, want_arch, &ks->own_arch);
	if (!ks->own_path) {
		ks->path = ks->arch = NULL;
		return -1;
	}
	ks->path = ks->own_path;
	if (!ks->arch)
		ks->arch = ks->own_arch;
	return 0;
}

void kernel_spec_release(struct kernel_spec *ks)
{
	free(ks->own_path);
	free(ks->own_arch);
	memset(ks, 0, sizeof(*ks));
}
