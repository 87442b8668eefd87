// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_plan.c: libFuzzer harness for lib/plan.c plan_parse. A plan that parses must survive
 * plan_write and parse back to the same bytes (the builder writes, the init reads). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "plan.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan p, q;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	plan_init(&p);
	if (plan_parse(&p, (const char *)data, size, "fuzz") == 0) {
		strbuf_init(&a);
		strbuf_init(&b);
		plan_write(&p, &a);
		plan_init(&q);
		if (plan_parse(&q, a.buf, a.len, "rewritten")) {
			fprintf(stderr, "plan_write output does not parse:\n%s", a.buf);
			abort();
		}
		plan_write(&q, &b);
		if (a.len != b.len || memcmp(a.buf, b.buf, a.len)) {
			fprintf(stderr, "plan round trip differs:\n%s\n---\n%s", a.buf, b.buf);
			abort();
		}
		plan_release(&q);
		strbuf_release(&a);
		strbuf_release(&b);
	}
	plan_release(&p);
	return 0;
}
