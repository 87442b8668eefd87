/* run.h: one `tapboot run` of one kernel: its options, the run and VM structs, and the three
 * steps cli/cmd_run.c calls: run_prepare (kernel, results directory, image), run_boot (the VMs)
 * and run_finish (reports, reproduce.sh, the exit status). Between cli/ and the modules: run/
 * sees builder/, qemu/, results/ and lib/; cli/ sees run/. The files: prepare.c (kernel, results
 * directory, nonce), image.c (the initramfs), shard.c (which VM runs what), accel.c (KVM or TCG,
 * -j auto), vm.c (QEMU processes and their consoles), boot.c (the pool of VMs, the KVM probe),
 * handoff.c and snapshot.c (snapshot boot), finish.c (reports, reproduce.sh). */
#ifndef TAPBOOT_RUN_H
#define TAPBOOT_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "arch_config.h"
#include "builder.h"
#include "kconfig_check.h"
#include "launch.h"
#include "line_tag.h"
#include "plan.h"
#include "qemu_argv.h"
#include "qmp.h"
#include "report.h"
#include "strlist.h"
#include "tap_parser.h"

enum accel_mode { ACCEL_AUTO, ACCEL_KVM, ACCEL_TCG };

/* One --kernel and its --arch (NULL: read from the image). */
struct run_target {
	const char *kernel;
	const char *arch;
};

/* The command line, parsed once (cli/cmd_run.c); strings point into argv. */
struct run_opts {
	struct run_target *targets; /* owned array: one per --kernel, a matrix when several */
	size_t ntargets;
	const char *out_dir;
	const char *cpu, *machine, *qemu, *append, *sysroot, *config;
	/* --compress, --busybox, --modules, --module: copied into the build's builder_opts */
	struct builder_opts image;
	unsigned timeout_s;
	bool timeout_given;
	bool force, disruptive, quiet;
	bool boot_as_is; /* --boot-as-is: no host-side unpacking of the kernel image */
	bool no_snapshot; /* --no-snapshot: every VM boots cold, per-VM values on the command line */
	bool isolate;	  /* --isolate: every test in a VM of its own */
	enum accel_mode accel;
	unsigned memory_mb, smp;
	unsigned idle_s, boot_s;
	unsigned jobs;	/* -j: VMs at once */
	bool jobs_auto; /* -j auto: auto_jobs() decides once the memory is known */
	const char *kselftest, *kselftest_src;
	const char *kcidb_origin; /* --kcidb-origin: KCIDB's origin in kcidb.json; NULL: tapboot */
	struct strlist ks_targets, ks_skip_targets, ks_tests;
	struct report_policy policy;
	struct strlist expect_skip;
	struct strlist filters;
	char **tests;
	size_t ntests;
};

void run_opts_init(struct run_opts *o);
void run_opts_release(struct run_opts *o);

/* Snapshot boot (run/snapshot.c). */
enum snapshot_state {
	SNAPSHOT_OFF,	 /* --no-snapshot (or lava-job): cold boots, per-VM values on the command line */
	SNAPSHOT_BUILD,	 /* none saved yet: the first VM saves one at the init's ready point */
	/* none saved, and this kernel and image were never booted before with one VM: cold
	 * boots; the next such run saves it (a one-off image does not cost a 50-70 MB write) */
	SNAPSHOT_FIRST,
	SNAPSHOT_READY,	 /* a checked state file: VMs start from it */
	SNAPSHOT_FAILED, /* saving or restoring failed, or the machine cannot: cold boots */
};

struct run_snapshot {
	/* the VMs wait at the ready point for their line of per-VM values (every state but
	 * SNAPSHOT_OFF: a fallback boots cold the same way, so the results are the same) */
	bool handoff;
	enum snapshot_state state;
	char key[65];	/* sha256 of what the saved state depends on */
	char *path;	/* cache/snapshots/KEY.state: the devices and CPUs (QEMU's migration stream) */
	char *ram_path; /* cache/snapshots/KEY.ram: the guest's RAM, a sparse file (restored VMs
			 * map it privately) */
	char *sum_path; /* cache/snapshots/KEY.sum: their sizes and checksums */
	unsigned long long ram_size; /* the guest's RAM, bytes (-m) */
	char *seen_path; /* cache/snapshots/KEY.seen: booted once before (SNAPSHOT_FIRST) */
	bool noted;	/* the fallback was said */
	/* the builder's key of the tests the saved guest holds under /tests (KEY.sum), "" when
	 * it holds none: a restored VM with the same keeps them, another reads its own */
	char tests_key[65];
	bool saving;	/* a VM of this run was chosen to save it */
};

