// SPDX-License-Identifier: GPL-2.0-only
/* vm.c: one VM of a run: console callbacks, limits, starting its QEMU, and why its run did not
 * complete. The pool that runs them is boot.c; snapshot boot's handoff is handoff.c. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accel.h"
#include "error.h"
#include "protocol.h"
#include "vm.h"
#include "strbuf.h"

/* A VM that is not the run's longest expected one (run/shard.c marks it background) runs its
 * QEMU at this nice value: the run cannot end before its longest VM, and on a machine with
 * fewer CPUs than vCPUs the others took CPU from it in bursts. The bench's kselftest suite,
 * -j auto (3 VMs of 2 vCPUs on 2 CPUs), 4 alternating pairs: 11.8-12.2 s at 0 against
 * 10.8-11.2 s at 10 (futex:run.sh, the longest, 11.4-11.8 -> 10.5-10.9 s; 10.2 s alone), the
 * same verdicts. Without contention it changes nothing. */
#define VM_BACKGROUND_NICE 10

int run_write_failed(struct run *r, const char *path, int err)
{
	if (r->write_error)
		return -1;
	r->write_error = xasprintf("cannot write '%s': %s", path, strerror(err ? err : EIO));
	error("%s", r->write_error);
	/* the room the reports need (prepare.c) */
	if (r->reserve && unlink(r->reserve) < 0 && errno != ENOENT)
		warning_errno("cannot remove '%s'", r->reserve);
	return -1;
}

int run_close_checked(struct run *r, FILE *fp, const char *path, bool sync)
{
	int bad;

	if (!fp)
		return 0;
	/* fsync: a disk's EIO may come only there */
	bad = fflush(fp) != 0 || ferror(fp) || (sync && fsync(fileno(fp)) != 0);
	if (bad) {
		int err = errno;

		fclose(fp);
		return run_write_failed(r, path, err);
	}
	if (fclose(fp) != 0)
		return run_write_failed(r, path, errno);
	return 0;
}

/* A test name as a file under tests/: its slashes become directories; nothing escapes. */
static FILE *open_test_log(struct vm *vm, const char *name)
{
	struct run *r = vm->r;
	struct strbuf path = STRBUF_INIT;
	FILE *fp;

	strbuf_addf(&path, "%s/tests/", r->dir);
	for (const char *s = name; *s; s++) {
		if (*s == '/') {
			if (path.buf[path.len - 1] != '/')
				mkdir(path.buf, 0755);
			strbuf_addch(&path, '/');
		} else if (*s == '.' && (s == name || s[-1] == '/') && s[1] == '.') {
			strbuf_addch(&path, '_');
		} else {
			strbuf_addch(&path, *s);
		}
	}
	strbuf_addstr(&path, ".log");
	/* once a write failed, the room left is the reports' */
	fp = r->write_error ? NULL : fopen(path.buf, "w");
	if (!fp && !r->write_error)
		run_write_failed(r, path.buf, errno);
	free(vm->test_log_path);
	vm->test_log_path = strbuf_detach(&path);
	return fp;
}

static void on_begin(void *ctx, const char *nonce, unsigned ntests)
{
	struct vm *vm = ctx;

	(void)ntests;
	if (nonce && !strcmp(nonce, vm->r->nonce))
		vm->begun = true;
}

static void on_run(void *ctx, unsigned num, const char *name)
{
	struct vm *vm = ctx;

	run_close_checked(vm->r, vm->test_log, vm->test_log_path, false);
	vm->test_log = open_test_log(vm, name);
	vm->test_log_num = num;
	stall_begin(&vm->stall, vm->spawned ? vm->proc.pid : -1);
	if (vm->r->tty && !vm->r->o->quiet) {
		fprintf(stderr, "\r\033[K  running  %s", name);
		fflush(stderr);
	}
}

static void on_line(void *ctx, unsigned test_num, bool kernel_line, const char *line, size_t len)
{
	struct vm *vm = ctx;

	(void)kernel_line;
	if (vm->test_log && test_num && test_num == vm->test_log_num) {
		fwrite(line, 1, len, vm->test_log);
		fputc('\n', vm->test_log);
	}
}

