/* test_qemu_argv.c: the exact QEMU command lines for the shipped configs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_config.h"
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
		     " -object " QEMU_TESTS_OBJECT ",share=on,mem-path=/r/tests.cpio,size=1048576"
		     " -device ivshmem-plain,memdev=tapboot-tests,master=on") != NULL);
	free(s);
	strlist_release(&argv);
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
	return test_done();
}
