// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_repro.c: libFuzzer harness for results/crash_sig.c, crash_id.c and lkp/'s report reader: a
 * report read from a file (mail, MIME, base64, quoted-printable, xz, job-script) and a console
 * matched. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash_sig.h"
#include "error.h"
#include "repro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[4096];

static void remove_path(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct repro_report r;
	struct crash_sig *sig;
	FILE *fp;

	/* repro_report_read takes a path: one unique file for the whole run */
	if (!path[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(path, sizeof(path), "%s/fuzz-repro.XXXXXX", t && *t ? t : "/tmp");
		int fd = mkstemp(path);
		if (fd < 0)
			return 0;
		close(fd);
		atexit(remove_path);
	}
	sig = crash_sig_from_text((const char *)data, size);
	crash_sig_free(sig);
	fp = fopen(path, "wb");
	if (!fp)
		return 0;
	fwrite(data, 1, size, fp);
	fclose(fp);
	repro_report_init(&r);
	if (!repro_report_read(&r, path)) {
		struct repro_match m;
		FILE *null = fopen("/dev/null", "w");
		repro_report_json(null, &r);
		fclose(null);
		repro_match_console(&r, (const char *)data, size, &m);
		repro_match_release(&m);
		free(repro_cmdline_for_run(r.cmdline));
	}
	repro_report_release(&r);
	return 0;
}
