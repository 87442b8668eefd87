// SPDX-License-Identifier: GPL-2.0-only
/* kbuild_explain.c: why an option of a fragment did not stick: its entries in the tree's
 * Kconfig files ("depends on" lines), and which symbols they name that the config has off.
 * merge_config.sh says only "Value requested for CONFIG_X not in final .config". */
#include "kbuild.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fs.h"
#include "kconfig.h"

struct explain {
	const char *src;
	const char *sym; /* without CONFIG_ */
	const struct kconfig *kc;
	struct strbuf deps; /* "EXPR (FILE:LINE)" clauses */
	struct strlist off; /* symbols named by them that are off */
	unsigned entries;
};

static bool is_sym_char(int c)
{
	return isalnum(c) || c == '_';
}

/* The symbols an expression names that the config does not have on (y or m). */
static void note_off_symbols(struct explain *e, const char *expr, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		char *name, *opt;
		const char *v;

		if (!isupper((unsigned char)expr[i]) || (i && is_sym_char(expr[i - 1]))) {
			i++;
			continue;
		}
		while (j < n && is_sym_char(expr[j]))
			j++;
		name = xstrndup(expr + i, j - i);
		opt = xasprintf("CONFIG_%s", name);
		v = kconfig_get(e->kc, opt);
		if (!v || (strcmp(v, "y") && strcmp(v, "m"))) {
			bool seen = false;

			for (size_t k = 0; k < e->off.n; k++)
				seen |= !strcmp(e->off.v[k], opt);
			if (!seen)
				strlist_push(&e->off, opt);
		}
		free(opt);
		free(name);
		i = j;
	}
}

/* An entry starts with "config SYM" or "menuconfig SYM"; its attributes are indented. */
static bool entry_of(const char *line, size_t n, const char *sym)
{
	size_t k = strlen(sym);

	for (const char *kw = "config"; kw; kw = !strcmp(kw, "config") ? "menuconfig" : NULL) {
		size_t w = strlen(kw);

		if (n >= w + 1 + k && !memcmp(line, kw, w) && (line[w] == ' ' || line[w] == '\t')) {
			const char *p = line + w;

			while (*p == ' ' || *p == '\t')
				p++;
			if ((size_t)(line + n - p) >= k && !memcmp(p, sym, k) &&
			    (p + k == line + n || isspace((unsigned char)p[k])))
				return true;
		}
	}
	return false;
}

static void scan_kconfig(struct explain *e, const char *path, const char *rel)
{
	char *buf;
	size_t len;
	bool in = false, help = false;
	unsigned lineno = 0;

	if (read_file(path, &buf, &len) < 0)
		return;
	for (char *p = buf; p < buf + len;) {
		char *nl = memchr(p, '\n', buf + len - p), *le = nl ? nl : buf + len;
		char *t = p;

		lineno++;
		if (p < le && !isspace((unsigned char)*p)) {
			in = entry_of(p, le - p, e->sym);
			help = false;
			if (in)
				e->entries++;
		} else if (in && !help) {
			while (t < le && isspace((unsigned char)*t))
				t++;
			/* the help text runs to the next entry: its words are not attributes */
			if ((le - t == 4 && !strncmp(t, "help", 4)) || !strncmp(t, "---help---", 10))
				help = true;
			else if (le - t > 11 && !strncmp(t, "depends on", 10) && isspace((unsigned char)t[10])) {
				const char *x = t + 11;

				while (x < le && isspace((unsigned char)*x))
					x++;
				strbuf_addf(&e->deps, "%s%.*s (%s:%u)", e->deps.len ? "; " : "",
					    (int)(le - x), x, rel, lineno);
				note_off_symbols(e, x, le - x);
			}
		}
		p = nl ? nl + 1 : buf + len;
	}
	free(buf);
}

static void walk(struct explain *e, const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *path, *r;
		struct stat st;

		if (de->d_name[0] == '.' || (!*rel && (!strcmp(de->d_name, "tools") ||
						       !strcmp(de->d_name, "Documentation"))))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		r = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		if (lstat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				walk(e, path, r);
			else if (S_ISREG(st.st_mode) && !strncmp(de->d_name, "Kconfig", 7))
				scan_kconfig(e, path, r);
		}
		free(r);
		free(path);
	}
	closedir(d);
}

void kbuild_explain(const char *src, const char *config_text, size_t config_len, const char *opt,
		    struct strbuf *out)
{
	struct kconfig kc = KCONFIG_INIT;
	struct explain e = {.src = src, .kc = &kc};

	e.sym = !strncmp(opt, "CONFIG_", 7) ? opt + 7 : opt;
	strbuf_init(&e.deps);
	strlist_init(&e.off);
	kconfig_parse(config_text, config_len, NULL, &kc);
	walk(&e, src, "");
	if (!e.entries) {
		strbuf_addstr(out, "it is not an option of this tree (no Kconfig file defines it)");
	} else if (!e.deps.len) {
		strbuf_addstr(out, "its Kconfig entry has no 'depends on' (a choice, or an "
				   "enclosing menu's or if's condition, decides it)");
	} else {
		strbuf_addf(out, "it depends on %s", e.deps.buf);
		if (e.off.n) {
			strbuf_addstr(out, "; off here:");
			for (size_t i = 0; i < e.off.n; i++)
				strbuf_addf(out, " %s", e.off.v[i]);
		}
	}
	strlist_release(&e.off);
	strbuf_release(&e.deps);
	kconfig_release(&kc);
}
