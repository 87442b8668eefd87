// SPDX-License-Identifier: GPL-2.0-only
/* match.c: a console matched against a report's signatures (reproduced, other, clean), and the
 * report's kernel command line without what lkp and tapboot set themselves. */
#include "repro.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

/* lkp versions spell the oops header's id as "Oops" or "Oops:#[##]" (and with the flags after
 * it): compare without what follows ":#[##]". */
static size_t id_core_len(const char *s)
{
	const char *p = strstr(s, ":#[##]");
	return p ? (size_t)(p - s) : strlen(s);
}

bool repro_id_equal(const char *a, const char *b)
{
	size_t la = id_core_len(a), lb = id_core_len(b);
	return la == lb && !strncmp(a, b, la);
}

static bool counts_as_target(const char *id)
{
	return strcmp(id, "boot_successes") && strcmp(id, "boot_failures") &&
	       strncmp(id, "kernel-selftests.", 17);
}

size_t repro_report_target_ids(const struct repro_report *r, const char ***ids)
{
	size_t n = 0;
	const char **out = xcalloc(r->nrows + r->computed.nhits + 2, sizeof(*out));
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].commit != 0 && counts_as_target(r->rows[i].id))
			out[n++] = r->rows[i].id;
	if (!n && r->headline && counts_as_target(r->headline))
		out[n++] = r->headline;
	if (!n)
		for (size_t i = 0; i < r->computed.nhits; i++)
			out[n++] = r->computed.hits[i].id;
	*ids = out;
	return n;
}

const char *repro_verdict_name(enum repro_verdict v)
{
	return v == REPRO_REPRODUCED ? "reproduced" : v == REPRO_OTHER ? "other" : "clean";
}

void repro_match_console(const struct repro_report *r, const char *buf, size_t len,
			 struct repro_match *m)
{
	const char **ids;
	size_t nids = repro_report_target_ids(r, &ids);

	memset(m, 0, sizeof(*m));
	crash_scan_init(&m->scan);
	crash_scan_text(&m->scan, buf, len);
	m->lines = xcalloc(m->scan.nhits + 1, sizeof(*m->lines));
	for (size_t i = 0; i < m->scan.nhits; i++)
		for (size_t j = 0; j < nids; j++)
			if (repro_id_equal(m->scan.hits[i].id, ids[j])) {
				m->lines[m->nlines++] = i;
				break;
			}
	if (m->nlines) {
		m->verdict = REPRO_REPRODUCED;
	} else if (m->scan.nhits) {
		m->verdict = REPRO_OTHER;
		for (size_t i = 0; i < m->scan.nhits; i++)
			m->lines[m->nlines++] = i;
	} else {
		m->verdict = REPRO_CLEAN;
	}
	free(ids);
}

void repro_match_release(struct repro_match *m)
{
	crash_scan_release(&m->scan);
	free(m->lines);
	memset(m, 0, sizeof(*m));
}

/* ---- the command line for the run ---- */

char *repro_cmdline_for_run(const char *cmdline)
{
	/* lkp's bookkeeping (which job, where results go, its rootfs and network) and what
	 * tapboot sets itself (its console, init and nonce) */
	static const char *const drop[] = {
		"job=", "RESULT_ROOT=", "BOOT_IMAGE=", "branch=", "commit=", "kconfig=", "user=",
		"ARCH=", "LKP_SERVER=", "LKP_LOCAL_RUN=", "max_uptime=", "result_service=", "ip=",
		"root=", "load_ramdisk=", "prompt_ramdisk=", "rootfstype=", "rw", "ro",
		"console=", "earlyprintk=", "rdinit=", "init=", "initrd=", "tapboot.", "panic=",
		"vga=", "drbd.minor_count=", "systemd.log_level=", "rcuperf.shutdown=",
		"rcuscale.shutdown=", "refscale.shutdown=", "selinux=", "nokaslr_placeholder",
	};
	struct strbuf sb;
	const char *p = cmdline ? cmdline : "";

	strbuf_init(&sb);
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, " \t\n");
		bool keep = true;
		for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]) && keep; i++) {
			size_t dl = strlen(drop[i]);
			if (drop[i][dl - 1] == '=' || drop[i][dl - 1] == '.')
				keep = !(n >= dl && !strncmp(p, drop[i], dl));
			else
				keep = !(n == dl && !strncmp(p, drop[i], dl));
		}
		if (keep) {
			if (sb.len)
				strbuf_addch(&sb, ' ');
			strbuf_add(&sb, p, n);
		}
		p += n;
	}
	return sb.buf ? strbuf_detach(&sb) : xstrdup("");
}

int repro_verdict_status(enum repro_verdict v)
{
	return v == REPRO_REPRODUCED ? 1 : v == REPRO_OTHER ? EXIT_VM : 0;
}

void repro_match_print(FILE *fp, const char *console, const struct repro_match *m)
{
	fprintf(fp, "%s", repro_verdict_name(m->verdict));
	if (m->verdict != REPRO_CLEAN)
		fprintf(fp, ": %s", m->scan.hits[m->lines[0]].id);
	fputc('\n', fp);
	if (m->scan.title)
		fprintf(fp, "  title: %s\n", m->scan.title);
	for (size_t i = 0; i < m->nlines; i++) {
		const struct crash_hit *h = &m->scan.hits[m->lines[i]];
		fprintf(fp, "  %s:%zu: %s\n    id: %s\n", console, h->line, h->text, h->id);
	}
}