/* Everything one run owns; released in run_release(). */
struct vm;
struct run {
	const struct run_opts *o;
	const char *kernel; /* this run's --kernel, --arch and results directory */
	const char *arch;
	const char *out_dir;
	struct arch_config cfg;
	char *kernel_image;	/* the image file (resolved from a build directory) */
	char *kernel_config;	/* the kernel's .config when known */
	char *boot_kernel;	/* what QEMU boots (maybe the extracted vmlinux) */
	char kernel_sha256[65]; /* of kernel_image, "" until run_kernel_sha256() computed it */
	bool tcg_single;	/* the VMs booting now share the host: TCG thread=single */
	bool bzimage;
	bool zimage;	  /* an arm zImage */
	char *dir;	  /* results directory */
	bool dir_created; /* by this run: removed again when the run fails before booting */
	char *initrd;
	/* snapshot boot with the tests apart (the config's snapshot_tests): set before the build
	 * when the run may use a snapshot; the build clears it when this arch keeps the tests in
	 * the initramfs. tests_image: their newc archive, padded to tests_size (image.c) */
	bool tests_apart;
	char *tests_image;
	unsigned long long tests_size;
	unsigned long long tests_len; /* the archive's own bytes, before the padding */
	char tests_key[65];	      /* the builder's key of the archive (builder.h) */
	/* the saving VM's initramfs: the image, then the tests' archive (so the saved state
	 * holds them, and a VM restored with the same tests need not read them); removed at the
	 * ready point */
	char *saver_initrd;
	char nonce[33];
	unsigned char key[LINE_TAG_KEY_LEN]; /* the init tags its lines with it (line_tag.h) */
	struct plan plan;
	struct kconfig_needs kneeds; /* what this run asks of the kernel's config (image.c) */
	struct strlist inputs; /* the builder's inputs: the tests, and the kselftest manifest */
	struct vm *vms;	       /* nvms: the shards and the disruptive tests' own VMs */
	size_t nvms;
	unsigned jobs; /* VMs at once: -j, or what -j auto decided */
	bool tty, interrupted;
	int signo;
	double start;
	char *accel_note;
	enum qemu_accel accel;
	struct run_snapshot snap;
};

/* One QEMU process: a shard of the plan, or one disruptive test on its own. */
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
	unsigned test_log_num;
	bool begun;
	struct strlist argv;
	struct qemu_proc proc;
	bool spawned;
	enum watch_result res;
	char *qemu_err;
	int qemu_status;
	char *error; /* why this VM's run did not complete */
	/* snapshot boot */
	struct qmp qmp;
	bool qmp_on;
	bool restore;	      /* started from the snapshot */
	bool saver;	      /* saves the snapshot at the ready point */
	bool tests_in_ram;    /* the guest holds this run's tests already (tapboot.tests=keep) */
	bool background;      /* not the run's longest expected VM (durations of earlier runs):
			       * its QEMU runs niced (VM_BACKGROUND_NICE, vm.c) */
	bool handed_off;      /* its handoff line was written */
	int ram_fd;	      /* the saver's guest RAM (snapshot_ram_open), if ram_open */
	bool ram_open;
	char rline[32];	      /* the console's current line, while looking for the ready line */
	size_t rlen;
	bool rline_over;      /* the current line is longer than the ready line */
};

/* r for target t of o, results in out_dir (NULL: a new directory under ./tapboot-out/). */
void run_init(struct run *r, const struct run_opts *o, const struct run_target *t,
	      const char *out_dir);
void run_release(struct run *r);
/* Kernel, results directory, tests, image, boot image, nonce, the VMs' plan. -1 after a
 * message (bad input: nothing left behind in a results directory this run created). */
int run_prepare(struct run *r);
/* Boot every VM in waves of r->jobs, reading their consoles; sigfd ends it on a signal. */
void run_boot(struct run *r, int sigfd);
/* Reports, consoles, reproduce.sh, the summary on stdout; the exit status. cmd_line is the
 * tapboot command for reproduce.sh. */
int run_finish(struct run *r, const char *cmd_line);

/* What `tapboot run` would boot, prepared by run_prepare_export without booting (tapboot
 * lava-job, cli/cmd_lava.c). */
struct run_export {
	char *dir, *image, *kernel_image; /* absolute paths */
	char *cmdline;			  /* the whole kernel command line, nonce included */
	char nonce[33];
	char *arch, *qemu, *console, *machine, *cpu;
	unsigned memory_mb, smp;
	unsigned deadline_s;  /* run's whole-run limit (0: none) */
	unsigned longest_s;   /* the longest test timeout (0: none) */
	struct strlist tests; /* the plan's test names, in order */
};
/* Kernel, results directory, tests, image and nonce as run_prepare, then what one VM of all
 * the plan's tests would boot with (accelerator kvm or TCG) into x; the results directory
 * keeps the image only. 0, or -1 after a message (nothing left behind, as run_prepare). */
