// SPDX-License-Identifier: GPL-2.0-only
/* test_lava_job.c: tapboot lava-job's writer (lava/lava_job.c): job.yaml and device.yaml for
 * what run/ exported (each architecture's context, KVM, --url-base), and lava_job_write's
 * files, checks and clean-up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "harness.h"
#include "lava_job.h"

#define NONCE "0123456789abcdef0123456789abcdef"
#define CMDLINE "console=ttyS0 rdinit=/init tapboot.nonce=" NONCE " tapboot.timeout=3"

/* x86_64 under TCG, two tests (one with a quote), no deadline, a 3 s test timeout; one line of
 * the files per source line. */
/* clang-format off */
static const char want_job[] =
	"# job.yaml: written by tapboot lava-job " TAPBOOT_VERSION " (submit: lavacli jobs submit job.yaml)\n"
	"device_type: qemu\n"
	"job_name: 'tapboot x86_64: 2 tests'\n"
	"visibility: public\n"
	"priority: medium\n"
	"timeouts:\n"
	"  job: {seconds: 87000}\n"
	"  action: {seconds: 86400}\n"
	"  connection: {minutes: 2}\n"
	"context:\n"
	"  arch: x86_64\n"
	"  no_kvm: true\n"
	"  memory: 512\n"
	"  extra_options:\n"
	"  - '-machine q35'\n"
	"  - '-cpu qemu64'\n"
	"  - '-smp 1'\n"
	"  - '-no-reboot'\n"
	"metadata:\n"
	"  tapboot.version: '" TAPBOOT_VERSION "'\n"
	"  tapboot.nonce: '0123456789abcdef0123456789abcdef'\n"
	"  tapboot.arch: 'x86_64'\n"
	"  tapboot.tests: '2'\n"
	"  tapboot.test.1: 'pass'\n"
	"  tapboot.test.2: 'it''s'\n"
	"actions:\n"
	"- deploy:\n"
	"    to: tmpfs\n"
	"    os: oe\n"
	"    timeout: {minutes: 5}\n"
	"    images:\n"
	"      kernel:\n"
	"        image_arg: '-kernel {kernel} -append \"console=ttyS0 rdinit=/init tapboot.nonce=0123456789abcdef0123456789abcdef tapboot.timeout=3\"'\n"
	"        url: 'file:///jobs/j1/vmlinuz'\n"
	"      ramdisk:\n"
	"        image_arg: '-initrd {ramdisk}'\n"
	"        url: 'file:///jobs/j1/initramfs.cpio'\n"
	"- boot:\n"
	"    method: qemu\n"
	"    media: tmpfs\n"
	"    timeout: {seconds: 123}\n"
	"- test:\n"
	"    timeout: {seconds: 86400}\n"
	"    monitors:\n"
	"    - name: tapboot\n"
	"      start: '# tapboot: begin'\n"
	"      end: '(?m)^(?:\\[[ 0-9.]+\\] )?Kernel panic - not syncing|^# tapboot: end'\n"
	"      pattern: '(?m)^(?=(?:not ok|ok) \\d+ (?P<test_case_id>[^#\\r\\n]*?) *(?:#[^\\r\\n]*)?\\r*\\n)(?:(?:not ok|ok) \\d+ [^#\\r\\n]*# (?=SKIP))?(?P<result>SKIP|not ok|ok)'\n"
	"      fixupdict:\n"
	"        'ok': pass\n"
	"        'not ok': fail\n"
	"        'SKIP': skip\n";

static const char want_device[] =
	"# device.yaml: a qemu device dictionary for lava-run (tapboot lava-job " TAPBOOT_VERSION ")\n"
	"available_architectures: [x86_64]\n"
	"constants:\n"
	"  kernel-start-message: 'Linux version [0-9]'\n"
	"  shutdown-message: 'The system is going down for reboot NOW'\n"
	"  default-shell-prompt: 'lava-test: # '\n"
	"  spawn_maxread: '4092'\n"
	"  failure_retry: 1\n"
	"  boot_retry: 1\n"
	"  posix: {lava_test_sh_cmd: /bin/sh, lava_test_results_dir: /lava-%s, lava_test_shell_file: ~/.bashrc}\n"
	"actions:\n"
	"  deploy:\n"
	"    methods:\n"
	"      image: {parameters: {guest: {size: 512, interface: ide, driveid: lavatest}}}\n"
	"  boot:\n"
	"    connections: {serial: }\n"
	"    methods:\n"
	"      qemu:\n"
	"        parameters:\n"
	"          command: qemu-system-x86_64\n"
	"          options:\n"
	"          - -nographic\n"
	"          - -nic none\n"
	"          - -m 512\n"
	"          - -monitor none\n"
	"          - '-machine q35'\n"
	"          - '-cpu qemu64'\n"
	"          - '-smp 1'\n"
	"          - '-no-reboot'\n"
	"timeouts: {actions: {}, connections: {}}\n";
