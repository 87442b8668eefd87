/* common.c: what tapboot run and tapboot build share: finding the init, the cache, targets. */
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
#include "paths.h"

/* The Debian package of arch's cross compiler ("gcc-aarch64-linux-gnu"), from its config's
 * cross_compile; NULL for the host's own arch or an unknown one. Caller frees. */
static char *cross_gcc_package(const char *arch)
{
	struct arch_config c;
	char *pkg = NULL;
	size_t n;

	arch_config_init(&c);
	if (!arch_config_load(&c, arch_config_dir(), arch) && c.cross_compile &&
	    (n = strlen(c.cross_compile)) > 1)
		pkg = xasprintf("gcc-%.*s", (int)(n - 1), c.cross_compile);
	arch_config_release(&c);
	return pkg;
}

char *cli_find_init(const char *arch)
{
	struct tapboot_dirs d;
	char *path, *pkg;

	tapboot_dirs_get(&d);
	path = xasprintf("%s/%s/init", d.inits, arch);
	if (access(path, R_OK) == 0) {
		tapboot_dirs_release(&d);
		return path;
	}
	pkg = cross_gcc_package(arch);
	if (d.installed)
		error("no init for %s at '%s': this tapboot was installed without it; Debian's "
		      "tapboot package ships the inits of x86_64 and arm64, and 'make "
		      "INIT_ARCHES=%s install' in tapboot's source tree builds and installs it "
		      "(needs %s)",
		      arch, path, arch, pkg ? pkg : "the cross compiler");
	else
		error("no init for %s at '%s': build it with 'make INIT_ARCHES=%s' (needs %s, "
		      "see 'make help')",
		      arch, path, arch, pkg ? pkg : "the cross compiler");
	free(pkg);
	free(path);
	tapboot_dirs_release(&d);
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

static char *cache_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		return xasprintf("%s/tapboot", xdg);
	return xasprintf("%s/.cache/tapboot", home && *home ? home : ".");
}

char *cli_cache_dir(void)
{
	char *dir = cache_path();

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

/* The cache file under cache for (prefix, file) and the key line that must head it. */
static int stat_cache_names(const char *cache, const char *prefix, const char *file, char **path,
			    char **key)
{
	char *real = realpath(file, NULL);
	struct stat st;

	if (!real || stat(real, &st)) {
		free(real);
		return -1;
	}
	*key = xasprintf("%s %llu %llu %lld %lld.%09ld %lld.%09ld", real,
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			 (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	*path = xasprintf("%s/%s-%s", cache, prefix, real);
	for (char *c = *path + strlen(cache) + 1; *c; c++)
		*c = *c == '/' ? '_' : *c;
	free(real);
	return 0;
}

bool cli_stat_cache_get(const char *prefix, const char *file, char *out, size_t n)
{
	char *cache = cli_cache_dir(), *path, *key, line[4096];
	bool hit = false;
	FILE *fp;
	int r = stat_cache_names(cache, prefix, file, &path, &key);

	free(cache);
	if (r < 0)
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
	char *cache = cli_cache_dir(), *path, *key, *tmp;
	FILE *fp;
	int r = stat_cache_names(cache, prefix, file, &path, &key);

	free(cache);
	if (r < 0)
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

/* ---- cache upkeep ---- */

struct cache_entry {
	char *path;
	off_t size;
	time_t mtime;
};

static int by_mtime(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* Collect the entries of dir; unfinished temporary files (".name") older than an hour are
 * left by a killed writer and go at once. */
static void collect(const char *dir, time_t now, struct cache_entry **v, size_t *n,
		    size_t *alloc, unsigned long long *total)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		char *path;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (de->d_name[0] == '.') {
			if (now - st.st_mtime > 3600)
				unlink(path);
			free(path);
			continue;
		}
		xgrow(v, alloc, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (struct cache_entry){ path, st.st_size, st.st_mtime };
		*total += (unsigned long long)st.st_size;
	}
	closedir(d);
}

/* A stat-cache entry (top/name, named PREFIX-...) whose file is gone or has changed is dead
 * weight. */
static void prune_stat_entry(const char *top, const char *name, const char *prefix)
{
	char *path = xasprintf("%s/%s", top, name);
	char line[4096], file[4096], *key = NULL, *cpath = NULL;
	FILE *fp = fopen(path, "r");
	bool dead = true;

	if (!fp)
		goto out;
	if (fgets(line, sizeof(line), fp)) {
		/* the key is "REALPATH dev ino size mtime ctime": the path precedes the last five
		 * fields */
		size_t len = strcspn(line, "\n");
		int fields = 0;

		line[len] = '\0';
		memcpy(file, line, len + 1);
		while (len > 0 && fields < 5)
			if (file[--len] == ' ')
				fields++;
		file[len] = '\0';
		if (fields == 5 && stat_cache_names(top, prefix, file, &cpath, &key) == 0)
			dead = strcmp(key, line) != 0;
	}
	fclose(fp);
	if (dead)
		unlink(path);
out:
	free(cpath);
	free(key);
	free(path);
}

/* What the caches may hold, in MiB: $TAPBOOT_CACHE_MB, default 2048. */
static unsigned long long cache_cap_bytes(void)
{
	const char *v = getenv("TAPBOOT_CACHE_MB");
	char *end;
	unsigned long long mb = 2048;

	if (v && *v) {
		errno = 0;
		mb = strtoull(v, &end, 10);
		if (errno || *end) {
			warning("TAPBOOT_CACHE_MB='%s' is not a number of MiB: using 2048", v);
			mb = 2048;
		}
	}
	return mb << 20;
}

void cli_cache_prune(void)
{
	static const char *const dirs[] = { "segments", "vmlinux" };
	static const char *const stat_prefixes[] = { CLI_STAT_CACHE_SHA256,
						     CLI_STAT_CACHE_QEMU_VERSION };
	char *top = cache_path();
	struct cache_entry *v = NULL;
	size_t n = 0, alloc = 0;
	unsigned long long total = 0, cap = cache_cap_bytes();
	time_t now = time(NULL);
	DIR *d;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *dir = xasprintf("%s/%s", top, dirs[i]);

		collect(dir, now, &v, &n, &alloc, &total);
		free(dir);
	}
	/* least recently used first; what was used in the last day stays (a run still going,
	 * or one started at the same time, may be about to read it) */
	qsort(v, n, sizeof(*v), by_mtime);
	for (size_t i = 0; i < n && total > cap && now - v[i].mtime > 86400; i++)
		if (!unlink(v[i].path))
			total -= (unsigned long long)v[i].size;
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	d = opendir(top);
	if (d) {
		struct dirent *de;

		while ((de = readdir(d)))
			for (size_t i = 0; i < ARRAY_SIZE(stat_prefixes); i++) {
				size_t k = strlen(stat_prefixes[i]);

				if (!strncmp(de->d_name, stat_prefixes[i], k) &&
				    de->d_name[k] == '-') {
					prune_stat_entry(top, de->d_name, stat_prefixes[i]);
					break;
				}
			}
		closedir(d);
	}
	free(top);
}
