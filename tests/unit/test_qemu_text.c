// SPDX-License-Identifier: GPL-2.0-only
/* test_qemu_text.c: QEMU options as text: LAVA's device context and a report's machine line. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "machine_line.h"
#include "qemu_lava.h"

static char *joined(const struct strlist *l)
{
	size_t n = 1;
	char *s;

	for (size_t i = 0; i < l->n; i++)
		n += strlen(l->v[i]) + 1;
	s = calloc(1, n);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			strcat(s, "|");
		strcat(s, l->v[i]);
	}
	return s;
}

static void check_context(const struct qemu_lava *l, bool with, const char *want)
{
	struct strlist opts;
	char *s;

	strlist_init(&opts);
	qemu_lava_context_options(l, with, &opts);
	s = joined(&opts);
	check_str(s, want);
	free(s);
	strlist_release(&opts);
}

static void test_lava_context(void)
{
	struct qemu_lava l = {"virt,gic-version=3", "max", 512, 2, false};

	check_context(&l, true, "-machine virt,gic-version=3|-cpu max|-smp 2|-no-reboot");
	check_context(&l, false, "-smp 2|-no-reboot");
	l.kvm = true;
	check_context(&l, true, "-machine virt,gic-version=3|-smp 2|-no-reboot");
	l.kvm = false;
	l.cpu = "";
	check_context(&l, true, "-machine virt,gic-version=3|-smp 2|-no-reboot");
	l.cpu = NULL;
	l.smp = 4;
	check_context(&l, true, "-machine virt,gic-version=3|-smp 4|-no-reboot");
}

static void test_lava_template(void)
{
	struct qemu_lava l = {"q35", "qemu64", 768, 1, false};
	struct strlist opts;
	char *s;

	strlist_init(&opts);
	qemu_lava_template_options(&l, &opts);
	s = joined(&opts);
	check_str(s, "-nographic|-nic none|-m 768|-monitor none");
	free(s);
	strlist_release(&opts);
	l.kvm = true;
	strlist_init(&opts);
	strlist_push(&opts, "first");
	qemu_lava_template_options(&l, &opts);
	s = joined(&opts);
	check_str(s, "first|-nographic|-nic none|-m 768|-monitor none|-cpu host|-enable-kvm");
	free(s);
	strlist_release(&opts);
	s = qemu_lava_kernel_arg("console=ttyS0 tapboot.nonce=ab");
	check_str(s, "-kernel {kernel} -append \"console=ttyS0 tapboot.nonce=ab\"");
	free(s);
	s = qemu_lava_ramdisk_arg();
	check_str(s, "-initrd {ramdisk}");
	free(s);
}

static void test_lava_boot_command(void)
{
	char *machine = strdup("old"), *arch = NULL;
	bool kvm = true;

	qemu_lava_read_boot_command("/usr/bin/qemu-system-aarch64 -cpu max -machine virt -smp 2 "
				    "-append \"console=ttyAMA0\"",
				    &machine, &arch, &kvm);
	check_str(machine, "virt");
	check_str(arch, "aarch64");
	check(!kvm);
	qemu_lava_read_boot_command("qemu-system-x86_64 -M q35 -enable-kvm", &machine, &arch, &kvm);
	check_str(machine, "q35");
	check_str(arch, "x86_64");
	check(kvm);
	qemu_lava_read_boot_command("qemu -machine accel=kvm", &machine, &arch, &kvm);
	check_str(machine, "accel=kvm");
	check(arch == NULL);
	check(kvm);
	qemu_lava_read_boot_command("qemu-system- -machine \"x\"", &machine, &arch, &kvm);
	check(machine == NULL);
	check(arch == NULL);
	check(!kvm);
	free(machine);
	free(arch);
}

static void test_machine_line(void)
{
	struct machine_line m;
	char *s;

	machine_line_parse("qemu-system-x86_64 -enable-kvm -cpu SandyBridge -smp 2 -m 16G", &m);
	check_str(m.smp, "2");
	check_str(m.memory, "16G");
	check_str(m.cpu, "SandyBridge");
	machine_line_release(&m);
	check(m.smp == NULL && m.memory == NULL && m.cpu == NULL);
	/* -m at the start; -machine and -smpx are not -m and -smp; the first one counts */
	machine_line_parse("-m 8G -machine q35 -smpx 3 -smp 4 -smp 8 x-cpu y", &m);
	check_str(m.memory, "8G");
	check_str(m.smp, "4");
	check(m.cpu == NULL);
	machine_line_release(&m);
	/* an option at the end with no value, and NULL */
	machine_line_parse("Intel(R) Xeon(R) -smp", &m);
	check(m.smp == NULL && m.memory == NULL && m.cpu == NULL);
	machine_line_release(&m);
	machine_line_parse(NULL, &m);
	check(m.smp == NULL && m.memory == NULL && m.cpu == NULL);
	machine_line_release(&m);

	s = machine_line_format("Haswell", "4", "8G");
	check_str(s, "Haswell -smp 4 -m 8G");
	free(s);
	s = machine_line_format("Haswell", NULL, "8G");
	check_str(s, "Haswell -m 8G");
	free(s);
	s = machine_line_format("Haswell", "2", NULL);
	check_str(s, "Haswell -smp 2");
	machine_line_parse(s, &m);
	check_str(m.smp, "2");
	machine_line_release(&m);
	free(s);
}

int main(void)
{
	TEST(test_lava_context, "LAVA's context options: machine, cpu (not under KVM), smp");
	TEST(test_lava_template, "LAVA's template options and image_args");
	TEST(test_lava_boot_command, "LAVA's boot command read back: machine, binary's arch, KVM");
	TEST(test_machine_line, "a machine line's -smp, -m, -cpu read and written");
	return test_done();
}