static void on_result(void *ctx, const struct tap_test *t)
{
	struct vm *vm = ctx;

	run_close_checked(vm->r, vm->test_log, vm->test_log_path, false);
	vm->test_log = NULL;
	if (t->num >= 1 && t->num <= vm->ntests && vm->stall_s)
		vm->stall_s[t->num - 1] = stall_end(&vm->stall, vm->proc.pid);
	if (vm->r->o->quiet)
		return;
	fprintf(stderr, "%s  %-7s %7.2fs  %s%s%s\n", vm->r->tty ? "\r\033[K" : "",
		verdict_name(t->verdict), t->duration_s < 0 ? 0.0 : t->duration_s, t->name,
		t->reason && *t->reason ? "  # " : "", t->reason ? t->reason : "");
}

static void on_crash(void *ctx, const char *line)
{
	struct vm *vm = ctx;

	if (!vm->r->o->quiet)
		fprintf(stderr, "%skernel: %s\n", vm->r->tty ? "\r\033[K" : "", line);
}

/* console.log could not take more (a full disk): the reserve is released, a note says where
 * the file ends and why, and the console is not written again (the room is the reports'); the
 * parser still reads every byte, so the results stay whole. */
static void vm_console_cut(struct vm *vm, int err)
{
	struct run *r = vm->r;
	FILE *fp = vm->console;

	long at;

	vm->console = NULL;
	run_write_failed(r, vm->console_path, err);
	/* what stdio still holds is dropped (its write failed), so the note's offset is where the
	 * console's bytes end in the file */
	__fpurge(fp);
	fclose(fp);
	fp = fopen(vm->console_path, "a");
	if (!fp)
		return;
	at = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
	fprintf(fp, "\ntapboot: console.log cut here, after %ld bytes of the console: %s\n", at,
		strerror(err ? err : EIO));
	if (fclose(fp) != 0)
		warning_errno("cannot write the cut note to '%s'", vm->console_path);
}

void vm_tick(void *ctx, pid_t pid)
{
	struct vm *vm = ctx;

	stall_tick(&vm->stall, pid);
}

enum watch_action vm_console_data(void *ctx, const char *buf, size_t len)
{
	struct vm *vm = ctx;
	const struct tap_summary *s;

	/* flushed per read: console.log is live (tail -f, and the boot tests wait on it) */
	if (vm->console && (fwrite(buf, 1, len, vm->console) != len || fflush(vm->console)))
		vm_console_cut(vm, errno);
	if (vm->r->snap.handoff && !vm->handed_off)
		vm_scan_ready(vm, buf, len);
	tap_parser_feed(vm->parser, buf, len);
	s = tap_parser_summary(vm->parser);
	if (s->complete)
		return WATCH_FINISH;
	if (s->crashed)
		return WATCH_CRASH;
	return WATCH_CONTINUE;
}

/* The deadline: every test's timeout plus a boot allowance and a margin per test for the
 * init's bookkeeping; the idle limit: the longest test timeout plus a minute, since a test
 * may be silent for all of its time. A timeout of 0 (none) lifts both. */
void vm_limits(const struct vm *vm, double *idle, double *deadline)
{
	const struct run *r = vm->r;
	unsigned max = 0;
	double sum = 0;
	bool unlimited = false;

	for (size_t i = 0; i < vm->ntests; i++) {
		unsigned t = run_test_timeout(r, vm->tests[i]);

		if (t == 0)
			unlimited = true;
		if (t > max)
			max = t;
		sum += t + 10;
	}
	*idle = r->o->idle_s ? r->o->idle_s : unlimited ? 0 : max + 60.0;
	*deadline = unlimited ? 0 : sum + r->o->boot_s;
}


/* QEMU's last message line (its stderr's), for a one-line error; caller frees. */
char *vm_last_line(const char *s)
{
	const char *end = s + strlen(s), *start;

	while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	/* 511 bytes, as the buffer it replaced held: a QEMU message, not a dump */
	return xstrndup(start, (size_t)(end - start) < 511 ? (size_t)(end - start) : 511);
}

static void vm_reset(struct vm *vm)
{
	if (vm->parser)
		tap_parser_free(vm->parser);
	vm->parser = NULL;
	run_close_checked(vm->r, vm->console, vm->console_path, true);
	vm->console = NULL;
	run_close_checked(vm->r, vm->test_log, vm->test_log_path, false);
	vm->test_log = NULL;
	free(vm->test_log_path);
	vm->test_log_path = NULL;
	if (vm->spawned)
		qemu_proc_release(&vm->proc);
	vm->spawned = false;
	free(vm->qemu_err);
	vm->qemu_err = NULL;
	free(vm->error);
	vm->error = NULL;
	vm->begun = false;
	strlist_release(&vm->argv);
	if (vm->qmp_on)
		qmp_release(&vm->qmp);
	vm->qmp_on = false;
	if (vm->ram_open)
		close(vm->ram_fd);
	vm->ram_open = false;
	vm->handed_off = vm->rline_over = vm->tests_in_ram = false;
	vm->rlen = 0;
}