/* clang-format on */

static void export_init(struct run_export *x, const char *arch, const char *machine,
			const char *cpu)
{
	memset(x, 0, sizeof(*x));
	strlist_init(&x->tests);
	x->dir = xstrdup("/jobs/j1");
	x->image = xstrdup("/jobs/j1/initramfs.cpio");
	x->kernel_image = xstrdup("/k/vmlinuz");
	x->cmdline = xstrdup(CMDLINE);
	strcpy(x->nonce, NONCE);
	x->arch = xstrdup(arch);
	x->qemu = xasprintf("qemu-system-%s", !strcmp(arch, "ppc64le") ? "ppc64" : arch);
	x->console = xstrdup("ttyS0");
	x->machine = xstrdup(machine);
	x->cpu = xstrdup(cpu);
	x->memory_mb = 512;
	x->smp = 1;
	x->longest_s = 3;
	strlist_push(&x->tests, "pass");
	strlist_push(&x->tests, "it's");
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, n) && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

static void t_x86_64(void)
{
	struct run_export x;
	char *job, *dev;

	export_init(&x, "x86_64", "q35", "qemu64");
	job = lava_job_yaml(&x, false, NULL, "vmlinuz");
	dev = lava_device_yaml(&x, false);
	check_str(job, want_job);
	check_str(dev, want_device);
	free(job);
	free(dev);
	run_export_release(&x);
}

static void t_arches(void)
{
	struct run_export x;
	char *job, *dev;

	/* arm and arm64: machine and cpu are context variables, not extra options */
	export_init(&x, "arm", "virt,highmem=off", "cortex-a15");
	job = lava_job_yaml(&x, false, NULL, "zImage");
	check(has_line(job, "  arch: arm"));
	check(has_line(job, "  machine: 'virt,highmem=off'"));
	check(has_line(job, "  cpu: 'cortex-a15'"));
	check(!has_line(job, "  - '-machine virt,highmem=off'"));
	check(!has_line(job, "  - '-cpu cortex-a15'"));
	check(has_line(job, "  - '-smp 1'"));
	check(has_line(job, "        url: 'file:///jobs/j1/zImage'"));
	/* the local rendering has them all */
	dev = lava_device_yaml(&x, false);
	check(has_line(dev, "          - '-machine virt,highmem=off'"));
	check(has_line(dev, "          - '-cpu cortex-a15'"));
	free(job);
	free(dev);
	run_export_release(&x);

	/* ppc64le: LAVA's qemu type knows it as ppc64; machine in the extra options */
	export_init(&x, "ppc64le", "pseries,x-vof=on", "");
	job = lava_job_yaml(&x, false, NULL, "vmlinux");
	dev = lava_device_yaml(&x, false);
	check(has_line(job, "  arch: ppc64"));
	check(has_line(job, "  - '-machine pseries,x-vof=on'"));
	check(strstr(job, "-cpu") == NULL);
	check(strstr(job, "  cpu:") == NULL && strstr(job, "  machine:") == NULL);
	check(has_line(dev, "available_architectures: [ppc64]"));
	check(has_line(dev, "          command: qemu-system-ppc64"));
	free(job);
	free(dev);
	run_export_release(&x);
}

static void t_kvm_url_base(void)
{
	struct run_export x;
	char *job, *dev;

	export_init(&x, "x86_64", "q35", "qemu64");
	x.deadline_s = 100;
	x.longest_s = 0;
	job = lava_job_yaml(&x, true, "https://files.example.org/t1", "vmlinuz");
	dev = lava_device_yaml(&x, true);
	/* KVM: no no_kvm, and the template's -cpu host instead of the TCG cpu */
	check(strstr(job, "no_kvm") == NULL);
	check(strstr(job, "-cpu") == NULL);
	check(has_line(dev, "          - -cpu host"));
	check(has_line(dev, "          - -enable-kvm"));
	check(strstr(dev, "-cpu qemu64") == NULL);
	check(has_line(job, "        url: 'https://files.example.org/t1/vmlinuz'"));
	check(has_line(job, "        url: 'https://files.example.org/t1/initramfs.cpio'"));
	/* the whole-run deadline for the job and the test; no test timeout: a day's silence */
	check(has_line(job, "  job: {seconds: 700}"));
	check(has_line(job, "  action: {seconds: 100}"));
	check(has_line(job, "    timeout: {seconds: 86400}"));
	check(has_line(job, "    timeout: {seconds: 100}"));
	free(job);
	free(dev);
	run_export_release(&x);
}

struct write_call {
	struct run_export *x;
	bool kvm;
	const char *url_base;
};

