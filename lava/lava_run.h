/* SPDX-License-Identifier: GPL-2.0-only */
/* lava_run.h: the LAVA log model: what one LAVA job's log says (its console, lava-dispatcher's
 * version, the boot command's nonce, machine and accelerator, the job's result, the monitor's
 * verdicts), read from a log file (lava_log.h decodes its lines). */
#ifndef TAPBOOT_LAVA_RUN_H
#define TAPBOOT_LAVA_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"
#include "tap_parser.h"

/* One verdict LAVA's monitor recorded: its case id (lava_case_id) and result (pass, fail,
 * skip: job.yaml's fixupdict). */
struct lava_case {
	char *id, *result;
};

struct lava_run {
	struct strbuf console; /* the target's lines, repaired (lava_log.h), '\n' after each */
	char *version;	       /* lava-dispatcher's ("2023.01") */
	/* from the boot command (the kernel's nonce, QEMU's machine, binary and accelerator), and
	 * the first download (the kernel) */
	char *nonce, *machine, *qemu_arch, *kernel_url;
	bool kvm;
	char *job_result, *error_type, *error_msg; /* the lava job case: its result and error */
	double start_time; /* epoch seconds of the init's begin line; 0 when not seen */
	/* console lines seen; the init's begin line seen; the last line cut short */
	bool saw_target, saw_begin, truncated;
	struct lava_case *cases; /* definition tapboot's results, in the log's order */
	size_t ncases, alloc;
};

void lava_run_init(struct lava_run *l);
void lava_run_release(struct lava_run *l);

/* Read the LAVA job log at path into l (initialised). -1 after a message ("FILE:LINE: not a
 * LAVA job log line: ...") when it is not one, holds no log line, or cannot be read. */
int lava_run_read(const char *path, struct lava_run *l);

/* "2026-12-04T17:33:51.713907" (UTC, LAVA's dt) to epoch seconds; -1 when not that. */
double lava_parse_dt(const char *dt);

/* The tapboot architecture of the QEMU binary the job booted (qemu-system-aarch64: arm64),
 * from the configs' table; the QEMU name itself when no config has it; NULL when the log had no
 * boot command. Caller frees. */
char *lava_run_arch(const struct lava_run *l);

/* Why the run did not complete (results_incomplete_text: a truncated log, a job that never
 * reached the init, LAVA's error; with the parser's summary s, else NULL, also what the parser
 * found), NULL when it did; caller frees. */
char *lava_run_incomplete(const struct lava_run *l, const struct tap_summary *s);

#endif
