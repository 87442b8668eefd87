// SPDX-License-Identifier: GPL-2.0-only
/* test_lkp_reproduce.c: lkp/reproduce.c's and repro_config.c's parts without QEMU: the test a
 * report needs, the kernel's config and its gap against the report's, the attempts' machine,
 * git bisect run's codes, and repro_run's refusals before any attempt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "harness.h"
#include "repro.h"
#include "reproduce.h"
#include "strbuf.h"

#ifndef TAPBOOT_SRCDIR
#define TAPBOOT_SRCDIR "."
#endif
#define FX TAPBOOT_SRCDIR "/tests/fixtures/repro/"

struct pick_args {
	struct repro_report *r;
	const char *kselftest;
	char *test, *tcase;
};

static int call_pick(void *arg)
{
	struct pick_args *a = arg;
	return repro_pick_test(a->r, a->kselftest, &a->test, &a->tcase);
}

/* repro_pick_test on a report with testcase tc and id (a table row with runs on the commit,
 * or NULL); its stderr in *err. */
static int pick(const char *tc, const char *id, const char *kselftest, char **test, char **tcase,
		char **err)
{
	struct repro_report r;
	struct repro_row row = {(char *)id, 0, 1};
	struct pick_args a = {&r, kselftest, NULL, NULL};
	int ret;

	repro_report_init(&r);
	r.testcase = (char *)tc;
	if (id) {
		r.rows = &row;
		r.nrows = 1;
	}
	*err = test_capture_stderr(call_pick, &a, &ret);
	*test = a.test;
	*tcase = a.tcase;
	return ret;
}

static void t_pick_test(void)
{
	char *test, *tcase, *err;

	check_int(pick(NULL, NULL, NULL, &test, &tcase, &err), ==, 0);
	check(test == NULL && tcase == NULL);
	check_str(err, "");
	free(err);
	check_int(pick("boot", NULL, NULL, &test, &tcase, &err), ==, 0);
	check(test == NULL);
	free(err);

	check_int(pick("kernel-selftests", "kernel-selftests.net.reuseport_bpf.ipv4.fail", "/ks",
		       &test, &tcase, &err),
		  ==, 0);
	check_str(test, "net:reuseport_bpf");
	check_str(tcase, "ipv4");
	free(test);
	free(tcase);
	free(err);
	check_int(pick("kernel-selftests", "kernel-selftests.timers.posix_timers.fail", "/ks",
		       &test, &tcase, &err),
		  ==, 0);
	check_str(test, "timers:posix_timers");
	check(tcase == NULL);
	free(test);
	free(err);

	check_int(pick("kernel-selftests", "kernel-selftests.timers.fail", "/ks", &test, &tcase,
		       &err),
		  ==, -1);
	check_str(err, "tapboot: testcase 'kernel-selftests': cannot read COLLECTION.TEST from "
		       "'kernel-selftests.timers.fail'\n");
	free(err);
	check_int(pick("kernel-selftests", "kernel-selftests.timers.posix_timers", NULL, &test,
		       &tcase, &err),
		  ==, -1);
	check_str(err, "tapboot: testcase 'kernel-selftests': give the kselftest install tree with "
		       "--kselftest DIR\n");
	free(err);
	check_int(pick("kernel-selftests", "WARNING:at_x", "/ks", &test, &tcase, &err), ==, -1);
	check_str(err, "tapboot: testcase 'kernel-selftests': the report names no "
		       "kernel-selftests.COLLECTION.TEST\n");
	free(err);
	check_int(pick("stress-ng", NULL, NULL, &test, &tcase, &err), ==, -1);
	check_str(err, "tapboot: testcase 'stress-ng' is not one tapboot runs itself (boot and "
		       "kernel-selftests.* are): give the TEST that triggers it\n");
	free(err);
}

