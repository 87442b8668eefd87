// SPDX-License-Identifier: GPL-2.0-only
/* lava_run.c: the LAVA log model: one job's log read into a struct lava_run (the console LAVA
 * recorded, the boot command, the job's result and the monitor's verdicts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch_config.h"
#include "error.h"
#include "lava_log.h"
#include "qemu_lava.h"
#include "lava_run.h"
#include "protocol.h"
#include "results.h"

void lava_run_init(struct lava_run *l)
{
	memset(l, 0, sizeof(*l));
	strbuf_init(&l->console);
}

void lava_run_release(struct lava_run *l)
{
	strbuf_release(&l->console);
	free(l->version);
	free(l->nonce);
	free(l->machine);
	free(l->qemu_arch);
	free(l->kernel_url);
	free(l->job_result);
	free(l->error_type);
	free(l->error_msg);
	for (size_t i = 0; i < l->ncases; i++) {
		free(l->cases[i].id);
		free(l->cases[i].result);
	}
	free(l->cases);
}

double lava_parse_dt(const char *dt)
{
	struct tm tm;
	const char *rest;
	double frac = 0;

	memset(&tm, 0, sizeof(tm));
	if (!dt || !(rest = strptime(dt, "%Y-%m-%dT%H:%M:%S", &tm)))
		return -1;
	if (*rest == '.')
		frac = strtod(rest, NULL);
	return (double)timegm(&tm) + frac;
}

static void add_console_line(struct lava_run *l, const struct json *msg, double dt)
{
	char *s;
	size_t n, skip;

	if (!msg || msg->type != JSON_STRING)
		return;
	s = xstrndup(msg->str, msg->len);
	n = msg->len;
	/* 2023.x's ShellLogger writes '"' as '\"' (lava_dispatcher/shell.py); later ones do not */
	if (l->version && !strncmp(l->version, "2023.", 5))
		n = lava_unescape_quotes(s, n);
	/* a terminal reset before the init's first line reaches LAVA without its ESC */
	skip = lava_escape_remains(s, n);
	if (skip &&
	    (!strncmp(s + skip, "# tapboot: ", 11) || !strncmp(s + skip, "TAP version", 11) ||
	     !strncmp(s + skip, "ok ", 3) || !strncmp(s + skip, "not ok ", 7)))
		memmove(s, s + skip, (n -= skip) + 1);
	if (!l->saw_begin && strstr(s, TAPBOOT_MARK_BEGIN) == s) {
		l->saw_begin = true;
		l->start_time = dt;
	}
	l->saw_target = true;
	strbuf_add(&l->console, s, n);
	strbuf_addch(&l->console, '\n');
	free(s);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void add_result(struct lava_run *l, const struct json *msg)
{
	const char *def = json_get_str(msg, "definition"), *cs = json_get_str(msg, "case");
	const char *res = json_get_str(msg, "result");

	if (!def || !cs || !res)
		return;
	if (!strcmp(def, "lava") && !strcmp(cs, "job")) {
		free(l->job_result);
		l->job_result = xstrdup(res);
		free(l->error_type);
		free(l->error_msg);
		l->error_type = dup_or_null(json_get_str(msg, "error_type"));
		l->error_msg = dup_or_null(json_get_str(msg, "error_msg"));
		return;
	}
	if (strcmp(def, "tapboot"))
		return;
	if (l->ncases == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 16;
		l->cases = xrealloc(l->cases, l->alloc * sizeof(*l->cases));
	}
	l->cases[l->ncases].id = xstrdup(cs);
	l->cases[l->ncases].result = xstrdup(res);
	l->ncases++;
}

/* One decoded record (v has dt, lvl and msg) into l. */
/* What LAVA's "Boot command: " line says: the machine, QEMU's architecture and KVM (qemu/ reads
 * QEMU's options), and the run's nonce from the kernel command line in it. */
static void read_boot_command(const char *cmd, struct lava_run *l)
{
	const char *p = strstr(cmd, TAPBOOT_ARG_NONCE);
	size_t n;

	qemu_lava_read_boot_command(cmd, &l->machine, &l->qemu_arch, &l->kvm);
	free(l->nonce);
	l->nonce = NULL;
	if (!p)
		return;
	p += strlen(TAPBOOT_ARG_NONCE);
	n = strcspn(p, " \"");
	if (n)
		l->nonce = xstrndup(p, n);
}

static void add_record(struct lava_run *l, const struct json *v)
{
	const char *lvl = json_get_str(v, "lvl");
	const struct json *msg = json_get(v, "msg");
	const char *msg_s = msg->type == JSON_STRING ? msg->str : NULL;

	if (!strcmp(lvl, "target") || !strcmp(lvl, "feedback")) {
		add_console_line(l, msg, lava_parse_dt(json_get_str(v, "dt")));
	} else if (!strcmp(lvl, "results")) {
		add_result(l, msg);
	} else if (msg_s && !strncmp(msg_s, "lava-dispatcher, installed at version: ", 39)) {
		free(l->version);
		l->version = xstrdup(msg_s + 39);
	} else if (msg_s && !strncmp(msg_s, "Boot command: ", 14)) {
		read_boot_command(msg_s + 14, l);
	} else if (msg_s && !strncmp(msg_s, "downloading ", 12) && !l->kernel_url) {
		l->kernel_url = xstrdup(msg_s + 12); /* the first image: the kernel */
	}
}

int lava_run_read(const char *path, struct lava_run *l)
{
	FILE *fp = fopen(path, "rb");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned lineno = 0, records = 0;
	int ret = 0;

	if (!fp)
		return error_errno("cannot open '%s'", path);
	while ((n = getline(&line, &cap, fp)) > 0) {
		struct json v;
		char *err = NULL;
		bool last_cut = line[n - 1] != '\n';

		lineno++;
		if (strspn(line, " \t\r\n") == (size_t)n)
			continue;
		if (lineno == 1 && !strncmp(line, "---", 3))
			continue; /* a YAML document start (the REST endpoint) */
		if (lava_flow_parse(line, (size_t)n, &v, &err) < 0) {
			if (last_cut && records) {
				/* the last line cut short: truncated while written */
				l->truncated = true;
				free(err);
				break;
			}
			ret = error_at(path, lineno, "not a LAVA job log line: %s", err);
			free(err);
			goto out;
		}
		if (!json_get_str(&v, "dt") || !json_get_str(&v, "lvl") || !json_get(&v, "msg")) {
			json_release(&v);
			ret = error_at(path, lineno,
				       "not a LAVA job log line: no \"dt\", \"lvl\" and \"msg\"");
			goto out;
		}
		records++;
		add_record(l, &v);
		json_release(&v);
	}
	if (ferror(fp))
		ret = error_errno("cannot read '%s'", path);
	else if (!records)
		ret = error("'%s' is not a LAVA job log: it holds no log line", path);
out:
	free(line);
	fclose(fp);
	return ret;
}

char *lava_run_arch(const struct lava_run *l)
{
	char *qemu, *arch;

	if (!l->qemu_arch)
		return NULL;
	qemu = xasprintf("qemu-system-%s", l->qemu_arch);
	arch = arch_config_find_qemu(arch_config_dir(), qemu);
	free(qemu);
	return arch ? arch : xstrdup(l->qemu_arch);
}

char *lava_run_incomplete(const struct lava_run *l, const struct tap_summary *s)
{
	struct results_why why = {.origin = RESULTS_LAVA};

	why.log_truncated = l->truncated || !l->job_result;
	why.saw_begin = l->saw_begin;
	why.error_type = l->error_type;
	why.error_msg = l->error_msg;
	return results_incomplete_text(s, &why);
}
