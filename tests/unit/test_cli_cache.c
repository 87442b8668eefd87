// SPDX-License-Identifier: GPL-2.0-only
/* test_cli_cache.c: the stat-keyed cache (lib/cache.c) behind reproduce.sh's kernel sha256
 * and QEMU version: a hit only while the file is the same file, unchanged. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "harness.h"

static char *file_in(const char *name)
{
	char *p = malloc(strlen(test_tmpdir()) + strlen(name) + 2);

	sprintf(p, "%s/%s", test_tmpdir(), name);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	check(fp != NULL);
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static void test_hit_and_miss(void)
{
	char *cache = file_in("cache"), *f = file_in("kernel"), *g = file_in("other");
	char out[65];
	struct stat st;
	struct timespec times[2];

	setenv("XDG_CACHE_HOME", cache, 1);
	write_file(f, "image one\n");
	write_file(g, "image one\n");
	check(!stat_cache_get("sha256", f, out, sizeof(out)));
	stat_cache_put("sha256", f, "abc");
	check(stat_cache_get("sha256", f, out, sizeof(out)));
	check_str(out, "abc");
	/* another file with the same bytes has its own entry */
	check(!stat_cache_get("sha256", g, out, sizeof(out)));
	/* another prefix is another cache */
	check(!stat_cache_get("qemu-version", f, out, sizeof(out)));
	/* rewritten with the same size and its mtime set back: ctime still moved */
	check_int(stat(f, &st), ==, 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	usleep(20000);
	write_file(f, "image two\n");
	check_int(utimensat(AT_FDCWD, f, times, 0), ==, 0);
	check(!stat_cache_get("sha256", f, out, sizeof(out)));
	/* replaced by a new file under the same name */
	stat_cache_put("sha256", f, "def");
	check(stat_cache_get("sha256", f, out, sizeof(out)));
	check_int(rename(g, f), ==, 0);
	check(!stat_cache_get("sha256", f, out, sizeof(out)));
	/* a missing file is never a hit, and put does nothing */
	unlink(f);
	stat_cache_put("sha256", f, "ghi");
	check(!stat_cache_get("sha256", f, out, sizeof(out)));
	free(cache);
	free(f);
	free(g);
}

static void test_reached_through_symlink(void)
{
	char *cache = file_in("cache2"), *f = file_in("vmlinuz-real"), *l = file_in("vmlinuz");
	char out[65];

	setenv("XDG_CACHE_HOME", cache, 1);
	write_file(f, "kernel\n");
	check_int(symlink(f, l), ==, 0);
	stat_cache_put("sha256", l, "0123");
	/* keyed by the real path: the link and its target share the entry */
	check(stat_cache_get("sha256", f, out, sizeof(out)));
	check_str(out, "0123");
	free(cache);
	free(f);
	free(l);
}

/* A cache file of size bytes, last used days ago. */
static char *entry(const char *dir, const char *name, size_t size, double days)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	FILE *fp;
	struct timespec t[2];

	sprintf(p, "%s/%s", dir, name);
	fp = fopen(p, "w");
	check(fp != NULL);
	if (fp) {
		for (size_t i = 0; i < size; i++)
			fputc('x', fp);
		fclose(fp);
	}
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= (time_t)(days * 86400);
	t[1] = t[0];
	check_int(utimensat(AT_FDCWD, p, t, 0), ==, 0);
	return p;
}

static void test_prune(void)
{
	char *cache = file_in("cache3"), *top = file_in("cache3/tapboot");
	char *seg = file_in("cache3/tapboot/segments"), *vml = file_in("cache3/tapboot/vmlinux");
	char *kernel = file_in("vmlinuz-prune"), *gone = file_in("vmlinuz-gone");
	char *e[7];

	setenv("XDG_CACHE_HOME", cache, 1);
	check_int(mkdir(cache, 0755), ==, 0);
	check_int(mkdir(top, 0755), ==, 0);
	check_int(mkdir(seg, 0755), ==, 0);
	check_int(mkdir(vml, 0755), ==, 0);
	/* 1 MiB allowed, 1.9 MiB held: the oldest go until it fits */
	setenv("TAPBOOT_CACHE_MB", "1", 1);
	e[0] = entry(seg, "a.cpio", 600 << 10, 30); /* oldest: goes */
	e[1] = entry(vml, "b", 600 << 10, 20); /* goes (across both directories) */
	e[2] = entry(seg, "c.cpio", 500 << 10, 10); /* fits once a and b are gone: stays */
	e[3] = entry(seg, "d.cpio", 100 << 10, 0.1);
	e[4] = entry(vml, "e", 100 << 10, 0.2);
	e[5] = entry(seg, ".f.cpio.XXXXXX", 10, 0.1); /* a writer's temporary, 2.4 h old: goes */
	e[6] = entry(seg, ".g.cpio.XXXXXX", 10, 0.0001); /* one still being written: stays */
	write_file(kernel, "kernel\n");
	write_file(gone, "kernel\n");
	stat_cache_put("sha256", kernel, "live");
	stat_cache_put("sha256", gone, "dead");
	unlink(gone);
	cache_prune();
	check(access(e[0], F_OK) != 0);
	check(access(e[1], F_OK) != 0);
	check(access(e[2], F_OK) == 0);
	check(access(e[3], F_OK) == 0);
	check(access(e[4], F_OK) == 0);
	check(access(e[5], F_OK) != 0);
	check(access(e[6], F_OK) == 0);
	{
		char out[65];
		char *dead = file_in("cache3/tapboot/sha256-");
		char *real = realpath(test_tmpdir(), NULL);
		char *dpath = malloc(strlen(dead) + strlen(real) + 32);

		check(stat_cache_get("sha256", kernel, out, sizeof(out)));
		check_str(out, "live");
		sprintf(dpath, "%s%s/vmlinuz-gone", dead, real);
		for (char *c = dpath + strlen(dead); *c; c++)
			*c = *c == '/' ? '_' : *c;
		check(access(dpath, F_OK) != 0); /* the entry of the removed kernel is gone */
		free(dead);
		free(real);
		free(dpath);
	}
	/* a bad limit is named and the default (2 GiB) used: nothing more goes */
	setenv("TAPBOOT_CACHE_MB", "lots", 1);
	cache_prune();
	check(access(e[2], F_OK) == 0);
	/* nothing allowed: what was used within the last day still stays */
	setenv("TAPBOOT_CACHE_MB", "0", 1);
	cache_prune();
	check(access(e[2], F_OK) != 0);
	check(access(e[3], F_OK) == 0);
	check(access(e[4], F_OK) == 0);
	unsetenv("TAPBOOT_CACHE_MB");
	for (int i = 0; i < 7; i++)
		free(e[i]);
	free(cache);
	free(top);
	free(seg);
	free(vml);
	free(kernel);
	free(gone);
}

int main(void)
{
	TEST(test_hit_and_miss, "a hit only for the same unchanged file");
	TEST(test_reached_through_symlink, "a symlink and its target share one entry");
	TEST(test_prune, "upkeep: least recently used first, nothing used today, dead entries");
	return test_done();
}
