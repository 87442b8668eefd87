// SPDX-License-Identifier: GPL-2.0-only
/* test_kconfig_check.c: the kernel options a run needs, read from a .config, the message and
 * fragment for the missing ones, the script scan, and the diagnosis of a kernel that died
 * before the init. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_config.h"
#include "harness.h"
#include "kconfig_check.h"

/* Every option a plain run needs on x86_64, built in. */
static const char full[] = "CONFIG_X86_64=y\n"
			   "CONFIG_BLK_DEV_INITRD=y\n"
			   "CONFIG_BINFMT_ELF=y\n"
			   "CONFIG_DEVTMPFS=y\n"
			   "CONFIG_PROC_FS=y\n"
			   "CONFIG_PROC_SYSCTL=y\n"
			   "CONFIG_SYSFS=y\n"
			   "CONFIG_SHMEM=y\n"
			   "CONFIG_TMPFS=y\n"
			   "CONFIG_SIGNALFD=y\n"
			   "CONFIG_TTY=y\n"
			   "CONFIG_PRINTK=y\n"
			   "CONFIG_SERIAL_8250=y\n"
			   "CONFIG_SERIAL_8250_CONSOLE=y\n";

static void load_x86(struct arch_config *c)
{
	arch_config_init(c);
	check_int(arch_config_load(c, TAPBOOT_SRCDIR "/configs", "x86_64"), ==, 0);
}

/* full with one line replaced (or removed when with is ""). */
static char *without(const char *line, const char *with)
{
	const char *at = strstr(full, line);
	char *s;

	if (!at)
		return strdup(full);
	s = malloc(sizeof(full) + strlen(with));
	sprintf(s, "%.*s%s%s", (int)(at - full), full, with, at + strlen(line));
	return s;
}

static void test_complete(void)
{
	struct arch_config c;
	struct kconfig_needs n = { 0 };
	struct strbuf m = STRBUF_INIT;

	load_x86(&c);
	n.cfg = &c;
	strbuf_grow(&m, 0);
	check_int(kconfig_check_text(full, strlen(full), &n, &m), ==, 0);
	check_str(m.buf, "");
	/* SHMEM off: "tmpfs" is ramfs and mounts without CONFIG_TMPFS */
	{
		char *t = without("CONFIG_SHMEM=y\nCONFIG_TMPFS=y\n", "# CONFIG_SHMEM is not set\n");

		check_int(kconfig_check_text(t, strlen(t), &n, &m), ==, 0);
		free(t);
	}
	strbuf_release(&m);
	arch_config_release(&c);
}

static void test_missing_states(void)
{
	struct arch_config c;
	struct kconfig_needs n = { 0 };
	struct strbuf m = STRBUF_INIT;
	char *t;

	load_x86(&c);
	n.cfg = &c;
	strbuf_grow(&m, 0);
	t = without("CONFIG_DEVTMPFS=y\n", "# CONFIG_DEVTMPFS is not set\n");
	check_int(kconfig_check_text(t, strlen(t), &n, &m), ==, 1);
	check_str(m.buf, "CONFIG_DEVTMPFS\tis not set\tthe init mounts devtmpfs on /dev "
			 "(/dev/console, /dev/kmsg)\n");
	free(t);
	strbuf_reset(&m);
	t = without("CONFIG_SERIAL_8250_CONSOLE=y\n", "");
	check_int(kconfig_check_text(t, strlen(t), &n, &m), ==, 1);
	check_str(m.buf, "CONFIG_SERIAL_8250_CONSOLE\tis absent\tthe console driver for "
			 "console=ttyS0, where tapboot reads the results\n");
	free(t);
	strbuf_reset(&m);
	t = without("CONFIG_SERIAL_8250=y\n", "CONFIG_SERIAL_8250=m\n");
	check_int(kconfig_check_text(t, strlen(t), &n, &m), ==, 1);
	check(strstr(m.buf, "CONFIG_SERIAL_8250\t=m, not built in\t") == m.buf);
	free(t);
	strbuf_reset(&m);
	/* a longer option sharing the prefix is not the option */
	t = without("CONFIG_TTY=y\n", "CONFIG_TTY_PRINTK=y\n");
	check_int(kconfig_check_text(t, strlen(t), &n, &m), ==, 1);
	check(strstr(m.buf, "CONFIG_TTY\tis absent\t") == m.buf);
	free(t);
	strbuf_release(&m);
	arch_config_release(&c);
}

static void test_conditional(void)
{
	struct arch_config c;
	struct kconfig_needs n = { 0 };
	struct strbuf m = STRBUF_INIT;

	load_x86(&c);
	n.cfg = &c;
	n.scripts = true;
	n.compress = "zstd";
	n.modules = true;
	strbuf_grow(&m, 0);
	check_int(kconfig_check_text(full, strlen(full), &n, &m), ==, 3);
	check_str(m.buf, "CONFIG_BINFMT_SCRIPT\tis absent\ta test is a #! script\n"
			 "CONFIG_RD_ZSTD\tis absent\tthe initramfs is zstd-compressed (--compress)\n"
			 "CONFIG_MODULES\tis absent\tthe init loads modules (--module)\n");
	strbuf_reset(&m);
	n.compress = "none";
	n.scripts = n.modules = false;
	check_int(kconfig_check_text(full, strlen(full), &n, &m), ==, 0);
	strbuf_release(&m);
	arch_config_release(&c);
}

