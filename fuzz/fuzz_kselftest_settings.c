// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_kselftest_settings.c: libFuzzer harness for builder/kselftest.c
 * kselftest_parse_settings (a collection's settings file, parsed instead of eval'd). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned timeout = 0;
	bool has = false;

	kselftest_parse_settings((const char *)data, size, "settings", &timeout, &has);
	return 0;
}
