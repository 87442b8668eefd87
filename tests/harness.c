// SPDX-License-Identifier: GPL-2.0-only
/* harness.c: the unit tests' TAP harness. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One test program is one process: a static state is what test-lib.h uses too. */
static struct {
	int count, failed;
	const char *name;
	bool cur_failed;
	bool in_test;
	char skip_reason[512];
	char tmpdir[256];
	char *paths[256];
	int npaths;
} h;

void test_begin(const char *name)
{
	h.name = name;
	h.cur_failed = false;
	h.in_test = true;
	h.skip_reason[0] = '\0';
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h.skip_reason, sizeof(h.skip_reason), fmt, ap);
	va_end(ap);
}

char *test_shared_dir(void)
{
	const char *env = getenv("TAPBOOT_SHARED");
	char *dir;

	if (env && *env)
		return strdup(env);
#ifdef TAPBOOT_SRCDIR
	if (asprintf(&dir, "%s/../shared", TAPBOOT_SRCDIR) < 0)
		exit(1);
#else
	dir = strdup("../shared");
#endif
	return dir;
}

void test_end(void)
{
	h.count++;
	if (h.cur_failed)
		h.failed++;
	printf("%s %d - ", h.cur_failed ? "not ok" : "ok", h.count);
	/* a '#' in a description would start a directive (TAP 14 escaping) */
	for (const char *c = h.name; *c; c++)
		printf("%s%c", *c == '#' || *c == '\\' ? "\\" : "", *c);
	if (h.skip_reason[0] && !h.cur_failed)
		printf(" # SKIP %s", h.skip_reason);
	putchar('\n');
	fflush(stdout);
	h.in_test = false;
}

static bool record(const char *file, int line, bool ok, const char *what)
{
	if (!ok) {
		printf("# check \"%s\" failed at %s:%d\n", what, file, line);
		if (h.in_test)
			h.cur_failed = true;
		else {
			h.count++;
			h.failed++;
			printf("not ok %d - %s:%d\n", h.count, file, line);
		}
	} else if (!h.in_test) {
		h.count++;
		printf("ok %d - %s\n", h.count, what);
	}
	fflush(stdout);
	return ok;
}

bool check_impl(const char *file, int line, bool ok, const char *expr)
{
	return record(file, line, ok, expr);
}

bool check_int_impl(const char *file, int line, bool ok, const char *expr, long long a,
		    long long b)
{
	if (!ok)
		printf("#    left: %lld\n#   right: %lld\n", a, b);
	return record(file, line, ok, expr);
}

bool check_str_impl(const char *file, int line, const char *a, const char *b, const char *ea,
		    const char *eb)
{
	bool ok = (a && b) ? !strcmp(a, b) : a == b;
	char what[512];

	if (!ok)
		printf("#    left: %s%s%s\n#   right: %s%s%s\n", a ? "\"" : "", a ? a : "NULL",
		       a ? "\"" : "", b ? "\"" : "", b ? b : "NULL", b ? "\"" : "");
	snprintf(what, sizeof(what), "%s == %s", ea, eb);
	return record(file, line, ok, what);
}

bool check_mem_impl(const char *file, int line, const void *a, const void *b, size_t n,
		    const char *ea, const char *eb)
{
	char what[512];

	snprintf(what, sizeof(what), "memcmp(%s, %s) == 0", ea, eb);
	return record(file, line, a && b && !memcmp(a, b, n), what);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int test_done(void)
{
	for (int i = 0; i < h.npaths; i++)
		free(h.paths[i]);
	if (h.tmpdir[0] && !getenv("TEST_KEEP_TMP"))
		nftw(h.tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	printf("1..%d\n", h.count);
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return h.failed ? 1 : 0;
}

const char *test_tmpdir(void)
{
	if (!h.tmpdir[0]) {
		const char *base = getenv("TMPDIR");

		snprintf(h.tmpdir, sizeof(h.tmpdir), "%s/tapboot-unit.XXXXXX",
			 base && *base ? base : "/tmp");
		if (!mkdtemp(h.tmpdir)) {
			printf("Bail out! mkdtemp: %s\n", strerror(errno));
			exit(1);
		}
	}
	return h.tmpdir;
}

static void mkparents(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
}

const char *test_write_file(const char *rel, const void *data, size_t len, unsigned mode)
{
	char *path;
	FILE *fp;

	if (asprintf(&path, "%s/%s", test_tmpdir(), rel) < 0)
		exit(1);
	mkparents(path);
	fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, len, fp) != len || fclose(fp)) {
		printf("Bail out! cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	chmod(path, mode ? mode : 0644);
	if (h.npaths < (int)(sizeof(h.paths) / sizeof(h.paths[0])))
		h.paths[h.npaths++] = path;
	return path;
}

char *test_read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, alloc = 0;

	if (!fp)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > alloc) {
			alloc = (n + 4096 + 1) * 2;
			buf = realloc(buf, alloc);
			if (!buf)
				exit(1);
		}
		size_t r = fread(buf + n, 1, 4096, fp);
		n += r;
		if (r < 4096)
			break;
	}
	fclose(fp);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *test_capture_stderr(int (*fn)(void *), void *arg, int *ret)
{
	char path[300];
	int saved, fd, r;
	char *out;

	snprintf(path, sizeof(path), "%s/stderr.XXXXXX", test_tmpdir());
	fd = mkstemp(path);
	if (fd < 0)
		exit(1);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	r = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	if (ret)
		*ret = r;
	out = test_read_file(path, NULL);
	unlink(path);
	return out;
}
