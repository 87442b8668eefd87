// SPDX-License-Identifier: GPL-2.0-only
/* kconfig_check.c: the kernel options tapboot needs, checked in the kernel's config before a
 * boot, and a guess at the missing one when a kernel died before tapboot's init.
 * A minimal kernel (tinyconfig) lacking one of them otherwise boots to a silent hang or to
 * "No working init found", which names nothing. */
#include "kconfig_check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "kconfig.h"
#include "protocol.h"

struct need {
	const char *opt;
	const char *why;
	const char *only_if; /* needed only when this option is =y (NULL: always) */
};

/* What every run needs: init/setup.c's required mounts and console, the init's signalfd, and
 * the kernel's own reports (init/kernel.c reads /dev/kmsg and the taint flags). */
static const struct need always[] = {
	{"CONFIG_BLK_DEV_INITRD", "initramfs support: the init and the tests come in an initramfs",
	 NULL},
	{"CONFIG_BINFMT_ELF", "the init and the tests are ELF programs", NULL},
	{"CONFIG_DEVTMPFS", "the init mounts devtmpfs on /dev (/dev/console, /dev/kmsg)", NULL},
	{"CONFIG_PROC_FS", "the init mounts /proc (the command line, the tests' processes)", NULL},
	{"CONFIG_PROC_SYSCTL", "the init reads the taint flags in /proc/sys/kernel/tainted", NULL},
	{"CONFIG_SYSFS", "the init mounts /sys", NULL},
	/* With SHMEM off, "tmpfs" is ramfs and mounts; with SHMEM on and TMPFS off, shmem
	 * refuses user mounts (SB_NOUSER, mm/shmem.c). */
	{"CONFIG_TMPFS", "the init mounts tmpfs on /tmp and /run", "CONFIG_SHMEM"},
	{"CONFIG_SIGNALFD", "the init takes signals through a signalfd", NULL},
	{"CONFIG_TTY", "the console tapboot reads the results from", NULL},
	{"CONFIG_PRINTK", "kernel messages: crash reports on the console, warnings from /dev/kmsg",
	 NULL},
};

/* One need: a "CONFIG_X\tSTATE\tWHY" line when it is not built in. */
static size_t check_one(const struct kconfig *kc, const char *opt, const char *why,
			struct strbuf *missing)
{
	const char *v = kconfig_value(kc, opt);

	if (v && !strcmp(v, "y"))
		return 0;
	if (!v)
		strbuf_addf(missing, "%s\tis absent\t%s\n", opt, why);
	else if (!strcmp(v, "n"))
		strbuf_addf(missing, "%s\tis not set\t%s\n", opt, why);
	else
		strbuf_addf(missing, "%s\t=%s, not built in\t%s\n", opt, v, why);
	return 1;
}

/* kconfig_check_text on a config already read. */
static size_t check_config(const struct kconfig *kc, const struct kconfig_needs *n,
			   struct strbuf *missing)
{
	size_t count = 0;
	const char *rd = kconfig_rd_option(n->compress);

	for (size_t i = 0; i < ARRAY_SIZE(always); i++)
		if (!always[i].only_if || kconfig_is_y(kc, always[i].only_if))
			count += check_one(kc, always[i].opt, always[i].why, missing);
	if (n->cfg) {
		char *why = xasprintf("the console driver for console=%s, where tapboot reads the "
				      "results",
				      n->cfg->console);

		for (size_t i = 0; i < n->cfg->kconfig_console.n; i++)
			count += check_one(kc, n->cfg->kconfig_console.v[i], why, missing);
		free(why);
	}
	if (n->scripts)
		count += check_one(kc, "CONFIG_BINFMT_SCRIPT", "a test is a #! script", missing);
	if (rd) {
		char *why = xasprintf("the initramfs is %s-compressed (--compress)", n->compress);

		count += check_one(kc, rd, why, missing);
		free(why);
	}
	if (n->modules)
		count += check_one(kc, "CONFIG_MODULES", "the init loads modules (--module)",
				   missing);
	return count;
}

