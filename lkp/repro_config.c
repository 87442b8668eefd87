// SPDX-License-Identifier: GPL-2.0-only
/* repro_config.c: the kernel's config against a report's: which sanitizers and debug options
 * the report had (its config, the job's need_kconfig, what its signatures imply) that the
 * kernel lacks, read with lib's one .config reader. */
#include "reproduce.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "kconfig.h"
#include "strbuf.h"

/* path when readable, else NULL (path freed). */
static char *readable(char *path)
{
	if (!access(path, R_OK))
		return path;
	free(path);
	return NULL;
}

char *repro_kernel_config_path(const char *kernel, const char *config)
{
	struct stat st;
	if (config)
		return xstrdup(config);
	if (!stat(kernel, &st) && S_ISDIR(st.st_mode))
		return readable(xasprintf("%s/.config", kernel));
	char *dir = xstrdup(kernel), *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : dir;
	const char *dash = strchr(base, '-');
	char *p = NULL;
	if (slash)
		*slash = '\0';
	if (dash)
		p = readable(xasprintf("%s/config%s", slash ? dir : ".", dash));
	if (!p)
		p = readable(xasprintf("%s/.config", slash ? dir : "."));
	free(dir);
	return p;
}

/* Whether opt is y or m in kc. */
static bool config_has(const struct kconfig *kc, const char *opt)
{
	const char *v = kconfig_get(kc, opt);
	return v && (!strcmp(v, "y") || !strcmp(v, "m"));
}

/* Options whose absence makes a report unlikely to reproduce: the sanitizers and debug
 * checks that produce the signatures in the robot's tables. */
static bool debug_relevant(const char *opt)
{
	static const char *const keys[] = {"KASAN", "KFENCE", "KCSAN", "KMSAN", "UBSAN", "LOCKDEP",
					   "PROVE_", "DEBUG_", "LKDTM", "PAGE_OWNER", "SLUB_DEBUG",
					   "KMEMLEAK", "FAULT_INJECTION", "RANDSTRUCT", "PAGE_POISONING",
					   "FORTIFY_SOURCE", "HARDENED_USERCOPY", "BUG_ON_DATA_CORRUPTION"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strstr(opt, keys[i]))
			return true;
	return false;
}

static void want_add(struct strbuf *w, const char *opt)
{
	char *key = xasprintf("%s\n", opt);
	if (!w->buf || !strstr(w->buf, key))
		strbuf_addstr(w, key);
	free(key);
}

/* The report's config: its debug options that are y or m, in its order. */
static void want_from_config(const char *text, struct strbuf *want)
{
	struct kconfig kc = KCONFIG_INIT;

	kconfig_parse(text, strlen(text), NULL, &kc);
	for (size_t i = 0; i < kc.n; i++)
		if ((!strcmp(kc.v[i].value, "y") || !strcmp(kc.v[i].value, "m")) &&
		    debug_relevant(kc.v[i].name))
			want_add(want, kc.v[i].name);
	kconfig_release(&kc);
}

/* What the signatures, the excerpt and the command line imply (a report without a config). */
static bool want_implied(const struct repro_report *r, struct strbuf *want)
{
	static const struct {
		const char *sign, *opt;
	} implied[] = {
		{"KASAN", "CONFIG_KASAN"}, {"KFENCE", "CONFIG_KFENCE"}, {"KCSAN", "CONFIG_KCSAN"},
		{"UBSAN", "CONFIG_UBSAN"}, {"lockdep", "CONFIG_PROVE_LOCKING"},
		{"possible circular locking", "CONFIG_PROVE_LOCKING"},
		{"possible_circular_locking", "CONFIG_PROVE_LOCKING"},
		{"possible recursive locking", "CONFIG_PROVE_LOCKING"},
		{"suspicious RCU usage", "CONFIG_PROVE_RCU"},
		{"DEBUG_PAGEALLOC", "CONFIG_DEBUG_PAGEALLOC"}, {"page_owner=on", "CONFIG_PAGE_OWNER"},
		{"kmemleak", "CONFIG_DEBUG_KMEMLEAK"}, {"lkdtm", "CONFIG_LKDTM"},
		{"provoke-crash", "CONFIG_LKDTM"},
	};
	struct strbuf all;
	bool found = false;

	strbuf_init(&all);
	for (size_t i = 0; i < r->nrows; i++)
		strbuf_addf(&all, "%s\n", r->rows[i].id);
	if (r->headline)
		strbuf_addf(&all, "%s\n", r->headline);
	if (r->dmesg)
		strbuf_addstr(&all, r->dmesg);
	if (r->cmdline)
		strbuf_addf(&all, "\n%s\n", r->cmdline);
	for (size_t i = 0; all.buf && i < sizeof(implied) / sizeof(implied[0]); i++)
		if (strstr(all.buf, implied[i].sign)) {
			want_add(want, implied[i].opt);
			found = true;
		}
	strbuf_release(&all);
	return found;
}

int repro_config_gap(const struct repro_report *r, const char *path, struct strbuf *missing,
		     const char **why)
{
	struct kconfig kc = KCONFIG_INIT;
	struct strbuf want;
	char *cfg = NULL;
	size_t len;
	int n = 0;

	strbuf_init(&want);
	if (r->config_text) {
		*why = "the report's config";
		want_from_config(r->config_text, &want);
	}
	for (size_t i = 0; i < r->nneed; i++) {
		char *opt = xstrndup(r->need_kconfig[i], strcspn(r->need_kconfig[i], "="));
		if (!strchr(r->need_kconfig[i], '=') || strstr(r->need_kconfig[i], "=y") ||
		    strstr(r->need_kconfig[i], "=m"))
			want_add(&want, opt);
		free(opt);
		if (!r->config_text)
			*why = "the job's need_kconfig";
	}
	if (!r->config_text && want_implied(r, &want) && !r->nneed)
		*why = "the options its signatures imply";
	if (!want.len) {
		strbuf_release(&want);
		return 0;
	}
	if (!path || repro_read_file(path, &cfg, &len)) {
		strbuf_release(&want);
		return -1;
	}
	kconfig_parse(cfg, len, NULL, &kc);
	for (const char *p = want.buf; *p;) {
		const char *e = strchr(p, '\n');
		char *opt = xstrndup(p, e - p);
		if (!config_has(&kc, opt)) {
			strbuf_addf(missing, "%s\n", opt);
			n++;
		}
		free(opt);
		p = e + 1;
	}
	kconfig_release(&kc);
	free(cfg);
	strbuf_release(&want);
	return n;
}
