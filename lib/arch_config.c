// SPDX-License-Identifier: GPL-2.0-only
/* arch_config.c: loader of configs/<arch>.conf and the lookups over them; adding an
 * architecture is adding a file. */
#include "arch_config.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "error.h"
#include "fs.h"
#include "paths.h"
#include "strbuf.h"

void arch_config_init(struct arch_config *c)
{
	memset(c, 0, sizeof(*c));
	strlist_init(&c->image_paths);
	strlist_init(&c->uname_machine);
	strlist_init(&c->kconfig_console);
	strlist_init(&c->snapshot_tests_kconfig);
}

void arch_config_release(struct arch_config *c)
{
	char **strs[] = { &c->path,	     &c->arch,	    &c->kernel_arch,   &c->kconfig,
			  &c->debian_arch,   &c->debian_kernel, &c->cross_compile, &c->sysroot,
			  &c->elf_data,	     &c->qemu,	    &c->machine,       &c->machine_bzimage,
			  &c->cpu_tcg,	     &c->cpu_kvm,	    &c->console,       &c->append,
			  &c->qemu_args,     &c->bios,	    &c->multiarch,     &c->qemu_package,
			  &c->debian_release, &c->snapshot_off, &c->snapshot_tests, &c->kbuild_arch };

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		free(*strs[i]);
	strlist_release(&c->image_paths);
	strlist_release(&c->uname_machine);
	strlist_release(&c->kconfig_console);
	strlist_release(&c->snapshot_tests_kconfig);
	arch_config_init(c);
}

enum key_type { K_STR, K_UINT, K_ADDR, K_BOOL, K_LIST };

struct key {
	const char *name;
	enum key_type type;
	size_t off;
	bool required;
};

#define STR(n, req) { #n, K_STR, offsetof(struct arch_config, n), req }
static const struct key keys[] = {
	STR(arch, true),
	{"uname_machine", K_LIST, offsetof(struct arch_config, uname_machine), false},
	STR(kernel_arch, true),
	STR(kbuild_arch, false),
	STR(kconfig, true),
	STR(debian_arch, false),
	STR(debian_kernel, false),
	STR(debian_release, false),
	STR(cross_compile, true),
	STR(sysroot, false),
	STR(multiarch, false),
	{"elf_machine", K_UINT, offsetof(struct arch_config, elf_machine), true},
	{"elf_class", K_UINT, offsetof(struct arch_config, elf_class), true},
	STR(elf_data, false),
	STR(qemu, true),
	STR(qemu_package, false),
	STR(machine, true),
	STR(machine_bzimage, false),
	STR(cpu_tcg, false),
	STR(cpu_kvm, false),
	STR(console, true),
	{"kconfig_console", K_LIST, offsetof(struct arch_config, kconfig_console), false},
	{"memory", K_UINT, offsetof(struct arch_config, memory_mb), false},
	{"smp", K_UINT, offsetof(struct arch_config, smp), false},
	{"smp_tcg", K_UINT, offsetof(struct arch_config, smp_tcg), false},
	{"image_paths", K_LIST, offsetof(struct arch_config, image_paths), false},
	{"pvh", K_BOOL, offsetof(struct arch_config, pvh), false},
	{"tcg_single_hangs", K_BOOL, offsetof(struct arch_config, tcg_single_hangs), false},
	{"zimage_ram_base", K_ADDR, offsetof(struct arch_config, zimage_ram_base), false},
	STR(append, false),
	STR(qemu_args, false),
	STR(bios, false),
	STR(snapshot_off, false),
	STR(snapshot_tests, false),
	{"snapshot_tests_kconfig", K_LIST, offsetof(struct arch_config, snapshot_tests_kconfig),
	 false},
};

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int set_key(struct arch_config *c, const struct key *k, const char *value,
		   const char *file, unsigned line)
{
	void *field = (char *)c + k->off;

	switch (k->type) {
	case K_STR:
		free(*(char **)field);
		*(char **)field = xstrdup(value);
		return 0;
	case K_UINT: {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || end == value || *end || v > 1u << 20)
			return error_at(file, line, "'%s' wants a number, got '%s'", k->name, value);
		*(unsigned *)field = (unsigned)v;
		return 0;
	}
	case K_ADDR: {
		char *end = NULL;
		unsigned long long v;

		errno = 0;
		v = strncmp(value, "0x", 2) ? 0 : strtoull(value + 2, &end, 16);
		if (errno || strncmp(value, "0x", 2) || end == value + 2 || *end || !v ||
		    v > UINT32_MAX)
			return error_at(file, line, "'%s' wants a 32-bit address like 0x40000000, "
				       "got '%s'", k->name, value);
		*(uint32_t *)field = (uint32_t)v;
		return 0;
	}
	case K_BOOL:
		if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1"))
			*(bool *)field = true;
		else if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0"))
			*(bool *)field = false;
		else
			return error_at(file, line, "'%s' wants yes or no, got '%s'", k->name, value);
		return 0;
	case K_LIST: {
		char *copy = xstrdup(value), *save = NULL;

		strlist_release(field);
		for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
			strlist_push(field, w);
		free(copy);
		return 0;
	}
	}
	return -1;
}

