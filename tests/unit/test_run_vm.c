// SPDX-License-Identifier: GPL-2.0-only
/* test_run_vm.c: run/'s VMs without QEMU: their kernel arguments and boot (vm.c, handoff.c), the
 * handoff line and the ready point, limits and why a run did not complete, and snapshot.c's
 * states, key lookup and checked files in a cache of the test's own. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filesum.h"
#include "harness.h"
#include "qemu_argv.h"
#include "run.h"
#include "vm.h"

struct fixture {
	struct run_opts o;
	struct run r;
	struct run_target t;
	struct vm vm;
};

/* A run of two tests (timeouts 10 and 20 s) on x86_64 with a kernel and image under the temp
 * dir; vm runs both, shard 0 of 2. */
static void setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	run_opts_init(&f->o);
	f->t = (struct run_target){"bzImage", NULL};
	run_init(&f->r, &f->o, &f->t, NULL);
	check_int(arch_config_load(&f->r.cfg, TAPBOOT_SRCDIR "/configs", "x86_64"), ==, 0);
	f->r.kernel_image = strdup(test_write_file("bzImage", "kernel", 6, 0));
	f->r.boot_kernel = strdup(f->r.kernel_image);
	f->r.initrd = strdup(test_write_file("initramfs.cpio", "initrd", 6, 0));
	f->r.dir = strdup(test_tmpdir());
	strcpy(f->r.nonce, "0123456789abcdef0123456789abcdef");
	for (size_t i = 0; i < sizeof(f->r.key); i++)
		f->r.key[i] = (unsigned char)(0xa0 + i);
	plan_add(&f->r.plan, "t1", "/tests/t1")->timeout_s = 10;
	plan_add(&f->r.plan, "t2", "/tests/t2")->timeout_s = 20;
	f->vm.r = &f->r;
	f->vm.index = 1;
	f->vm.tests = calloc(2, sizeof(size_t));
	f->vm.tests[0] = 0;
	f->vm.tests[1] = 1;
	f->vm.ntests = 2;
	f->vm.select_args = strdup("tapboot.shard=0/2");
	f->vm.proc.stdin_fd = -1;
	strlist_init(&f->vm.argv);
}

static void teardown(struct fixture *f)
{
	vm_release(&f->vm);
	run_release(&f->r);
	run_opts_release(&f->o);
}

static void t_kernel_args(void)
{
	struct fixture f;
	char *s;

	setup(&f);
	f.o.timeout_given = true;
	f.o.timeout_s = 5;
	strlist_push(&f.o.filters, "t*");
	f.o.append = "quiet=1";
	s = vm_kernel_args(&f.vm);
	check_str(s, "tapboot.nonce=0123456789abcdef0123456789abcdef tapboot.timeout=5 "
		     "tapboot.filter=t* tapboot.shard=0/2 quiet=1");
	free(s);
	/* a snapshot run: the same for every VM, the values come with the handoff line */
	f.r.snap.handoff = true;
	s = vm_kernel_args(&f.vm);
	check_str(s, "tapboot.handoff=1 quiet=1");
	free(s);
	s = vm_cold_kernel_args(&f.vm);
	check_str(s, "tapboot.nonce=0123456789abcdef0123456789abcdef tapboot.timeout=5 "
		     "tapboot.filter=t* tapboot.shard=0/2 quiet=1");
	free(s);
	f.o.append = NULL;
	s = vm_kernel_args(&f.vm);
	check_str(s, "tapboot.handoff=1");
	free(s);
	teardown(&f);
}

