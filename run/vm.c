/* vm.c: the VMs of a run: console callbacks, limits, starting QEMU, waves of VMs supervised
 * together, the KVM probe's fallback, and why a VM's run did not complete. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
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
#include "run.h"
#include "strbuf.h"

/* A test name as a file under tests/: its slashes become directories; nothing escapes. */
static FILE *open_test_log(struct run *r, const char *name)
{
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
	fp = fopen(path.buf, "w");
	if (!fp)
		warning_errno("cannot write '%s'", path.buf);
	strbuf_release(&path);
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

	if (vm->test_log)
		fclose(vm->test_log);
	vm->test_log = open_test_log(vm->r, name);
	vm->test_log_num = num;
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

	if (vm->test_log) {
		fclose(vm->test_log);
		vm->test_log = NULL;
	}
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

	if (vm->saver && r->snap.state == SNAPSHOT_BUILD) {
		char *err = NULL;

		snapshot_save(r, vm);
		/* paused by the save, done or not */
		if (qmp_cont(&vm->qmp, 30, &err) < 0 && !r->o->quiet)
			fprintf(stderr, "tapboot: VM %u: cannot resume it after saving: %s\n",
				vm->index, err);
		free(err);
	}
	hand_off(vm);
}

/* Look for the ready line at a line start in what the console sent (lines may come in any
 * pieces); only before the handoff. */
static void scan_ready(struct vm *vm, const char *buf, size_t len)
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

static enum watch_action console_data(void *ctx, const char *buf, size_t len)
{
	struct vm *vm = ctx;
	const struct tap_summary *s;

	/* flushed per read: console.log is live (tail -f, and the boot tests wait on it) */
	fwrite(buf, 1, len, vm->console);
	fflush(vm->console);
	if (vm->r->snap.handoff && !vm->handed_off)
		scan_ready(vm, buf, len);
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
	clock_gettime(CLOCK_REALTIME, &ts);
	strbuf_addf(&sb, " " TAPBOOT_ARG_TIME "%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	return strbuf_detach(&sb);
}

void vm_cold_argv(const struct vm *vm, struct strlist *out)
{
	const struct strlist *a = &vm->argv;

	for (size_t i = 0; i < a->n; i++) {
		const char *prev = i ? a->v[i - 1] : "";

		/* the monitor fd and the state file are tapboot's, not a shell's */
		if ((!strcmp(a->v[i], "-chardev") || !strcmp(a->v[i], "-mon") ||
		     !strcmp(a->v[i], "-incoming")) &&
		    i + 1 < a->n) {
			i++;
			continue;
		}
		if (!strcmp(prev, "-append") && vm->r->snap.handoff) {
			/* the handoff word becomes the VM's own values (without the secret: the
			 * init's lines come out untagged) */
			struct strbuf sb = STRBUF_INIT;
			const char *h = strstr(a->v[i], TAPBOOT_ARG_HANDOFF);

			if (h) {
				strbuf_add(&sb, a->v[i], (size_t)(h - a->v[i]));
				add_vm_values(vm, &sb);
				strbuf_addstr(&sb, h + strlen(TAPBOOT_ARG_HANDOFF));
			} else {
				strbuf_addstr(&sb, a->v[i]);
			}
			strlist_push(out, sb.buf);
			strbuf_release(&sb);
			continue;
		}
		strlist_push(out, a->v[i]);
	}
}

char *vm_kernel_args(const struct vm *vm)
{
	const struct run *r = vm->r;
	struct strbuf sb = STRBUF_INIT;

	/* snapshot boot: the command line is the same for every VM (it is part of the saved
	 * state); what differs comes with the handoff line */
	if (r->snap.handoff) {
		strbuf_addstr(&sb, TAPBOOT_ARG_HANDOFF);
		if (r->o->append)
			strbuf_addf(&sb, " %s", r->o->append);
		return strbuf_detach(&sb);
	}
	add_vm_values(vm, &sb);
	if (r->o->append)
		strbuf_addf(&sb, " %s", r->o->append);
	return strbuf_detach(&sb);
}


/* QEMU's last message line (its stderr's), for a one-line error; caller frees. */
static char *last_line(const char *s)
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
	if (vm->console)
		fclose(vm->console);
	vm->console = NULL;
	if (vm->test_log)
		fclose(vm->test_log);
	vm->test_log = NULL;
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
	vm->handed_off = vm->rline_over = false;
	vm->rlen = 0;
}

void vm_release(struct vm *vm)
{
	vm_reset(vm);
	free(vm->select_args);
	free(vm->tests);
	free(vm->console_path);
}