static bool seen_key(const bool *seen, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].name, name))
			return seen[i];
	return false;
}

int arch_config_parse(struct arch_config *c, const char *buf, size_t len, const char *file)
{
	bool seen[ARRAY_SIZE(keys)] = { false };
	unsigned lineno = 0;
	size_t pos = 0;

	free(c->path);
	c->path = xstrdup(file);
	c->memory_mb = 512;
	c->smp = 1;
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		char *raw = xstrndup(buf + pos, n), *line, *eq, *key, *value;
		size_t i;
		int ret = 0;

		pos += n + (nl ? 1 : 0);
		lineno++;
		line = trim(raw);
		if (strlen(raw) != n) {
			ret = error_at(file, lineno, "NUL byte in the file");
		} else if (*line && *line != '#') {
			eq = strchr(line, '=');
			if (!eq) {
				ret = error_at(file, lineno, "expected 'key = value', got '%s'", line);
			} else {
				*eq = '\0';
				key = trim(line);
				value = trim(eq + 1);
				for (i = 0; i < ARRAY_SIZE(keys); i++)
					if (!strcmp(keys[i].name, key))
						break;
				if (i == ARRAY_SIZE(keys))
					ret = error_at(file, lineno, "unknown key '%s'", key);
				else if (seen[i])
					ret = error_at(file, lineno, "'%s' given twice", key);
				else {
					seen[i] = true;
					ret = set_key(c, &keys[i], value, file, lineno);
				}
			}
		}
		free(raw);
		if (ret)
			return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (keys[i].required && !seen[i])
			return error_at(file, 0, "missing required key '%s'", keys[i].name);
	if (c->elf_class != 32 && c->elf_class != 64)
		return error_at(file, 0, "elf_class must be 32 or 64, not %u", c->elf_class);
	if (c->elf_data && strcmp(c->elf_data, "lsb") && strcmp(c->elf_data, "msb"))
		return error_at(file, 0, "elf_data must be lsb or msb, not '%s'", c->elf_data);
	if (!seen_key(seen, "smp_tcg"))
		c->smp_tcg = c->smp;
	if (c->smp == 0 || c->smp_tcg == 0 || c->memory_mb < 64)
		return error_at(file, 0,
				"smp and smp_tcg must be at least 1 and memory at least 64 (MiB)");
	return 0;
}

