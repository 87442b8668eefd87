// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_inputs.c: libFuzzer harness for builder/inputs.c: gen_init_cpio lists and tapboot
 * manifests. The first byte picks the parser (even: list, odd: manifest). Host paths in the
 * input are only stat()ed, never written; inputs with "tree" are skipped (see below). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "inputs.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct builder_target target = {"x86_64", 62 /* EM_X86_64 */, 64, "/"};
	struct image img;
	struct plan plan;
	struct inputs in;

	if (size < 1)
		return 0;
	/* a manifest's "tree /" would walk the whole host file system on every run */
	if (memmem(data, size, "tree", 4))
		return 0;
	image_init(&img);
	plan_init(&plan);
	inputs_init(&in, &img, &plan, &target, 45);
	image_segment_new(&img, "fuzz");
	if (data[0] & 1)
		inputs_parse_manifest(&in, (const char *)data + 1, size - 1, "fuzz.manifest");
	else
		inputs_parse_list(&in, (const char *)data + 1, size - 1, "fuzz.list");
	inputs_release(&in);
	plan_release(&plan);
	image_release(&img);
	return 0;
}
