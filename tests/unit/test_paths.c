// SPDX-License-Identifier: GPL-2.0-only
/* test_paths.c: lib/paths.c: the environment overrides, and the source tree for a binary that
 * is neither in its build directory nor in an installed tree (this test program). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "paths.h"

static void clear_env(void)
{
	unsetenv("TAPBOOT_CONFIGS");
	unsetenv("TAPBOOT_INIT_DIR");
	unsetenv("TAPBOOT_SRCDIR");
}

static void test_source_tree(void)
{
	struct tapboot_dirs d;
	char *s;

	clear_env();
	tapboot_dirs_get(&d);
	check_str(d.configs, TAPBOOT_SRCDIR "/configs");
	check_str(d.scripts, TAPBOOT_SRCDIR "/scripts");
	check_str(d.inits, TAPBOOT_BUILDDIR "/init");
	check_str(d.layout, "build tree");
	check_int(d.installed, ==, 0);
	tapboot_dirs_release(&d);
	s = tapboot_data_path("kselftest-disruptive.txt");
	check_str(s, TAPBOOT_SRCDIR "/builder/kselftest-disruptive.txt");
	free(s);
	s = tapboot_script_path("fetch-kernel.sh");
	check_str(s, TAPBOOT_SRCDIR "/scripts/fetch-kernel.sh");
	free(s);
}

static void test_env(void)
{
	struct tapboot_dirs d;
	const char *tmp = test_tmpdir();
	char *build = NULL, *s;

	clear_env();
	setenv("TAPBOOT_CONFIGS", "/nowhere/configs", 1);
	s = tapboot_configs_dir();
	check_str(s, "/nowhere/configs");
	free(s);

	/* TAPBOOT_INIT_DIR holds ARCH/init, or init/ARCH/init (a build directory) */
	setenv("TAPBOOT_INIT_DIR", tmp, 1);
	tapboot_dirs_get(&d);
	check_str(d.inits, tmp);
	check_str(d.layout, "environment");
	tapboot_dirs_release(&d);
	build = malloc(strlen(tmp) + 8);
	strcpy(build, tmp);
	strcat(build, "/init");
	check_int(mkdir(build, 0755), ==, 0);
	tapboot_dirs_get(&d);
	check_str(d.inits, build);
	tapboot_dirs_release(&d);

	setenv("TAPBOOT_SRCDIR", "/src/tapboot", 1);
	unsetenv("TAPBOOT_CONFIGS");
	tapboot_dirs_get(&d);
	check_str(d.configs, "/src/tapboot/configs");
	check_str(d.scripts, "/src/tapboot/scripts");
	check_str(d.data, "/src/tapboot/builder");
	tapboot_dirs_release(&d);
	clear_env();
	free(build);
}

int main(void)
{
	TEST(test_source_tree, "a binary outside build and install trees uses its source tree");
	TEST(test_env, "TAPBOOT_CONFIGS, TAPBOOT_INIT_DIR (both shapes), TAPBOOT_SRCDIR");
	return test_done();
}