void kconfig_check_fragment(const struct kconfig_needs *n, struct strbuf *out)
{
	const char *rd = kconfig_rd_option(n->compress);

	for (size_t i = 0; i < ARRAY_SIZE(always); i++) {
		if (always[i].only_if)
			strbuf_addf(out, "%s=y\n", always[i].only_if);
		strbuf_addf(out, "%s=y\n", always[i].opt);
	}
	if (n->cfg)
		for (size_t i = 0; i < n->cfg->kconfig_console.n; i++)
			strbuf_addf(out, "%s=y\n", n->cfg->kconfig_console.v[i]);
	if (n->scripts)
		strbuf_addstr(out, "CONFIG_BINFMT_SCRIPT=y\n");
	if (rd)
		strbuf_addf(out, "%s=y\n", rd);
	if (n->modules)
		strbuf_addstr(out, "CONFIG_MODULES=y\n");
}

size_t kconfig_check_text(const char *buf, size_t len, const struct kconfig_needs *n,
			  struct strbuf *missing)
{
	struct kconfig kc = KCONFIG_INIT;
	size_t count;

	kconfig_parse(buf, len, NULL, &kc);
	count = check_config(&kc, n, missing);
	kconfig_release(&kc);
	return count;
}

/* path's options into kc (zeroed), every line that is not one skipped: the checks read what
 * they can. -1 with errno set when the file cannot be read. */
static int read_config(const char *path, struct kconfig *kc)
{
	char *text;
	size_t len;

	if (read_file(path, &text, &len) < 0)
		return -1;
	kconfig_parse(text, len, NULL, kc);
	free(text);
	return 0;
}

bool kconfig_all_y(const char *config, const struct strlist *opts)
{
	struct kconfig kc = KCONFIG_INIT;
	bool all = read_config(config, &kc) == 0;

	for (size_t i = 0; all && i < opts->n; i++)
		all = kconfig_is_y(&kc, opts->v[i]);
	kconfig_release(&kc);
	return all;
}

int kconfig_check_run(const char *config, const struct kconfig_needs *n, bool quiet)
{
	struct kconfig kc = KCONFIG_INIT;
	struct strbuf missing = STRBUF_INIT, msg = STRBUF_INIT;
	size_t count;
	int ret = 0;

	if (!config) {
		if (!quiet)
			note("note: no kernel config (a build directory's .config, the config-* "
			     "beside a Debian image, or --config FILE): the kernel's options are "
			     "not checked");
		return 0;
	}
	if (read_config(config, &kc) < 0)
		return error_errno("cannot read kernel config '%s'", config);
	strbuf_grow(&missing, 0);
	count = check_config(&kc, n, &missing);
	if (count) {
		strbuf_addf(&msg, "kernel config '%s' lacks %s tapboot needs:\n", config,
			    count == 1 ? "an option" : "options");
		for (char *line = missing.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
			char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;

			if (!t2 || t2 > nl)
				continue;
			strbuf_addf(&msg, "  %.*s %.*s: %.*s\n", (int)(t1 - line), line,
				    (int)(t2 - t1 - 1), t1 + 1, (int)(nl - t2 - 1), t2 + 1);
		}
		strbuf_addstr(&msg, "add this fragment to the kernel's config (scripts/kconfig/"
				    "merge_config.sh, or append it and run make olddefconfig), "
				    "rebuild, and run again:\n");
		for (char *line = missing.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
			char *t1 = strchr(line, '\t');

			if (t1 && t1 < nl)
				strbuf_addf(&msg, "%.*s=y\n", (int)(t1 - line), line);
		}
		msg.buf[msg.len - 1] = '\0'; /* error() ends the line */
		error("%s", msg.buf);
		ret = -1;
	}
	strbuf_release(&msg);
	strbuf_release(&missing);
	kconfig_release(&kc);
	return ret;
}

