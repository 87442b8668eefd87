// SPDX-License-Identifier: GPL-2.0-only
/* test_qemu_argv.c: the exact QEMU command lines for the shipped configs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_config.h"
#include "error.h"
#include "filehash.h"
#include "harness.h"
#include "qemu_argv.h"

static bool tcg_single; /* what the next argv_for() passes as qemu_boot.tcg_single */

static char *argv_for(const char *arch, enum qemu_accel accel, bool bzimage, const char *cpu)
{
	struct arch_config c;
	struct strlist argv;
	struct qemu_boot b = { 0 };
	char *cmdline, *s;

	arch_config_init(&c);
	strlist_init(&argv);
	if (arch_config_load(&c, TAPBOOT_SRCDIR "/configs", arch) < 0)
		return strdup("(no config)");
	cmdline = qemu_kernel_cmdline(&c, accel, "tapboot.nonce=ab");
	b.cfg = &c;
	b.kernel = "K";
	b.initrd = "I";
	b.cmdline = cmdline;
	b.accel = accel;
	b.bzimage = bzimage;
	b.cpu = cpu;
	b.tcg_single = tcg_single;
	qemu_argv_build(&b, &argv);
	s = qemu_argv_shell(&argv);
	strlist_release(&argv);
	arch_config_release(&c);
	free(cmdline);
	return s;
}

/* Every shipped config: the only network option is -nic none (no default NIC). */
static void test_no_nic(void)
{
	static const char *const arches[] = {"x86_64", "arm64", "arm", "i386", "riscv64",
					     "ppc64le"};

	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		for (int kvm = 0; kvm < 2; kvm++) {
			char *s = argv_for(arches[i], kvm ? QEMU_ACCEL_KVM : QEMU_ACCEL_TCG, false,
					   NULL);
			const char *nic = strstr(s, " -nic none ");

			check(nic != NULL);
			if (nic)
				check(strstr(nic + 1, " -nic ") == NULL);
			check(strstr(s, " -net ") == NULL);
			check(strstr(s, "-netdev") == NULL);
			check(strstr(s, "e1000") == NULL && strstr(s, "virtio-net") == NULL);
			if (!nic)
				printf("# %s: %s\n", arches[i], s);
			free(s);
		}
	}
}

static void test_x86_64(void)
{
	char *s = argv_for("x86_64", QEMU_ACCEL_TCG, false, NULL);

	check_str(s, "qemu-system-x86_64 -M q35 -accel tcg,thread=multi -cpu qemu64 "
		     "-m 512 -smp 1 -bios qboot.rom -no-reboot -display none -monitor none -serial stdio -nic none -kernel K "
		     "-initrd I -append 'console=ttyS0 panic=-1 oops=panic quiet rdinit=/init "
		     "watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 mitigations=off no_timer_check tsc=reliable 8250.nr_uarts=1 tapboot.nonce=ab'");
	free(s);
	/* a bzImage without PVH needs the PC machine's real-mode boot */
	s = argv_for("x86_64", QEMU_ACCEL_KVM, true, NULL);
	check(strstr(s, "-M q35 -accel kvm -cpu host ") != NULL);
	/* one vCPU under TCG (smp_tcg), the config's smp under KVM */
	check(strstr(s, " -smp 2 ") != NULL);
	free(s);
}

/* Several VMs sharing the host: one TCG thread per VM; KVM has no such option. */
static void test_tcg_single(void)
{
	char *s;

	tcg_single = true;
	s = argv_for("x86_64", QEMU_ACCEL_TCG, false, NULL);
	check(strstr(s, "-M q35 -accel tcg,thread=single -cpu qemu64 -m 512 -smp 1 ") != NULL);
	free(s);
	s = argv_for("x86_64", QEMU_ACCEL_KVM, false, NULL);
	check(strstr(s, "-M q35 -accel kvm -cpu host ") != NULL);
	free(s);
	tcg_single = false;
}

static void test_arm64(void)
{
	char *s = argv_for("arm64", QEMU_ACCEL_TCG, false, "max,pauth-impdef=on");

	check(strstr(s, "qemu-system-aarch64 -M virt,gic-version=3 -accel tcg,thread=multi "
			"-cpu max,pauth-impdef=on ") == s);
	check(strstr(s, "console=ttyAMA0 panic=-1") != NULL);
	free(s);
}

