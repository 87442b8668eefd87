// SPDX-License-Identifier: GPL-2.0-only
/* handoff.c: snapshot boot's side of a VM: the ready line on its console, the handoff line of
 * per-VM values written to its input, resuming a VM restored from the snapshot, and the same
 * values as a cold boot's kernel arguments (--no-snapshot, reproduce.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "protocol.h"
#include "vm.h"
#include "strbuf.h"

/* Write the VM's handoff line to its console input (the init waits at its ready point). */
static void hand_off(struct vm *vm)
{
	char *line = vm_handoff_line(vm);
	size_t n = strlen(line), off = 0;

	vm->handed_off = true;
	while (off < n && vm->proc.stdin_fd >= 0) {
		ssize_t w = write(vm->proc.stdin_fd, line + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* QEMU is gone: its end shows in the console and exit */
		off += (size_t)w;
	}
	memset(line, 0, n);
	free(line);
}

/* The init is at its ready point: the saving VM is saved first, then every VM gets its line. */
static void vm_ready(struct vm *vm)
{
	struct run *r = vm->r;

	/* the kernel unpacked its initramfs long ago */
	if (vm->saver && r->saver_initrd) {
		unlink(r->saver_initrd);
		free(r->saver_initrd);
		r->saver_initrd = NULL;
	}
	if (vm->saver && r->snap.state == SNAPSHOT_BUILD) {
		char *err = NULL;

		snapshot_save(r, vm);
		/* the saver goes on with its own RAM (QEMU keeps the mapping): a copy was saved */
		close(vm->ram_fd);
		vm->ram_open = false;
		/* paused by the save, done or not */
		if (qmp_cont(&vm->qmp, 30, &err) < 0 && !r->o->quiet)
			note("VM %u: cannot resume it after saving: %s", vm->index, err);
		free(err);
	}
	hand_off(vm);
}

/* Look for the ready line at a line start in what the console sent (lines may come in any
 * pieces); only before the handoff. */
void vm_scan_ready(struct vm *vm, const char *buf, size_t len)
{
	const size_t want = strlen(TAPBOOT_READY_LINE);

	for (size_t i = 0; i < len && !vm->handed_off; i++) {
		char ch = buf[i];

		if (ch == '\n' || ch == '\r') {
			if (!vm->rline_over && vm->rlen == want &&
			    !memcmp(vm->rline, TAPBOOT_READY_LINE, want))
				vm_ready(vm);
			vm->rlen = 0;
			vm->rline_over = false;
		} else if (vm->rlen < want && !vm->rline_over) {
			vm->rline[vm->rlen++] = ch;
		} else {
			vm->rline_over = true;
		}
	}
}

/* The per-VM values (nonce, timeout, filters, selection) as tapboot.* words into sb. */
static void add_vm_values(const struct vm *vm, struct strbuf *sb)
{
	const struct run *r = vm->r;

	strbuf_addf(sb, TAPBOOT_ARG_NONCE "%s", r->nonce);
	if (r->o->timeout_given)
		strbuf_addf(sb, " " TAPBOOT_ARG_TIMEOUT "%u", r->o->timeout_s);
	for (size_t i = 0; i < r->o->filters.n; i++)
		strbuf_addf(sb, " " TAPBOOT_ARG_FILTER "%s", r->o->filters.v[i]);
	if (vm->select_args && *vm->select_args)
		strbuf_addf(sb, " %s", vm->select_args);
}

char *vm_handoff_line(const struct vm *vm)
{
	const struct run *r = vm->r;
	struct strbuf sb = STRBUF_INIT;
	unsigned char seed[32];
	struct timespec ts;

	add_vm_values(vm, &sb);
	strbuf_addstr(&sb, " " TAPBOOT_ARG_KEY);
	for (size_t i = 0; i < sizeof(r->key); i++)
		strbuf_addf(&sb, "%02x", r->key[i]);
	/* every VM its own: VMs started from one snapshot share the kernel's RNG state */
	if (getrandom(seed, sizeof(seed), 0) == (ssize_t)sizeof(seed)) {
		strbuf_addstr(&sb, " " TAPBOOT_ARG_SEED);
		for (size_t i = 0; i < sizeof(seed); i++)
			strbuf_addf(&sb, "%02x", seed[i]);
	}
	if (r->tests_image)
		strbuf_addf(&sb, " " TAPBOOT_ARG_TESTS "%s", vm->tests_in_ram ? "keep" : "load");
	clock_gettime(CLOCK_REALTIME, &ts);
	strbuf_addf(&sb, " " TAPBOOT_ARG_TIME "%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	return strbuf_detach(&sb);
}

char *vm_kernel_args(const struct vm *vm)
{
	const struct run *r = vm->r;

	/* snapshot boot: the command line is the same for every VM (it is part of the saved
	 * state); what differs comes with the handoff line */
	if (!r->snap.handoff)
		return vm_cold_kernel_args(vm);
	return r->o->append ? xasprintf(TAPBOOT_ARG_HANDOFF " %s", r->o->append)
			    : xstrdup(TAPBOOT_ARG_HANDOFF);
}

char *vm_cold_kernel_args(const struct vm *vm)
{
	const struct run *r = vm->r;
	struct strbuf sb = STRBUF_INIT;

	/* the handoff line's values without the secret: the init's lines come out untagged */
	add_vm_values(vm, &sb);
	if (r->o->append)
		strbuf_addf(&sb, " %s", r->o->append);
	return strbuf_detach(&sb);
}

/* A VM started from the snapshot: wait until QEMU loaded it, resume it, hand it its line.
 * When QEMU cannot load it (the file passed its check, so QEMU itself refuses it), the
 * snapshot goes and the run boots cold: -1, and the caller starts the VM again. */
int vm_resume_restored(struct vm *vm)
{
	struct run *r = vm->r;
	char *err = NULL;

	if (qmp_incoming(&vm->qmp, QEMU_SPAWN_INCOMING_FD, 30, &err) == 0 &&
	    qmp_wait_loaded(&vm->qmp, 60, &err) == 0 && qmp_cont(&vm->qmp, 30, &err) == 0) {
		if (vm->console)
			fprintf(vm->console,
				"tapboot: VM %u started from snapshot %s (saved at the init's "
				"ready point%s; "
				"--no-snapshot boots cold)\n",
				vm->index, r->snap.path,
				!r->tests_image	   ? ""
				: vm->tests_in_ram ? ", with this run's tests"
						   : ", the tests from this run's tests image");
		if (vm->console)
			fflush(vm->console);
		hand_off(vm);
		return 0;
	}
	qemu_stop(&vm->proc, 1.0);
	{
		char *why = xasprintf("QEMU could not start a VM from '%s': %s%s%s", r->snap.path,
				      err ? err : "unknown error", vm->proc.err.len ? "; QEMU said: " : "",
				      vm->proc.err.len ? vm->proc.err.buf : "");

		/* trailing newline of QEMU's message */
		why[strcspn(why, "\n")] = '\0';
		snapshot_remove(r);
		snapshot_fail(r, why);
		free(why);
	}
	free(err);
	return -1;
}