/* Console log, parser and QEMU process for one attempt; -1 when QEMU cannot start. */
static int vm_start(struct vm *vm)
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
	const char **names = xcalloc(vm->ntests + 1, sizeof(*names));
	struct qemu_boot b = {
		.cfg = &r->cfg,
		.kernel = r->boot_kernel,
		.bzimage = r->bzimage,
		.initrd = r->initrd,
		.accel = r->accel,
		.tcg_single = r->tcg_single,
		.cpu = r->o->cpu,
		.machine = r->o->machine,
		.memory_mb = r->o->memory_mb,
		.smp = r->o->smp,
	};
	char *extra = vm_kernel_args(vm), *cmdline = qemu_kernel_cmdline(&r->cfg, r->accel, extra);
	struct qemu_spawn_io io = {.stdin_pipe = true, .qmp_fd = -1, .incoming_fd = -1};
	int ret;

	vm_reset(vm);
	vm->console = fopen(vm->console_path, "w");
	if (!vm->console) {
		error_errno("cannot create '%s'", vm->console_path);
		free(names);
		free(extra);
		free(cmdline);
		return -1;
	}
	vm->parser = tap_parser_new(r->nonce, &ev);
	tap_parser_set_mode(vm->parser, TAP_PARSE_TAPBOOT, r->key);
	for (size_t i = 0; i < vm->ntests; i++)
		names[i] = r->plan.tests[vm->tests[i]].name;
	tap_parser_expect(vm->parser, names, vm->ntests);
	free(names);
	b.cmdline = cmdline;
	qemu_argv_build(&b, &vm->argv);
	free(extra);
	free(cmdline);
	vm->qemu_status = -1;
	if (r->snap.handoff) {
		/* the QMP monitor on every VM of a snapshot run: the command line the snapshot
		 * was saved with is the one it is restored with */
		if (qmp_init(&vm->qmp) < 0)
			return -1;
		vm->qmp_on = true;
		io.qmp_fd = vm->qmp.child_fd;
		qmp_argv(&vm->argv);
		if (!r->snap.key[0])
			snapshot_lookup(r, &vm->argv);
		vm->saver = r->snap.state == SNAPSHOT_BUILD && !r->snap.saving;
		r->snap.saving |= vm->saver;
		vm->restore = r->snap.state == SNAPSHOT_READY;
		if (vm->restore) {
			/* QEMU reads the state from the file itself: through "exec:cat" (a pipe)
			 * loading took 1.2-1.7 s against 0.55 s here (arm64, 63 MB) */
			io.incoming_fd = open(r->snap.path, O_RDONLY | O_CLOEXEC);
			if (io.incoming_fd < 0) {
				char *why = xasprintf("cannot open '%s': %s", r->snap.path,
						      strerror(errno));

				snapshot_fail(r, why);
				free(why);
				vm->restore = false;
			} else {
				char *uri = xasprintf("fd:%d", QEMU_SPAWN_INCOMING_FD);

				strlist_push(&vm->argv, "-incoming");
				strlist_push(&vm->argv, uri);
				free(uri);
			}
		}
	}
	ret = qemu_spawn(&vm->proc, &vm->argv, qemu_package_hint(&r->cfg),
			 r->snap.handoff ? &io : NULL);
	if (io.incoming_fd >= 0)
		close(io.incoming_fd);
	if (ret < 0)
		return -1;
	if (vm->qmp_on)
		qmp_spawned(&vm->qmp);
	vm->spawned = true;
	return 0;
}

/* A VM started from the snapshot: wait until QEMU loaded it, resume it, hand it its line.
 * When QEMU cannot load it (the file passed its check, so QEMU itself refuses it), the
 * snapshot goes and the run boots cold: -1, and the caller starts the VM again. */
static int vm_resume_restored(struct vm *vm)
{
	struct run *r = vm->r;
	char *err = NULL;

	if (qmp_wait_loaded(&vm->qmp, 60, &err) == 0 && qmp_cont(&vm->qmp, 30, &err) == 0) {
		fprintf(vm->console,
			"tapboot: VM %u started from snapshot %s (saved at the init's ready point; "
			"--no-snapshot boots cold)\n",
			vm->index, r->snap.path);
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
		unlink(r->snap.path);
		unlink(r->snap.sum_path);
		snapshot_fail(r, why);
		free(why);
	}
	free(err);
	return -1;
}

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
		*os = (struct watch_opts){.signal_fd = -1, .on_console = console_data, .ctx = vm};
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
			char *last = qerr && *qerr ? last_line(qerr) : NULL;
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
		char *last = qerr && *qerr ? last_line(qerr) : NULL;
		char *e = xasprintf("the guest never reached tapboot's init (QEMU %s%s%s)",
				    vm->qemu_status > 0 ? "exited with an error" : "exited",
				    last ? ": " : "", last ? last : "");

		free(last);
		return e;
	}
	return xstrdup("the guest stopped before the end of the run (no end marker with this "
		       "run's nonce)");
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
	if (!e || vm->begun || s->crashed || vm->res == WATCH_INTERRUPTED ||
	    vm->res == WATCH_QEMU_FATAL || !strcmp(r->boot_kernel, r->kernel_image) ||
	    (vm->res == WATCH_EXITED && vm->qemu_status >= 0 && WIFSIGNALED(vm->qemu_status)))
		return e;
	hinted = xasprintf("%s; QEMU booted the kernel tapboot unpacked on the host (%s): "
			   "--boot-as-is boots '%s' itself",
			   e, r->boot_kernel, r->kernel_image);
	free(e);
	return hinted;
}
