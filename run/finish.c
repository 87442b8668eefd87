// SPDX-License-Identifier: GPL-2.0-only
/* finish.c: after the VMs: the results merged, the reports, the consoles, QEMU's messages,
 * reproduce.sh, the summary and the exit status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "crash_sig.h"
#include "error.h"
#include "fs.h"
#include "kernel_image.h"
#include "qemu_version.h"
#include "results.h"
#include "shard.h"
#include "strbuf.h"
#include "vm.h"

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

struct reproduce {
	const struct run *r;
	const char *cmd_line, *khash, *ihash, *qver;
};

static int reproduce_write(FILE *fp, const void *ctx)
{
	const struct reproduce *x = ctx;
	const struct run *r = x->r;

	fprintf(fp,
		"#!/bin/sh\n"
		"# reproduce.sh: boots this run again with the same kernel, initramfs and QEMU "
		"command line%s.\n"
		"# tapboot %s; %s\n"
		"# kernel    %s\n#   sha256  %s\n"
		"# initramfs %s\n#   sha256  %s\n"
		"# boot image %s\n"
		"# accel: %s\n"
		"# the tapboot command was:\n#   %s\n"
		"# (a rerun with tapboot itself rebuilds the image and picks a new nonce)\n",
		r->nvms > 1 ? "s (one per VM, run one after the other)" : "", TAPBOOT_VERSION,
		x->qver, r->kernel_image, x->khash, r->initrd, x->ihash, r->boot_kernel,
		r->accel_note ? r->accel_note : "", x->cmd_line);
	if (r->snap.handoff)
		fprintf(fp,
			"# snapshot boot: %s%s%s\n"
			"# the lines below boot each VM cold, its values on the kernel command line\n"
			"# (the init's lines then come out untagged); the tapboot command above starts\n"
			"# the VMs from the snapshot again while it is in the cache\n",
			snapshot_state_name(r->snap.state), r->snap.path ? " " : "",
			r->snap.path ? r->snap.path : "");
	for (size_t v = 0; v < r->nvms; v++) {
		struct strlist cold;
		char *qcmd;

		strlist_init(&cold);
		vm_cold_argv(&r->vms[v], &cold);
		qcmd = qemu_argv_shell(&cold);
		if (cold.n)
			fprintf(fp, "%s%s\n", r->nvms == 1 ? "exec " : "", qcmd);
		free(qcmd);
		strlist_release(&cold);
	}
	return 0;
}

static void write_reproduce(struct run *r, const char *cmd_line)
{
	char *path = xasprintf("%s/reproduce.sh", r->dir);
	char khash[65] = "", ihash[65] = "", qver[256];
	struct reproduce x = {r, cmd_line, khash, ihash, qver};

	strcpy(khash, r->kernel_sha256[0] ? r->kernel_sha256 : "unreadable");
	/* stat-cached: snapshot boot hashed this image already */
	if (file_sha256(r->initrd, ihash) < 0)
		strcpy(ihash, "unreadable");
	qemu_version(r->cfg.qemu, qver, sizeof(qver));
	if (write_file_atomic(path, WRITE_FILE_QUIET, 0755, reproduce_write, &x) < 0)
		run_write_failed(r, path, errno);
	free(path);
}

/* --isolate starts the longest tests first: its consoles go into console.log in the plan's
 * order. */
static int cmp_first_test(const void *a, const void *b, void *ctx)
{
	const struct run *r = ctx;
	const struct vm *x = &r->vms[*(const size_t *)a], *y = &r->vms[*(const size_t *)b];
	size_t tx = x->ntests ? x->tests[0] : 0, ty = y->ntests ? y->tests[0] : 0;

	return tx < ty ? -1 : tx > ty;
}

/* console.log of a multi-VM run: every VM's raw console one after the other (each begins
 * with its own begin marker, so `tapboot parse` reads them as one run). */