void vm_release(struct vm *vm)
{
	vm_reset(vm);
	free(vm->select_args);
	free(vm->tests);
	free(vm->console_path);
	free(vm->stall_s);
}

/* Can the kernel read an archive appended to the image? Its gzip and zstd readers stop at
 * their stream's end and go on with what follows; its lz4 reader takes what follows for
 * another lz4 chunk and fails the whole initramfs (tests/boot/15-builder.sh's lz4 image), so
 * the others (lz4, xz) keep the tests out of the saved state: restored VMs read them. */
static bool saver_takes_tests(const struct run *r)
{
	enum builder_compress c = r->o->image.compress;

	return c == BUILDER_COMPRESS_NONE || c == BUILDER_COMPRESS_GZIP ||
	       c == BUILDER_COMPRESS_ZSTD;
}

void vm_qemu_boot(const struct vm *vm, const char *cmdline, struct qemu_boot *b)
{
	const struct run *r = vm->r;
	bool unpacked = strcmp(r->boot_kernel, r->kernel_image) && r->kernel_sha256[0];

	*b = (struct qemu_boot){
		.cfg = &r->cfg,
		.mode = QEMU_MODE_COLD,
		.kernel = r->boot_kernel,
		.bzimage = r->bzimage,
		.initrd = r->initrd,
		.cmdline = cmdline,
		.accel = r->accel,
		.tcg_single = r->tcg_single,
		.cpu = r->o->cpu,
		.machine = r->o->machine,
		.memory_mb = r->o->memory_mb,
		.smp = r->o->smp,
		.tests_image = r->tests_image,
		.tests_size = r->tests_size,
		/* the QMP monitor on every VM of a snapshot run: the command line the snapshot
		 * was saved with is the one it is restored with */
		.qmp = r->snap.handoff,
		.kernel_from_sha256 = unpacked ? r->kernel_sha256 : NULL,
	};
}

void vm_cold_argv(const struct vm *vm, struct strlist *out)
{
	for (size_t i = 0; i < vm->argv.n; i++)
		strlist_push(out, vm->argv.v[i]);
}

/* The console log and the parser of one attempt; -1 when the log cannot be created. */
static int open_console(struct vm *vm)
{
	struct run *r = vm->r;
	struct tap_parser_events ev = {
		.ctx = vm,
		.on_begin = on_begin,
		.on_run = on_run,
		.on_result = on_result,
		.on_line = on_line,
		.on_crash = on_crash,
	};
	const char **names;

	vm->console = fopen(vm->console_path, "w");
	if (!vm->console)
		return error_errno("cannot create '%s'", vm->console_path);
	vm->parser = tap_parser_new(r->nonce, &ev);
	tap_parser_set_mode(vm->parser, TAP_PARSE_TAPBOOT, r->key);
	names = xcalloc(vm->ntests + 1, sizeof(*names));
	for (size_t i = 0; i < vm->ntests; i++)
		names[i] = r->plan.tests[vm->tests[i]].name;
	tap_parser_expect(vm->parser, names, vm->ntests);
	free(vm->stall_s);
	vm->stall_s = xcalloc(vm->ntests + 1, sizeof(*vm->stall_s));
	free(names);
	return 0;
}

/* reproduce.sh's command line: the VM booted cold, its values on the kernel command line. */
static void build_cold_argv(struct vm *vm)
{
	struct run *r = vm->r;
	char *extra = vm_cold_kernel_args(vm),
	     *cmdline = qemu_kernel_cmdline(&r->cfg, r->accel, extra);
	struct qemu_boot b;

	vm_qemu_boot(vm, cmdline, &b);
	b.qmp = false; /* the monitor's fd is tapboot's, not a shell's */
	qemu_argv_build(&b, &vm->argv);
	free(cmdline);
	free(extra);
}

