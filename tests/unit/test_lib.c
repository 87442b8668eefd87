// SPDX-License-Identifier: GPL-2.0-only
/* test_lib.c: the shared helpers in lib/ that several rooms use: the JSON writer, the .config
 * reader, the die hook and note(), the atomic string write and copy, the stat-cached sha256;
 * and results/'s one "incomplete because" text and one filler of the report's run record. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "error.h"
#include "filehash.h"
#include "fs.h"
#include "harness.h"
#include "json.h"
#include "json_read.h"
#include "kconfig.h"
#include "results.h"
#include "strbuf.h"

/* ASan's allocator would abort on an impossible size; the x-wrappers' own failure path is
 * what is tested here. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static char *json_of(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	json_put_strn(fp, s, n);
	fclose(fp);
	return buf;
}

static void t_json_writer(void)
{
	/* a Latin-1 byte (a mail's Subject) becomes U+FFFD: valid JSON out */
	static const char latin1[] = "caf\xe9 \"q\"\\\n\t\r\x01\x7f \xc3\xa9";
	char *out = json_of(latin1, sizeof(latin1) - 1);
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	check_str(out, "\"caf\\ufffd \\\"q\\\"\\\\\\n\\t\\r\\u0001\x7f \xc3\xa9\"");
	check_int(json_parse(&j, out, strlen(out), "out"), ==, 0);
	check_int(j.type, ==, JSON_STRING);
	check_str(j.str, "caf\xef\xbf\xbd \"q\"\\\n\t\r\x01\x7f \xc3\xa9");
	json_release(&j);
	json_put_str_sb(&sb, latin1, sizeof(latin1) - 1);
	check_str(sb.buf, out);
	strbuf_reset(&sb);
	json_put_str_sb(&sb, NULL, 0);
	check_str(sb.buf, "null");
	strbuf_release(&sb);
	free(out);
	/* overlong, surrogate, truncated: each byte replaced */
	out = json_of("\xc0\xaf\xed\xa0\x80\xe2\x82", 7);
	check_str(out, "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
	free(out);
	out = json_of("a\0b", 3);
	check_str(out, "\"a\\u0000b\"");
	free(out);
}

static void t_json_secs(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	json_put_secs(fp, 1.23456);
	fputc(' ', fp);
	json_put_secs(fp, -1);
	fputc(' ', fp);
	json_put_str(fp, NULL);
	fclose(fp);
	check_str(buf, "1.235 null null");
	free(buf);
}

static const char dotconfig[] = "#\n# Automatically generated file; DO NOT EDIT.\n"
				"CONFIG_A=y\n"
				"CONFIG_MOD=m\n"
				"# CONFIG_OFF is not set\n"
				"  CONFIG_NUM=128 \r\n"
				"CONFIG_STR=\"a \\\"b\\\" c\"\n"
				"CONFIG_A=m\n"
				"CONFIG_N=n\n"
				"\n";

static void t_kconfig(void)
{
	struct kconfig kc = KCONFIG_INIT;

	check_int(kconfig_parse(dotconfig, sizeof(dotconfig) - 1, "cfg", &kc), ==, 0);
	check_int(kc.n, ==, 7);
	check_str(kc.v[0].name, "CONFIG_A");
	check_str(kconfig_get(&kc, "CONFIG_A"), "y"); /* the first line counts */
	check_str(kconfig_get(&kc, "A"), "y");
	check_str(kconfig_get(&kc, "MOD"), "m");
	check(kconfig_get(&kc, "OFF") == NULL);
	check_str(kconfig_value(&kc, "OFF"), "n");
	check(kconfig_get(&kc, "N") == NULL);
	check(kconfig_value(&kc, "ABSENT") == NULL);
	check_str(kconfig_get(&kc, "NUM"), "128");
	check_str(kconfig_get(&kc, "CONFIG_STR"), "a \"b\" c");
	check(kconfig_is_y(&kc, "A"));
	check(!kconfig_is_y(&kc, "MOD"));
	kconfig_release(&kc);
	check_int(kc.n, ==, 0);
	check(kconfig_get(&kc, "A") == NULL); /* released: empty */
}

static int parse_bad(void *arg)
{
	struct kconfig *kc = arg;
	static const char bad[] = "CONFIG_A=y\nFOO=1\n";

	return kconfig_parse(bad, sizeof(bad) - 1, "frag", kc);
}

static int read_missing(void *arg)
{
	return kconfig_read("/nonexistent/.config", arg);
}

