/* test_cli_cache.c: the stat-keyed cache (cli/common.c) behind reproduce.sh's kernel sha256
 * and QEMU version: a hit only while the file is the same file, unchanged. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	check(!cli_stat_cache_get("sha256", f, out, sizeof(out)));
	cli_stat_cache_put("sha256", f, "abc");
	check(cli_stat_cache_get("sha256", f, out, sizeof(out)));
	check_str(out, "abc");
	/* another file with the same bytes has its own entry */
	check(!cli_stat_cache_get("sha256", g, out, sizeof(out)));
	/* another prefix is another cache */
	check(!cli_stat_cache_get("qemu-version", f, out, sizeof(out)));
	/* rewritten with the same size and its mtime set back: ctime still moved */
	check_int(stat(f, &st), ==, 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	usleep(20000);
	write_file(f, "image two\n");
	check_int(utimensat(AT_FDCWD, f, times, 0), ==, 0);
	check(!cli_stat_cache_get("sha256", f, out, sizeof(out)));
	/* replaced by a new file under the same name */
	cli_stat_cache_put("sha256", f, "def");
	check(cli_stat_cache_get("sha256", f, out, sizeof(out)));
	check_int(rename(g, f), ==, 0);
	check(!cli_stat_cache_get("sha256", f, out, sizeof(out)));
	/* a missing file is never a hit, and put does nothing */
	unlink(f);
	cli_stat_cache_put("sha256", f, "ghi");
	check(!cli_stat_cache_get("sha256", f, out, sizeof(out)));
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
	cli_stat_cache_put("sha256", l, "0123");
	/* keyed by the real path: the link and its target share the entry */
	check(cli_stat_cache_get("sha256", f, out, sizeof(out)));
	check_str(out, "0123");
	free(cache);
	free(f);
	free(l);
}

int main(void)
{
	TEST(test_hit_and_miss, "a hit only for the same unchanged file");
	TEST(test_reached_through_symlink, "a symlink and its target share one entry");
	return test_done();
}
