// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_json.c: libFuzzer harness for lib/json_read.c (tapboot compare's reader). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct json *j)
{
	for (size_t i = 0; i < j->n; i++)
		walk(&j->items[i]);
	if (j->type == JSON_OBJECT && j->n)
		json_get(j, j->keys[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json j;

	if (json_parse(&j, (const char *)data, size, "fuzz") == 0) {
		walk(&j);
		json_release(&j);
	}
	return 0;
}
