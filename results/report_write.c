// SPDX-License-Identifier: GPL-2.0-only
/* report_write.c: a results directory's reports, every writer in turn (report.h); apart from
 * report_util.c, which the writers use, so that no two files call each other. */
#include <stdlib.h>

#include "error.h"
#include "report.h"

int report_write_all(const char *dir, const struct report_run *r)
{
	static const struct {
		const char *file;
		int (*write)(const char *path, const struct report_run *r);
	} writers[] = {
		{"results.json", report_json_write},
		{"results.tap", report_tap_write},
		{"junit.xml", report_junit_write},
		{"kcidb.json", report_kcidb_write},
		{"results.html", report_html_write},
	};
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(writers); i++) {
		char *p = xasprintf("%s/%s", dir, writers[i].file);

		if (writers[i].write(p, r) < 0)
			ret = -1;
		free(p);
	}
	return ret;
}