static void t_handoff_line(void)
{
	struct fixture f;
	char *s, *p;

	setup(&f);
	f.r.snap.handoff = true;
	s = vm_handoff_line(&f.vm);
	p = strstr(s, " tapboot.key=a0a1a2a3a4a5a6a7a8a9aaabacadaeaf tapboot.seed=");
	check(strncmp(s,
		      "tapboot.nonce=0123456789abcdef0123456789abcdef tapboot.shard=0/2 "
		      "tapboot.key=",
		      strlen("tapboot.nonce=0123456789abcdef0123456789abcdef tapboot.shard=0/2 "
			     "tapboot.key=")) == 0);
	check(p != NULL);
	if (p) {
		p += strlen(" tapboot.key=a0a1a2a3a4a5a6a7a8a9aaabacadaeaf tapboot.seed=");
		check_int(strspn(p, "0123456789abcdef"), ==, 64);
		check(strncmp(p + 64, " tapboot.time=", 14) == 0);
	}
	check(strstr(s, "tapboot.tests=") == NULL);
	check_int(s[strlen(s) - 1], ==, '\n');
	free(s);
	/* with a tests image: whether the guest keeps the saved tests or reads this run's */
	f.r.tests_image = strdup("/r/tests.cpio");
	s = vm_handoff_line(&f.vm);
	check(strstr(s, " tapboot.tests=load tapboot.time=") != NULL);
	free(s);
	f.vm.tests_in_ram = true;
	s = vm_handoff_line(&f.vm);
	check(strstr(s, " tapboot.tests=keep tapboot.time=") != NULL);
	free(s);
	teardown(&f);
}

