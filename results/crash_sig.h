/* SPDX-License-Identifier: GPL-2.0-only */
/* crash_sig.h: crash signatures of a kernel console: the ids the kernel test robot (lkp) puts in
 * its reports' tables, and a syzkaller-style title, from raw or decode_stacktrace.sh-decoded lines. */
#ifndef TAPBOOT_CRASH_SIG_H
#define TAPBOOT_CRASH_SIG_H

#include <stdbool.h>
#include <stddef.h>

/* What results.json, JUnit and KCIDB carry for a crash or a kernel warning. */
struct crash_sig {
	char *title; /* syzkaller-style: "WARNING in f", "BUG: unable to handle kernel NULL ..." */
	char **ids; /* lkp ids, first seen first, no duplicates */
	size_t nids;
	char *excerpt; /* the crash report's console lines, from its header on */
};

/* One lkp id and the console line (1-based, in the text given) it came from. */
struct crash_hit {
	char *id;
	size_t line;
	char *text; /* the line as it appeared, without its newline */
};

struct crash_scan {
	struct crash_hit *hits; /* one per distinct id, in order of first appearance */
	size_t nhits, alloc;
	char *title; /* NULL when no crash header was found */
	size_t title_line; /* 1-based line of the header the title came from, 0 without one */
	size_t nlines; /* lines scanned */
};

void crash_scan_init(struct crash_scan *s);
void crash_scan_release(struct crash_scan *s);
/* Scan a console (any mix of raw and decoded lines, \r\n or \n). Never fails: text that holds
 * no kernel problem leaves s->nhits at 0 and s->title NULL. */
void crash_scan_text(struct crash_scan *s, const char *buf, size_t len);
/* The first problem's report in buf (the text s scanned, s->nhits > 0): at most 60 lines from
 * the earliest of the title's and the hits' lines. The caller frees it. */
char *crash_scan_excerpt(const struct crash_scan *s, const char *buf, size_t len);

/* The lkp id of one console line, or NULL when lkp would not count it (caller frees). Used for
 * lines read out of a report's table context; calltrace ids need the whole log (crash_scan). */
char *crash_sig_line_id(const char *line);

/* A crash_sig for the console, or NULL when it holds no kernel problem. */
struct crash_sig *crash_sig_from_text(const char *buf, size_t len);
/* Read a console file; NULL when it cannot be read or holds nothing. */
struct crash_sig *crash_sig_from_file(const char *path);
void crash_sig_free(struct crash_sig *sig);
/* Whether an lkp id names a crash (not only a warning or a message such as Mem-Info). */
bool crash_sig_id_is_crash(const char *id);

#endif
