// SPDX-License-Identifier: GPL-2.0-only
/* report.c: a kernel test robot report read from a file or a directory of its materials, and
 * what is derived from its parts (kind, command line, architecture, the computed signatures). */
#include "report_parts.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fs.h"
#include "machine_line.h"
#include "strbuf.h"

static const char *dmesg_line_value(const char *dm, const char *key)
{
	const char *p = dm ? strstr(dm, key) : NULL;
	return p ? p + strlen(key) : NULL;
}

/* The command line: the job's, else the one the kernel printed (dm: the console read). */
static void derive_cmdline(struct repro_report *r, const char *dm)
{
	const char *ba = repro_job_get(r, "bootloader_append"), *kc = repro_job_get(r, "kernel_cmdline");
	const char *v;

	if (ba || kc) {
		struct strbuf sb;
		strbuf_init(&sb);
		for (const char *s = ba ? ba : ""; *s; s++)
			strbuf_addch(&sb, *s == '\n' ? ' ' : *s);
		if (kc) {
			if (sb.len)
				strbuf_addch(&sb, ' ');
			strbuf_addstr(&sb, kc);
		}
		r->cmdline = strbuf_detach(&sb);
		r->cmdline_from = xstrdup("job-script");
	} else if (r->dmesg_cmdline) {
		r->cmdline = xstrdup(r->dmesg_cmdline);
		r->cmdline_from = xstrdup("dmesg");
	} else if ((v = dmesg_line_value(dm, "Kernel command line: ")) ||
		   (v = dmesg_line_value(r->dmesg, "Kernel command line: "))) {
		report_set(&r->cmdline, v, strcspn(v, "\r\n"));
		r->cmdline_from = xstrdup("dmesg");
	}
}

/* The architecture: QEMU binary, job, config name, then what the trace looks like. */
static void derive_arch(struct repro_report *r, const char *dm)
{
	const char *v;
	const char *m = r->machine ? strstr(r->machine, "qemu-system-") : NULL;
	if (m) {
		m += 12;
		size_t n = strcspn(m, " ");
		if (!strncmp(m, "aarch64", n))
			r->arch = xstrdup("arm64");
		else
			r->arch = xstrndup(m, n);
	} else if ((v = repro_job_get(r, "arch"))) {
		r->arch = xstrdup(v);
	} else if (r->config_name) {
		static const char *const arches[] = {"x86_64", "i386", "arm64", "arm", "riscv64",
						     "riscv", "powerpc64", "powerpc", "s390",
						     "loongarch", "mips", "sparc64", "um"};
		for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]) && !r->arch; i++)
			if (report_starts(r->config_name, arches[i]) &&
			    strchr("-_", r->config_name[strlen(arches[i])]))
				r->arch = xstrdup(arches[i]);
	}
	if (!r->arch && dm) {
		if (strstr(dm, "RIP: ") || strstr(dm, "x86_64"))
			r->arch = xstrdup("x86_64");
		else if (strstr(dm, "pc : ") || strstr(dm, "aarch64") || strstr(dm, "ARMv8"))
			r->arch = xstrdup("arm64");
		else if (strstr(dm, "EIP: "))
			r->arch = xstrdup("i386");
	}
}

static void derive(struct repro_report *r)
{
	/* materials without a mail: the attached console is the dmesg */
	if (!r->dmesg && r->full_dmesg)
		report_whole_console(r, r->full_dmesg, strlen(r->full_dmesg));
	const char *dm = r->full_dmesg ? r->full_dmesg : r->dmesg;

	report_parse_subject(r);
	if (!r->kind)
		r->kind = xstrdup(r->rows || r->dmesg || r->full_dmesg || r->testcase ? "runtime" :
										      "build");
	/* job-script fields fill what the mail did not say */
	const char *v;
	if (!r->testcase && (v = repro_job_get(r, "testcase")))
		r->testcase = xstrdup(v);
	if (!r->config_name && (v = repro_job_get(r, "kconfig")))
		r->config_name = xstrdup(v);
	if (!r->config_name && r->config_file)
		r->config_name = xstrdup(r->config_file);
	if (!r->compiler && (v = repro_job_get(r, "compiler")))
		r->compiler = xstrdup(v);
	if (!r->commit && (v = repro_job_get(r, "commit")))
		r->commit = xstrdup(v);
	if (!r->machine && (v = repro_job_get(r, "model"))) {
		const char *cpus = repro_job_get(r, "nr_cpu"), *mem = repro_job_get(r, "memory");
		r->machine = machine_line_format(v, cpus, mem);
	}
	if ((v = repro_job_get(r, "need_kconfig")))
		report_need_kconfig(r, v);
	derive_cmdline(r, dm);
	derive_arch(r, dm);
	const char *sig = r->dmesg ? r->dmesg : r->full_dmesg;
	if (sig && !r->computed_done)
		crash_scan_text(&r->computed, sig, strlen(sig));
}

int repro_read_file(const char *path, char **out, size_t *len)
{
	if (!read_file(path, out, len))
		return 0;
	/* fopen fails as open(2) does; a failed read says EISDIR or EIO */
	return error_errno(errno == EISDIR || errno == EIO ? "cannot read '%s'" : "cannot open '%s'",
			   path);
}

static bool is_report(const struct repro_report *r)
{
	return r->commit || r->nrows || r->headline || r->full_dmesg || r->njob ||
	       (r->dmesg && r->computed.nhits);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory of materials: the mail (*.eml, *.mbox, *.txt, mail, report) and the files lkp
 * names, in name order. */
static int read_dir(struct repro_report *r, const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	int ret = 0;

	if (!d)
		return error_errno("cannot open '%s'", path);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			report_add_str(&names, &n, de->d_name);
	closedir(d);
	/* a fixed order, so the same directory always gives the same document */
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n && !ret; i++) {
		char *fp = xasprintf("%s/%s", path, names[i]), *data;
		size_t len;
		struct stat fst;
		if (stat(fp, &fst) || !S_ISREG(fst.st_mode)) {
			free(fp);
			continue;
		}
		if (repro_read_file(fp, &data, &len)) {
			ret = -1;
		} else if (report_ends_with(names[i], ".eml") || report_ends_with(names[i], ".mbox") ||
			   !strcmp(names[i], "mail") || !strcmp(names[i], "report") ||
			   report_ends_with(names[i], ".txt")) {
			ret = report_read_mail(r, fp, data, len);
		} else {
			ret = report_material(r, names[i], data, len, fp, 1);
		}
		free(data);
		free(fp);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

int repro_report_read(struct repro_report *r, const char *path)
{
	struct stat st;
	int ret = 0;

	repro_report_release(r);
	r->source = xstrdup(path);
	if (stat(path, &st))
		return error_errno("cannot open '%s'", path);
	if (S_ISDIR(st.st_mode)) {
		ret = read_dir(r, path);
	} else {
		char *data;
		size_t len;
		if (repro_read_file(path, &data, &len))
			return -1;
		if (len >= 6 && !memcmp(data, "\xfd" "7zXZ", 6)) {
			/* a bare dmesg.xz */
			ret = report_material(r, "dmesg.xz", data, len, path, 1);
		} else if (memchr(data, '\0', len)) {
			ret = error("%s:1: binary data, not a report", path);
		} else {
			ret = report_read_mail(r, path, data, len);
		}
		free(data);
	}
	if (ret)
		return -1;
	derive(r);
	if (!is_report(r))
		return error("%s:1: not a kernel test robot report (no commit: line, signature table, "
			     "job-script or kernel problem in a dmesg)", path);
	return 0;
}