struct run_arg {
	const char *config;
	const struct kconfig_needs *n;
	bool quiet;
};

static int do_run(void *v)
{
	struct run_arg *a = v;

	return kconfig_check_run(a->config, a->n, a->quiet);
}

static void test_run_message(void)
{
	struct arch_config c;
	struct kconfig_needs n = { 0 };
	struct run_arg a = { NULL, &n, false };
	char *t = without("CONFIG_DEVTMPFS=y\n", "# CONFIG_DEVTMPFS is not set\n"), *err, *want;
	int ret = 0;

	load_x86(&c);
	n.cfg = &c;
	n.scripts = true;
	a.config = test_write_file("dot-nodevtmpfs", t, strlen(t), 0);
	err = test_capture_stderr(do_run, &a, &ret);
	check_int(ret, ==, -1);
	want = malloc(strlen(a.config) + 1024);
	sprintf(want,
		"tapboot: kernel config '%s' lacks options tapboot needs:\n"
		"  CONFIG_DEVTMPFS is not set: the init mounts devtmpfs on /dev (/dev/console, "
		"/dev/kmsg)\n"
		"  CONFIG_BINFMT_SCRIPT is absent: a test is a #! script\n"
		"add this fragment to the kernel's config (scripts/kconfig/merge_config.sh, or "
		"append it and run make olddefconfig), rebuild, and run again:\n"
		"CONFIG_DEVTMPFS=y\n"
		"CONFIG_BINFMT_SCRIPT=y\n",
		a.config);
	check_str(err, want);
	free(err);
	free(want);
	free(t);

	/* complete: silent, 0 */
	n.scripts = false;
	a.config = test_write_file("dot-full", full, strlen(full), 0);
	err = test_capture_stderr(do_run, &a, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	free(err);

	/* no config: a note, 0; quiet: not even that */
	a.config = NULL;
	err = test_capture_stderr(do_run, &a, &ret);
	check_int(ret, ==, 0);
	check(strstr(err, "tapboot: note: no kernel config") == err &&
	      strstr(err, "not checked\n"));
	free(err);
	a.quiet = true;
	err = test_capture_stderr(do_run, &a, &ret);
	check_str(err, "");
	free(err);

	/* unreadable: named */
	a.config = "/nonexistent/.config";
	err = test_capture_stderr(do_run, &a, &ret);
	check_int(ret, ==, -1);
	check_str(err, "tapboot: cannot read kernel config '/nonexistent/.config': No such file or "
		       "directory\n");
	free(err);
	arch_config_release(&c);
}

static void test_scripts(void)
{
	const char *bin = test_write_file("in/bin/prog", "\177ELF....", 8, 0755);
	const char *sh = test_write_file("in2/sub/t.sh", "#!/bin/sh\nexit 0\n", 17, 0755);
	const char *data = test_write_file("in3/notes", "#!not a test", 12, 0644);
	const char *paths[3];
	char *dir;

	paths[0] = bin;
	check(!kconfig_inputs_have_script(paths, 1));
	paths[1] = sh;
	check(kconfig_inputs_have_script(paths, 2));
	/* a directory is searched for executables; a non-executable file there is no test */
	dir = strdup(sh);
	*strstr(dir, "/sub/t.sh") = '\0';
	paths[0] = dir;
	check(kconfig_inputs_have_script(paths, 1));
	free(dir);
	dir = strdup(data);
	*strrchr(dir, '/') = '\0';
	paths[0] = dir;
	check(!kconfig_inputs_have_script(paths, 1));
	free(dir);
	paths[0] = "/nonexistent";
	check(!kconfig_inputs_have_script(paths, 1));
}

static void test_diagnose(void)
{
	struct arch_config c;
	struct kconfig_needs n = { 0 };
	struct strbuf out = STRBUF_INIT;
	const char *noinit = "OpenSBI v1.1\r\n"
			     "[    0.51] Run /init as init process\r\n"
			     "[    0.52] Kernel panic - not syncing: No working init found.  Try "
			     "passing init= option to kernel.\r\n";
	const char *cfg;
	char *t;

	load_x86(&c);
	n.cfg = &c;
	strbuf_grow(&out, 0);
	/* the init began: nothing to say */
	kconfig_check_diagnose("x\n# tapboot: begin nonce=ab tests=1 kernel=6.1\n", 43, NULL, &n,
			       &out);
	check_str(out.buf, "");

	/* no config: the last lines and the suspects */
	kconfig_check_diagnose(noinit, strlen(noinit), NULL, &n, &out);
	check_str(out.buf, "the kernel stopped before tapboot's init; its last lines:\n"
			   "  OpenSBI v1.1\n"
			   "  [    0.51] Run /init as init process\n"
			   "  [    0.52] Kernel panic - not syncing: No working init found.  Try "
			   "passing init= option to kernel.\n"
			   "likely missing: CONFIG_BLK_DEV_INITRD or CONFIG_BINFMT_ELF (no kernel "
			   "config to check: --config FILE)\n");
	strbuf_reset(&out);

	/* what follows the panic's reason (its backtrace) is left out */
	{
		char *bt = malloc(strlen(noinit) + 64);

		sprintf(bt, "%sCPU: 0 PID: 1 Comm: swapper/0\r\nCall trace:\r\n", noinit);
		kconfig_check_diagnose(bt, strlen(bt), NULL, &n, &out);
		check(strstr(out.buf, "No working init found") && !strstr(out.buf, "Call trace"));
		free(bt);
		strbuf_reset(&out);
	}

	/* with a config: only the suspects it lacks */
	t = without("CONFIG_BINFMT_ELF=y\n", "# CONFIG_BINFMT_ELF is not set\n");
	cfg = test_write_file("dot-noelf", t, strlen(t), 0);
	kconfig_check_diagnose(noinit, strlen(noinit), cfg, &n, &out);
	check(strstr(out.buf, "likely missing: CONFIG_BINFMT_ELF (not built in, kernel config '"));
	free(t);
	strbuf_reset(&out);

	/* the init's own bail-out names its mount; a compressed image adds its decompressor */
	n.compress = "xz";
	kconfig_check_diagnose("Bail out! cannot mount devtmpfs on /dev: No such device\n", 56,
			       NULL, &n, &out);
	check(strstr(out.buf, "\nlikely missing: CONFIG_DEVTMPFS (no kernel config"));
	strbuf_reset(&out);
	kconfig_check_diagnose(noinit, strlen(noinit), NULL, &n, &out);
	check(strstr(out.buf, "likely missing: CONFIG_BLK_DEV_INITRD or CONFIG_RD_XZ or "
			      "CONFIG_BINFMT_ELF (no kernel"));
	strbuf_reset(&out);

	/* silence: the console driver */
	kconfig_check_diagnose("", 0, NULL, &n, &out);
	check_str(out.buf, "the kernel stopped before tapboot's init and printed nothing on the "
			   "console\n"
			   "likely missing: CONFIG_SERIAL_8250 or CONFIG_SERIAL_8250_CONSOLE or "
			   "CONFIG_TTY or CONFIG_PRINTK (no kernel config to check: --config "
			   "FILE)\n");
	strbuf_reset(&out);

	/* a config with everything: the cause is elsewhere */
	n.compress = NULL;
	cfg = test_write_file("dot-full2", full, strlen(full), 0);
	kconfig_check_diagnose(noinit, strlen(noinit), cfg, &n, &out);
	check(strstr(out.buf, "the options tapboot checks are all built in"));
	strbuf_release(&out);
	arch_config_release(&c);
}

/* snapshot boot's tests image: every option of the arch's snapshot_tests_kconfig built in */
static void test_all_y(void)
{
	static const char text[] =
		"CONFIG_PCI=y\nCONFIG_PCI_HOST_GENERIC=m\n# CONFIG_X is not set\n";
	const char *cfg = test_write_file("dot-pci", text, strlen(text), 0);
	struct arch_config c;
	struct strlist l;

	strlist_init(&l);
	strlist_push(&l, "CONFIG_PCI");
	check(kconfig_all_y(cfg, &l));
	strlist_push(&l, "CONFIG_PCI_HOST_GENERIC");
	check(!kconfig_all_y(cfg, &l)); /* =m: not before the init loads modules */
	strlist_release(&l);
	strlist_init(&l);
	strlist_push(&l, "CONFIG_X");
	check(!kconfig_all_y(cfg, &l));
	strlist_release(&l);
	strlist_init(&l);
	strlist_push(&l, "CONFIG_PC"); /* a prefix of CONFIG_PCI is not CONFIG_PCI */
	check(!kconfig_all_y(cfg, &l));
	strlist_release(&l);
	strlist_init(&l);
	check(!kconfig_all_y("/nonexistent/config", &l)); /* unreadable: no */
	strlist_release(&l);
	load_x86(&c);
	check_int(c.snapshot_tests_kconfig.n, ==, 1);
	check(!strcmp(c.snapshot_tests_kconfig.v[0], "CONFIG_PCI"));
	arch_config_release(&c);
}

int main(void)
{
	TEST(test_complete, "a config with every option passes");
	TEST(test_missing_states, "not set, absent and =m are missing; prefixes do not match");
	TEST(test_conditional, "scripts, --compress and --module add their options");
	TEST(test_run_message, "the message names the config, the options, why, and the fragment");
	TEST(test_scripts, "#! tests are found in files and directories");
	TEST(test_diagnose, "a kernel dead before the init: last lines and likely option");
	TEST(test_all_y, "snapshot_tests_kconfig: every option built in, else no");
	return test_done();
}