/* The ready line at a line start, in any pieces, hands the VM its line once. */
static void t_scan_ready(void)
{
	struct fixture f;
	char buf[512];
	int fds[2];
	ssize_t n;

	setup(&f);
	f.r.snap.handoff = true;
	f.r.snap.state = SNAPSHOT_FIRST;
	check_int(pipe(fds), ==, 0);
	f.vm.proc.stdin_fd = fds[1];
	/* not at a line start, or longer: no handoff */
	vm_scan_ready(&f.vm, "x tapboot-init: ready\n", 22);
	vm_scan_ready(&f.vm, "tapboot-init: ready!\n", 21);
	check(!f.vm.handed_off);
	vm_scan_ready(&f.vm, "[ 1.0] boot\r\ntapboot-in", 23);
	check(!f.vm.handed_off);
	vm_scan_ready(&f.vm, "it: ready\r\nmore", 15);
	check(f.vm.handed_off);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	check(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	check(strstr(buf, "tapboot.nonce=0123456789abcdef0123456789abcdef tapboot.shard=0/2 "
			  "tapboot.key=a0a1a2a3a4a5a6a7a8a9aaabacadaeaf tapboot.seed=") == buf);
	check_int(buf[n > 0 ? n - 1 : 0], ==, '\n');
	check(strchr(buf, '\n') == buf + n - 1);
	close(fds[0]);
	f.vm.proc.stdin_fd = -1;
	teardown(&f);
}

/* The VM's boot: the run's files and machine, the monitor in a snapshot run, an unpacked kernel
 * named by its image's hash; the same key as qemu_snapshot_key gives for it. */
static void t_qemu_boot(void)
{
	struct fixture f;
	struct qemu_boot b;
	struct strlist argv;
	char *s;

	setup(&f);
	f.o.memory_mb = 768;
	f.o.cpu = "max";
	vm_qemu_boot(&f.vm, "console=ttyS0", &b);
	check(b.cfg == &f.r.cfg);
	check_int(b.mode, ==, QEMU_MODE_COLD);
	check_str(b.kernel, f.r.kernel_image);
	check_str(b.initrd, f.r.initrd);
	check_str(b.cmdline, "console=ttyS0");
	check_str(b.cpu, "max");
	check_int(b.memory_mb, ==, 768);
	check(!b.qmp && !b.kernel_from_sha256 && !b.tests_image && !b.saver_initrd);
	f.r.snap.handoff = true;
	f.r.tests_image = strdup("/r/tests.cpio");
	f.r.tests_size = 1 << 20;
	free(f.r.boot_kernel);
	f.r.boot_kernel = strdup("/cache/vmlinux/abc");
	strcpy(f.r.kernel_sha256, "abc");
	vm_qemu_boot(&f.vm, "console=ttyS0", &b);
	check(b.qmp);
	check_str(b.kernel, "/cache/vmlinux/abc");
	check_str(b.kernel_from_sha256, "abc");
	check_str(b.tests_image, "/r/tests.cpio");
	strlist_init(&argv);
	qemu_argv_build(&b, &argv);
	s = qemu_argv_shell(&argv);
	check(strstr(s, "qemu-system-x86_64 -M q35 -accel tcg,thread=multi -cpu max -m 768 ") == s);
	check(strstr(s, " -kernel /cache/vmlinux/abc -initrd ") != NULL);
	check(strstr(s, " -chardev socket,id=tapboot-qmp,fd=3 ") != NULL);
	free(s);
	strlist_release(&argv);
	/* the kernel's hash unknown: the unpacked file's own content counts */
	f.r.kernel_sha256[0] = '\0';
	vm_qemu_boot(&f.vm, "console=ttyS0", &b);
	check(b.kernel_from_sha256 == NULL);
	/* before vm_start: no command line for reproduce.sh */
	strlist_init(&argv);
	vm_cold_argv(&f.vm, &argv);
	check_int(argv.n, ==, 0);
	strlist_release(&argv);
	teardown(&f);
}

static void t_limits(void)
{
	struct fixture f;
	double idle, deadline;
	char *s;

	setup(&f);
	vm_limits(&f.vm, &idle, &deadline);
	/* the longest timeout and a minute; every timeout, 10 s each, the boot allowance */
	check_int((long)idle, ==, 80);
	check_int((long)deadline, ==, 10 + 10 + 20 + 10 + 120);
	f.o.idle_s = 7;
	vm_limits(&f.vm, &idle, &deadline);
	check_int((long)idle, ==, 7);
	f.o.idle_s = 0;
	f.o.timeout_given = true;
	f.o.timeout_s = 0; /* no timeout: no limits */
	vm_limits(&f.vm, &idle, &deadline);
	check_int((long)idle, ==, 0);
	check_int((long)deadline, ==, 0);
	f.o.timeout_given = false;
	f.vm.res = WATCH_IDLE;
	s = vm_cut_reason(&f.r, &f.vm);
	check_str(s, "no console output for 80 s: the guest hangs");
	free(s);
	f.vm.res = WATCH_DEADLINE;
	s = vm_cut_reason(&f.r, &f.vm);
	check_str(s, "the run passed its deadline of 170 s");
	free(s);
	f.vm.res = WATCH_NO_FIRST_LINE;
	s = vm_cut_reason(&f.r, &f.vm);
	check_str(s, "no console output from the guest");
	free(s);
	f.vm.res = WATCH_FINISHED;
	check(vm_cut_reason(&f.r, &f.vm) == NULL);
	f.vm.res = WATCH_QEMU_FATAL;
	f.vm.qemu_err = strdup("KVM internal error. Suberror: 1\nextra\n");
	f.r.accel = QEMU_ACCEL_KVM;
	s = vm_cut_reason(&f.r, &f.vm);
	check_str(s, "QEMU stopped the guest: KVM internal error. Suberror: 1 (KVM cannot run this "
		     "guest here; --accel tcg runs it without KVM)");
	free(s);
	teardown(&f);
}

static void t_error(void)
{
	struct fixture f;
	struct tap_summary sum;
	char *s, *want;

	setup(&f);
	memset(&sum, 0, sizeof(sum));
	s = vm_error(&f.r, &f.vm, &sum, NULL);
	check_str(s, "QEMU could not be started ('qemu-system-x86_64')");
	free(s);
	f.vm.spawned = true;
	f.vm.res = WATCH_EXITED;
	f.vm.qemu_status = 1 << 8;
	f.vm.qemu_err = strdup("warning: x\nqemu-system-x86_64: -bios qboot.rom: no such file\n\n");
	s = vm_error(&f.r, &f.vm, &sum, NULL);
	check_str(s, "the guest never reached tapboot's init (QEMU exited with an error: "
		     "qemu-system-x86_64: -bios qboot.rom: no such file)");
	free(s);
	/* QEMU itself failed (it exited with an error before the init): its words alone, even
	 * when QEMU booted what tapboot unpacked */
	free(f.r.boot_kernel);
	f.r.boot_kernel = strdup("/cache/vmlinux/abc");
	check(vm_qemu_failed(&f.vm));
	s = vm_error(&f.r, &f.vm, &sum, NULL);
	check_str(s, "the guest never reached tapboot's init (QEMU exited with an error: "
		     "qemu-system-x86_64: -bios qboot.rom: no such file)");
	free(s);
	/* a guest that hung (tapboot stopped QEMU at the idle limit) on what tapboot unpacked:
	 * --boot-as-is named */
	f.vm.res = WATCH_IDLE;
	f.vm.qemu_status = SIGTERM;
	check(!vm_qemu_failed(&f.vm));
	s = vm_error(&f.r, &f.vm, &sum, "no console output for 80 s: the guest hangs");
	want = malloc(strlen(f.r.kernel_image) + 256);
	sprintf(want,
		"no console output for 80 s: the guest hangs; QEMU booted the kernel tapboot "
		"unpacked on the host (/cache/vmlinux/abc): --boot-as-is boots '%s' itself",
		f.r.kernel_image);
	check_str(s, want);
	free(want);
	free(s);
	f.vm.begun = true;
	s = vm_error(&f.r, &f.vm, &sum, NULL);
	check_str(s, "the guest stopped before the end of the run (no end marker with this run's "
		     "nonce)");
	free(s);
	sum.crashed = true;
	sum.crash_line = strdup("Kernel panic - not syncing: x");
	s = vm_error(&f.r, &f.vm, &sum, NULL);
	check_str(s, "kernel crashed: Kernel panic - not syncing: x");
	free(s);
	free(sum.crash_line);
	sum.complete = true;
	check(vm_error(&f.r, &f.vm, &sum, NULL) == NULL);
	s = vm_last_line("a\nb\r\n\n");
	check_str(s, "b");
	free(s);
	s = vm_last_line("");
	check_str(s, "");
	free(s);
	teardown(&f);
}

static int do_fail(void *arg)
{
	struct run *r = arg;

	snapshot_fail(r, "the machine cannot");
	snapshot_fail(r, "again");
	return 0;
}

static void t_snapshot_states(void)
{
	struct fixture f;
	char *err;
	int ret;

	setup(&f);
	check_str(snapshot_state_name(SNAPSHOT_OFF), "off");
	check_str(snapshot_state_name(SNAPSHOT_BUILD), "saved by this run");
	check_str(snapshot_state_name(SNAPSHOT_READY), "restored");
	check_str(snapshot_state_name(SNAPSHOT_FAILED), "failed (cold boots)");
	f.o.no_snapshot = true;
	snapshot_setup(&f.r);
	check(!f.r.snap.handoff);
	check_int(f.r.snap.state, ==, SNAPSHOT_OFF);
	f.o.no_snapshot = false;
	snapshot_setup(&f.r);
	check(f.r.snap.handoff);
	check_int(f.r.snap.state, ==, SNAPSHOT_BUILD);
	/* said once, then cold boots */
	err = test_capture_stderr(do_fail, &f.r, &ret);
	check_str(err, "tapboot: snapshot boot off for this run: the machine cannot; the VMs boot "
		       "cold (the same results)\n");
	check_int(f.r.snap.state, ==, SNAPSHOT_FAILED);
	check(f.r.snap.handoff);
	free(err);
	teardown(&f);
}

static int do_lookup(void *arg)
{
	struct fixture *f = arg;
	struct qemu_boot b;
	char *cmdline = strdup("console=ttyS0 tapboot.handoff=1");

	f->r.snap.state = SNAPSHOT_BUILD;
	f->r.snap.key[0] = '\0';
	vm_qemu_boot(&f->vm, cmdline, &b);
	snapshot_lookup(&f->r, &b);
	free(cmdline);
	return 0;
}

static void write_sum(const char *path, const char *state, const char *ram, long grow)
{
	uint64_t ss, sz, rs, rz;
	FILE *fp;

	check_int(file_checksum(state, &ss, &sz), ==, 0);
	{
		/* the RAM is summed as a sparse file */
		uint64_t data;
		int fd = open(ram, O_RDONLY);

		check_int(file_checksum_sparse(fd, &rs, &data, &rz), ==, 0);
		close(fd);
	}
	fp = fopen(path, "w");
	fprintf(fp, "tapboot-snapshot 2 state %llu %016llx ram %llu %016llx %llu\n",
		(unsigned long long)sz + (unsigned long long)grow, (unsigned long long)ss,
		(unsigned long long)rz, (unsigned long long)rs, (unsigned long long)rz);
	fclose(fp);
}

/* The key names the files in the cache; the first one-VM run boots cold and marks the kernel
 * seen, the next saves; a whole snapshot is READY, a damaged one removed and said. */
static void t_snapshot_lookup(void)
{
	struct fixture f;
	struct qemu_boot b;
	char key[65], *cache = NULL, *want, *err;
	int ret;

	setup(&f);
	cache = malloc(strlen(test_tmpdir()) + 16);
	sprintf(cache, "%s/cache", test_tmpdir());
	setenv("XDG_CACHE_HOME", cache, 1);
	free(f.r.cfg.qemu);
	f.r.cfg.qemu = strdup("/nonexistent/qemu-system-x86_64");
	snapshot_setup(&f.r);
	f.r.nvms = 1;
	err = test_capture_stderr(do_lookup, &f, &ret);
	check_str(err, "");
	free(err);
	{
		char *cmdline = strdup("console=ttyS0 tapboot.handoff=1");

		vm_qemu_boot(&f.vm, cmdline, &b);
		qemu_snapshot_key(&b, "unknown", key); /* no such QEMU: "unknown" */
		free(cmdline);
	}
	check_str(f.r.snap.key, key);
	want = malloc(strlen(cache) + 512);
	sprintf(want, "%s/tapboot/snapshots/%s.state", cache, key);
	check_str(f.r.snap.path, want);
	check_int(f.r.snap.ram_size, ==, 512ull << 20);
	check_int(f.r.snap.state, ==, SNAPSHOT_FIRST);
	check_int(access(f.r.snap.seen_path, F_OK), ==, 0);
	/* seen before: this run saves it */
	free(test_capture_stderr(do_lookup, &f, &ret));
	check_int(f.r.snap.state, ==, SNAPSHOT_BUILD);
	/* a whole one: restored */
	{
		FILE *fp = fopen(f.r.snap.path, "w");

		fputs("state", fp);
		fclose(fp);
		fp = fopen(f.r.snap.ram_path, "w");
		fputs("ram!", fp);
		fclose(fp);
	}
	write_sum(f.r.snap.sum_path, f.r.snap.path, f.r.snap.ram_path, 0);
	err = test_capture_stderr(do_lookup, &f, &ret);
	check_str(err, "");
	free(err);
	check_int(f.r.snap.state, ==, SNAPSHOT_READY);
	/* the state file longer than its sum says: removed, said, saved again */
	write_sum(f.r.snap.sum_path, f.r.snap.path, f.r.snap.ram_path, -1);
	err = test_capture_stderr(do_lookup, &f, &ret);
	sprintf(want, "tapboot: snapshot '%s' is not usable: it has grown; saving it again\n",
		f.r.snap.path);
	check_str(err, want);
	free(err);
	check_int(f.r.snap.state, ==, SNAPSHOT_BUILD);
	check(access(f.r.snap.path, F_OK) < 0 && access(f.r.snap.ram_path, F_OK) < 0 &&
	      access(f.r.snap.sum_path, F_OK) < 0);
	free(want);
	unsetenv("XDG_CACHE_HOME");
	free(cache);
	f.r.nvms = 0; /* one VM counted, none made */
	teardown(&f);
}

int main(void)
{
	TEST(t_kernel_args, "a VM's kernel arguments, cold and in a snapshot run");
	TEST(t_handoff_line, "the handoff line: values, secret, seed, tests, time");
	TEST(t_scan_ready, "the ready line in pieces hands the VM its line, once");
	TEST(t_qemu_boot, "a VM's boot for qemu_argv: files, machine, monitor, unpacked kernel");
	TEST(t_limits, "idle and deadline limits, and what cut a console off");
	TEST(t_error, "why a VM's run did not complete");
	TEST(t_snapshot_states, "snapshot states, set-up, the fallback said once");
	TEST(t_snapshot_lookup, "the key names the cache files; first, save, restore, damaged");
	return test_done();
}
