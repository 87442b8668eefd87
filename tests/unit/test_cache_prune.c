// SPDX-License-Identifier: GPL-2.0-only
/* test_cache_prune.c: the cache upkeep's pruning of stat-cache entries (lib/cache.c): entries
 * whose file is gone (a results directory removed whole), changed, or named otherwise than
 * their key says go; live ones and other files stay; upkeep that is not due checks them too. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "error.h"
#include "harness.h"

static char *cache_top; /* $XDG_CACHE_HOME/tapboot of this test */

static void put_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (check(fp != NULL)) {
		fputs(text, fp);
		fclose(fp);
	}
}

static int sh(char *cmd) /* runs and frees cmd; its status */
{
	int st = system(cmd);

	free(cmd);
	return st;
}

/* How many files of the cache's top directory start with prefix. */
static int count_entries(const char *prefix)
{
	char *cmd = xasprintf("ls -A '%s' | grep -c '^%s'", cache_top, prefix);
	FILE *p = popen(cmd, "r");
	int n = -1;

	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	free(cmd);
	return n;
}

/* The entry's file name for (prefix, file), as stat_cache_put names it. */
static char *entry_name(const char *prefix, const char *file)
{
	char *real = realpath(file, NULL), *name;

	if (!real)
		real = xstrdup(file);
	name = xasprintf("%s/%s-%s", cache_top, prefix, real);
	for (char *c = name + strlen(cache_top) + 1; *c; c++)
		*c = *c == '/' ? '_' : *c;
	free(real);
	return name;
}

static void age(const char *path, time_t secs)
{
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= secs;
	t[1] = t[0];
	check_int(utimensat(AT_FDCWD, path, t, 0), ==, 0);
}

static void test_results_dirs_removed(void)
{
	char *dir = xasprintf("%s/results", test_tmpdir()), *keep = xasprintf("%s/keep", test_tmpdir());
	char out[65];

	check_int(mkdir(dir, 0755), ==, 0);
	for (int i = 0; i < 100; i++) {
		char *sub = xasprintf("%s/r%d", dir, i), *img = xasprintf("%s/initramfs.cpio", sub);

		check_int(mkdir(sub, 0755), ==, 0);
		put_file(img, "image\n");
		stat_cache_put(STAT_CACHE_SHA256, img, "0123");
		free(img);
		free(sub);
	}
	put_file(keep, "kernel\n");
	stat_cache_put(STAT_CACHE_SHA256, keep, "live");
	stat_cache_put(STAT_CACHE_QEMU_VERSION, keep, "QEMU 7.2");
	check_int(count_entries("sha256-"), ==, 101);
	/* the results directories go, as a user's rm -rf or a test script's trap removes them */
	check_int(sh(xasprintf("rm -rf '%s'", dir)), ==, 0);
	cache_prune();
	check_int(count_entries("sha256-"), ==, 1);
	check(stat_cache_get(STAT_CACHE_SHA256, keep, out, sizeof(out)));
	check_str(out, "live");
	check(stat_cache_get(STAT_CACHE_QEMU_VERSION, keep, out, sizeof(out)));
	check_str(out, "QEMU 7.2");
	free(dir);
	free(keep);
}

static void test_changed_stale_and_others(void)
{
	char *f = xasprintf("%s/changed", test_tmpdir()), *g = xasprintf("%s/same", test_tmpdir());
	char *ef, *eg, *tmp_old, *tmp_new, *garbage, *other, *dur;

	put_file(f, "one\n");
	put_file(g, "same\n");
	stat_cache_put(STAT_CACHE_SHA256, f, "1111");
	stat_cache_put(STAT_CACHE_SNAPSHOT_OK, g, "ok");
	ef = entry_name(STAT_CACHE_SHA256, f);
	eg = entry_name(STAT_CACHE_SNAPSHOT_OK, g);
	/* rewritten: its ctime moved, so the entry no longer matches */
	put_file(f, "two\n");
	/* a killed writer's temporaries (NAME.PID beside the entry, the same key inside) */
	tmp_old = xasprintf("%s.12345", eg);
	tmp_new = xasprintf("%s.12346", eg);
	check_int(sh(xasprintf("cp '%s' '%s' && cp '%s' '%s'", eg, tmp_old, eg, tmp_new)), ==, 0);
	age(tmp_old, 2 * 3600);
	/* a broken entry, and files of the cache that are not stat-cache entries */
	garbage = xasprintf("%s/%s-_nonsense", cache_top, STAT_CACHE_APPLETS);
	put_file(garbage, "no key here\n");
	other = xasprintf("%s/sha256x-unrelated", cache_top);
	put_file(other, "not an entry\n");
	dur = xasprintf("%s/durations-x86_64", cache_top);
	put_file(dur, "pass 0.1\n");
	cache_prune();
	check(access(ef, F_OK) != 0);
	check(access(eg, F_OK) == 0);
	check(access(tmp_old, F_OK) != 0);
	check(access(tmp_new, F_OK) == 0); /* perhaps still being written */
	check(access(garbage, F_OK) != 0);
	check(access(other, F_OK) == 0);
	check(access(dur, F_OK) == 0);
	unlink(tmp_new);
	free(f);
	free(g);
	free(ef);
	free(eg);
	free(tmp_old);
	free(tmp_new);
	free(garbage);
	free(other);
	free(dur);
}

static void test_upkeep_not_due(void)
{
	char *stamp = xasprintf("%s/upkeep-stamp", cache_top), *img = xasprintf("%s/gone.cpio", test_tmpdir());
	char *seg = xasprintf("%s/segments", cache_top), *old_seg = xasprintf("%s/old.cpio", seg);
	struct stat st0, st1;

	unsetenv("TAPBOOT_CACHE_MB");
	unsetenv("TAPBOOT_SNAPSHOTS");
	put_file(stamp, "");
	check_int(stat(stamp, &st0), ==, 0);
	mkdir(seg, 0755);
	put_file(old_seg, "segment\n");
	age(old_seg, 40 * 86400);
	put_file(img, "image\n");
	stat_cache_put(STAT_CACHE_SHA256, img, "abcd");
	check_int(count_entries("sha256-"), ==, 2);
	unlink(img);
	cache_upkeep(); /* the stamp is fresh: not due */
	check_int(count_entries("sha256-"), ==, 1);
	check_int(stat(stamp, &st1), ==, 0);
	check_int(st1.st_mtim.tv_sec, ==, st0.st_mtim.tv_sec); /* the full prune did not run */
	check(access(old_seg, F_OK) == 0);
	free(stamp);
	free(img);
	free(seg);
	free(old_seg);
}

int main(void)
{
	char *xdg = xasprintf("%s/cache", test_tmpdir());

	setenv("XDG_CACHE_HOME", xdg, 1);
	cache_top = xasprintf("%s/tapboot", xdg);
	free(cache_dir());
	TEST(test_results_dirs_removed, "100 results directories removed: their entries go, live ones stay");
	TEST(test_changed_stale_and_others,
	     "changed files' entries and old temporaries go; fresh ones and other files stay");
	TEST(test_upkeep_not_due, "upkeep that is not due still removes the entries of gone files");
	free(cache_top);
	free(xdg);
	return test_done();
}