int run_prepare_export(struct run *r, bool kvm, struct run_export *x);
void run_export_release(struct run_export *x);

/* A new, uniquely named directory under ./tapboot-out/ (never a fixed name, never /tmp):
 * tapboot-out/YYYYmmdd-HHMMSS-WHAT-XXXXXX. Caller frees; NULL after a message. */
char *run_new_results_dir(const char *what);

/* The static init for arch: $TAPBOOT_INIT_DIR's, else the build tree's or the installed one
 * (paths.h). Caller frees. NULL after a message saying which package or make target gives it. */
char *run_find_init(const char *arch);
/* Fill o->target from cfg and o->init_path with the init for its arch (*init: the caller frees
 * it after the build); -1 after a message. */
int run_builder_target(struct builder_opts *o, const struct arch_config *cfg, const char *sysroot,
		       char **init);

/* Debian's busybox-static for arch, fetched by scripts/fetch-busybox.sh into the cache; its
 * path (caller frees), or NULL after a message (builder_opts.fetch_busybox). */
char *run_fetch_busybox(const char *arch);

/* ---- between run/'s files ---- */

/* The builder's inputs (the tests with {arch} expanded, the kselftest manifest in the results
 * directory) into r->initrd, the plan into r->plan (image.c); with check_kconfig, first the
 * kernel's config against what the run needs (kconfig_check_run). -1 after a message. */
int run_build_image(struct run *r, bool check_kconfig);
/* r->saver_initrd made (once a run): the image, zeros to a 4-byte boundary (the kernel takes
 * the next archive there), the tests' archive without its padding. -1 (said in the console's
 * place: nothing, the saver then reads the tests image like any VM) when it cannot be. */
int run_saver_initrd(struct run *r);

/* QEMU's version line into out ("unknown" when it cannot be had), cached per binary
 * (finish.c). */
void run_qemu_version(const char *qemu, char *out, size_t n);
/* The kernel image's sha256, computed at most once per run (prepare.c); NULL after a message. */
const char *run_kernel_sha256(struct run *r);
/* The per-test timeout of plan test i under the options (shard.c). */
unsigned run_test_timeout(const struct run *r, size_t i);
/* The tapboot.* kernel arguments of a VM: nonce, timeout, filters, its selection, --append
 * (handoff.c). Caller frees. */
char *vm_kernel_args(const struct vm *vm);
/* The idle and deadline limits of a VM (0: none) (vm.c). */
void vm_limits(const struct vm *vm, double *idle, double *deadline);
/* What cut a VM's console off, when tapboot did; why its run did not complete (vm.c). Caller
 * frees; NULL when none. */
char *vm_cut_reason(struct run *r, const struct vm *vm);
char *vm_error(struct run *r, struct vm *vm, const struct tap_summary *s, const char *cut);
void vm_release(struct vm *vm);
/* vm's QEMU command line as a shell can run it: a cold boot with the per-VM values on the
 * kernel command line (no monitor fd, no state file). */
void vm_cold_argv(const struct vm *vm, struct strlist *out);
/* The line of per-VM values a VM gets at the ready point (protocol.h), '\n' ended; caller
 * frees. */
char *vm_handoff_line(const struct vm *vm);
/* Inside run/ (vm.c): start a VM's QEMU (-1 when it cannot start), its console callback, the
 * last line of QEMU's messages (caller frees). */
int vm_start(struct vm *vm);
enum watch_action vm_console_data(void *ctx, const char *buf, size_t len);
char *vm_last_line(const char *s);
/* (handoff.c) Look for the init's ready line in console data and hand the VM its line; resume a
 * VM started from the snapshot (-1: QEMU refused the state, the snapshot is gone, boot cold). */
void vm_scan_ready(struct vm *vm, const char *buf, size_t len);
int vm_resume_restored(struct vm *vm);

/* Snapshot boot (snapshot.c). Before the image is built: does this run use it (r->snap.handoff;
 * the image then holds no secret, it comes with the handoff line)? */
void snapshot_setup(struct run *r);
/* Once the VMs' QEMU command line is known (argv of any VM: they differ only in the console
 * input): the key, and whether a checked state file exists (READY) or must be saved (BUILD). A
 * corrupted or truncated file is removed, said, and saved again. */
void snapshot_lookup(struct run *r, const struct strlist *argv);
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

#endif
