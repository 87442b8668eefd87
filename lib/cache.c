// SPDX-License-Identifier: GPL-2.0-only
/* cache.c: tapboot's cache directory ($XDG_CACHE_HOME/tapboot): where it is, the stat-keyed
 * value cache, and its upkeep. */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"

static char *cache_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		return xasprintf("%s/tapboot", xdg);
	return xasprintf("%s/.cache/tapboot", home && *home ? home : ".");
}

char *cache_dir(void)
{
	/* said once per process: every cache user asks (a run asked about 20 times with a
	 * read-only XDG_CACHE_HOME, each printing the same warning) */
	static bool warned;
	char *dir = cache_path();

	if (mkdir_p(dir) < 0 && !warned) {
		warned = true;
		warning_errno("cannot create cache directory '%s' (tapboot goes on without its "
			      "caches)",
			      dir);
	}
	return dir;
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

bool stat_cache_get(const char *prefix, const char *file, char *out, size_t n)
{
	char *cache = cache_dir(), *path, *key, line[4096];
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

struct stat_cache_entry {
	const char *key, *value;
};

static int stat_cache_write(FILE *fp, const void *ctx)
{
	const struct stat_cache_entry *e = ctx;

	return fprintf(fp, "%s\n%s\n", e->key, e->value) > 0 ? 0 : -1;
}

void stat_cache_put(const char *prefix, const char *file, const char *value)
{
	char *cache = cache_dir(), *path, *key;
	int r = stat_cache_names(cache, prefix, file, &path, &key);

	free(cache);
	if (r < 0)
		return;
	write_file_atomic(path, WRITE_FILE_QUIET | WRITE_FILE_SHARED, 0, stat_cache_write,
			  &(struct stat_cache_entry){key, value});
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
static void collect(const char *dir, time_t now, struct cache_entry **v, size_t *n, size_t *alloc,
		    unsigned long long *total)
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
		(*v)[(*n)++] = (struct cache_entry){path, st.st_size, st.st_mtime};
		*total += (unsigned long long)st.st_size;
	}
	closedir(d);
}

/* A stat-cache entry (top/name, named PREFIX-...) whose file is gone or has changed is dead
 * weight: every results directory's image gets one (reproduce.sh's hash), which goes with the
 * directory. So is a copy under another name than the one its key gives, such as the
 * temporary of a stat_cache_put killed before its rename (NAME.PID), once it is an hour old. */
static void prune_stat_entry(const char *top, const char *name, const char *prefix, time_t now)
{
	char *path = xasprintf("%s/%s", top, name);
	char line[4096], file[4096], *key = NULL, *cpath = NULL;
	FILE *fp = fopen(path, "r");
	struct stat st;
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
			dead = strcmp(key, line) != 0 ||
			       (strcmp(cpath, path) != 0 &&
				(fstat(fileno(fp), &st) < 0 || now - st.st_mtime > 3600));
	}
	fclose(fp);
	if (dead)
		unlink(path);
out:
	free(cpath);
	free(key);
	free(path);
}

/* Every stat-cache entry of top checked (one read, realpath and stat each, no scan of the
 * segments or snapshots), at every upkeep, due or not. */
static void prune_stat_cache(const char *top, time_t now)
{
	static const char *const prefixes[] = {STAT_CACHE_SHA256, STAT_CACHE_QEMU_VERSION,
					       STAT_CACHE_SNAPSHOT_OK, STAT_CACHE_APPLETS};
	DIR *d = opendir(top);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
			size_t k = strlen(prefixes[i]);

			if (!strncmp(de->d_name, prefixes[i], k) && de->d_name[k] == '-') {
				prune_stat_entry(top, de->d_name, prefixes[i], now);
				break;
			}
		}
	closedir(d);
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

/* Snapshots (run/snapshot.c) are 60-110 MB each (a small state and a sparse RAM file): the
 * $TAPBOOT_SNAPSHOTS (default 8) most recently used stay, whatever their age (a use touches
 * KEY.sum, not the state); a state or RAM file without its checksum file or the reverse, a
 * "seen" marker unused for 30 days and temporary files older than an hour go. A run restoring from a state removed under it has it open, or
 * boots cold (it checks first). */