static void t_kernel_config_path(void)
{
	const char *cfg = test_write_file("boot/config-6.1.0-13-amd64", "CONFIG_X=y\n", 11, 0);
	char *img = xasprintf("%s/boot/vmlinuz-6.1.0-13-amd64", test_tmpdir());
	char *dir = xasprintf("%s/build", test_tmpdir());
	char *dotcfg = xasprintf("%s/.config", dir);
	char *p;

	check_str((p = repro_kernel_config_path(img, "/given/config")), "/given/config");
	free(p);
	/* an image: config-REL beside it */
	check_str((p = repro_kernel_config_path(img, NULL)), cfg);
	free(p);
	/* a build directory: its .config, or none */
	mkdir(dir, 0755);
	check((p = repro_kernel_config_path(dir, NULL)) == NULL);
	test_write_file("build/.config", "CONFIG_X=y\n", 11, 0);
	check_str((p = repro_kernel_config_path(dir, NULL)), dotcfg);
	free(p);
	/* an image without config-REL: the .config beside it */
	char *bz = xasprintf("%s/arch-x86-boot-bzImage", dir);
	check_str((p = repro_kernel_config_path(bz, NULL)), dotcfg);
	free(p);
	free(bz);
	free(img);
	free(dir);
	free(dotcfg);
}

/* The gap between a report's wishes and the kernel's config (kernel: its text, or NULL for
 * none); the missing options joined by spaces in *missing. */
static int gap(struct repro_report *r, const char *kernel, char **missing, const char **why)
{
	struct strbuf sb;
	const char *path = kernel ? test_write_file("kconfig", kernel, strlen(kernel), 0) : NULL;
	int n;

	strbuf_init(&sb);
	*why = NULL;
	n = repro_config_gap(r, path, &sb, why);
	for (size_t i = 0; i < sb.len; i++)
		if (sb.buf[i] == '\n')
			sb.buf[i] = i + 1 < sb.len ? ' ' : '\0';
	*missing = sb.buf ? strbuf_detach(&sb) : xstrdup("");
	return n;
}

static void t_config_gap(void)
{
	static const char kernel[] = "CONFIG_LKDTM=y\n# CONFIG_KASAN is not set\nCONFIG_KFENCE=m\n";
	struct repro_report r;
	char *need[] = {(char *)"CONFIG_LKDTM=y", (char *)"CONFIG_PROVE_LOCKING",
			(char *)"CONFIG_KCSAN=n"};
	char *missing;
	const char *why;

	/* nothing wanted: 0, whatever the kernel */
	repro_report_init(&r);
	check_int(gap(&r, NULL, &missing, &why), ==, 0);
	check(why == NULL);
	free(missing);

	/* the report's config: only its sanitizers and debug options that are y or m */
	r.config_text = (char *)"CONFIG_KASAN=y\nCONFIG_NET=y\nCONFIG_KFENCE=y\nCONFIG_DEBUG_FS=m\n"
				"# CONFIG_UBSAN is not set\nCONFIG_LKDTM=y\nCONFIG_KASAN=y\n";
	check_int(gap(&r, kernel, &missing, &why), ==, 2);
	check_str(missing, "CONFIG_KASAN CONFIG_DEBUG_FS");
	check_str(why, "the report's config");
	free(missing);
	/* the kernel's config unknown: -1 */
	check_int(gap(&r, NULL, &missing, &why), ==, -1);
	free(missing);

	/* the job's need_kconfig: =n is not wanted */
	r.config_text = NULL;
	r.need_kconfig = need;
	r.nneed = 3;
	check_int(gap(&r, kernel, &missing, &why), ==, 1);
	check_str(missing, "CONFIG_PROVE_LOCKING");
	check_str(why, "the job's need_kconfig");
	free(missing);

	/* what the signatures and the command line imply */
	r.need_kconfig = NULL;
	r.nneed = 0;
	r.headline = (char *)"BUG:KASAN:slab-out-of-bounds_in_x";
	r.cmdline = (char *)"page_owner=on";
	check_int(gap(&r, kernel, &missing, &why), ==, 2);
	check_str(missing, "CONFIG_KASAN CONFIG_PAGE_OWNER");
	check_str(why, "the options its signatures imply");
	free(missing);
	/* the strings are the test's: nothing for repro_report_release to free */
	r.headline = NULL;
	r.cmdline = NULL;
}