/* The other architectures' lines (their real boots are in tests/boot/50-arches.sh). */
static void test_others(void)
{
	char *s = argv_for("riscv64", QEMU_ACCEL_TCG, false, NULL);

	check_str(s, "qemu-system-riscv64 -M virt -accel tcg,thread=multi -cpu rv64 -m 512 -smp 1 "
		     "-bios /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin -no-reboot -display none -monitor none -serial stdio -nic none -kernel K -initrd I "
		     "-append 'console=ttyS0 panic=-1 oops=panic quiet rdinit=/init "
		     "watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 tapboot.nonce=ab'");
	free(s);
	s = argv_for("ppc64le", QEMU_ACCEL_TCG, false, NULL);
	check(strstr(s, "qemu-system-ppc64 -M pseries,x-vof=on -accel tcg,thread=multi -cpu power9 "
			"-m 1024 ") ==
	      s);
	check(strstr(s, "console=hvc0 ") != NULL);
	free(s);
	s = argv_for("arm", QEMU_ACCEL_TCG, false, NULL);
	check(strstr(s, "qemu-system-arm -M virt,highmem=off -accel tcg,thread=multi -cpu cortex-a15 ") ==
	      s);
	free(s);
	s = argv_for("i386", QEMU_ACCEL_TCG, true, NULL);
	check(strstr(s, "qemu-system-i386 -M pc ") == s);
	free(s);
	/* s390x: the console is the SCLP VT220 line QEMU attaches -serial to */
	s = argv_for("s390x", QEMU_ACCEL_TCG, false, NULL);
	check(strstr(s, "qemu-system-s390x -M s390-ccw-virtio -accel tcg,thread=multi -cpu qemu ") ==
	      s);
	check(strstr(s, "-serial stdio ") != NULL);
	check(strstr(s, "'console=ttysclp0 panic=-1 ") != NULL);
	free(s);
}

static void test_quoting(void)
{
	struct strlist l;
	char *s;

	strlist_init(&l);
	strlist_push(&l, "a b");
	strlist_push(&l, "it's");
	strlist_push(&l, "");
	strlist_push(&l, "plain-1.2,x=y");
	s = qemu_argv_shell(&l);
	check_str(s, "'a b' 'it'\\''s' '' plain-1.2,x=y");
	free(s);
	strlist_release(&l);
}

/* Snapshot boot's tests image: an ivshmem-plain device over the file, migratable (master=on). */
static void test_tests_image(void)
{
	struct arch_config c;
	struct strlist argv;
	struct qemu_boot b = {0};
	char *s;

	arch_config_init(&c);
	strlist_init(&argv);
	check_int(arch_config_load(&c, TAPBOOT_SRCDIR "/configs", "x86_64"), ==, 0);
	check_str(c.snapshot_tests, "ivshmem");
	b.cfg = &c;
	b.kernel = "K";
	b.initrd = "I";
	b.cmdline = "console=ttyS0";
	b.tests_image = "/r/tests.cpio";
	b.tests_size = 1 << 20;
	qemu_argv_build(&b, &argv);
	s = qemu_argv_shell(&argv);
	check(strstr(s,
		     " -object " QEMU_TESTS_OBJECT ",share=on,readonly=on,mem-path=/r/tests.cpio,size=1048576"
		     " -device ivshmem-plain,memdev=tapboot-tests,master=on") != NULL);
	free(s);
	strlist_release(&argv);
	arch_config_release(&c);
}

/* b for arch with files K and I (written under the temp dir when real_files), a tests image of
 * 1 MiB, the QMP monitor: a snapshot run's VM. */
static void snapshot_boot(struct arch_config *c, const char *arch, struct qemu_boot *b)
{
	arch_config_init(c);
	check_int(arch_config_load(c, TAPBOOT_SRCDIR "/configs", arch), ==, 0);
	*b = (struct qemu_boot){.cfg = c,
				.kernel = test_write_file("K", "kernel", 6, 0),
				.initrd = test_write_file("I", "initrd", 6, 0),
				.cmdline = "console=X tapboot.handoff=1",
				.tests_image = "/r/tests.cpio",
				.tests_size = 1 << 20,
				.qmp = true};
}

static char *shell_of(const struct qemu_boot *b)
{
	struct strlist argv;
	char *s;

	strlist_init(&argv);
	qemu_argv_build(b, &argv);
	s = qemu_argv_shell(&argv);
	strlist_release(&argv);
	return s;
}

