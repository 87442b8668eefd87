// SPDX-License-Identifier: GPL-2.0-only
/* accel.c: KVM or TCG (the auto decision and its remembered failures), -j auto, TCG threading,
 * and the host architecture (the one function of the tree that says it). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "accel.h"
#include "arch_config.h"
#include "cache.h"
#include "error.h"

const char *run_host_arch(void)
{
	const struct arch_config *h = arch_config_host();

	return h ? h->arch : "";
}

static char *kvm_cache_key(const struct run *r)
{
	struct utsname u;

	uname(&u);
	return xasprintf("%s %s %s", u.release, r->cfg.qemu, r->cfg.arch);
}

char *accel_kvm_cache_file(void)
{
	char *dir = cache_dir(), *f = xasprintf("%s/kvm-broken", dir);

	free(dir);
	return f;
}

static bool kvm_known_broken(const struct run *r)
{
	char *f = accel_kvm_cache_file(), *key = kvm_cache_key(r), line[512];
	FILE *fp = fopen(f, "r");
	bool broken = false;

	if (fp) {
		while (fgets(line, sizeof(line), fp)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strcmp(line, key))
				broken = true;
		}
		fclose(fp);
	}
	free(f);
	free(key);
	return broken;
}

void accel_kvm_remember_broken(const struct run *r)
{
	char *f = accel_kvm_cache_file(), *key = kvm_cache_key(r);
	FILE *fp = fopen(f, "a");

	if (fp) {
		fprintf(fp, "%s\n", key);
		fclose(fp);
	}
	free(f);
	free(key);
}

bool accel_want_kvm(struct run *r, const char *dev_kvm)
{
	int fd;

	if (r->o->accel == ACCEL_TCG) {
		r->accel_note = xstrdup("tcg (--accel tcg)");
		return false;
	}
	if (r->o->accel == ACCEL_KVM) {
		r->accel_note = xstrdup("kvm (--accel kvm)");
		return true;
	}
	if (strcmp(r->cfg.arch, run_host_arch())) {
		/* "an arm64 guest on an x86_64 host", "a riscv64 guest" */
		r->accel_note = xasprintf("tcg (%s %s guest on %s %s host)",
					  strchr("aeiox", r->cfg.arch[0]) ? "an" : "a", r->cfg.arch,
					  strchr("aeiox", run_host_arch()[0]) ? "an" : "a",
					  run_host_arch());
		return false;
	}
	fd = open(dev_kvm, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		r->accel_note = xasprintf("tcg (%s: %s)", dev_kvm, strerror(errno));
		return false;
	}
	close(fd);
	if (kvm_known_broken(r)) {
		char *f = accel_kvm_cache_file();

		r->accel_note = xasprintf("tcg (KVM failed to boot a guest here before, noted in "
					  "%s; --accel kvm tries again)",
					  f);
		free(f);
		return false;
	}
	r->accel_note = xstrdup("kvm (auto)");
	return true;
}

bool accel_tcg_share_host(const struct run *r, size_t nvms_at_once, long cpus)
{
	unsigned smp = r->o->smp ? r->o->smp : r->cfg.smp_tcg;

	/* configs/arm.conf: QEMU 7.2's armv7 guest with two vCPUs on one TCG thread hangs
	 * bringing up CPU1 (Debian's armmp kernel, every try) */
	if (r->cfg.tcg_single_hangs && smp > 1)
		return false;
	return nvms_at_once > 1 && cpus > 0 && nvms_at_once * (smp ? smp : 1) > (size_t)cpus;
}

unsigned accel_auto_jobs(long cpus, unsigned mem_mb, unsigned long long avail_kb)
{
	unsigned n = cpus > 0 ? (unsigned)cpus + 1 : 1;

	if (avail_kb && mem_mb) {
		unsigned long long fit = avail_kb / 1024 / ((unsigned long long)mem_mb + 128);

		if (fit < n)
			n = fit ? (unsigned)fit : 1;
	}
	return n > 64 ? 64 : n;
}

unsigned accel_run_jobs(const struct run *r)
{
	unsigned mem = r->o->memory_mb ? r->o->memory_mb : r->cfg.memory_mb;
	unsigned long long avail_kb = 0;
	char line[256];
	FILE *fp = fopen("/proc/meminfo", "r");

	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "MemAvailable: %llu kB", &avail_kb) == 1)
			break;
	if (fp)
		fclose(fp);
	return accel_auto_jobs(sysconf(_SC_NPROCESSORS_ONLN), mem, avail_kb);
}
