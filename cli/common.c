/* common.c: what tapboot run and tapboot build share: finding the init, the cache, targets. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

char *cli_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir;

	if (xdg && *xdg)
		dir = xasprintf("%s/tapboot", xdg);
	else
		dir = xasprintf("%s/.cache/tapboot", home && *home ? home : ".");
	if (mkdir_p(dir) < 0)
		warning_errno("cannot create cache directory '%s'", dir);
	return dir;
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

/* The cache file for (prefix, file) and the key line that must head it. */
static int stat_cache_names(const char *prefix, const char *file, char **path, char **key)
{
	char *real = realpath(file, NULL), *cache;
	struct stat st;

	if (!real || stat(real, &st)) {
		free(real);
		return -1;
	}
	cache = cli_cache_dir();
	*key = xasprintf("%s %llu %llu %lld %lld.%09ld %lld.%09ld", real,
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			 (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	*path = xasprintf("%s/%s-%s", cache, prefix, real);
	for (char *c = *path + strlen(cache) + 1; *c; c++)
		*c = *c == '/' ? '_' : *c;
	free(cache);
	free(real);
	return 0;
}

bool cli_stat_cache_get(const char *prefix, const char *file, char *out, size_t n)
{
	char *path, *key, line[4096];
	bool hit = false;
	FILE *fp;

	if (stat_cache_names(prefix, file, &path, &key) < 0)
		return false;
	fp = fopen(path, "r");
	if (fp) {
		size_t k = strlen(key);

		hit = fgets(line, sizeof(line), fp) && !strncmp(line, key, k) && line[k] == '\n' &&
		      fgets(out, (int)n, fp);
		fclose(fp);
	}
	if (hit)
		out[strcspn(out, "\n")] = '\0';
	free(path);
	free(key);
	return hit;
}

void cli_stat_cache_put(const char *prefix, const char *file, const char *value)
{
	char *path, *key, *tmp;
	FILE *fp;

	if (stat_cache_names(prefix, file, &path, &key) < 0)
		return;
	tmp = xasprintf("%s.%ld", path, (long)getpid());
	fp = fopen(tmp, "w");
	if (fp && fprintf(fp, "%s\n%s\n", key, value) > 0 && !fclose(fp))
		rename(tmp, path);
	else if (fp)
		fclose(fp);
	unlink(tmp);
	free(tmp);
	free(path);
	free(key);
}
