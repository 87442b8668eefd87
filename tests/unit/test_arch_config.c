// SPDX-License-Identifier: GPL-2.0-only
/* test_arch_config.c: configs/<arch>.conf loading, and every shipped config is valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_config.h"
#include "harness.h"

struct parse_arg {
	const char *text, *file;
};

static int do_parse(void *v)
{
	struct parse_arg *a = v;
	struct arch_config c;
	int ret;

	arch_config_init(&c);
	ret = arch_config_parse(&c, a->text, strlen(a->text), a->file);
	arch_config_release(&c);
	return ret;
}

static void expect_error(const char *text, const char *msg)
{
	struct parse_arg a = { text, "t.conf" };
	int ret = 0;
	char *err = test_capture_stderr(do_parse, &a, &ret);

	check_int(ret, ==, -1);
	check(err && strstr(err, msg));
	if (err && !strstr(err, msg))
		printf("# stderr: %s", err);
	free(err);
}

static const char good[] = "arch = x86_64\nkernel_arch = x86\nkconfig = CONFIG_X86_64\n"
			   "cross_compile = x86_64-linux-gnu-\nelf_machine = 62\nelf_class = 64\n"
			   "qemu = qemu-system-x86_64\nmachine = pc\nconsole = ttyS0\n";

static void test_parse_good(void)
{
	struct arch_config c;
	const char *extra = "# comment\n\nimage_paths = a b  c\npvh = yes\nmemory = 1024\n"
			    "zimage_ram_base = 0x80000000\n";
	char *text = malloc(strlen(good) + strlen(extra) + 1);

	strcpy(text, good);
	strcat(text, extra);
	arch_config_init(&c);
	check_int(arch_config_parse(&c, text, strlen(text), "t.conf"), ==, 0);
	check_str(c.arch, "x86_64");
	check_int(c.elf_machine, ==, 62);
	check_int(c.memory_mb, ==, 1024);
	check_int(c.smp, ==, 1);
	check_int(c.smp_tcg, ==, 1); /* smp's value when not given */
	check(c.pvh);
	check_int(c.zimage_ram_base, ==, 0x80000000u);
	check_int(c.image_paths.n, ==, 3);
	check_str(c.image_paths.v[2], "c");
	arch_config_release(&c);
	free(text);
}

static void test_parse_errors(void)
{
	char buf[2048];

	expect_error("arch = x86_64\nnonsense\n", "t.conf:2: expected 'key = value', got 'nonsense'");
	expect_error("arch = x\nbogus = 1\n", "t.conf:2: unknown key 'bogus'");
	expect_error("arch = x\narch = y\n", "t.conf:2: 'arch' given twice");
	expect_error("arch = x\n", "t.conf: missing required key 'kernel_arch'");
	snprintf(buf, sizeof(buf), "%smemory = lots\n", good);
	expect_error(buf, "t.conf:10: 'memory' wants a number, got 'lots'");
	snprintf(buf, sizeof(buf), "%spvh = maybe\n", good);
	expect_error(buf, "t.conf:10: 'pvh' wants yes or no, got 'maybe'");
	snprintf(buf, sizeof(buf), "%szimage_ram_base = 1073741824\n", good);
	expect_error(buf, "t.conf:10: 'zimage_ram_base' wants a 32-bit address like 0x40000000, "
			  "got '1073741824'");
	snprintf(buf, sizeof(buf), "%szimage_ram_base = 0x100000000\n", good);
	expect_error(buf, "t.conf:10: 'zimage_ram_base' wants a 32-bit address like 0x40000000, "
			  "got '0x100000000'");
	snprintf(buf, sizeof(buf), "%szimage_ram_base = 0x4000zz\n", good);
	expect_error(buf, "t.conf:10: 'zimage_ram_base' wants a 32-bit address");
	snprintf(buf, sizeof(buf), "%ssmp_tcg = 0\n", good);
	expect_error(buf, "t.conf: smp and smp_tcg must be at least 1");
}