static void t_kconfig_errors(void)
{
	struct kconfig kc = KCONFIG_INIT;
	int ret;
	char *err = test_capture_stderr(parse_bad, &kc, &ret);

	check_int(ret, ==, -1);
	check_str(err, "tapboot: frag:2: expected 'CONFIG_NAME=VALUE', not 'FOO=1'\n");
	free(err);
	kconfig_release(&kc);
	/* without a name: what is not an option is skipped */
	check_int(kconfig_parse("FOO=1\nCONFIG_B=y\n", 17, NULL, &kc), ==, 0);
	check_int(kc.n, ==, 1);
	check_str(kconfig_get(&kc, "B"), "y");
	kconfig_release(&kc);
	err = test_capture_stderr(read_missing, &kc, &ret);
	check_int(ret, ==, -1);
	check_str(err, "tapboot: cannot read kernel config '/nonexistent/.config': No such file or "
		       "directory\n");
	free(err);
	kconfig_release(&kc);
	check_int(kconfig_read(test_write_file("config", dotconfig, sizeof(dotconfig) - 1, 0), &kc),
		  ==, 0);
	check_str(kconfig_get(&kc, "MOD"), "m");
	kconfig_release(&kc);
}

static void t_kconfig_rd(void)
{
	check_str(kconfig_rd_option("gzip"), "CONFIG_RD_GZIP");
	check_str(kconfig_rd_option("xz"), "CONFIG_RD_XZ");
	check_str(kconfig_rd_option("zstd"), "CONFIG_RD_ZSTD");
	check_str(kconfig_rd_option("lz4"), "CONFIG_RD_LZ4");
	check(kconfig_rd_option("none") == NULL);
	check(kconfig_rd_option(NULL) == NULL);
	check_str(kconfig_rd_compressions[0], "gzip");
	check(kconfig_rd_compressions[4] == NULL);
}

/* The die hook: where a die() lands instead of exit. */
static jmp_buf hook_jmp;
static int hook_status;
static char hook_msg[256];

static void hook(int status, const char *msg)
{
	hook_status = status;
	snprintf(hook_msg, sizeof(hook_msg), "%s", msg);
	longjmp(hook_jmp, 1);
}

static int call_die(void *arg)
{
	int which = *(int *)arg;

	if (setjmp(hook_jmp))
		return 0;
	if (which == 0)
		die(EXIT_USAGE, "bad %s", "input");
	if (which == 1) {
		errno = ENOENT;
		die_errno(EXIT_VM, "cannot open '%s'", "x");
	}
	if (which == 2)
		xmalloc(SIZE_MAX / 2);
	if (which == 3)
		xrealloc(NULL, SIZE_MAX / 2);
	return -1;
}

static void t_die_hook(void)
{
	int which, ret;
	char *err;

	error_set_die_hook(hook);
	which = 0;
	err = test_capture_stderr(call_die, &which, &ret);
	check_int(ret, ==, 0);
	check_int(hook_status, ==, EXIT_USAGE);
	check_str(hook_msg, "bad input");
	check_str(err, "tapboot: bad input\n");
	free(err);
	which = 1;
	err = test_capture_stderr(call_die, &which, &ret);
	check_int(ret, ==, 0);
	check_int(hook_status, ==, EXIT_VM);
	check_str(hook_msg, "cannot open 'x': No such file or directory");
	check_str(err, "tapboot: cannot open 'x': No such file or directory\n");
	free(err);
	for (which = 2; which <= 3; which++) {
		hook_status = -1;
		err = test_capture_stderr(call_die, &which, &ret);
		check_int(ret, ==, 0);
		check_int(hook_status, ==, EXIT_VM);
		check_str(hook_msg, "out of memory");
		/* after ASan's own warning, which it prints whatever its options */
		check(strlen(err) >= 23 &&
		      !strcmp(err + strlen(err) - 23, "tapboot: out of memory\n"));
		free(err);
	}
	error_set_die_hook(NULL);
}

static int say(void *arg)
{
	note("%s kernel, %d tests", (const char *)arg, 3);
	return 0;
}

static void t_note(void)
{
	int ret;
	char *err = test_capture_stderr(say, (char *)"x86_64", &ret);

	check_str(err, "tapboot: x86_64 kernel, 3 tests\n");
	free(err);
}

