// SPDX-License-Identifier: GPL-2.0-only
/* test_tests_image.c: the init's reader of snapshot boot's tests image (init/tests_image.c) on
 * the host: what the builder writes is unpacked exactly (files with their modes and bytes,
 * directories, symlinks, hard links), and a damaged archive is refused with a reason, never
 * read past its region. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "init.h"

/* One newc entry (header, name, data, each padded to 4) appended to sb. */
static void add(struct strbuf *sb, unsigned ino, unsigned mode, unsigned nlink, const char *name,
		const char *data, size_t size)
{
	size_t namesize = strlen(name) + 1;

	strbuf_addf(sb, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", ino, mode,
		    0u, 0u, nlink, 1000u, size, 0u, 0u, 0u, 0u, namesize, 0u);
	strbuf_add(sb, name, namesize);
	while (sb->len % 4)
		strbuf_addch(sb, '\0');
	strbuf_add(sb, data, size);
	while (sb->len % 4)
		strbuf_addch(sb, '\0');
}

static void trailer(struct strbuf *sb)
{
	add(sb, 0, 0, 1, "TRAILER!!!", "", 0);
	/* the device's region: zeros after the archive */
	for (int i = 0; i < 256; i++)
		strbuf_addch(sb, '\0');
}

static char *fresh_root(const char *name)
{
	char *root = xasprintf("%s/%s", test_tmpdir(), name);

	mkdir(root, 0755);
	return root;
}

static void test_unpack(void)
{
	struct strbuf a = STRBUF_INIT, diag = STRBUF_INIT;
	char *root = fresh_root("ok"), *p, *data;
	struct stat st;
	size_t len;

	add(&a, 1, 040755, 2, ".", "", 0);
	add(&a, 2, 040755, 2, "tests", "", 0);
	add(&a, 3, 040700, 2, "tests/sub", "", 0);
	add(&a, 4, 0100755, 1, "tests/pass", "#!/bin/sh\nexit 0\n", 17);
	add(&a, 5, 0100644, 2, "tests/sub/a", "", 0);
	add(&a, 5, 0100644, 2, "tests/sub/b", "shared", 6);
	add(&a, 6, 0120777, 1, "tests/link", "pass", 4);
	/* no parent directory entry: made on the way */
	add(&a, 7, 0100600, 1, "tests/deep/er/file", "x", 1);
	trailer(&a);
	check_int(init_tests_unpack((const unsigned char *)a.buf, a.len, root, &diag), ==, 7);
	check_int(diag.len, ==, 0);

	p = xasprintf("%s/tests/pass", root);
	check(stat(p, &st) == 0 && (st.st_mode & 07777) == 0755 && S_ISREG(st.st_mode));
	check_int(st.st_mtime, ==, 1000);
	data = test_read_file(p, &len);
	check_str(data, "#!/bin/sh\nexit 0\n");
	free(data);
	free(p);
	p = xasprintf("%s/tests/sub", root);
	check(stat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700);
	free(p);
	p = xasprintf("%s/tests/sub/a", root);
	data = test_read_file(p, &len);
	check_str(data, "shared");
	check(stat(p, &st) == 0 && st.st_nlink == 2);
	free(data);
	free(p);
	p = xasprintf("%s/tests/link", root);
	{
		char t[16] = "";

		check_int(readlink(p, t, sizeof(t) - 1), ==, 4);
		check_str(t, "pass");
	}
	free(p);
	p = xasprintf("%s/tests/deep/er/file", root);
	data = test_read_file(p, &len);
	check_str(data, "x");
	free(data);
	free(p);

	/* unpacked again over itself (a second run's tests over the first's): replaced */
	strbuf_reset(&a);
	add(&a, 1, 0100755, 1, "tests/pass", "new", 3);
	trailer(&a);
	check_int(init_tests_unpack((const unsigned char *)a.buf, a.len, root, &diag), ==, 1);
	p = xasprintf("%s/tests/pass", root);
	data = test_read_file(p, &len);
	check_str(data, "new");
	free(data);
	free(p);
	free(root);
	strbuf_release(&a);
	strbuf_release(&diag);
}

/* Unpack a damaged archive: -1, and the reason. */
static void refused(struct strbuf *a, size_t len, const char *want)
{
	struct strbuf diag = STRBUF_INIT;
	char *root = fresh_root("bad");

	strbuf_init(&diag);
	check_int(init_tests_unpack((const unsigned char *)a->buf, len, root, &diag), ==, -1);
	if (!check(strstr(diag.buf, want) != NULL))
		printf("# got '%s', want '%s'\n", diag.buf, want);
	strbuf_release(&diag);
	free(root);
}

static void test_damaged(void)
{
	struct strbuf a = STRBUF_INIT;
	char *outside;
	size_t whole;

	strbuf_init(&a);
	add(&a, 1, 0100644, 1, "tests/f", "0123456789", 10);
	whole = a.len;
	trailer(&a);
	/* cut inside the data, inside the header, before the trailer */
	refused(&a, whole - 4, "runs past the end of the tests image");
	refused(&a, 50, "no newc header at byte 0");
	refused(&a, whole, "no newc header at byte");

	/* a size beyond the region */
	strbuf_reset(&a);
	add(&a, 1, 0100644, 1, "tests/f", "0123456789", 10);
	memcpy(a.buf + 6 + 6 * 8, "7FFFFFFF", 8);
	trailer(&a);
	refused(&a, a.len, "runs past the end of the tests image");

	/* a name size beyond the region, and a name without its NUL */
	strbuf_reset(&a);
	add(&a, 1, 0100644, 1, "tests/f", "", 0);
	memcpy(a.buf + 6 + 11 * 8, "FFFFFFFF", 8);
	trailer(&a);
	refused(&a, a.len, "bad name size");
	strbuf_reset(&a);
	add(&a, 1, 0100644, 1, "tests/f", "", 0);
	memcpy(a.buf + 6 + 11 * 8, "00000003", 8);
	trailer(&a);
	refused(&a, a.len, "bad name size");

	/* names that leave the root; a device node */
	strbuf_reset(&a);
	add(&a, 1, 0100644, 1, "tests/../../escaped", "x", 1);
	trailer(&a);
	refused(&a, a.len, "bad name 'tests/../../escaped'");
	outside = xasprintf("%s/escaped", test_tmpdir());
	check(access(outside, F_OK) != 0);
	free(outside);
	strbuf_reset(&a);
	add(&a, 1, 0100644, 1, "/etc/x", "x", 1);
	trailer(&a);
	refused(&a, a.len, "bad name '/etc/x'");
	strbuf_reset(&a);
	add(&a, 1, 020644, 1, "tests/null", "", 0);
	trailer(&a);
	refused(&a, a.len, "of a type the tests image does not take");

	/* not an archive at all: an empty region */
	strbuf_reset(&a);
	for (int i = 0; i < 512; i++)
		strbuf_addch(&a, '\0');
	refused(&a, a.len, "no newc header at byte 0");
	strbuf_release(&a);
}

int main(void)
{
	TEST(test_unpack, "the tests image is unpacked exactly");
	TEST(test_damaged, "a damaged tests image is refused, never read past its end");
	return test_done();
}