/* A restored VM's state and RAM files, opened for QEMU (it reads the state from the file
 * itself: through "exec:cat", a pipe, loading took 1.2-1.7 s against 0.55 s here, arm64, 63 MB,
 * the RAM in the state; the RAM it maps from the checked file we opened). false after
 * snapshot_fail when one cannot be opened: the VM boots cold. */
static bool open_restore(struct run *r, struct qemu_spawn_io *io)
{
	char *why;

	io->incoming_fd = open(r->snap.path, O_RDONLY | O_CLOEXEC);
	io->ram_fd = io->incoming_fd < 0 ? -1 : open(r->snap.ram_path, O_RDONLY | O_CLOEXEC);
	if (io->ram_fd >= 0)
		return true;
	why = xasprintf("cannot open '%s': %s",
			io->incoming_fd < 0 ? r->snap.path : r->snap.ram_path, strerror(errno));
	snapshot_fail(r, why);
	free(why);
	if (io->incoming_fd >= 0)
		close(io->incoming_fd);
	io->incoming_fd = -1;
	return false;
}

/* Snapshot boot: this VM's part (saver, restored, or a cold boot waiting for its line) and
 * b's mode, the files QEMU gets in io. -1 when the QMP socket cannot be made. */
static int snapshot_role(struct vm *vm, struct qemu_boot *b, struct qemu_spawn_io *io)
{
	struct run *r = vm->r;

	if (qmp_init(&vm->qmp) < 0)
		return -1;
	vm->qmp_on = true;
	io->qmp_fd = vm->qmp.child_fd;
	if (!r->snap.key[0])
		snapshot_lookup(r, b);
	vm->saver = r->snap.state == SNAPSHOT_BUILD && !r->snap.saving;
	r->snap.saving |= vm->saver;
	if (vm->saver) {
		vm->ram_fd = snapshot_ram_open(r);
		vm->ram_open = vm->ram_fd >= 0;
		vm->saver = vm->ram_open;
	}
	vm->restore = r->snap.state == SNAPSHOT_READY;
	/* the saved guest holds the tests of the run that saved it: this run's too when the
	 * builder's key of them is the same */
	vm->tests_in_ram = vm->restore && r->tests_image && r->snap.tests_key[0] &&
			   !strcmp(r->snap.tests_key, r->tests_key);
	if (vm->restore)
		vm->restore = open_restore(r, io);
	if (vm->restore) {
		b->mode = QEMU_MODE_RESTORE;
	} else if (vm->saver) {
		b->mode = QEMU_MODE_SAVE;
		io->ram_fd = vm->ram_fd;
		/* The saver boots with the tests in its initramfs too, so the saved state holds
		 * them and VMs restored with the same tests do not read the device again (41 MB
		 * of kselftests unpacked in every VM). The key is the command line's: the image,
		 * and the tests image's size. */
		if (r->tests_image && saver_takes_tests(r) && run_saver_initrd(r) == 0) {
			b->saver_initrd = r->saver_initrd;
			vm->tests_in_ram = true;
		}
	}
	return 0;
}

/* Console log, parser and QEMU process for one attempt; -1 when QEMU cannot start. */
int vm_start(struct vm *vm)
{
	struct run *r = vm->r;
	char *extra = vm_kernel_args(vm), *cmdline = qemu_kernel_cmdline(&r->cfg, r->accel, extra);
	struct qemu_spawn_io io = {.stdin_pipe = true,
				   .qmp_fd = -1,
				   .incoming_fd = -1,
				   .ram_fd = -1,
				   .nice = vm->background ? VM_BACKGROUND_NICE : 0};
	struct strlist argv;
	struct qemu_boot b;
	int ret = -1;

	vm_reset(vm);
	free(extra);
	strlist_init(&argv);
	if (open_console(vm) < 0)
		goto out;
	build_cold_argv(vm);
	vm_qemu_boot(vm, cmdline, &b);
	vm->qemu_status = -1;
	if (r->snap.handoff && snapshot_role(vm, &b, &io) < 0)
		goto out;
	qemu_argv_build(&b, &argv);
	ret = qemu_spawn(&vm->proc, &argv, qemu_package_hint(&r->cfg),
			 r->snap.handoff ? &io : NULL);
	if (vm->restore && io.ram_fd >= 0)
		close(io.ram_fd);
	if (io.incoming_fd >= 0)
		close(io.incoming_fd);
	if (ret < 0)
		goto out;
	if (vm->qmp_on)
		qmp_spawned(&vm->qmp);
	vm->spawned = true;
out:
	strlist_release(&argv);
	free(cmdline);
	return ret;
}