/* smp_tcg: its own value when given, else smp's */
static void test_smp_tcg(void)
{
	char buf[1024];
	struct arch_config c;

	snprintf(buf, sizeof(buf), "%ssmp = 4\n", good);
	arch_config_init(&c);
	check_int(arch_config_parse(&c, buf, strlen(buf), "t.conf"), ==, 0);
	check_int(c.smp, ==, 4);
	check_int(c.smp_tcg, ==, 4);
	arch_config_release(&c);
	snprintf(buf, sizeof(buf), "%ssmp = 4\nsmp_tcg = 1\n", good);
	arch_config_init(&c);
	check_int(arch_config_parse(&c, buf, strlen(buf), "t.conf"), ==, 0);
	check_int(c.smp, ==, 4);
	check_int(c.smp_tcg, ==, 1);
	arch_config_release(&c);
}

/* Every shipped config must load: adding an architecture is adding a file. */
static void test_shipped_configs(void)
{
	char *list = arch_config_list(TAPBOOT_SRCDIR "/configs");
	char *save = NULL;
	int n = 0;

	for (char *a = strtok_r(list, " ", &save); a; a = strtok_r(NULL, " ", &save)) {
		struct arch_config c;

		arch_config_init(&c);
		if (!check_int(arch_config_load(&c, TAPBOOT_SRCDIR "/configs", a), ==, 0))
			printf("# config %s does not load\n", a);
		check_str(c.arch, a);
		arch_config_release(&c);
		n++;
	}
	check_int(n, >=, 2);
	free(list);
}

static int load_unknown(void *v)
{
	struct arch_config c;
	int ret;

	(void)v;
	arch_config_init(&c);
	ret = arch_config_load(&c, TAPBOOT_SRCDIR "/configs", "sparc");
	arch_config_release(&c);
	return ret;
}

static void test_unknown_arch(void)
{
	int ret;
	char *err = test_capture_stderr(load_unknown, NULL, &ret);

	check_int(ret, ==, -1);
	check(err && strstr(err, "unknown architecture 'sparc'") && strstr(err, "arm64"));
	free(err);
}

static void test_find(void)
{
	const char *cfgdir = TAPBOOT_SRCDIR "/configs";
	char *a = arch_config_find_elf(cfgdir, 183, 64, false);
	const char *dot = test_write_file("dotconfig", "CONFIG_X86=y\nCONFIG_X86_64=y\n", 29, 0);
	char *k;

	check_str(a, "arm64");
	free(a);
	a = arch_config_find_elf(cfgdir, 62, 64, false);
	check_str(a, "x86_64");
	free(a);
	k = arch_config_find_kconfig(cfgdir, dot);
	check_str(k, "x86_64");
	free(k);
	/* s390x is big-endian: the same machine number little-endian is no architecture */
	a = arch_config_find_elf(cfgdir, 22, 64, true);
	check_str(a, "s390x");
	free(a);
	a = arch_config_find_elf(cfgdir, 22, 64, false);
	check(a == NULL);
	free(a);
	dot = test_write_file("dotconfig-s390", "CONFIG_S390=y\nCONFIG_64BIT=y\n", 28, 0);
	k = arch_config_find_kconfig(cfgdir, dot);
	check_str(k, "s390x");
	free(k);
}

/* riscv64's kernel comes from Debian 13: the release scripts/fetch-kernel.sh takes by default */
static void test_release(void)
{
	struct arch_config c;

	arch_config_init(&c);
	check_int(arch_config_load(&c, TAPBOOT_SRCDIR "/configs", "riscv64"), ==, 0);
	check_str(c.debian_release, "trixie");
	check_str(c.debian_kernel, "linux-image-riscv64");
	check_str(c.bios, "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin");
	arch_config_release(&c);
	arch_config_init(&c);
	check_int(arch_config_load(&c, TAPBOOT_SRCDIR "/configs", "s390x"), ==, 0);
	check(c.debian_release == NULL);
	check_str(c.debian_kernel, "linux-image-s390x");
	check_str(c.console, "ttysclp0");
	arch_config_release(&c);
}

int main(void)
{
	TEST(test_parse_good, "a config parses into its fields");
	TEST(test_smp_tcg, "smp_tcg: given, or smp's value");
	TEST(test_parse_errors, "bad configs name file, line and problem");
	TEST(test_shipped_configs, "every configs/*.conf loads");
	TEST(test_unknown_arch, "an unknown arch lists the known ones");
	TEST(test_find, "arch from ELF machine and from a .config");
	TEST(test_release, "riscv64 from Debian 13 with Debian's OpenSBI; s390x from Debian 12");
	return test_done();
}
