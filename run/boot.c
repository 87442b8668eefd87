// SPDX-License-Identifier: GPL-2.0-only
/* boot.c: the VMs of a run in a pool of -j slots, and the KVM probe's fallback to TCG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accel.h"
#include "error.h"
#include "vm.h"

/* The VMs of one attempt, r->jobs at a time: a slot whose VM ends takes the next one, so a long
 * test holds one slot, not a whole wave (--isolate: one VM per test). */
struct pool {
	struct run *r;
	struct vm **slot_vm; /* the VM in each slot, NULL when none */
	size_t next;	     /* the next VM to start */
	bool probe_kvm, stop;
	bool any_begun;
	struct vm *kvm_failed;
};

/* Start VMs from p->next into slot until one runs; false when none is left. */
static bool pool_start(struct pool *p, size_t slot, struct qemu_proc *ps, struct watch_opts *os)
{
	struct run *r = p->r;

	while (!p->stop && !r->interrupted && p->next < r->nvms) {
		struct vm *vm = &r->vms[p->next++];

		vm->res = WATCH_EXITED;
		if (vm_start(vm) < 0)
			continue;
		if (vm->restore && vm_resume_restored(vm) < 0 && vm_start(vm) < 0)
			continue;
		*ps = vm->proc;
		*os = (struct watch_opts){.signal_fd = -1,
					  .on_console = vm_console_data,
					  .on_tick = vm_tick,
					  .ctx = vm};
		vm_limits(vm, &os->idle_s, &os->deadline_s);
		/* KVM boots to the init in about a second where it works; 15 s covers a busy
		 * host. */
		if (p->probe_kvm)
			os->first_line_s = 15;
		p->slot_vm[slot] = vm;
		return true;
	}
	p->slot_vm[slot] = NULL;
	return false;
}

/* A slot's VM is over: keep what it left. */
static void pool_collect(struct pool *p, size_t slot, struct qemu_proc *proc,
			 enum watch_result res)
{
	struct vm *vm = p->slot_vm[slot];

	if (!vm)
		return;
	vm->proc = *proc;
	vm->res = res;
	vm->qemu_status = vm->proc.exited ? vm->proc.status : -1;
	vm->qemu_err = xstrdup(vm->proc.err.buf ? vm->proc.err.buf : "");
	if (res == WATCH_INTERRUPTED)
		p->r->interrupted = true;
	p->any_begun |= vm->begun;
	if (res == WATCH_QEMU_FATAL && !p->kvm_failed)
		p->kvm_failed = vm;
	/* probing KVM: no more VMs once it failed, or once one ended without reaching the
	 * init while none did */
	if (p->probe_kvm && (p->kvm_failed || !p->any_begun))
		p->stop = true;
	p->slot_vm[slot] = NULL;
}

static bool pool_refill(void *ctx, size_t slot, struct qemu_proc *ps, struct watch_opts *os,
			enum watch_result res)
{
	struct pool *p = ctx;

	pool_collect(p, slot, ps, res);
	return pool_start(p, slot, ps, os);
}

static void boot_pool(struct pool *p, size_t jobs, int sigfd)
{
	struct run *r = p->r;
	struct qemu_proc *ps = xcalloc(jobs, sizeof(*ps));
	struct watch_opts *os = xcalloc(jobs, sizeof(*os));
	enum watch_result *res = xcalloc(jobs, sizeof(*res));
	size_t live = 0;

	p->slot_vm = xcalloc(jobs, sizeof(*p->slot_vm));
	while (live < jobs && pool_start(p, live, &ps[live], &os[live]))
		live++;
	if (live)
		qemu_watch_pool(ps, os, res, live, sigfd, &r->signo, pool_refill, p);
	/* what is left in a slot: the VMs a signal stopped */
	for (size_t j = 0; j < live; j++)
		pool_collect(p, j, &ps[j], res[j]);
	free(p->slot_vm);
	free(res);
	free(os);
	free(ps);
}

/* Every VM, at most r->jobs at a time; KVM under auto falls back to TCG once. */
void run_boot(struct run *r, int sigfd)
{
	size_t jobs = r->jobs ? r->jobs : 1;
	/* TAPBOOT_KVM_DEVICE: another device node to try (tests/boot/25-forgery.sh makes auto
	 * probe KVM with a QEMU that fails it, on a host without /dev/kvm) */
	const char *kvm_dev =
		getenv("TAPBOOT_KVM_DEVICE") ? getenv("TAPBOOT_KVM_DEVICE") : "/dev/kvm";
	bool kvm = accel_want_kvm(r, kvm_dev);
	size_t at_once = r->nvms < jobs ? r->nvms : jobs;

	for (int attempt = 0; attempt < 2; attempt++) {
		bool probe = kvm && r->o->accel == ACCEL_AUTO, any_begun = false;
		struct vm *kvm_failed = NULL;

		if (attempt && r->snap.state != SNAPSHOT_OFF && r->snap.state != SNAPSHOT_FAILED) {
			/* another accelerator is another QEMU command line: another snapshot */
			r->snap.state = SNAPSHOT_BUILD;
			r->snap.key[0] = '\0';
			r->snap.saving = false;
		}

		r->accel = kvm ? QEMU_ACCEL_KVM : QEMU_ACCEL_TCG;
		r->tcg_single =
			!kvm && accel_tcg_share_host(r, at_once, sysconf(_SC_NPROCESSORS_ONLN));
		if (r->tcg_single) {
			char *note =
				xasprintf("%s; one host thread per VM (%zu VMs at once on %ld "
					  "CPUs)",
					  r->accel_note, at_once, sysconf(_SC_NPROCESSORS_ONLN));

			free(r->accel_note);
			r->accel_note = note;
		}
		if (!r->o->quiet)
			fprintf(stderr, "accelerator: %s\n", r->accel_note);
		{
			struct pool p = {.r = r, .probe_kvm = probe};

			boot_pool(&p, at_once ? at_once : 1, sigfd);
			any_begun = p.any_begun;
			kvm_failed = p.kvm_failed;
		}
		if (probe && kvm_failed && !r->interrupted) {
			/* QEMU said KVM failed at once (not after the 15 s probe): all under TCG */
			const char *qerr = kvm_failed->qemu_err;
			char *line = qemu_fatal_line(qerr, strlen(qerr));

			free(r->accel_note);
			r->accel_note = xasprintf("tcg (KVM failed: QEMU said: %s)", line);
			free(line);
			accel_kvm_remember_broken(r);
			kvm = false;
			continue;
		}
		if (probe && !any_begun && !r->interrupted) {
			/* KVM opened but did not boot a guest to the init. */
			const char *qerr = r->vms[0].qemu_err;
			char *last = qerr && *qerr ? vm_last_line(qerr) : NULL;
			char *why = xasprintf("tcg (KVM did not reach the init: %s%s%s)",
					      r->vms[0].res == WATCH_NO_FIRST_LINE
						      ? "no output within 15 s"
						      : "QEMU exited",
					      last ? "; QEMU said: " : "", last ? last : "");

			free(last);
			free(r->accel_note);
			r->accel_note = why;
			accel_kvm_remember_broken(r);
			kvm = false;
			continue;
		}
		break;
	}
}