/* QEMU's own end, when it says more than "the console ended": a fatal message it printed
 * (KVM's internal error, which pauses the VM), or a signal that killed it. NULL otherwise. */
static char *qemu_end_reason(const struct run *r, const struct vm *vm)
{
	const char *err = vm->qemu_err ? vm->qemu_err : "";
	char *line = qemu_fatal_line(err, strlen(err)), *why;

	if (line) {
		why = qemu_fatal_is_kvm(line) && r->accel == QEMU_ACCEL_KVM
			      ? xasprintf("QEMU stopped the guest: %s (KVM cannot run this guest "
					  "here; --accel tcg runs it without KVM)",
					  line)
			      : xasprintf("QEMU stopped the guest: %s", line);
		free(line);
		return why;
	}
	if (vm->res == WATCH_EXITED && vm->qemu_status >= 0 && WIFSIGNALED(vm->qemu_status))
		return qemu_exit_text(vm->qemu_status);
	return NULL;
}

/* What cut the console off, when tapboot did: the reason the running test gets. */
char *vm_cut_reason(struct run *r, const struct vm *vm)
{
	double idle, deadline;

	vm_limits(vm, &idle, &deadline);
	switch (vm->res) {
	case WATCH_IDLE:
		return xasprintf("no console output for %.0f s: the guest hangs", idle);
	case WATCH_DEADLINE:
		return xasprintf("the run passed its deadline of %.0f s", deadline);
	case WATCH_INTERRUPTED:
		return xasprintf("interrupted by %s", strsignal(r->signo));
	case WATCH_NO_FIRST_LINE:
		return xstrdup("no console output from the guest");
	case WATCH_QEMU_FATAL:
	case WATCH_EXITED:
		return qemu_end_reason(r, vm);
	default:
		return NULL;
	}
}

static char *vm_error_base(struct run *r, struct vm *vm, const struct tap_summary *s,
			   const char *cut)
{
	const char *qerr = vm->qemu_err;

	if (s->complete)
		return NULL;
	if (s->crashed && s->crash_line)
		return xasprintf("kernel crashed: %s", s->crash_line);
	if (cut)
		return xstrdup(cut);
	if (!vm->spawned)
		return xasprintf("QEMU could not be started ('%s')", r->cfg.qemu);
	if (!vm->begun) {
		char *last = qerr && *qerr ? vm_last_line(qerr) : NULL;
		char *e = xasprintf("the guest never reached tapboot's init (QEMU %s%s%s)",
				    vm->qemu_status > 0 ? "exited with an error" : "exited",
				    last ? ": " : "", last ? last : "");

		free(last);
		return e;
	}
	return xstrdup("the guest stopped before the end of the run (no end marker with this "
		       "run's nonce)");
}

bool vm_qemu_failed(const struct vm *vm)
{
	return vm->spawned && !vm->begun && vm->res == WATCH_EXITED && vm->qemu_status > 0 &&
	       WIFEXITED(vm->qemu_status) && WEXITSTATUS(vm->qemu_status) != 0;
}

/* Why a VM's run did not complete, or NULL. When the guest hung or QEMU ended before the init,
 * with no kernel report to explain it, and QEMU booted what tapboot unpacked (the x86 PVH
 * vmlinux, the arm Image), the message says so and names --boot-as-is, the way to tell
 * tapboot's unpacking from the kernel's own fault. */
char *vm_error(struct run *r, struct vm *vm, const struct tap_summary *s, const char *cut)
{
	char *e = vm_error_base(r, vm, s, cut), *hinted;

	/* not when QEMU said what failed, or something else killed it (not tapboot's own stop
	 * at a limit): the image is not the cause then */
	if (!e || vm->begun || s->crashed || vm->res == WATCH_INTERRUPTED || vm_qemu_failed(vm) ||
	    vm->res == WATCH_QEMU_FATAL || !strcmp(r->boot_kernel, r->kernel_image) ||
	    (vm->res == WATCH_EXITED && vm->qemu_status >= 0 && WIFSIGNALED(vm->qemu_status)))
		return e;
	hinted = xasprintf("%s; QEMU booted the kernel tapboot unpacked on the host (%s): "
			   "--boot-as-is boots '%s' itself",
			   e, r->boot_kernel, r->kernel_image);
	free(e);
	return hinted;
}