static bool file_has_shebang(const char *path)
{
	char h[2];
	int fd = open_regular(path, O_RDONLY | O_NOFOLLOW);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, h, 2) == 2 && h[0] == '#' && h[1] == '!';
	close(fd);
	return yes;
}

/* Executables under dir, to any depth (the builder's test discovery), checked for "#!". */
static bool dir_has_script(const char *dir, unsigned depth)
{
	DIR *d;
	struct dirent *de;
	bool found = false;

	if (depth > 16 || !(d = opendir(dir)))
		return false;
	while (!found && (de = readdir(d))) {
		struct stat st;
		char *p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (!lstat(p, &st)) {
			if (S_ISDIR(st.st_mode))
				found = dir_has_script(p, depth + 1);
			else if (S_ISREG(st.st_mode) && (st.st_mode & 0111))
				found = file_has_shebang(p);
		}
		free(p);
	}
	closedir(d);
	return found;
}

bool kconfig_inputs_have_script(const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (!paths[i] || stat(paths[i], &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode) ? dir_has_script(paths[i], 0) : file_has_shebang(paths[i]))
			return true;
	}
	return false;
}

/* What a kernel prints when one of these options is missing, and what the init says when a
 * set-up step fails (init/setup.c, init/main.c), with the options to suspect. {RD} stands for
 * the run's compression option. */
static const struct symptom {
	const char *text;
	const char *opts;
} symptoms[] = {
	{"Initramfs unpacking failed", "{RD}"},
	{"Failed to execute /init", "CONFIG_BINFMT_ELF"},
	{"cannot mount devtmpfs", "CONFIG_DEVTMPFS"},
	{"cannot open /dev/console", "CONFIG_DEVTMPFS CONFIG_TTY"},
	{"cannot mount proc", "CONFIG_PROC_FS"},
	{"cannot mount sysfs", "CONFIG_SYSFS"},
	{"cannot mount tmpfs", "CONFIG_TMPFS"},
	{"cannot create a signalfd", "CONFIG_SIGNALFD"},
	/* the initramfs was not unpacked (or holds nothing the kernel can run) */
	{"No working init found", "CONFIG_BLK_DEV_INITRD {RD} CONFIG_BINFMT_ELF"},
	{"Unable to mount root fs", "CONFIG_BLK_DEV_INITRD {RD}"},
};

/* Append the options in opts (space-separated, {RD} expanded) to list, each once. */
static void add_suspects(struct strlist *list, const char *opts, const char *rd)
{
	char *copy = xstrdup(opts), *save = NULL;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		const char *o = strcmp(w, "{RD}") ? w : rd;
		bool dup = false;

		if (!o)
			continue;
		for (size_t i = 0; i < list->n && !dup; i++)
			dup = !strcmp(list->v[i], o);
		if (!dup)
			strlist_push(list, o);
	}
	free(copy);
}

/* The last max non-empty lines of s (CR stripped), indented, into out. */
static void last_lines(const char *s, size_t len, size_t max, struct strbuf *out)
{
	const char *starts[64];
	size_t lens[64], n = 0;

	if (max > ARRAY_SIZE(starts))
		max = ARRAY_SIZE(starts);
	for (const char *p = s, *end = s + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t l = (size_t)(e - p);

		while (l && (p[l - 1] == '\r' || p[l - 1] == ' '))
			l--;
		if (l) {
			if (n == max) {
				memmove(starts, starts + 1, (max - 1) * sizeof(*starts));
				memmove(lens, lens + 1, (max - 1) * sizeof(*lens));
				n--;
			}
			starts[n] = p;
			lens[n++] = l;
		}
		p = e + 1;
	}
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "  %.*s\n", (int)lens[i], starts[i]);
}

static bool contains(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what)) != NULL;
}

