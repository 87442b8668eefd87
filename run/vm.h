/* SPDX-License-Identifier: GPL-2.0-only */
/* vm.h: run/'s own header: one VM of a run (struct vm) and what run/'s files call in each
 * other. The files, each calling only those after it: run.c (a run's life: init, release),
 * prepare.c (kernel, results directory, nonce, the VMs' plan), boot.c (the pool of VMs, the KVM
 * probe), finish.c (reports, reproduce.sh), vm.c (a VM's QEMU and console), handoff.c (snapshot
 * boot's ready line and handoff), snapshot.c (the saved state in the cache), image.c (the
 * initramfs), shard.c (which VM runs what), accel.c (KVM or TCG, -j auto). */
#ifndef TAPBOOT_RUN_VM_H
#define TAPBOOT_RUN_VM_H

#include "launch.h"
#include "qemu_argv.h"
#include "qmp.h"
#include "run.h"
#include "tap_parser.h"

/* One QEMU process: a shard of the plan, or one disruptive test on its own. */
/* ---- stall.c: how long QEMU did not run during a test ---- */

struct vm_stall_thread {
	pid_t tid;
	unsigned long long delay_ns;
};
struct vm_stall {
	double stopped_s, last_tick;
	bool on;
	struct vm_stall_thread base[64]; /* each QEMU thread's run delay at the test's start */
	size_t nbase;
};
/* At a test's start (its run line), each watch tick, and at its result: the seconds QEMU (pid)
 * was stopped (its state T, sampled each tick) plus the longest a thread of it waited for a
 * CPU (schedstat's run delay) while the test ran. */
void stall_begin(struct vm_stall *s, pid_t pid);
void stall_tick(struct vm_stall *s, pid_t pid);
double stall_end(struct vm_stall *s, pid_t pid);
/* Stalls shorter than this say nothing: the run delay of a loaded 2-core host. */
#define STALL_NOTE_S 1.0
/* ... nor those under this part of the test's own duration */
#define STALL_NOTE_PART 0.1
/* reason with the stall said: "timeout after 10 s (QEMU was stopped or starved for 20.3 s of
 * it)". Caller frees. */
char *stall_reason(const char *reason, double stall_s);

struct vm {
	struct run *r;
	unsigned index;	   /* 1-based, for file names and messages */
	char *select_args; /* tapboot.shard= / tapboot.only= / tapboot.disruptive= for this VM */
	size_t *tests;	   /* plan indices this VM runs, in order */
	size_t ntests;
	struct tap_parser *parser;
	FILE *console;
	char *console_path;
	FILE *test_log;
	char *test_log_path;
	unsigned test_log_num;
	bool begun;
	struct strlist argv; /* its cold command line, as a shell runs it (vm_cold_argv) */
	struct qemu_proc proc;
	bool spawned;
	enum watch_result res;
	char *qemu_err;
	int qemu_status;
	char *error; /* why this VM's run did not complete */
	/* snapshot boot */
	struct qmp qmp;
	bool qmp_on;
	bool restore;	   /* started from the snapshot */
	bool saver;	   /* saves the snapshot at the ready point */
	bool tests_in_ram; /* the guest holds this run's tests already (tapboot.tests=keep) */
	bool background;   /* not the run's longest expected VM (durations of earlier runs):
			    * its QEMU runs niced (VM_BACKGROUND_NICE, vm.c) */
	bool handed_off;   /* its handoff line was written */
	int ram_fd;	   /* the saver's guest RAM (snapshot_ram_open), if ram_open */
	bool ram_open;
	struct vm_stall stall;
	double *stall_s; /* per test of the VM (its number - 1): stall_end's seconds */
	char rline[32]; /* the console's current line, while looking for the ready line */
	size_t rlen;
	bool rline_over; /* the current line is longer than the ready line */
};

/* ---- vm.c: a VM's QEMU and its console ---- */

/* A write into the results directory failed (path, errno err): said once, remembered as the
 * run's write_error, the reserve released. Later failures only add nothing. -1. */
int run_write_failed(struct run *r, const char *path, int err);
/* Close fp (written to path), checking its buffered writes, fsync (with sync: console.log; not
 * each test's log, an fsync per test of 3,000) and close: 0, or -1 after run_write_failed.
 * NULL fp: 0. */
int run_close_checked(struct run *r, FILE *fp, const char *path, bool sync);

/* Start a VM's QEMU (-1 when it cannot start), its console callback, the last line of QEMU's
 * messages (caller frees). */
