/* SPDX-License-Identifier: GPL-2.0-only */
/* lava_log.h: LAVA job logs, one YAML flow mapping per line ({"dt": ..., "lvl": ..., "msg": ...}),
 * as lava-run writes to stderr and `lavacli jobs logs --raw` / the REST logs endpoint return
 * (there each line starts "- "). Not JSON: PyYAML's double-quoted escapes (\xE9, \u2028, \N,
 * \_, \L, \P, \e, ...) and non-specific tags (! "8247232") appear. */
#ifndef TAPBOOT_LAVA_LOG_H
#define TAPBOOT_LAVA_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "json_read.h"

/* One log line (without its newline; a leading "- " is skipped) into *out, a JSON value tree
 * (json_read.h: read with json_get and json_get_str, freed with json_release) of
 * JSON_OBJECT, JSON_ARRAY and JSON_STRING only: every scalar stays a string (decoded UTF-8,
 * len bytes, may hold NUL), as LAVA's readers take them. 0, or -1 with *err (caller frees)
 * saying what is wrong and at which column. */
int lava_flow_parse(const char *line, size_t len, struct json *out, char **err);

/* LAVA 2023.01's ShellLogger writes every '"' of the console as '\"' (lava_dispatcher/shell.py);
 * later versions do not. Undo it in place on s (len bytes); returns the new length. */
size_t lava_unescape_quotes(char *s, size_t len);
/* The remains of a terminal escape sequence whose ESC LAVA deleted ("c[?7l[2J" before the
 * first line the init writes): how many bytes at the start of s are such remains (0: none). */
size_t lava_escape_remains(const char *s, size_t len);

/* LAVA's case id for a test name: stripped, lower case, each run of \W one '_'
 * (lava_dispatcher/actions/test/monitor.py). Caller frees. */
char *lava_case_id(const char *name);

#endif