void kconfig_check_diagnose(const char *console, size_t len, const char *config,
			    const struct kconfig_needs *n, struct strbuf *out)
{
	struct strlist suspects;
	struct kconfig kc = KCONFIG_INIT;
	const char *rd = kconfig_rd_option(n->compress);
	bool have_config = false;

	if (contains(console, len, TAPBOOT_MARK_BEGIN))
		return;
	strlist_init(&suspects);
	for (size_t i = 0; i < ARRAY_SIZE(symptoms); i++)
		if (contains(console, len, symptoms[i].text))
			add_suspects(&suspects, symptoms[i].opts, rd);
	/* Nothing on the console at all: with "quiet" a healthy kernel prints nothing before the
	 * init either, but a kernel without its console driver cannot print even its panic. */
	if (!suspects.n && n->cfg) {
		for (size_t i = 0; i < n->cfg->kconfig_console.n; i++)
			add_suspects(&suspects, n->cfg->kconfig_console.v[i], rd);
		add_suspects(&suspects, "CONFIG_TTY CONFIG_PRINTK", rd);
	}
	if (config && read_config(config, &kc) == 0)
		have_config = true;
	if (len) {
		/* A panic's backtrace and register dump follow its reason: show the lines up to
		 * the reason, where the kernel says what it could not do. */
		const char *panic = NULL, *nl;

		for (const char *p = console;
		     (p = memmem(p, len - (size_t)(p - console), "Kernel panic - not syncing", 26));
		     p += 26)
			panic = p;
		if (panic && (nl = memchr(panic, '\n', len - (size_t)(panic - console))))
			len = (size_t)(nl - console);
		strbuf_addstr(out, "the kernel stopped before tapboot's init; its last lines:\n");
		last_lines(console, len, 8, out);
	} else {
		strbuf_addstr(out,
			      "the kernel stopped before tapboot's init and printed nothing on "
			      "the console\n");
	}
	if (have_config) {
		struct strbuf missing = STRBUF_INIT, opts = STRBUF_INIT;

		/* A suspect the config has built in is no suspect; report the ones it lacks. */
		for (size_t i = 0; i < suspects.n; i++)
			if (!kconfig_is_y(&kc, suspects.v[i]))
				strbuf_addf(&opts, "%s%s", opts.len ? ", " : "", suspects.v[i]);
		strbuf_grow(&missing, 0);
		if (opts.len)
			strbuf_addf(out, "likely missing: %s (not built in, kernel config '%s')\n",
				    opts.buf, config);
		else if (check_config(&kc, n, &missing))
			strbuf_addf(out, "likely missing: %.*s (kernel config '%s')\n",
				    (int)strcspn(missing.buf, "\t"), missing.buf, config);
		else
			strbuf_addf(out,
				    "the options tapboot checks are all built in (kernel config "
				    "'%s'): the cause is elsewhere\n",
				    config);
		strbuf_release(&missing);
		strbuf_release(&opts);
	} else if (suspects.n) {
		strbuf_addstr(out, "likely missing: ");
		for (size_t i = 0; i < suspects.n; i++)
			strbuf_addf(out, "%s%s", i ? " or " : "", suspects.v[i]);
		strbuf_addstr(out, " (no kernel config to check: --config FILE)\n");
	}
	strlist_release(&suspects);
	kconfig_release(&kc);
}

void kconfig_check_postmortem(const char *results_dir, const char *config,
			      const struct kconfig_needs *n)
{
	struct strbuf out = STRBUF_INIT;
	char *path = xasprintf("%s/console.log", results_dir), *console;
	size_t len;

	strbuf_grow(&out, 0);
	if (read_file(path, &console, &len) == 0)
		kconfig_check_diagnose(console, len, config, n, &out);
	for (char *line = out.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1)
		note("%.*s", (int)(nl - line), line);
	free(console);
	free(path);
	strbuf_release(&out);
}