/* The three modes of one VM, word for word: cold, the saver, a restored VM. */
static void test_modes(void)
{
	static const struct {
		const char *arch, *head;
	} arches[] = {
		{"x86_64", "qemu-system-x86_64 -M q35 -accel tcg,thread=multi -cpu qemu64 -m 512 "
			   "-smp 1 -bios qboot.rom"},
		{"arm64", "qemu-system-aarch64 -M virt,gic-version=3 -accel tcg,thread=multi -cpu "
			  "cortex-a57 -m 512 -smp 1"},
	};
	const char *fixed = " -no-reboot -display none -monitor none -serial stdio -nic none";
	const char *tests = " -object memory-backend-file,id=tapboot-tests,share=on,readonly=on,"
			    "mem-path=/r/tests.cpio,size=1048576 -device "
			    "ivshmem-plain,memdev=tapboot-tests,master=on";
	const char *qmp = " -chardev socket,id=tapboot-qmp,fd=3 -mon "
			  "chardev=tapboot-qmp,mode=control";
#define RAM(share)                                                                                 \
	" -object memory-backend-file,id=tapboot-ram,size=536870912,mem-path=/proc/self/fd/5,"     \
	"share=" share " -machine memory-backend=tapboot-ram"
	const char *ram_on = RAM("on"), *ram_off = RAM("off");

	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		struct arch_config c;
		struct qemu_boot b;
		char *s, *want, *boot;

		snapshot_boot(&c, arches[i].arch, &b);
		boot = xasprintf(" -kernel %s -initrd %s -append 'console=X tapboot.handoff=1'",
				 b.kernel, b.initrd);
		s = shell_of(&b);
		want = xasprintf("%s%s%s%s%s", arches[i].head, fixed, boot, tests, qmp);
		check_str(s, want);
		free(want);
		free(s);
		/* the saver: the same with its own initrd and its RAM shared */
		b.mode = QEMU_MODE_SAVE;
		b.saver_initrd = "/r/saver.cpio";
		s = shell_of(&b);
		free(boot);
		boot = xasprintf(" -kernel %s -initrd /r/saver.cpio -append 'console=X "
				 "tapboot.handoff=1'",
				 b.kernel);
		want = xasprintf("%s%s%s%s%s%s", arches[i].head, fixed, boot, tests, qmp, ram_on);
		check_str(s, want);
		free(want);
		free(s);
		/* restored: no kernel, initrd or command line; the state deferred; RAM private */
		b.mode = QEMU_MODE_RESTORE;
		s = shell_of(&b);
		want = xasprintf("%s%s%s%s -incoming defer%s", arches[i].head, fixed, tests, qmp,
				 ram_off);
		check_str(s, want);
		free(want);
		free(s);
		/* without the monitor and the tests image (a plain cold boot): neither */
		b.mode = QEMU_MODE_COLD;
		b.qmp = false;
		b.tests_image = NULL;
		s = shell_of(&b);
		check(strstr(s, "-chardev") == NULL && strstr(s, "-object") == NULL &&
		      strstr(s, "-incoming") == NULL);
		free(s);
		free(boot);
		arch_config_release(&c);
	}
}

/* The RAM file's size is -m's; the config's own -m in qemu_args counts last, as for QEMU. */
static void test_ram_size(void)
{
	struct arch_config c;
	struct qemu_boot b;
	char *orig;

	snapshot_boot(&c, "x86_64", &b);
	check_int(qemu_boot_ram_size(&b), ==, 512ull << 20);
	b.memory_mb = 768;
	check_int(qemu_boot_ram_size(&b), ==, 768ull << 20);
	orig = c.qemu_args;
	c.qemu_args = (char *)"-m 1024M -name x";
	check_int(qemu_boot_ram_size(&b), ==, 1024ull << 20);
	c.qemu_args = (char *)"-m 1G";
	check_int(qemu_boot_ram_size(&b), ==, 0);
	/* not a plain number: no RAM file in the saver's argv */
	b.mode = QEMU_MODE_SAVE;
	{
		char *s = shell_of(&b);

		check(strstr(s, "tapboot-ram") == NULL);
		check(strstr(s, " -m 768 ") != NULL);
		free(s);
	}
	c.qemu_args = orig;
	arch_config_release(&c);
}

/* The snapshot key: the same structure gives the same key in every mode; what the saved state
 * depends on changes it, what it does not (TCG's threading, the tests image's path) does not. */