static int call_write(void *arg)
{
	struct write_call *c = arg;

	return lava_job_write(c->x, c->kvm, c->url_base);
}

/* An export as run/ leaves it: DIR with initramfs.cpio, the kernel elsewhere. */
static void export_on_disk(struct run_export *x, const char *name, const char *kernel_name)
{
	export_init(x, "x86_64", "q35", "qemu64");
	free(x->dir);
	free(x->image);
	free(x->kernel_image);
	x->dir = xasprintf("%s/%s", test_tmpdir(), name);
	mkdir(x->dir, 0755);
	x->image = xasprintf("%s/initramfs.cpio", x->dir);
	x->kernel_image = xstrdup(test_write_file(kernel_name, "KERNEL", 6, 0));
	fclose(fopen(x->image, "w"));
}

static bool exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool ret = access(p, F_OK) == 0;

	free(p);
	return ret;
}

static void t_write(void)
{
	struct run_export x;
	struct write_call c = {&x, false, NULL};
	char *err, *p, *text, *want;
	int ret;

	export_on_disk(&x, "ok", "vmlinuz-6.1");
	err = test_capture_stderr(call_write, &c, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	p = xasprintf("%s/vmlinuz-6.1", x.dir);
	text = test_read_file(p, NULL);
	check_str(text, "KERNEL");
	free(text);
	free(p);
	p = xasprintf("%s/job.yaml", x.dir);
	text = test_read_file(p, NULL);
	want = lava_job_yaml(&x, false, NULL, "vmlinuz-6.1");
	check_str(text, want);
	free(want);
	free(text);
	free(p);
	p = xasprintf("%s/dispatcher.yaml", x.dir);
	text = test_read_file(p, NULL);
	check_str(text, lava_dispatcher_yaml);
	free(text);
	free(p);
	check(exists(x.dir, "device.yaml"));
	check(!exists(x.dir, "job.yaml.tmp"));
	free(err);
	run_export_release(&x);

	/* a kernel named like one of the job's files is "kernel" there */
	export_on_disk(&x, "renamed", "initramfs.cpio");
	err = test_capture_stderr(call_write, &c, &ret);
	check_int(ret, ==, 0);
	check(exists(x.dir, "kernel"));
	free(err);
	run_export_release(&x);
}

static void t_write_refused(void)
{
	static const char *const why[] = {
		"tapboot: tests 'pass' and 'Pass' are both 'pass' in LAVA (it lower-cases names "
		"and turns other characters to '_'): rename one\n",
		"tapboot: the kernel command line holds a '\"' or a line break, which LAVA's "
		"image_arg cannot carry: 'console=ttyS0 a=\"b\"'\n",
		"tapboot: lava-job needs at least one TEST\n",
	};
	struct run_export x;
	struct write_call c = {&x, false, NULL};

	for (size_t i = 0; i < ARRAY_SIZE(why); i++) {
		char *err;
		int ret;

		export_on_disk(&x, "refused", "vmlinuz");
		if (i == 0) {
			strlist_push(&x.tests, "Pass");
		} else if (i == 1) {
			free(x.cmdline);
			x.cmdline = xstrdup("console=ttyS0 a=\"b\"");
		} else {
			strlist_release(&x.tests);
			strlist_init(&x.tests);
		}
		err = test_capture_stderr(call_write, &c, &ret);
		check_int(ret, ==, -1);
		check_str(err, why[i]);
		/* no half-made job: the directory run/ made is gone with its image */
		check(access(x.dir, F_OK) < 0);
		free(err);
		run_export_release(&x);
	}

	/* the kernel cannot be read: said, nothing left */
	export_on_disk(&x, "nokernel", "vmlinuz");
	free(x.kernel_image);
	x.kernel_image = xasprintf("%s/no-such-kernel", test_tmpdir());
	{
		char *err,
			*want = xasprintf("tapboot: cannot open '%s': No such file or directory\n",
					  x.kernel_image);
		int ret;

		err = test_capture_stderr(call_write, &c, &ret);
		check_int(ret, ==, -1);
		check_str(err, want);
		check(access(x.dir, F_OK) < 0);
		free(want);
		free(err);
	}
	run_export_release(&x);
}

int main(void)
{
	error_set_prog("tapboot");
	TEST(t_x86_64, "x86_64 under TCG: the whole job.yaml and device.yaml");
	TEST(t_arches, "arm: cpu and machine in the context; ppc64le: LAVA's ppc64");
	TEST(t_kvm_url_base, "--kvm: no no_kvm, the template's -cpu host; --url-base; timeouts");
	TEST(t_write, "lava_job_write: the kernel, job, device and dispatcher files");
	TEST(t_write_refused, "lava_job_write refuses what LAVA cannot carry, leaves nothing");
	return test_done();
}
