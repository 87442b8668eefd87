/* SPDX-License-Identifier: GPL-2.0-only */
/* tap.h: the TAP 13 emitter shared by the guest init and the host's results.tap writer. */
#ifndef TAPBOOT_TAP_H
#define TAPBOOT_TAP_H

#include <stdbool.h>
#include <stdio.h>

#include "strbuf.h"

/* Each call appends complete lines to sb, indented by depth * 4 spaces. Descriptions have '#'
 * escaped as "\#" and newlines folded to spaces (TAP 14 escaping), so they cannot inject a
 * directive or a line. */
void tap_version(struct strbuf *sb, unsigned depth);
void tap_plan(struct strbuf *sb, unsigned depth, unsigned n);
/* directive: NULL, "SKIP", "TODO", "XFAIL", "XPASS", "TIMEOUT"; reason may be NULL. */
void tap_result(struct strbuf *sb, unsigned depth, bool ok, unsigned num, const char *desc,
		const char *directive, const char *reason);
void tap_diag(struct strbuf *sb, unsigned depth, const char *text);
/* A YAML block ("  ---" ... "  ...") after a result: key/value pairs, values quoted. */
void tap_yaml_begin(struct strbuf *sb, unsigned depth);
void tap_yaml_str(struct strbuf *sb, unsigned depth, const char *key, const char *value);
void tap_yaml_raw(struct strbuf *sb, unsigned depth, const char *key, const char *value);
/* The same with the value formatted (a number). */
void tap_yaml_rawf(struct strbuf *sb, unsigned depth, const char *key, const char *fmt, ...)
	FMT_PRINTF(4, 5);
void tap_yaml_end(struct strbuf *sb, unsigned depth);
void tap_bail_out(struct strbuf *sb, const char *reason);

#endif