static void test_snapshot_key(void)
{
	struct arch_config c;
	struct qemu_boot b;
	struct strbuf sb = STRBUF_INIT;
	char k0[65], k[65], kh[65], ih[65], *want;

	snapshot_boot(&c, "x86_64", &b);
	check_int(file_sha256(b.kernel, kh), ==, 0);
	check_int(file_sha256(b.initrd, ih), ==, 0);
	/* sha256 of "kernel" and of "initrd" */
	check_str(kh, "6923dd1bc0460082c5d55a831908c24a282860b7f1cd6c2b79cf1bc8857c639c");
	check_str(ih, "09e6c018d2c8c4903308613dd1b72484d57eadf12ec50ddc8f52e5accce470f2");
	qemu_snapshot_key_text(&b, "QEMU emulator version 9.2.1", &sb);
	/* the files by content, the tests image by size (not its path), TCG without threading */
	want = xasprintf(
		"tapboot snapshot 2 (the RAM apart)\nqemu QEMU emulator version 9.2.1\n"
		"qemu-system-x86_64\n-M\nq35\n-accel\ntcg\n-cpu\nqemu64\n-m\n512\n-smp\n1\n"
		"-bios\nqboot.rom\n-no-reboot\n-display\nnone\n-monitor\nnone\n-serial\n"
		"stdio\n-nic\nnone\n-kernel\nsha256:%s\n-initrd\nsha256:%s\n-append\n"
		"console=X tapboot.handoff=1\n-object\nmemory-backend-file,id=tapboot-tests "
		"tests image,size=1048576\n-device\nivshmem-plain,memdev=tapboot-tests,"
		"master=on\n-chardev\nsocket,id=tapboot-qmp,fd=3\n-mon\n"
		"chardev=tapboot-qmp,mode=control\n",
		kh, ih);
	check_str(sb.buf, want);
	free(want);
	strbuf_release(&sb);

	qemu_snapshot_key(&b, "v1", k0);
	check_int(strlen(k0), ==, 64);
	check_int(strspn(k0, "0123456789abcdef"), ==, 64);
	/* the mode, the saver's initrd, TCG's threading, the tests image's path: the same key */
	b.mode = QEMU_MODE_RESTORE;
	b.saver_initrd = "/elsewhere";
	b.tcg_single = true;
	b.tests_image = "/other/tests.cpio";
	qemu_snapshot_key(&b, "v1", k);
	check_str(k, k0);
	b.mode = QEMU_MODE_SAVE;
	qemu_snapshot_key(&b, "v1", k);
	check_str(k, k0);
	/* QEMU's version, the kernel's content, the memory, the tests image's size: another */
	qemu_snapshot_key(&b, "v2", k);
	check(strcmp(k, k0) != 0);
	b.kernel = test_write_file("K2", "kernel2", 7, 0);
	qemu_snapshot_key(&b, "v1", k);
	check(strcmp(k, k0) != 0);
	b.kernel = test_write_file("K3", "kernel", 6, 0); /* same content, other path */
	qemu_snapshot_key(&b, "v1", k);
	check_str(k, k0);
	b.memory_mb = 1024;
	qemu_snapshot_key(&b, "v1", k);
	check(strcmp(k, k0) != 0);
	b.memory_mb = 0;
	b.tests_size = 2 << 20;
	qemu_snapshot_key(&b, "v1", k);
	check(strcmp(k, k0) != 0);
	b.tests_size = 1 << 20;
	b.accel = QEMU_ACCEL_KVM;
	qemu_snapshot_key(&b, "v1", k);
	check(strcmp(k, k0) != 0);
	b.accel = QEMU_ACCEL_TCG;
	/* an unpacked kernel: named by its image's sha256, whatever the unpacked file holds */
	b.kernel_from_sha256 = "00ff";
	qemu_snapshot_key_text(&b, "v1", &sb);
	check(strstr(sb.buf, "\n-kernel\nunpacked K3 from sha256:00ff\n-initrd\n") != NULL);
	strbuf_release(&sb);
	qemu_snapshot_key(&b, "v1", k0);
	b.kernel = test_write_file("K3", "other", 5, 0);
	qemu_snapshot_key(&b, "v1", k);
	check_str(k, k0);
	arch_config_release(&c);
}

int main(void)
{
	TEST(test_x86_64, "x86_64: q35 under TCG and KVM");
	TEST(test_tcg_single, "thread=single when asked, under TCG only");
	TEST(test_arm64, "arm64: virt, CPU override");
	TEST(test_tests_image, "the tests image as an ivshmem device");
	TEST(test_others, "riscv64, ppc64le, arm, i386, s390x command lines");
	TEST(test_no_nic, "no default NIC (-nic none) for every architecture, TCG and KVM");
	TEST(test_quoting, "argv is shell-quoted for reproduce.sh");
	TEST(test_modes, "cold, save and restore argv for x86_64 and arm64, word for word");
	TEST(test_ram_size, "the RAM file's size: -m, the config's own -m last");
	TEST(test_snapshot_key, "the snapshot key from the structure: what changes it, what not");
	return test_done();
}