static void t_machine(void)
{
	struct repro_report r;
	struct repro_machine m;
	char *out;
	size_t len;
	char *path = xasprintf("%s/machine.out", test_tmpdir());
	FILE *fp = fopen(path, "w");

	if (!check(fp != NULL))
		return;
	repro_report_init(&r);
	r.machine = (char *)"qemu-system-x86_64 -enable-kvm -cpu SandyBridge -smp 2 -m 16G";
	/* TCG: no -cpu, said; 16G capped at 2048 MB, said */
	repro_machine_pick(&r, false, &m, fp);
	check_str(m.smp, "2");
	check(m.cpu == NULL);
	check_str(m.memory, "2048");
	check(!m.i440fx);
	repro_machine_release(&m);
	/* KVM keeps the CPU model; 512 (MB) and under 64 MB */
	r.machine = (char *)"qemu-system-x86_64 -cpu SandyBridge -m 512";
	repro_machine_pick(&r, true, &m, fp);
	check_str(m.cpu, "SandyBridge");
	check_str(m.memory, "512");
	check(m.smp == NULL);
	repro_machine_release(&m);
	r.machine = (char *)"qemu-system-x86_64 -m 32";
	r.dmesg = (char *)"[    0.0] DMI: QEMU Standard PC (i440FX + PIIX, 1996)\n";
	repro_machine_pick(&r, true, &m, fp);
	check(m.memory == NULL);
	check(m.i440fx);
	repro_machine_release(&m);
	r.machine = NULL;
	r.dmesg = NULL;
	repro_machine_pick(&r, true, &m, fp);
	check(m.smp == NULL && m.memory == NULL && m.cpu == NULL && !m.i440fx);
	fclose(fp);
	out = test_read_file(path, &len);
	check_str(out,
		  "machine: TCG cannot model the report's -cpu SandyBridge: QEMU's default CPU "
		  "instead\n"
		  "machine: the report's 16384 MB of memory capped at 2048 MB\n");
	free(out);
	free(path);
}

static void t_bisect_code(void)
{
	static const struct {
		int status, plain, bisect;
	} cases[] = {
		{0, 0, 0},
		{1, 1, 1},
		{EXIT_USAGE, 2, 255},
		{EXIT_VM, 3, 125},
		{EXIT_INTERRUPTED, 130, 255},
		{127, 127, 125},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_int(repro_bisect_code(cases[i].status, false), ==, cases[i].plain);
		check_int(repro_bisect_code(cases[i].status, true), ==, cases[i].bisect);
	}
}

static int call_run(void *arg)
{
	return repro_run(arg);
}

/* repro_run stops before any attempt (and before making a directory) on a bad report or a
 * testcase it cannot run: exit 2 and the message. */
static void t_run_refusals(void)
{
	static const char report[] = "commit: 0123456789abcdef\nin testcase: stress-ng\n";
	char *out = xasprintf("%s/attempts", test_tmpdir());
	struct repro_run_opts o = {.kernel = "/no/kernel", .out = out, .n = 1};
	struct stat st;
	char *err;
	int ret;

	o.report = FX "bad-not-a-report.txt";
	err = test_capture_stderr(call_run, &o, &ret);
	check_int(ret, ==, EXIT_USAGE);
	check_str(err, "tapboot: " FX "bad-not-a-report.txt:1: not a kernel test robot report (no "
		       "commit: line, signature table, job-script or kernel problem in a dmesg)\n");
	free(err);
	o.report = test_write_file("stress.txt", report, sizeof(report) - 1, 0);
	err = test_capture_stderr(call_run, &o, &ret);
	check_int(ret, ==, EXIT_USAGE);
	check_str(err, "tapboot: testcase 'stress-ng' is not one tapboot runs itself (boot and "
		       "kernel-selftests.* are): give the TEST that triggers it\n");
	check_int(stat(out, &st), ==, -1);
	free(err);
	free(out);
}

int main(void)
{
	error_set_prog("tapboot");
	TEST(t_pick_test, "the test a report needs: boot, kernel-selftests.*, refusals");
	TEST(t_kernel_config_path, "the kernel's config: given, beside the image, DIR/.config");
	TEST(t_config_gap, "the config gap: the report's config, need_kconfig, implied options");
	TEST(t_machine, "the attempts' machine: -smp, -cpu only with KVM, memory capped, i440FX");
	TEST(t_bisect_code, "git bisect run's codes");
	TEST(t_run_refusals, "repro run: a bad report or testcase stops it before any attempt");
	return test_done();
}