int arch_config_load(struct arch_config *c, const char *configs_dir, const char *arch)
{
	char *path, *buf;
	size_t len = 0;
	int ret;

	for (const char *p = arch; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return error("unknown architecture '%s'", arch);
	path = xasprintf("%s/%s.conf", configs_dir, arch);
	if (read_file(path, &buf, &len) < 0) {
		if (errno == ENOENT) {
			char *list = arch_config_list(configs_dir);

			error("unknown architecture '%s' (no %s; known: %s)", arch, path, list);
			free(list);
		} else {
			error_errno("cannot read '%s'", path);
		}
		free(path);
		return -1;
	}
	ret = arch_config_parse(c, buf, len, path);
	if (!ret && strcmp(c->arch, arch))
		ret = error_at(path, 0, "says arch = %s, but the file is named for %s", c->arch,
			       arch);
	free(buf);
	free(path);
	return ret;
}

const char *arch_config_dir(void)
{
	/* decided once per process (paths.h): the answer cannot change while it runs */
	static char *dir;

	if (!dir)
		dir = tapboot_configs_dir();
	return dir;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the *.conf files, sorted. */
static void list_arches(const char *dir, struct strlist *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n > 5 && !strcmp(de->d_name + n - 5, ".conf") && de->d_name[0] != '.') {
			char *name = xstrndup(de->d_name, n - 5);

			strlist_push(out, name);
			free(name);
		}
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
}

char *arch_config_list(const char *configs_dir)
{
	struct strlist l;
	struct strbuf sb = STRBUF_INIT;

	strlist_init(&l);
	list_arches(configs_dir, &l);
	strbuf_grow(&sb, 0);
	for (size_t i = 0; i < l.n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", l.v[i]);
	strlist_release(&l);
	return strbuf_detach(&sb);
}

/* The first arch (in name order) whose config loads and matches; caller frees; NULL if none. */
static char *find_arch(const char *configs_dir,
		       bool (*match)(const struct arch_config *c, const void *arg), const void *arg)
{
	struct strlist l;
	char *found = NULL;

	strlist_init(&l);
	list_arches(configs_dir, &l);
	for (size_t i = 0; i < l.n && !found; i++) {
		struct arch_config c;

		arch_config_init(&c);
		if (!arch_config_load(&c, configs_dir, l.v[i]) && match(&c, arg))
			found = xstrdup(c.arch);
		arch_config_release(&c);
	}
	strlist_release(&l);
	return found;
}

struct elf_id {
	unsigned machine, elf_class;
	bool msb;
};

static bool match_elf(const struct arch_config *c, const void *arg)
{
	const struct elf_id *id = arg;

	return c->elf_machine == id->machine && c->elf_class == id->elf_class &&
	       id->msb == (c->elf_data && !strcmp(c->elf_data, "msb"));
}

char *arch_config_find_elf(const char *configs_dir, unsigned machine, unsigned elf_class, bool msb)
{
	struct elf_id id = { machine, elf_class, msb };

	return find_arch(configs_dir, match_elf, &id);
}

static bool match_uname(const struct arch_config *c, const void *arg)
{
	for (size_t i = 0; i < c->uname_machine.n; i++)
		if (!strcmp(c->uname_machine.v[i], arg))
			return true;
	return false;
}

char *arch_config_find_uname(const char *configs_dir, const char *machine)
{
	return find_arch(configs_dir, match_uname, machine);
}

static bool match_qemu(const struct arch_config *c, const void *arg)
{
	return c->qemu && !strcmp(c->qemu, arg);
}

char *arch_config_find_qemu(const char *configs_dir, const char *qemu)
{
	return find_arch(configs_dir, match_qemu, qemu);
}

/* Is SYMBOL=y in the .config at path? */
static int kconfig_is_set(const char *path, const char *symbol)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	size_t n = strlen(symbol);
	int set = 0;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, symbol, n) && line[n] == '=' && line[n + 1] == 'y') {
			set = 1;
			break;
		}
	fclose(fp);
	return set;
}

/* Each config's kconfig symbol is one only its arch sets (CONFIG_X86_64 and CONFIG_X86_32
 * exclude each other; an arm64 .config has no CONFIG_ARM), so the first match is the arch. */
static bool match_kconfig(const struct arch_config *c, const void *arg)
{
	return kconfig_is_set(arg, c->kconfig) == 1;
}

char *arch_config_find_kconfig(const char *configs_dir, const char *dotconfig_path)
{
	return find_arch(configs_dir, match_kconfig, dotconfig_path);
}

const struct arch_config *arch_config_host(void)
{
	/* file-local: the host does not change while tapboot runs, and finding it reads every
	 * config */
	static struct arch_config host;
	static bool looked;
	struct utsname u;
	char *arch;

	if (looked)
		return host.arch ? &host : NULL;
	looked = true;
	arch_config_init(&host);
	arch = uname(&u) == 0 ? arch_config_find_uname(arch_config_dir(), u.machine) : NULL;
	if (arch && arch_config_load(&host, arch_config_dir(), arch) < 0)
		arch_config_release(&host);
	free(arch);
	return host.arch ? &host : NULL;
}
