/* SPDX-License-Identifier: GPL-2.0-only */
/* report_parts.h: what lkp/'s report reader files share (report.c, report_fields.c, mail.c,
 * job_script.c, report_text.c); nothing outside lkp/ includes it. */
#ifndef TAPBOOT_LKP_REPORT_PARTS_H
#define TAPBOOT_LKP_REPORT_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "repro.h"

/* *field = s[0..n) trimmed of blanks (and a trailing "\r"), the old value freed. */
void report_set(char **field, const char *s, size_t n);
void report_add_str(char ***list, size_t *n, const char *s);
void report_add_kv(struct repro_kv **kv, size_t *n, const char *k, const char *v);
bool report_starts(const char *l, const char *pre);
bool report_ends_with(const char *s, const char *suf);

/* A mail (mbox, MIME) or plain text at data (the file's buffer, len bytes; path for messages).
 * 0, or -1 after a "FILE:LINE: why" message. */
int report_read_mail(struct repro_report *r, const char *path, char *data, size_t len);
/* A material by its name, as lkp names them (dmesg.xz, config-*, job-script, ...); where and
 * line name it in messages. 0, or -1 after a message. */
int report_material(struct repro_report *r, const char *name, const char *data, size_t len,
		    const char *where, size_t line);

/* The job-script's "export k=v" lines into r->job (name for messages). 0, or -1 after a
 * message. */
int report_job_script(struct repro_report *r, const char *text, size_t len, const char *name);
/* job.yaml's "key: value" lines, for the keys the job-script did not give. */
void report_job_yaml(struct repro_report *r, const char *text, size_t len);
/* need_kconfig's value into r->need_kconfig. */
void report_need_kconfig(struct repro_report *r, const char *v);

/* The report's text (the mail's text/plain body, or a plain file), read where it lies. */
void report_parse_text(struct repro_report *r, char *text, size_t len);
/* A whole console as the dmesg: its signatures, its command line and the first problem's
 * excerpt. */
void report_whole_console(struct repro_report *r, const char *text, size_t len);
/* The subject's id and commit: "[tree:branch] [subsys]  1758af47b9: WARNING:at_...". */
void report_parse_subject(struct repro_report *r);

#endif