static void t_atomic(void)
{
	char *to = xasprintf("%s/copy", test_tmpdir()), *from, *buf;
	size_t len;
	struct stat st;

	from = xasprintf("%s/string", test_tmpdir());
	check_int(write_string_atomic(from, 0, 0640, "a\0b\n", 4), ==, 0);
	buf = test_read_file(from, &len);
	check_int(len, ==, 4);
	check_mem(buf, "a\0b\n", 4);
	free(buf);
	check_int(stat(from, &st), ==, 0);
	check_int(st.st_mode & 0777, ==, 0640);
	check_int(copy_file_atomic(from, to, 0600), ==, 0);
	buf = test_read_file(to, &len);
	check_int(len, ==, 4);
	check_mem(buf, "a\0b\n", 4);
	free(buf);
	check_int(stat(to, &st), ==, 0);
	check_int(st.st_mode & 0777, ==, 0600);
	check_int(write_string_atomic(to, 0, 0, "", 0), ==, 0);
	check_int(stat(to, &st), ==, 0);
	check_int(st.st_size, ==, 0);
	free(from);
	free(to);
}

/* A FIFO where a file is expected: refused at once (an open of it blocks until a writer
 * comes), a directory and a regular file as they are (issue 41). */
static int check_fifo(void *path)
{
	return fs_check_regular(path, "kernel");
}

static void t_regular_only(void)
{
	char *fifo = xasprintf("%s/fifo", test_tmpdir()), *buf, *err, *want;
	size_t len;
	int ret;

	check_int(mkfifo(fifo, 0600), ==, 0);
	check_int(open_regular(fifo, O_RDONLY), ==, -1);
	check_int(errno, ==, EINVAL);
	check_int(read_file(fifo, &buf, &len), ==, -1);
	check(buf == NULL);
	check_int(open_regular(test_tmpdir(), O_RDONLY), ==, -1);
	check_int(errno, ==, EISDIR);
	err = test_capture_stderr(check_fifo, fifo, &ret);
	want = xasprintf("tapboot: kernel '%s' is a FIFO, not a regular file\n", fifo);
	check_int(ret, ==, -1);
	check_str(err, want);
	free(err);
	free(want);
	test_write_file("plain", "x\n", 2, 0);
	{
		char *plain = xasprintf("%s/plain", test_tmpdir());
		int fd = open_regular(plain, O_RDONLY);

		check(fd >= 0);
		/* blocking again once open */
		check(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
		if (fd >= 0)
			close(fd);
		check_int(fs_check_regular(plain, "kernel"), ==, 0);
		free(plain);
	}
	free(fifo);
}

static int copy_missing(void *arg)
{
	return copy_file_atomic("/nonexistent/from", arg, 0);
}

static void t_atomic_errors(void)
{
	char *to = xasprintf("%s/never", test_tmpdir()), *tmp = xasprintf("%s.tmp", to);
	int ret;
	char *err = test_capture_stderr(copy_missing, to, &ret);
	struct stat st;

	check_int(ret, ==, -1);
	check_str(err, "tapboot: cannot open '/nonexistent/from': No such file or directory\n");
	check(stat(to, &st) < 0 && stat(tmp, &st) < 0);
	free(err);
	free(tmp);
	free(to);
}

static int hash_missing(void *arg)
{
	return file_sha256("/nonexistent/file", arg);
}

static void t_sha256(void)
{
	const char *p = test_write_file("hashme", "abc", 3, 0);
	char hex[65], again[65];
	int ret;

	setenv("XDG_CACHE_HOME", test_tmpdir(), 1);
	check_int(file_sha256_uncached(p, hex), ==, 0);
	check_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_int(file_sha256(p, again), ==, 0);
	check_str(again, hex);
	/* kept in the stat cache while the file is unchanged */
	memset(again, 0, sizeof(again));
	check(stat_cache_get(STAT_CACHE_SHA256, p, again, sizeof(again)));
	check_str(again, hex);
	free(test_capture_stderr(hash_missing, again, &ret));
	check_int(ret, ==, -1);
	unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
	TEST(t_json_writer, "JSON strings: escapes, invalid UTF-8 as U+FFFD, valid JSON out");
	TEST(t_json_secs, "JSON seconds and null");
	TEST(t_kconfig, ".config: y, m, not set, numbers, strings, the first line wins");
	TEST(t_kconfig_errors,
	     ".config: a bad line named, a missing file named, lax without a name");
	TEST(t_kconfig_rd, "the CONFIG_RD_* option of each compression");
	TEST(t_die_hook, "die, die_errno and the allocators call the die hook");
	TEST(t_note, "note: prog: message");
	TEST(t_atomic, "atomic string write and copy: content and mode");
	TEST(t_atomic_errors, "atomic copy of a missing file: named, nothing left");
	TEST(t_regular_only, "a FIFO or a directory where a file is expected: refused at once");
	TEST(t_sha256, "sha256 of a file, kept in the stat cache");
	return test_done();
}
