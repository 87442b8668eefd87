/* common.c: what tapboot run and tapboot build share: finding the init, targets, option values. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "error.h"
#include "fs.h"

char *cli_find_init(const char *arch)
{
	const char *dir = getenv("TAPBOOT_INIT_DIR");
	char *path;

	path = xasprintf("%s/init/%s/init", dir && *dir ? dir : TAPBOOT_LIBEXECDIR, arch);
	if (access(path, R_OK) == 0)
		return path;
	if (dir && *dir) {
		free(path);
		path = xasprintf("%s/%s/init", dir, arch);
		if (access(path, R_OK) == 0)
			return path;
	}
	error("no init for %s at '%s': build it with 'make INIT_ARCHES=%s' (needs the %s cross "
	      "compiler, see 'make help')",
	      arch, path, arch, arch);
	free(path);
	return NULL;
}

int cli_builder_target(struct builder_opts *o, const struct arch_config *cfg, const char *sysroot)
{
	static const char *host_arch =
#if defined(__x86_64__)
		"x86_64";
#elif defined(__aarch64__)
		"arm64";
#else
		"";
#endif
	o->target.arch = cfg->arch;
	o->target.elf_machine = cfg->elf_machine;
	o->target.elf_class = cfg->elf_class;
	if (sysroot)
		o->target.sysroot = sysroot;
	else if (!strcmp(cfg->arch, host_arch))
		o->target.sysroot = "/";
	else
		o->target.sysroot = cfg->sysroot && *cfg->sysroot ? cfg->sysroot : "/";
	o->init_path = cli_find_init(cfg->arch);
	return o->init_path ? 0 : -1;
}

int cli_parse_compress(const char *name, enum builder_compress *out)
{
	int k = builder_compress_from_name(name);

	if (k < 0)
		return error("--compress wants none, gzip, xz, zstd or lz4, got '%s'", name);
	*out = (enum builder_compress)k;
	return 0;
}

int cli_parse_seconds(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > 7 * 86400)
		return -1;
	*out = (unsigned)v;
	return 0;
}

