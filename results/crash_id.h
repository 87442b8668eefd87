/* SPDX-License-Identifier: GPL-2.0-only */
/* crash_id.h: the lkp id rules for one console line, for results/crash_sig.c only (the scan
 * and the titles); crash_sig_line_id() in crash_sig.h is the public one. */
#ifndef TAPBOOT_CRASH_ID_H
#define TAPBOOT_CRASH_ID_H

#include <stdbool.h>
#include <stddef.h>

/* Compile the patterns once per process; false when one did not compile (said then). */
bool crash_id_ready(void);
/* Whether the n bytes at s hold a problem pattern's literal or "+0x" (the fast filter). */
bool crash_id_needle_hit(const char *s, size_t n);
/* The text the leftmost problem pattern matches in s (the first pattern at a tie), or NULL;
 * caller frees. */
char *crash_id_problem_match(const char *s);
/* A line lkp ignores (its ignore patterns). */
bool crash_id_ignored_line(const char *s);
/* The line decode_stacktrace.sh would have started from: "func (file.c:12)" ->
 * "func+0x0/0x0"; caller frees. */
char *crash_id_undecode(const char *line);
/* Build paths' .isra/.constprop/.part suffixes out of *s (lkp's fixup_dmesg). */
void crash_id_drop_isra(char **s);
/* The first "[ seconds.micros] " timestamp in s (not taken as a line start), or NULL. */
const char *crash_id_timestamp(const char *s);
/* A call-trace line through one of lkp's entry points (do_one_initcall, kthread, SyS_*...). */
bool crash_id_calltrace_entry(const char *s);
/* A call-trace line lkp leaves out of its calltrace ids. */
bool crash_id_calltrace_ignored(const char *s);
bool crash_id_is_word(int c);

#endif
