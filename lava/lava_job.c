// SPDX-License-Identifier: GPL-2.0-only
/* lava_job.c: tapboot lava-job's writer: the run `tapboot run` would do, written as a LAVA job
 * (a monitors test on LAVA's stock qemu device type) plus a device and dispatcher file for
 * lava-run.
 *
 * Why monitors: a tapboot initramfs has no shell, so LAVA's test shell (which needs a login and
 * an overlay) cannot run; a monitor regex-matches tapboot's top-level TAP lines on the console.
 * tapboot's own parser stays the judge (tapboot lava-results); LAVA's verdicts are a cross-check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "lava_job.h"
#include "lava_log.h"
#include "qemu_lava.h"
#include "strbuf.h"

/* A YAML single-quoted scalar: only ' needs doubling. */
static void yq(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addch(sb, '\'');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

/* Which QEMU options LAVA's stock qemu.jinja2 (2023.01) takes from the job's context, per arch:
 * arm and arm64 read cpu and machine (default cortex-a57, which qemu-system-arm 7.2 lacks, and
 * virt); the others get neither, so -machine and -cpu go in extra_options. ppc64le is not in
 * its available_architectures: ppc64 (qemu-system-ppc64 runs little-endian guests). */
struct lava_arch {
	const char *lava_arch;
	bool context_cpu; /* cpu/machine as context variables */
};

static struct lava_arch lava_arch_of(const char *arch)
{
	struct lava_arch a = {arch, false};

	if (!strcmp(arch, "ppc64le"))
		a.lava_arch = "ppc64";
	if (!strcmp(arch, "arm") || !strcmp(arch, "arm64"))
		a.context_cpu = true;
	return a;
}


/* The machine the run would boot, as LAVA's qemu device type is asked for it. */
static struct qemu_lava lava_qemu_of(const struct run_export *x, bool kvm)
{
	return (struct qemu_lava){ .machine = x->machine, .cpu = x->cpu,
				   .memory_mb = x->memory_mb, .smp = x->smp, .kvm = kvm };
}
/* job.yaml. Timeouts: LAVA's monitor waits with the boot action's timeout as its silence limit
 * (the pexpect spawn inherits it: lava_dispatcher/shell.py in 2023.01), so the boot timeout is
 * tapboot run's idle limit (longest test timeout + its boot allowance); the test action gets
 * run's whole-run deadline. */
char *lava_job_yaml(const struct run_export *x, bool kvm, const char *url_base,
		    const char *kernel_name)
{
	struct strbuf sb = STRBUF_INIT;
	struct lava_arch la = lava_arch_of(x->arch);
	struct strlist opts;
	struct qemu_lava ql = lava_qemu_of(x, kvm);
	unsigned deadline = x->deadline_s ? x->deadline_s : 24 * 3600;
	unsigned idle = x->longest_s ? x->longest_s + 120 : 24 * 3600;
	char *s;

	strlist_init(&opts);
	/* arm's machine and cpu are context variables: not again in extra_options */
	qemu_lava_context_options(&ql, !la.context_cpu, &opts);
	strbuf_addf(&sb, "# job.yaml: written by tapboot lava-job " TAPBOOT_VERSION
			 " (submit: lavacli jobs submit job.yaml)\n"
			 "device_type: qemu\njob_name: ");
	s = xasprintf("tapboot %s: %zu test%s", x->arch, x->tests.n, x->tests.n == 1 ? "" : "s");
	yq(&sb, s);
	free(s);
	strbuf_addf(&sb,
		    "\nvisibility: public\npriority: medium\ntimeouts:\n"
		    "  job: {seconds: %u}\n  action: {seconds: %u}\n  connection: {minutes: 2}\n",
		    deadline + 600, deadline);
	strbuf_addf(&sb, "context:\n  arch: %s\n", la.lava_arch);
	if (!kvm)
		/* else the stock template adds -cpu host -enable-kvm, and validation fails on a
		 * worker without /dev/kvm */
		strbuf_addstr(&sb, "  no_kvm: true\n");
	strbuf_addf(&sb, "  memory: %u\n", x->memory_mb);
	if (la.context_cpu) {
		strbuf_addstr(&sb, "  machine: ");
		yq(&sb, x->machine);
		strbuf_addstr(&sb, "\n  cpu: ");
		yq(&sb, x->cpu);
		strbuf_addstr(&sb, "\n");
	}
	strbuf_addstr(&sb, "  extra_options:\n");
	for (size_t i = 0; i < opts.n; i++) {
		strbuf_addstr(&sb, "  - ");
		yq(&sb, opts.v[i]);
		strbuf_addch(&sb, '\n');
	}
	/* metadata values are strings (lava issue 610); tapboot.test.N map LAVA's normalised case
	 * ids back to the plan's names */
	strbuf_addstr(&sb, "metadata:\n  tapboot.version: '" TAPBOOT_VERSION "'\n");
	strbuf_addf(&sb, "  tapboot.nonce: '%s'\n  tapboot.arch: ", x->nonce);
	yq(&sb, x->arch);
	strbuf_addf(&sb, "\n  tapboot.tests: '%zu'\n", x->tests.n);
	for (size_t i = 0; i < x->tests.n; i++) {
		strbuf_addf(&sb, "  tapboot.test.%zu: ", i + 1);
		yq(&sb, x->tests.v[i]);
		strbuf_addch(&sb, '\n');
	}
	strbuf_addstr(&sb,
		      "actions:\n- deploy:\n    to: tmpfs\n    os: oe\n    timeout: {minutes: 5}\n"
		      "    images:\n      kernel:\n        image_arg: ");
	s = qemu_lava_kernel_arg(x->cmdline);
	yq(&sb, s);
	free(s);
	strbuf_addf(&sb, "\n        url: ");
	s = url_base ? xasprintf("%s/%s", url_base, kernel_name)
		     : xasprintf("file://%s/%s", x->dir, kernel_name);
	yq(&sb, s);
	free(s);
	strbuf_addstr(&sb, "\n      ramdisk:\n        image_arg: ");
	s = qemu_lava_ramdisk_arg();
	yq(&sb, s);
	free(s);
	strbuf_addstr(&sb, "\n        url: ");
	s = url_base ? xasprintf("%s/initramfs.cpio", url_base)
		     : xasprintf("file://%s/initramfs.cpio", x->dir);
	yq(&sb, s);
	free(s);
	/* no prompts, no auto_login: nothing waits for a shell the image does not have */
	strbuf_addf(&sb,
		    "\n- boot:\n    method: qemu\n    media: tmpfs\n    timeout: {seconds: %u}\n",
		    idle);
	/* pattern: the name is captured in a lookahead that needs the whole line (a half-received
	 * line in pexpect's buffer cannot match early; Python's re allows a group name once);
	 * result is SKIP for a skip directive, else ok / not ok. Only top-level lines: tapboot
	 * nests a test's own output 4 spaces deep. end: a kernel panic also ends the monitor, so
	 * it is a test result and not an infrastructure error (which would set a lab device's
	 * health to Unknown); (?m)^ keeps tapboot's indented copies of kernel lines out. */
	strbuf_addf(
		&sb,
		"- test:\n    timeout: {seconds: %u}\n    monitors:\n    - name: tapboot\n"
		"      start: '# tapboot: begin'\n"
		"      end: '(?m)^(?:\\[[ 0-9.]+\\] )?Kernel panic - not syncing|^# tapboot: end'\n"
		"      pattern: '(?m)^(?=(?:not ok|ok) \\d+ (?P<test_case_id>[^#\\r\\n]*?) "
		"*(?:#[^\\r\\n]*)?\\r*\\n)"
		"(?:(?:not ok|ok) \\d+ [^#\\r\\n]*# (?=SKIP))?(?P<result>SKIP|not ok|ok)'\n"
		"      fixupdict:\n        'ok': pass\n        'not ok': fail\n        'SKIP': "
		"skip\n",
		deadline);
	strlist_release(&opts);
	return strbuf_detach(&sb);
}

/* device.yaml: for lava-run with no server. A server renders the stock qemu.jinja2 with the
 * job's context; this is that rendering written out, so the local QEMU line is the lab's:
 * the template's fixed options, then what the context asks for. */
char *lava_device_yaml(const struct run_export *x, bool kvm)
{
	struct strbuf sb = STRBUF_INIT;
	struct lava_arch la = lava_arch_of(x->arch);
	struct strlist fixed, opts;
	struct qemu_lava ql = lava_qemu_of(x, kvm);

	strlist_init(&fixed);
	strlist_init(&opts);
	qemu_lava_template_options(&ql, &fixed);
	qemu_lava_context_options(&ql, true, &opts);
	strbuf_addf(&sb,
		    "# device.yaml: a qemu device dictionary for lava-run (tapboot "
		    "lava-job " TAPBOOT_VERSION ")\n"
		    "available_architectures: [%s]\n"
		    "constants:\n"
		    "  kernel-start-message: 'Linux version [0-9]'\n"
		    "  shutdown-message: 'The system is going down for reboot NOW'\n"
		    "  default-shell-prompt: 'lava-test: # '\n"
		    "  spawn_maxread: '4092'\n"
		    "  failure_retry: 1\n"
		    "  boot_retry: 1\n"
		    "  posix: {lava_test_sh_cmd: /bin/sh, lava_test_results_dir: /lava-%%s, "
		    "lava_test_shell_file: ~/.bashrc}\n"
		    "actions:\n"
		    "  deploy:\n"
		    "    methods:\n"
		    "      image: {parameters: {guest: {size: 512, interface: ide, driveid: "
		    "lavatest}}}\n"
		    "  boot:\n"
		    "    connections: {serial: }\n"
		    "    methods:\n"
		    "      qemu:\n"
		    "        parameters:\n"
		    "          command: %s\n"
		    "          options:\n",
		    la.lava_arch, x->qemu);
	/* the template's own, as it writes them (plain scalars) */
	for (size_t i = 0; i < fixed.n; i++)
		strbuf_addf(&sb, "          - %s\n", fixed.v[i]);
	for (size_t i = 0; i < opts.n; i++) {
		strbuf_addstr(&sb, "          - ");
		yq(&sb, opts.v[i]);
		strbuf_addch(&sb, '\n');
	}
	strbuf_addstr(&sb, "timeouts: {actions: {}, connections: {}}\n");
	strlist_release(&fixed);
	strlist_release(&opts);
	return strbuf_detach(&sb);
}

/* dispatcher_ip: without it, lava-run looks for the default gateway for {NFS_SERVER_IP} and
 * fails where there is none (lava_dispatcher/utils/network.py). prefix: the download directory
 * is /var/lib/lava/dispatcher/tmp/<prefix><job id> in 2023.01. */
const char lava_dispatcher_yaml[] =
	"# dispatcher.yaml: for lava-run with no server (tapboot lava-job)\n"
	"dispatcher_ip: 127.0.0.1\n"
	"prefix: 'tapboot-'\n";

static int write_text(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	int ret = write_string_atomic(path, 0, 0, text, strlen(text));

	free(path);
	return ret;
}

/* LAVA names a case by its normalised name: two tests that normalise alike would be one case in
 * LAVA, and the cross-check could not tell them apart. */
static int check_case_ids(const struct strlist *tests)
{
	for (size_t i = 0; i < tests->n; i++) {
		char *a = lava_case_id(tests->v[i]);

		for (size_t j = 0; j < i; j++) {
			char *b = lava_case_id(tests->v[j]);
			bool same = !strcmp(a, b);

			free(b);
			if (same) {
				error("tests '%s' and '%s' are both '%s' in LAVA (it lower-cases "
				      "names and turns other characters to '_'): rename one",
				      tests->v[j], tests->v[i], a);
				free(a);
				return -1;
			}
		}
		free(a);
	}
	return 0;
}

static int check_export(const struct run_export *x)
{
	if (!x->tests.n)
		return error("lava-job needs at least one TEST");
	if (strchr(x->cmdline, '"') || strchr(x->cmdline, '\n'))
		return error("the kernel command line holds a '\"' or a line break, which LAVA's "
			     "image_arg cannot carry: '%s'",
			     x->cmdline);
	return check_case_ids(&x->tests);
}

/* The kernel's name in the job directory: its own, unless it would be one of the job's files. */
static char *kernel_name(const char *image)
{
	const char *base = strrchr(image, '/') ? strrchr(image, '/') + 1 : image;

	if (!strcmp(base, "initramfs.cpio") || strstr(base, ".yaml"))
		return xstrdup("kernel");
	return xstrdup(base);
}

/* Bad input: leave no half-made job behind. */
static void remove_job(const struct run_export *x, const char *kpath)
{
	static const char *const names[] = {"job.yaml", "device.yaml", "dispatcher.yaml",
					    "initramfs.cpio"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *p = xasprintf("%s/%s", x->dir, names[i]);

		unlink(p);
		free(p);
	}
	if (kpath)
		unlink(kpath);
	rmdir(x->dir);
}

int lava_job_write(const struct run_export *x, bool kvm, const char *url_base)
{
	char *job = NULL, *dev = NULL, *kname = NULL, *kpath = NULL;
	int ret = -1;

	if (check_export(x) < 0)
		goto out;
	kname = kernel_name(x->kernel_image);
	kpath = xasprintf("%s/%s", x->dir, kname);
	if (copy_file_atomic(x->kernel_image, kpath, 0) < 0)
		goto out;
	job = lava_job_yaml(x, kvm, url_base, kname);
	dev = lava_device_yaml(x, kvm);
	if (write_text(x->dir, "job.yaml", job) < 0 || write_text(x->dir, "device.yaml", dev) < 0 ||
	    write_text(x->dir, "dispatcher.yaml", lava_dispatcher_yaml) < 0)
		goto out;
	ret = 0;
out:
	if (ret)
		remove_job(x, kpath);
	free(job);
	free(dev);
	free(kname);
	free(kpath);
	return ret;
}