static void concat_consoles(struct run *r)
{
	char *path = xasprintf("%s/console.log", r->dir);
	FILE *out = fopen(path, "w");
	char buf[65536];
	size_t n, *order = xcalloc(r->nvms + 1, sizeof(*order));

	for (size_t v = 0; v < r->nvms; v++)
		order[v] = v;
	if (r->o->isolate)
		qsort_r(order, r->nvms, sizeof(*order), cmp_first_test, r);
	for (size_t k = 0; out && k < r->nvms; k++) {
		FILE *in = fopen(r->vms[order[k]].console_path, "r");

		if (!in)
			continue;
		while (out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
			if (fwrite(buf, 1, n, out) != n) {
				run_write_failed(r, path, errno);
				fclose(out);
				out = NULL;
			}
		fclose(in);
	}
	if (!out)
		run_write_failed(r, path, errno);
	else
		run_close_checked(r, out, path, true);
	free(order);
	free(path);
}

/* Whether every VM that did not complete failed in QEMU itself (vm_qemu_failed). */
static bool qemu_failed_alone(const struct run *r)
{
	bool any = false;

	for (size_t v = 0; v < r->nvms; v++) {
		if (!r->vms[v].error)
			continue;
		if (!vm_qemu_failed(&r->vms[v]))
			return false;
		any = true;
	}
	return any;
}

/* End each VM's parse (the test running when tapboot cut a console off gets the reason) and
 * gather why VMs did not complete into errors ("VM N: " before each when there are several). */
static void finish_vms(struct run *r, struct strbuf *errors)
{
	for (size_t v = 0; v < r->nvms; v++) {
		struct vm *vm = &r->vms[v];
		char *e, *cut;

		if (!vm->parser)
			continue;
		cut = vm_cut_reason(r, vm);
		if (vm->res == WATCH_INTERRUPTED)
			tap_parser_interrupted(vm->parser);
		tap_parser_finish(vm->parser, cut);
		if (vm->console)
			fflush(vm->console);
		e = vm_error(r, vm, tap_parser_summary(vm->parser), cut);
		free(cut);
		if (e) {
			if (errors->len)
				strbuf_addstr(errors, "; ");
			if (r->nvms > 1)
				strbuf_addf(errors, "VM %u: ", vm->index);
			strbuf_addstr(errors, e);
			vm->error = e;
		}
	}
}

/* A timeout during which QEMU was stopped or starved (stall.c) says so in its reason, in every
 * report; the verdict stays a timeout. The new reasons are owned by notes. */
static void note_stalls(struct run *r, struct results *res, struct strlist *notes)
{
	for (size_t v = 0; v < r->nvms; v++) {
		const struct vm *vm = &r->vms[v];

		for (size_t k = 0; vm->stall_s && k < vm->ntests; k++) {
			const char *name = r->plan.tests[vm->tests[k]].name;

			if (vm->stall_s[k] < STALL_NOTE_S)
				continue;
			for (size_t i = 0; i < res->ntests; i++) {
				struct tap_test *t = &res->tests[i];
				char *why;

				if (strcmp(t->name, name) || t->verdict != VERDICT_TIMEOUT)
					continue;
				/* a busy host's run delay is no story: a tenth of the test */
				if (t->duration_s > 0 &&
				    vm->stall_s[k] < t->duration_s * STALL_NOTE_PART)
					continue;
				why = stall_reason(t->reason, vm->stall_s[k]);
				strlist_push(notes, why);
				free(why);
				t->reason = notes->v[notes->n - 1];
			}
		}
	}
}

/* The VMs' results in plan order (results_merge). */
static void merge_vms(struct run *r, struct results *res)
{
	struct results_shard *sh = xcalloc(r->nvms + 1, sizeof(*sh));
	const char **names = xcalloc(r->plan.n + 1, sizeof(*names));

	for (size_t i = 0; i < r->plan.n; i++)
		names[i] = r->plan.tests[i].name;
	for (size_t v = 0; v < r->nvms; v++) {
		struct vm *vm = &r->vms[v];

		if (vm->parser) {
			sh[v].sum = tap_parser_summary(vm->parser);
			sh[v].tests = tap_parser_tests(vm->parser, &sh[v].ntests);
		}
		sh[v].plan_idx = vm->tests;
		sh[v].nplan = vm->ntests;
	}
	results_merge(res, sh, r->nvms, names, r->plan.n);
	free(names);
	free(sh);
}

static int put_str(FILE *fp, const void *s)
{
	return fputs(s, fp) < 0 ? -1 : 0;
}

/* What QEMU said on stderr, per VM: qemu.log (qemu.N.log when several). */
static void write_qemu_logs(struct run *r)
{
	for (size_t v = 0; v < r->nvms; v++) {
		const char *qerr = r->vms[v].qemu_err;
		char *p;

		if (!qerr || !*qerr)
			continue;
		p = r->nvms == 1 ? xasprintf("%s/qemu.log", r->dir)
				 : xasprintf("%s/qemu.%zu.log", r->dir, v + 1);
		if (write_file_atomic(p, WRITE_FILE_QUIET, 0, put_str, qerr) < 0)
			run_write_failed(r, p, errno);
		free(p);
	}
}

int run_finish(struct run *r, const char *cmd_line)
{
	const struct qemu_boot machine = {
		.cfg = &r->cfg, .bzimage = r->bzimage, .machine = r->o->machine};
	struct report_run rep;
	struct crash_sig *crash;
	struct results res;
	struct strbuf errors = STRBUF_INIT, rep_error = STRBUF_INIT;
	struct strlist notes;
	char *dpath;
	unsigned *vm_of;
	int status;

	results_init(&res);
	strlist_init(&notes);
	finish_vms(r, &errors);
	merge_vms(r, &res);
	note_stalls(r, &res, &notes);
	if (res.unmatched) {
		if (errors.len)
			strbuf_addstr(&errors, "; ");
		strbuf_addf(&errors,
			    "%zu planned test%s had no verdict although the guest finished "
			    "(the first: '%s')",
			    res.unmatched, res.unmatched == 1 ? "" : "s", res.first_unmatched);
	}
	dpath = durations_path(r->cfg.arch);
	durations_save(dpath, res.tests, res.ntests);
	free(dpath);
	if (r->nvms > 1)
		concat_consoles(r);
	/* a write into the results directory that failed during the boot (console.log, a test's
	 * log) is the run's error: the reports say it (it was said on stderr when it failed) */
	strbuf_init(&rep_error);
	strbuf_add(&rep_error, errors.buf ? errors.buf : "", errors.len);
	if (r->write_error)
		strbuf_addf(&rep_error, "%s%s", rep_error.len ? "; " : "", r->write_error);
	/* a VM's error makes its summary, and so the merged one, incomplete: complete is the
	 * merged summary's */
	report_run_fill(&rep, res.tests, res.ntests, &res.sum,
			r->o->kselftest ? "kselftest" : "tapboot",
			rep_error.len ? rep_error.buf : NULL);
	rep.arch = r->cfg.arch;
	rep.kernel = r->kernel_image;
	rep.accel = r->accel == QEMU_ACCEL_KVM ? "kvm" : "tcg";
	rep.wall_s = now_s() - r->start;
	rep.kcidb_origin = r->o->kcidb_origin;
	rep.run_id = r->nonce;
	rep.nonce = r->nonce;
	rep.machine = qemu_boot_machine(&machine);
	rep.start_time = (double)time(NULL) - (now_s() - r->start);
	rep.reproduce = "reproduce.sh"; /* in the results directory */
	/* results.html's timeline: which VM ran each plan test (the merge is in plan order) */
	vm_of = xcalloc(res.ntests + 1, sizeof(*vm_of));
	for (size_t v = 0; v < r->nvms; v++)
		for (size_t k = 0; k < r->vms[v].ntests; k++)
			if (r->vms[v].tests[k] < res.ntests)
				vm_of[r->vms[v].tests[k]] = (unsigned)v + 1;
	rep.vm_of = vm_of;
	/* a crash, or a kernel warning in a run that failed, named as the robot and syzkaller do */
	dpath = xasprintf("%s/console.log", r->dir);
	crash = report_exit_status(&rep) ? crash_sig_from_file(dpath) : NULL;
	rep.crash = crash;
	free(dpath);
	/* the reserve goes now: the reports are what it kept room for */
	if (r->reserve && unlink(r->reserve) < 0 && errno != ENOENT)
		warning_errno("cannot remove '%s'", r->reserve);
	if (report_write_all(r->dir, &rep) < 0 && !r->write_error)
		r->write_error = xasprintf("cannot write the reports in '%s'", r->dir);
	write_qemu_logs(r);
	write_reproduce(r, cmd_line);
	if (r->tty && !r->o->quiet)
		fputs("\r\033[K", stderr);
	/* each result was shown live on stderr: when stdout is the same terminal or file, the
	 * table would show them all again */
	if (!r->o->quiet && same_file(1, 2))
		report_totals_fprint_policy(stdout, &rep, &r->o->policy);
	else
		report_summary_fprint_policy(stdout, &rep, &r->o->policy);
	if (errors.len)
		error("%s", errors.buf);
	printf("results: %s/\n", r->dir);
	status = results_exit_status(&rep, &r->o->policy, r->interrupted);
	/* never 0 (nor 1) when a file of the results could not be written: what is there is not
	 * the run (README, "Exit status") */
	if (r->write_error && status != EXIT_INTERRUPTED)
		status = EXIT_VM;
	strbuf_release(&errors);
	strbuf_release(&rep_error);
	crash_sig_free(crash);
	free(vm_of);
	results_release(&res);
	strlist_release(&notes);
	/* a kernel that died before the init: its last lines, and why; not when QEMU itself
	 * failed (its message says why: the kernel never ran) */
	if (status == EXIT_VM && !qemu_failed_alone(r))
		kconfig_check_postmortem(r->dir, r->kernel_config, &r->kneeds);
	return status;
}
