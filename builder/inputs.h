/* SPDX-License-Identifier: GPL-2.0-only */
/* inputs.h: the builder's input parsers (executables, directories, gen_init_cpio lists, tapboot
 * manifests) filling an image and a plan. Private to builder/. */
#ifndef TAPBOOT_BUILDER_INPUTS_H
#define TAPBOOT_BUILDER_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "builder.h"
#include "image.h"

/* A dynamically linked test whose interpreter and libraries the builder must pack. */
struct dyn_test {
	char *host;  /* owned: host path of the program */
	char *image; /* owned: normalised image path */
};

struct inputs {
	struct image *img;
	struct plan *plan;
	const struct builder_target *target;
	unsigned default_timeout;
	bool shebang;	      /* some test is a #! script */
	struct dyn_test *dyn; /* owned array */
	size_t ndyn, dyn_alloc;
	struct strlist modules; /* from manifest `module` lines */
	struct strlist interps; /* the #! interpreters of the script tests, once each */
};

void inputs_init(struct inputs *in, struct image *img, struct plan *plan,
		 const struct builder_target *target, unsigned default_timeout);
void inputs_release(struct inputs *in);
/* Classify path and add what it holds in a new segment. Returns 0 or -1 after an error
 * naming the file (and line). */
int inputs_add(struct inputs *in, const char *path);

/* Pack the directory host's contents at image (normalised); tests: its executables are tests
 * named by their path relative to host. */
int inputs_add_tree(struct inputs *in, const char *host, const char *image, bool tests);

/* Parsers on their own, for the tests: origin names the file in messages. */
int inputs_parse_list(struct inputs *in, const char *buf, size_t len, const char *file);
int inputs_parse_manifest(struct inputs *in, const char *buf, size_t len, const char *file);

#endif
