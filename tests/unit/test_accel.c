// SPDX-License-Identifier: GPL-2.0-only
/* test_accel.c: the accelerator and VM-count decisions of run/accel.c, without QEMU or KVM:
 * -j auto under plenty and little memory, TCG threading, --accel, the KVM probe's remembered
 * failure, the host architecture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "accel.h"
#include "harness.h"
#include "run.h"

static void t_auto_jobs(void)
{
	/* CPUs + 1, as make -j N+1 */
	check_int(accel_auto_jobs(2, 1024, 0), ==, 3);
	check_int(accel_auto_jobs(2, 1024, 16ULL << 20), ==, 3);
	/* low memory: as many as fit with 128 MiB of QEMU's own each, never fewer than one */
	check_int(accel_auto_jobs(2, 1024, 2400ULL * 1024), ==, 2);
	check_int(accel_auto_jobs(2, 1024, 2000ULL * 1024), ==, 1);
	check_int(accel_auto_jobs(8, 1024, 100ULL * 1024), ==, 1);
	check_int(accel_auto_jobs(8, 256, 1536ULL * 1024), ==, 4);
	/* unknown CPU count: one; a huge host: at most 64 */
	check_int(accel_auto_jobs(0, 1024, 0), ==, 1);
	check_int(accel_auto_jobs(-1, 1024, 0), ==, 1);
	check_int(accel_auto_jobs(256, 64, 1ULL << 40), ==, 64);
}

struct fixture {
	struct run_opts o;
	struct run r;
	struct run_target t;
};

static void setup(struct fixture *f, const char *arch)
{
	run_opts_init(&f->o);
	f->t = (struct run_target){"bzImage", NULL};
	run_init(&f->r, &f->o, &f->t, NULL);
	f->r.cfg.arch = strdup(arch);
	f->r.cfg.qemu = strdup("qemu-system-test");
	f->r.cfg.smp = 2;
	f->r.cfg.smp_tcg = 2;
}

static void teardown(struct fixture *f)
{
	run_release(&f->r);
	run_opts_release(&f->o);
}

static void t_tcg_threads(void)
{
	struct fixture f;

	setup(&f, "x86_64");
	/* 2 VMs x 2 vCPUs on 2 CPUs share the host; one VM, or enough CPUs, do not */
	check(accel_tcg_share_host(&f.r, 2, 2));
	check(!accel_tcg_share_host(&f.r, 1, 2));
	check(!accel_tcg_share_host(&f.r, 2, 4));
	check(!accel_tcg_share_host(&f.r, 2, 0));
	f.o.smp = 1;
	check(!accel_tcg_share_host(&f.r, 2, 2));
	check(accel_tcg_share_host(&f.r, 3, 2));
	/* under TCG the config's smp_tcg counts, not its smp (KVM's) */
	f.o.smp = 0;
	f.r.cfg.smp_tcg = 1;
	check(!accel_tcg_share_host(&f.r, 2, 2));
	check(accel_tcg_share_host(&f.r, 3, 2));
	teardown(&f);
}

static void t_accel_options(void)
{
	struct fixture f;
	char other[32];

	setup(&f, run_host_arch());
	f.o.accel = ACCEL_TCG;
	check(!accel_want_kvm(&f.r, "/nonexistent/kvm"));
	check_str(f.r.accel_note, "tcg (--accel tcg)");
	free(f.r.accel_note);
	f.o.accel = ACCEL_KVM;
	check(accel_want_kvm(&f.r, "/nonexistent/kvm"));
	check_str(f.r.accel_note, "kvm (--accel kvm)");
	free(f.r.accel_note);
	f.r.accel_note = NULL;
	teardown(&f);

	/* auto: a guest of another architecture never gets KVM */
	snprintf(other, sizeof(other), "%s", strcmp(run_host_arch(), "arm64") ? "arm64" : "x86_64");
	setup(&f, other);
	check(!accel_want_kvm(&f.r, "/nonexistent/kvm"));
	{
		char want[128];

		/* "an arm64", "an x86_64", "a riscv64" */
		snprintf(want, sizeof(want), "tcg (an %s guest on %s %s host)", other,
			 strchr("aeiox", run_host_arch()[0]) ? "an" : "a", run_host_arch());
		check_str(f.r.accel_note, want);
	}
	teardown(&f);

	/* auto, same arch, no /dev/kvm */
	setup(&f, run_host_arch());
	check(!accel_want_kvm(&f.r, "/nonexistent/kvm"));
	check_str(f.r.accel_note, "tcg (/nonexistent/kvm: No such file or directory)");
	teardown(&f);
}

static void t_kvm_remembered_failure(void)
{
	char *cache = malloc(strlen(test_tmpdir()) + 16), *file, *want;
	const char *kvm = test_write_file("fake-kvm", "", 0, 0644);
	struct fixture f;

	sprintf(cache, "%s/cache", test_tmpdir());
	setenv("XDG_CACHE_HOME", cache, 1);
	setup(&f, run_host_arch());
	/* a device that opens: auto takes KVM */
	check(accel_want_kvm(&f.r, kvm));
	check_str(f.r.accel_note, "kvm (auto)");
	free(f.r.accel_note);
	/* the boot probe failed: remembered, and the next auto run takes TCG and says why */
	accel_kvm_remember_broken(&f.r);
	check(!accel_want_kvm(&f.r, kvm));
	file = accel_kvm_cache_file();
	check(strncmp(file, cache, strlen(cache)) == 0);
	want = malloc(strlen(file) + 128);
	sprintf(want,
		"tcg (KVM failed to boot a guest here before, noted in %s; --accel kvm tries "
		"again)",
		file);
	check_str(f.r.accel_note, want);
	free(f.r.accel_note);
	/* --accel kvm tries again regardless */
	f.o.accel = ACCEL_KVM;
	check(accel_want_kvm(&f.r, kvm));
	free(f.r.accel_note);
	f.r.accel_note = NULL;
	f.o.accel = ACCEL_AUTO;
	teardown(&f);
	/* the note is per QEMU binary (and kernel release, guest arch): another QEMU is tried */
	setup(&f, run_host_arch());
	free(f.r.cfg.qemu);
	f.r.cfg.qemu = strdup("qemu-system-other");
	check(accel_want_kvm(&f.r, kvm));
	teardown(&f);
	free(want);
	free(file);
	free(cache);
	unsetenv("XDG_CACHE_HOME");
}

static void t_host_arch(void)
{
	struct utsname u;

	uname(&u);
	if (!strcmp(u.machine, "x86_64"))
		check_str(run_host_arch(), "x86_64");
	else if (!strcmp(u.machine, "aarch64"))
		check_str(run_host_arch(), "arm64");
	else
		check(run_host_arch() != NULL);
}

int main(void)
{
	TEST(t_auto_jobs, "-j auto: CPUs + 1, fewer when memory is short, 1 to 64");
	TEST(t_tcg_threads, "TCG thread=single only when VMs' vCPUs outnumber the CPUs");
	TEST(t_accel_options, "--accel tcg/kvm decide; auto: same arch and an openable /dev/kvm");
	TEST(t_kvm_remembered_failure, "a failed KVM probe is remembered per QEMU and kernel");
	TEST(t_host_arch, "the host architecture as users type it");
	return test_done();
}
