// SPDX-License-Identifier: GPL-2.0-only
/* test_kbuild.c: kernel/kbuild*.c's parts that need no kernel build: the compiler's first error
 * out of a build log, why an option did not stick (a small tree of Kconfig files), the --debug
 * sets, the cache directories and the config key, tapboot's needs as a fragment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kbuild.h"
#include "kconfig_check.h"
#include "strbuf.h"

static void test_first_error(void)
{
	const char *log = "  CC      lib/sort.o\n"
			  "  CC      lib/list_sort.o\n"
			  "lib/list_sort.c:2:2: error: #error \"broken\"\n"
			  "    2 | #error \"broken\"\n"
			  "      |  ^~~~~\n"
			  "lib/x.c:9:1: error: second\n"
			  "make[2]: *** [scripts/Makefile.build:250: lib/list_sort.o] Error 1\n";
	const char *make_only = "  CC      a.o\nmake[1]: *** No rule to make target 'x'.  Stop.\n";
	const char *link = "  LD      vmlinux\nld: init/main.o: in function `f':\n"
			   "main.c:(.text+0x1): undefined reference to `g'\n";
	char *e = kbuild_first_error(log, strlen(log));

	check_str(e, "lib/list_sort.c:2:2: error: #error \"broken\"\n"
		     "    2 | #error \"broken\"\n"
		     "      |  ^~~~~\n");
	free(e);
	e = kbuild_first_error(make_only, strlen(make_only));
	check_str(e, "make[1]: *** No rule to make target 'x'.  Stop.\n");
	free(e);
	e = kbuild_first_error(link, strlen(link));
	check(strstr(e, "undefined reference to `g'") == e + strlen("main.c:(.text+0x1): "));
	free(e);
	e = kbuild_first_error("  CC a.o\n", 9);
	check_str(e, "");
	free(e);
}

static void write_text(const char *rel, const char *text)
{
	test_write_file(rel, text, strlen(text), 0644);
}

static void test_explain(void)
{
	const char *src;
	struct strbuf out;
	const char *config = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_M=m\n";

	write_text("tree/Kconfig", "source \"drivers/Kconfig\"\nconfig A\n\tbool \"a\"\n");
	/* a help text that says "depends on" is not an attribute; FOO_EXTRA is another symbol */
	write_text("tree/drivers/Kconfig",
		   "config FOO\n\ttristate \"foo\"\n\tdepends on A && (B || C)\n"
		   "\tdepends on M\n\thelp\n\t  depends on NOT_THIS\n"
		   "config FOO_EXTRA\n\tbool\n\tdepends on X\n"
		   "menuconfig BAR\n\tbool \"bar\"\n");
	write_text("tree/Makefile", "");
	src = test_tmpdir();
	{
		char *tree = malloc(strlen(src) + 8);

		sprintf(tree, "%s/tree", src);
		strbuf_init(&out);
		kbuild_explain(tree, config, strlen(config), "CONFIG_FOO", &out);
		/* every depends on line with its place; the symbols off: B and C, not A or M (=m) */
		check_str(out.buf, "it depends on A && (B || C) (drivers/Kconfig:3); M "
				   "(drivers/Kconfig:4); off here: CONFIG_B CONFIG_C");
		strbuf_reset(&out);
		kbuild_explain(tree, config, strlen(config), "BAR", &out);
		check(strstr(out.buf, "has no 'depends on'") != NULL);
		strbuf_reset(&out);
		kbuild_explain(tree, config, strlen(config), "CONFIG_NOPE", &out);
		check_str(out.buf, "it is not an option of this tree (no Kconfig file defines it)");
		strbuf_release(&out);
		free(tree);
	}
}

static void test_debug_sets(void)
{
	struct strbuf sb;

	strbuf_init(&sb);
	check_int(kbuild_debug_fragment("kfence", &sb), ==, 0);
	check(strstr(sb.buf, "CONFIG_KFENCE=y\n") && strstr(sb.buf, "CONFIG_SLUB=y\n") &&
	      strstr(sb.buf, "CONFIG_DEBUG_KERNEL=y\n"));
	strbuf_reset(&sb);
	for (const char *names = kbuild_debug_names(), *p = names; *p;) {
		char name[32];
		size_t n = strcspn(p, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		check_int(kbuild_debug_fragment(name, &sb), ==, 0);
		p += n;
		while (*p == ',' || *p == ' ')
			p++;
	}
	strbuf_release(&sb);
}

static void test_needs_fragment(void)
{
	struct arch_config cfg;
	struct kconfig_needs n = {.compress = "gzip", .scripts = true, .modules = true};
	struct strbuf sb;

	arch_config_init(&cfg);
	strlist_push(&cfg.kconfig_console, "CONFIG_SERIAL_8250");
	n.cfg = &cfg;
	strbuf_init(&sb);
	kconfig_check_fragment(&n, &sb);
	/* SHMEM before TMPFS: what a need depends on first */
	check(strstr(sb.buf, "CONFIG_SHMEM=y\nCONFIG_TMPFS=y\n") != NULL);
	check(strstr(sb.buf, "CONFIG_DEVTMPFS=y\n") && strstr(sb.buf, "CONFIG_SERIAL_8250=y\n") &&
	      strstr(sb.buf, "CONFIG_RD_GZIP=y\n") && strstr(sb.buf, "CONFIG_BINFMT_SCRIPT=y\n") &&
	      strstr(sb.buf, "CONFIG_MODULES=y\n"));
	/* what it writes is what the check asks for: the check passes on it */
	{
		struct strbuf missing;

		strbuf_init(&missing);
		check_int(kconfig_check_text(sb.buf, sb.len, &n, &missing), ==, 0);
		check_str(missing.buf ? missing.buf : "", "");
		strbuf_release(&missing);
	}
	strbuf_release(&sb);
	arch_config_release(&cfg);
}

static void test_cache_dirs(void)
{
	char *a, *b, *c;

	setenv("XDG_CACHE_HOME", test_tmpdir(), 1);
	a = kbuild_cache_dir("builds", "/src/linux", "arm64");
	b = kbuild_cache_dir("builds", "/src/linux", "x86_64");
	c = kbuild_cache_dir("series", "/other/linux", NULL);
	check(strstr(a, "/tapboot/builds/linux-") && !strcmp(a + strlen(a) - 6, "/arm64"));
	check_int(strncmp(a, b, strlen(a) - 6), ==, 0); /* one tree: the same directory */
	check(strstr(c, "/tapboot/series/linux-") && strcmp(c + strlen(c) - 17, a + strlen(a) - 23));
	free(a);
	free(b);
	free(c);
}

int main(void)
{
	TEST(test_first_error, "the first error of a build log");
	TEST(test_explain, "why an option did not stick, from the tree's Kconfig files");
	TEST(test_debug_sets, "--debug sets");
	TEST(test_needs_fragment, "tapboot's needs as a fragment pass the check");
	TEST(test_cache_dirs, "the cache's build and worktree directories");
	return test_done();
}
