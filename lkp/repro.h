/* SPDX-License-Identifier: GPL-2.0-only */
/* repro.h: a kernel test robot (0-day, lkp) report read from a mail (mbox, MIME, quoted-printable,
 * base64, dmesg.xz/kmsg.xz) or a directory of its materials, and matched against a console
 * (lkp/: report.c, report_fields.c, mail.c, decode.c, job_script.c, report_text.c,
 * report_json.c, match.c). */
#ifndef TAPBOOT_REPRO_H
#define TAPBOOT_REPRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "crash_sig.h"

/* One row of the report's signature table: how many runs of the parent and of the commit
 * showed the id (-1: the cell was empty). */
struct repro_row {
	char *id;
	long parent, commit;
};

struct repro_kv {
	char *key, *value;
};

struct repro_report {
	char *source; /* the file or directory read */
	char *kind; /* "runtime" or "build" */
	char *headline; /* the id in 'noticed "..."' or the subject, may be NULL */
	char *subject, *message_id;
	char *commit, *commit_subject, *tree, *branch, *parent;
	char *testcase, *version;
	struct repro_kv *params;
	size_t nparams;
	char *config_name, *compiler, *machine, *closes;
	struct repro_row *rows;
	size_t nrows;
	char *dmesg; /* the excerpt in the mail */
	char *full_dmesg; /* an attached or enclosed dmesg.xz/kmsg.xz/dmesg/kmsg, decoded */
	char *full_dmesg_name;
	struct crash_scan computed; /* signatures computed from the excerpt, else the full dmesg */
	bool computed_done; /* computed from a whole console given as the report */
	char *dmesg_cmdline; /* that console's "Kernel command line:" */
	char *cmdline; /* job-script bootloader_append + kernel_cmdline, else the dmesg's */
	char *cmdline_from; /* "job-script" or "dmesg" */
	char *arch;
	char *config_text; /* an attached config-* file */
	char *config_file; /* its name */
	struct repro_kv *job; /* the job-script's exported variables, in order */
	size_t njob;
	char **need_kconfig;
	size_t nneed;
	char **files; /* the materials found (attachment or file names) */
	size_t nfiles;
};

void repro_report_init(struct repro_report *r);
void repro_report_release(struct repro_report *r);
/* Read PATH (a mail or plain text file, or a directory). 0, or -1 with "FILE:LINE: why"
 * printed (a bad report: exit status 2). */
int repro_report_read(struct repro_report *r, const char *path);
/* The JSON document of tapboot repro parse. */
void repro_report_json(FILE *fp, const struct repro_report *r);
/* A job-script's value for KEY, or NULL. */
const char *repro_job_get(const struct repro_report *r, const char *key);
/* The ids that say "reproduced": the table's rows with runs on the commit, the headline, else
 * the ids computed from the dmesg. Returns how many were put in *ids (borrowed strings). */
size_t repro_report_target_ids(const struct repro_report *r, const char ***ids);

/* Whether a console id stands for a report id (same id, or the same up to the Oops flags lkp
 * versions spell differently: "Oops" and "Oops:#[##]"). */
bool repro_id_equal(const char *a, const char *b);

enum repro_verdict { REPRO_CLEAN, REPRO_REPRODUCED, REPRO_OTHER };
struct repro_match {
	enum repro_verdict verdict;
	struct crash_scan scan;
	size_t *lines; /* indexes into scan.hits that matched (reproduced) or the others */
	size_t nlines;
};
void repro_match_console(const struct repro_report *r, const char *buf, size_t len,
			 struct repro_match *m);
void repro_match_release(struct repro_match *m);
const char *repro_verdict_name(enum repro_verdict v);
/* The exit status of a verdict: 0 clean, 1 reproduced, EXIT_VM other. */
int repro_verdict_status(enum repro_verdict v);
/* tapboot repro match's lines: the verdict and its id, the title, each line that counted
 * (CONSOLE:LINE: text) with its id. */
void repro_match_print(FILE *fp, const char *console, const struct repro_match *m);

/* The report's kernel command line without lkp's bookkeeping (job=, RESULT_ROOT=, ip=, root=,
 * ...) and without the options tapboot sets itself (console=, rdinit=, tapboot.*). */
char *repro_cmdline_for_run(const char *cmdline);

/* lib's read_file (one buffer, NUL-terminated, *len bytes) with the message: 0, or -1 after
 * "cannot open 'PATH'" or "cannot read 'PATH'". */
int repro_read_file(const char *path, char **out, size_t *len);

/* Decoders, exposed for the tests. -1 with errmsg set (static text) on bad input; *bad_line
 * then counts the input lines before the bad byte (0-based). */
int repro_base64_decode(const char *in, size_t len, char **out, size_t *outlen, size_t *bad_line,
			const char **errmsg);
void repro_qp_decode(const char *in, size_t len, char **out, size_t *outlen);
int repro_xz_decode(const void *in, size_t len, char **out, size_t *outlen, const char **errmsg);

#endif
