/* SPDX-License-Identifier: GPL-2.0-only */
/* accel.h: the accelerator and how many VMs at once (run/accel.c): decisions a unit test can
 * make without QEMU (tests/unit/test_accel.c). */
#ifndef TAPBOOT_ACCEL_H
#define TAPBOOT_ACCEL_H

#include <stdbool.h>
#include <stddef.h>

#include "vm.h"

/* The host's architecture as users type it (x86_64, arm64, ...), "" when no config knows it
 * (arch_config_host(): uname -m in the configs' uname_machine keys). */
const char *run_host_arch(void);

/* auto: KVM only when the guest matches the host, dev_kvm ("/dev/kvm") opens, and KVM was not
 * seen broken here before (accel_kvm_remember_broken); the boot itself is the final probe (see
 * run_boot()). --accel kvm and tcg decide alone. Sets r->accel_note to the reason. */
bool accel_want_kvm(struct run *r, const char *dev_kvm);
/* KVM opened but did not boot a guest to the init: remembered for this kernel release, QEMU
 * and guest arch in the cache directory's kvm-broken file, so the next auto run takes TCG. */
void accel_kvm_remember_broken(const struct run *r);
/* That file's path; caller frees. */
char *accel_kvm_cache_file(void);

/* Several VMs at once under TCG whose vCPUs outnumber the host's cpus: each VM gets one host
 * thread for all its vCPUs (thread=single) instead of one per vCPU. The guests still see --smp
 * CPUs; what changes is that 2 VMs x 2 vCPUs no longer fight over 2 cores. Measured here on 2
 * CPUs, 2 VMs of 2 vCPUs, interleaved: the demo kselftest tree 16.6-19.8 s against 18.3-20.1 s
 * with thread=multi (four runs each); 20 one-second tests 13.0-13.6 s against 13.5-14.1 s. */
bool accel_tcg_share_host(const struct run *r, size_t nvms_at_once, long cpus);

/* -j auto: one VM more than the host has cpus, as make -j N+1 (the tests' sleeps and a VM's
 * boot leave CPUs idle that another VM fills), but no more VMs than avail_kb (MemAvailable;
 * 0: unknown) holds with their mem_mb of guest memory plus 128 MiB of QEMU's own each; at
 * least 1, at most 64. Measured on the demo kselftest tree (x86_64, 2 CPUs, 1 GiB guests,
 * interleaved): -j 2 19.8-21.2 s, -j 3 16.0-20.1 s (median 16.7 of five), -j 4 19.1-19.5 s. */
unsigned accel_auto_jobs(long cpus, unsigned mem_mb, unsigned long long avail_kb);
/* accel_auto_jobs for this host (its CPUs, /proc/meminfo) and r's guest memory. */
unsigned accel_run_jobs(const struct run *r);

#endif