/* The length of p (l bytes) without suffix, or 0 when p does not end with it. */
static size_t stem(const char *p, size_t l, const char *suffix)
{
	size_t k = strlen(suffix);

	return l > k && !strcmp(p + l - k, suffix) ? l - k : 0;
}

static void prune_snapshots(const char *top, time_t now)
{
	char *dir = xasprintf("%s/snapshots", top), *end;
	const char *env = getenv("TAPBOOT_SNAPSHOTS");
	unsigned long keep = env && *env ? strtoul(env, &end, 10) : 8;
	struct cache_entry *v = NULL;
	size_t n = 0, alloc = 0, sums = 0;
	unsigned long long total = 0;

	collect(dir, now, &v, &n, &alloc, &total);
	if (n)
		qsort(v, n, sizeof(*v), by_mtime);
	/* newest first */
	for (size_t i = n; i-- > 0;) {
		const char *p = v[i].path;
		size_t l = strlen(p), s;

		if ((s = stem(p, l, ".sum"))) {
			char *state = xasprintf("%.*s.state", (int)s, p);
			char *ram = xasprintf("%.*s.ram", (int)s, p);

			if (++sums > keep || access(state, F_OK) < 0 || access(ram, F_OK) < 0) {
				unlink(state);
				unlink(ram);
				unlink(p);
			}
			free(state);
			free(ram);
		} else if ((s = stem(p, l, ".state")) || (s = stem(p, l, ".ram"))) {
			char *sum = xasprintf("%.*s.sum", (int)s, p);

			/* a state being saved has its sum written just before the rename: only
			 * one left without a sum for an hour is an orphan */
			if (access(sum, F_OK) < 0 && now - v[i].mtime > 3600)
				unlink(p);
			free(sum);
		} else if (stem(p, l, ".seen") && now - v[i].mtime > 30 * 86400) {
			unlink(p);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	free(dir);
}

void cache_prune(void)
{
	static const char *const dirs[] = {"segments", "vmlinux"};
	char *top = cache_path();
	struct cache_entry *v = NULL;
	size_t n = 0, alloc = 0;
	unsigned long long total = 0, cap = cache_cap_bytes();
	time_t now = time(NULL);

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *dir = xasprintf("%s/%s", top, dirs[i]);

		collect(dir, now, &v, &n, &alloc, &total);
		free(dir);
	}
	/* least recently used first; what was used in the last day stays (a run still going,
	 * or one started at the same time, may be about to read it) */
	prune_snapshots(top, now);
	if (n) /* qsort's base may not be NULL, even for no element (UBSan) */
		qsort(v, n, sizeof(*v), by_mtime);
	for (size_t i = 0; i < n && total > cap && now - v[i].mtime > 86400; i++)
		if (!unlink(v[i].path))
			total -= (unsigned long long)v[i].size;
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	/* after the snapshots: the entries of those just removed go too */
	prune_stat_cache(top, now);
	free(top);
}

void cache_upkeep(void)
{
	char *top = cache_path(), *stamp = xasprintf("%s/upkeep-stamp", top);
	const char *mb = getenv("TAPBOOT_CACHE_MB"), *snaps = getenv("TAPBOOT_SNAPSHOTS");
	struct stat st;
	bool due = (mb && *mb) || (snaps && *snaps) || stat(stamp, &st) < 0 ||
		   time(NULL) - st.st_mtime >= CACHE_UPKEEP_S || st.st_mtime > time(NULL);

	if (due) {
		int fd = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0) {
			futimens(fd, NULL);
			close(fd);
		}
		cache_prune();
	} else {
		/* the entries of results directories removed since the last run go at once, not
		 * at the next upkeep due: every results directory a make check makes has one */
		prune_stat_cache(top, time(NULL));
	}
	free(stamp);
	free(top);
}