int vm_start(struct vm *vm);
enum watch_action vm_console_data(void *ctx, const char *buf, size_t len);
/* watch_opts' on_tick: the stall of the running test (stall.c). */
void vm_tick(void *ctx, pid_t pid);
char *vm_last_line(const char *s);
/* The VM's boot as QEMU gets it, with cmdline as the whole kernel command line: the run's
 * kernel, image, accelerator, machine and tests image, QEMU_MODE_COLD, the QMP monitor on in a
 * snapshot run (r->snap.handoff); the kernel named by the image's sha256 when it was unpacked.
 * Points into vm's run and cmdline. */
void vm_qemu_boot(const struct vm *vm, const char *cmdline, struct qemu_boot *b);
/* The idle and deadline limits of a VM (0: none). */
void vm_limits(const struct vm *vm, double *idle, double *deadline);
/* What cut a VM's console off, when tapboot did; why its run did not complete. Caller frees;
 * NULL when none. */
char *vm_cut_reason(struct run *r, const struct vm *vm);
char *vm_error(struct run *r, struct vm *vm, const struct tap_summary *s, const char *cut);
/* Whether QEMU itself failed: it exited with a non-zero status before the init began (a QEMU
 * error such as 'cannot set up guest memory'; a guest's power-off, reboot or triple fault ends
 * QEMU with 0 under -no-reboot). Its own message says why: no kernel or image hint applies. */
bool vm_qemu_failed(const struct vm *vm);
void vm_release(struct vm *vm);
/* vm's QEMU command line as a shell can run it, as vm_start last built it (empty before): a
 * cold boot with the per-VM values on the kernel command line (no monitor, no state file). */
void vm_cold_argv(const struct vm *vm, struct strlist *out);

/* ---- handoff.c: snapshot boot's side of a VM ---- */

/* The tapboot.* kernel arguments of a VM as it boots in this run: nonce, timeout, filters, its
 * selection, --append; in a snapshot run the handoff word and --append (vm_cold_kernel_args:
 * as a cold boot would have them). Caller frees. */
char *vm_kernel_args(const struct vm *vm);
char *vm_cold_kernel_args(const struct vm *vm);
/* The line of per-VM values a VM gets at the ready point (protocol.h), '\n' ended; caller
 * frees. */
char *vm_handoff_line(const struct vm *vm);
/* Look for the init's ready line in console data and hand the VM its line; resume a VM started
 * from the snapshot (-1: QEMU refused the state, the snapshot is gone, boot cold). */
void vm_scan_ready(struct vm *vm, const char *buf, size_t len);
int vm_resume_restored(struct vm *vm);

/* ---- snapshot.c: snapshot boot's saved state ---- */

/* Before the image is built: does this run use it (r->snap.handoff; the image then holds no
 * secret, it comes with the handoff line)? */
void snapshot_setup(struct run *r);
/* Once the VMs' boot is known (b of any VM: they differ only in the console input): the key
 * (qemu_snapshot_key), and whether a checked state file exists (READY) or must be saved
 * (BUILD). A corrupted or truncated file is removed, said, and saved again. */
void snapshot_lookup(struct run *r, const struct qemu_boot *b);
/* The saving VM's guest RAM: a file without a name (on a tmpfs when it has room, else in the
 * cache), shared with QEMU. -1 after snapshot_fail (no room for it). */
int snapshot_ram_open(struct run *r);
/* Save vm (paused at its ready point, QMP on, its RAM in vm->ram_fd) as the run's snapshot:
 * the state, and a sparse copy of the RAM; the VM stays paused. 0, or -1 after snapshot_fail. */
int snapshot_save(struct run *r, struct vm *vm);
/* Saving or restoring failed (or the machine cannot): cold boots from now on, said once. */
void snapshot_fail(struct run *r, const char *why);
/* Remove the snapshot's files (its state, RAM and sum). */
void snapshot_remove(const struct run *r);
/* For reproduce.sh and messages: where the VMs came from. */
const char *snapshot_state_name(enum snapshot_state s);
void snapshot_release(struct run_snapshot *s);

/* ---- image.c: the initramfs ---- */

/* The builder's inputs (the tests with {arch} expanded, the kselftest manifest in the results
 * directory) into r->initrd, the plan into r->plan; with check_kconfig, first the kernel's
 * config against what the run needs (kconfig_check_run). -1 after a message. */
int run_build_image(struct run *r, bool check_kconfig);
/* r->saver_initrd made (once a run): the image, zeros to a 4-byte boundary (the kernel takes
 * the next archive there), the tests' archive without its padding. -1 (said in the console's
 * place: nothing, the saver then reads the tests image like any VM) when it cannot be. */
int run_saver_initrd(struct run *r);

/* ---- shard.c ---- */

/* The per-test timeout of plan test i under the options. */
unsigned run_test_timeout(const struct run *r, size_t i);

#endif
