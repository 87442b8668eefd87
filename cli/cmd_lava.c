// SPDX-License-Identifier: GPL-2.0-only
/* cmd_lava.c: tapboot lava-job: its options and usage; run/ prepares the run without booting
 * it and lava/ writes the job (lava/lava_job.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands_lava.h"
#include "error.h"
#include "lava_job.h"

static const char lava_job_usage[] =
	"usage: tapboot lava-job --kernel IMAGE|DIR [--arch A] [-o DIR] [--url-base URL] [--kvm]\n"
	"                        [run options] TEST...\n"
	"\n"
	"Write into DIR a LAVA job for the run `tapboot run` would do with the same options:\n"
	"initramfs.cpio (the same bytes as `tapboot build`), the kernel, job.yaml (LAVA's stock\n"
	"qemu device type, a monitors test reading tapboot's TAP), and device.yaml and\n"
	"dispatcher.yaml for running it locally with lava-run.\n"
	"\n"
	"  --url-base URL   where a lab's workers fetch DIR's files (default file://DIR: local)\n"
	"  --kvm            let LAVA use KVM (default no_kvm: TCG, as on most workers)\n"
	"  -o DIR           the job directory (default: a new one under ./tapboot-out/)\n"
	"\n"
	"Exit status: 0 written, 2 bad usage or input.\n";

int cmd_lava_job(int argc, char **argv)
{
	const char *url_base = NULL;
	bool kvm = false, have_kernel = false;
	char **rargv = xcalloc((size_t)argc + 1, sizeof(*rargv));
	int rargc = 0, status = EXIT_USAGE;
	struct run_export x;

	/* lava-job's own options; the rest are run's */
	for (int i = 0; i < argc; i++) {
		if (i && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))) {
			fputs(lava_job_usage, stdout);
			free(rargv);
			return EXIT_PASS;
		}
		if (i && !strcmp(argv[i], "--kvm")) {
			kvm = true;
		} else if (i && (!strcmp(argv[i], "--url-base") ||
				 !strncmp(argv[i], "--url-base=", 11))) {
			url_base = argv[i][10] == '=' ? argv[i] + 11
				   : i + 1 < argc     ? argv[++i]
						      : NULL;
			if (!url_base || !*url_base) {
				error("--url-base wants a URL");
				goto out;
			}
		} else if (i && (!strcmp(argv[i], "-j") || !strncmp(argv[i], "--jobs", 6))) {
			error("lava-job boots one VM: -j/--jobs does not apply");
			goto out;
		} else {
			have_kernel |=
				!strcmp(argv[i], "--kernel") || !strncmp(argv[i], "--kernel=", 9);
			rargv[rargc++] = argv[i];
		}
	}
	if (!have_kernel) {
		error("lava-job needs --kernel");
		fputs(lava_job_usage, stderr);
		goto out;
	}
	if (url_base && !strstr(url_base, "://")) {
		error("--url-base wants a URL (http://..., https://...), got '%s'", url_base);
		goto out;
	}
	if (run_export(rargc, rargv, kvm, &x) != 0)
		goto out;
	if (lava_job_write(&x, kvm, url_base) == 0) {
		printf("job: %s/job.yaml\n", x.dir);
		status = EXIT_PASS;
	}
	run_export_release(&x);
out:
	free(rargv);
	return status;
}
