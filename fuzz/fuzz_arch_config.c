// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_arch_config.c: libFuzzer harness for qemu/arch_config.c arch_config_parse
 * (configs/<arch>.conf). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "arch_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arch_config c;

	arch_config_init(&c);
	arch_config_parse(&c, (const char *)data, size, "fuzz.conf");
	arch_config_release(&c);
	return 0;
}
