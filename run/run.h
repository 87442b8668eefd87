/* SPDX-License-Identifier: GPL-2.0-only */
/* run.h: one `tapboot run` of one kernel: its options, the run struct, and the steps cli/ calls:
 * run_init, run_prepare (kernel, results directory, image), run_boot (the VMs), run_finish
 * (reports, reproduce.sh, the exit status) and run_release; lava-job's export. Between cli/ and
 * the modules: run/ sees builder/, kernel/, qemu/, results/ and lib/; cli/, lkp/, lava/ and
 * kcidb/ see run/. What only run/'s files share is in vm.h. */
#ifndef TAPBOOT_RUN_H
#define TAPBOOT_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "arch_config.h"
#include "builder.h"
#include "kconfig_check.h"
#include "line_tag.h"
#include "plan.h"
#include "qemu_argv.h"
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
	/* the results history (history.h): --history FILE (NULL: the default), --no-history,
	 * --history-label (what the run is recorded as; NULL: "run") */
	const char *history, *history_label;
	bool no_history;
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
/* The reserve file in a results directory (prepare.c make_reserve). */
#define RUN_RESERVE_NAME ".tapboot-reserve"

struct run {
	const struct run_opts *o;
	const char *kernel; /* this run's --kernel, --arch and results directory */
	const char *arch;
	const char *out_dir;
	struct arch_config cfg;
	char *kernel_image;	/* the image file (resolved from a build directory) */
	char *kernel_config;	/* the kernel's .config when known */
	char *boot_kernel;	/* what QEMU boots (maybe the extracted vmlinux) */
	char kernel_sha256[65]; /* of kernel_image (run_prepare), "" when unreadable */
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
	/* the results directory: its reserve (RESULTS_RESERVE, released when a write fails so
	 * that the cut note and the reports still fit) and the first write that failed there
	 * ("cannot write 'DIR/console.log': No space left on device"), which makes the run's
	 * error and its exit status 3 */
	char *reserve;
	char *write_error;
	int signo;
	double start;
	char *accel_note;
	enum qemu_accel accel;
	struct run_snapshot snap;
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

/* After run_finish, the results directory written: the run and each test's verdict into the
 * results history (run/record.c), kernel as the user gave it. A history that cannot be
 * written is a warning: the results are in the directory already. */
void run_record_history(struct run *r, const char *kernel, int status);

/* tapboot gate (run/gate.c): the tests on kernel A (the base) and B, then reruns, up to
 * reruns times a side and interleaved (A, B, A, B), of every test whose class is not yet
 * pass, new, vanished or flaky (results/gate_class.h's rule). Each run is `tapboot run` (this
 * binary, so its results directory and history row are a run's like any other). */
struct gate_opts {
	const char *base;	  /* KERNEL_A; with base_results only for A's reruns (may be NULL) */
	const char *base_results; /* an earlier run of A, reused as A's first run */
	const char *kernel;	  /* KERNEL_B */
	const char *out_dir;	  /* NULL: a new tapboot-out/...-gate-XXXXXX */
	const char *history;	  /* NULL: the default */
	bool no_history, flaky_fails;
	unsigned reruns;
	char **run_args; /* run's options and the TESTs, given to every run */
	size_t nrun_args;
};
/* 0 no regression and no failing new test (nor flaky with flaky_fails), 1 one, 2 bad input
 * (a run said so: its output is shown), 3 a kernel's first run gave no verdicts, 130
 * interrupted. */
int run_gate(const struct gate_opts *o);

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

#endif
