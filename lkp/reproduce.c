// SPDX-License-Identifier: GPL-2.0-only
/* reproduce.c: tapboot repro run: the report's test, machine and command line, the attempts
 * (each a `tapboot run` of this binary into its own results directory) and their verdicts. */
#include "reproduce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "proc.h"
#include "machine_line.h"
#include "strbuf.h"

int repro_bisect_code(int status, bool bisect)
{
	if (!bisect)
		return status;
	switch (status) {
	case 0:
	case 1:
		return status;
	case EXIT_USAGE:
		return 255;
	case EXIT_INTERRUPTED:
		return 255;
	default:
		return 125;
	}
}

/* ---- the test ---- */

int repro_pick_test(const struct repro_report *r, const char *kselftest, char **ks_test,
		    char **ks_case)
{
	const char *tc = r->testcase ? r->testcase : "boot";

	*ks_test = *ks_case = NULL;
	if (!strcmp(tc, "boot"))
		return 0; /* lkp's boot job runs "sleep 1" once the system is up: a trivial test */
	if (strncmp(tc, "kernel-selftests", 16))
		return error(
			"testcase '%s' is not one tapboot runs itself (boot and kernel-selftests.* "
			"are): give the TEST that triggers it",
			tc);
	/* kernel-selftests.<coll>.<test>[.<case>] from the table or the headline */
	const char *key = NULL;
	for (size_t i = 0; i < r->nrows && !key; i++)
		if (!strncmp(r->rows[i].id, "kernel-selftests.", 17))
			key = r->rows[i].id;
	if (!key && r->headline && !strncmp(r->headline, "kernel-selftests.", 17))
		key = r->headline;
	if (!key || !kselftest)
		return error("testcase '%s': %s", tc,
			     !key ? "the report names no kernel-selftests.COLLECTION.TEST"
				  : "give the kselftest install tree with --kselftest DIR");
	char *k = xstrdup(key + 17);
	size_t kl = strlen(k);
	if (kl > 5 && !strcmp(k + kl - 5, ".fail"))
		k[kl - 5] = '\0';
	char *dot1 = strchr(k, '.');
	char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
	if (!dot1) {
		free(k);
		return error("testcase '%s': cannot read COLLECTION.TEST from '%s'", tc, key);
	}
	*dot1 = ':';
	if (dot2) {
		*dot2 = '\0';
		*ks_case = xstrdup(dot2 + 1);
	}
	*ks_test = k;
	return 0;
}

/* ---- the QEMU machine ---- */

void repro_machine_pick(const struct repro_report *r, bool kvm, struct repro_machine *m, FILE *out)
{
	struct machine_line ml;

	machine_line_parse(r->machine, &ml);
	m->smp = ml.smp;
	m->cpu = ml.cpu;
	m->memory = NULL;
	if (m->cpu && !kvm) {
		fprintf(out,
			"machine: TCG cannot model the report's -cpu %s: QEMU's default CPU "
			"instead\n",
			m->cpu);
		free(m->cpu);
		m->cpu = NULL;
	}
	if (ml.memory) {
		/* lkp caps memory at half of what the host has; tapboot keeps the guest small so
		 * attempts can run side by side: 2 GiB at most, said aloud */
		char *e;
		double v = strtod(ml.memory, &e);
		double mb = *e == 'G' || *e == 'g' ? v * 1024 : v;
		if (mb > 2048) {
			fprintf(out, "machine: the report's %.0f MB of memory capped at 2048 MB\n",
				mb);
			mb = 2048;
		}
		if (mb >= 64)
			m->memory = xasprintf("%.0f", mb);
		free(ml.memory);
	}
	m->i440fx = (r->dmesg && strstr(r->dmesg, "i440FX")) ||
		    (r->full_dmesg && strstr(r->full_dmesg, "i440FX"));
}

void repro_machine_release(struct repro_machine *m)
{
	free(m->smp);
	free(m->memory);
	free(m->cpu);
	memset(m, 0, sizeof(*m));
}

/* ---- the run's plan and its attempts ---- */

/* What every attempt runs, worked out once. */
struct repro_plan {
	const struct repro_run_opts *o;
	const struct repro_report *r;
	struct repro_machine machine;
	char *cmdline;		 /* the report's, without lkp's and tapboot's own options */
	char *ks_test, *ks_case; /* a kernel-selftests testcase: COLL:TEST and its case */
	char *outdir;		 /* where the attempts go */
	char *bootscript;	 /* lkp's boot testcase as a test */
	const char *sig;	 /* the report's first target id, for the lines */
};

/* How the attempts went. */
struct repro_tally {
	unsigned reproduced, other, untestable, clean, done;
};

static bool kvm_usable(const char *accel)
{
	if (accel && !strcmp(accel, "tcg"))
		return false;
	return !access("/dev/kvm", R_OK | W_OK);
}

/* The kernel's config against the report's, said on stdout. Returns repro_config_gap's. */
static int report_config(const struct repro_plan *p)
{
	struct strbuf missing;
	const char *why = NULL;
	char *path = repro_kernel_config_path(p->o->kernel, p->o->config);
	int gap;

	strbuf_init(&missing);
	gap = repro_config_gap(p->r, path, &missing, &why);
	if (gap < 0)
		printf("config: cannot compare with %s: no config for '%s' (give --config FILE)\n",
		       why, p->o->kernel);
	else if (gap > 0) {
		printf("config: the kernel lacks what %s has:", why);
		for (char *s = missing.buf; *s;) {
			char *e = strchr(s, '\n');
			printf(" %.*s", (int)(e - s), s);
			s = e + 1;
		}
		putchar('\n');
	}
	free(path);
	strbuf_release(&missing);
	return gap;
}

/* Where the attempts go: -o DIR, else a new ./tapboot-repro.XXXXXX; and lkp's boot testcase as
 * a script there when the run has no other test. 0, or -1 after a message. */
static int make_outdir(struct repro_plan *p)
{
	if (p->o->out) {
		if (mkdir(p->o->out, 0777) && errno != EEXIST)
			return error_errno("cannot create '%s'", p->o->out);
		p->outdir = xstrdup(p->o->out);
	} else {
		char tmpl[] = "tapboot-repro.XXXXXX";
		if (!mkdtemp(tmpl))
			return error_errno("cannot create a directory in the current one");
		p->outdir = xstrdup(tmpl);
	}
	if (!p->o->ntests && !p->ks_test) {
		p->bootscript = xasprintf("%s/boot", p->outdir);
		FILE *fp = fopen(p->bootscript, "w");
		if (!fp ||
		    fputs("#!/bin/sh\n# the boot testcase: the system came up; lkp sleeps 1 s "
			  "here\n"
			  "sleep 1\n",
			  fp) < 0 ||
		    fclose(fp))
			return error_errno("cannot write '%s'", p->bootscript);
		chmod(p->bootscript, 0755);
	}
	return 0;
}

/* tapboot run's arguments for one attempt into dir (args holds 64). */
static void attempt_argv(const struct repro_plan *p, const char *dir, const char **args)
{
	const struct repro_run_opts *o = p->o;
	int na = 0;

	args[na++] = "tapboot";
	args[na++] = "run";
	args[na++] = "--kernel";
	args[na++] = o->kernel;
	args[na++] = "-o";
	args[na++] = dir;
	args[na++] = "-q";
	if (*p->cmdline) {
		args[na++] = "--append";
		args[na++] = p->cmdline;
	}
	if (p->machine.smp) {
		args[na++] = "--smp";
		args[na++] = p->machine.smp;
	}
	if (o->memory || p->machine.memory) {
		args[na++] = "--memory";
		args[na++] = (o->memory ? o->memory : p->machine.memory);
	}
	if (p->machine.cpu) {
		args[na++] = "--cpu";
		args[na++] = p->machine.cpu;
	}
	if (p->machine.i440fx) {
		args[na++] = "--machine";
		args[na++] = "pc";
	}
	if (o->config) {
		args[na++] = "--config";
		args[na++] = o->config;
	}
	if (o->timeout) {
		args[na++] = "--timeout";
		args[na++] = o->timeout;
	}
	if (o->accel) {
		args[na++] = "--accel";
		args[na++] = o->accel;
	}
	if (p->ks_test) {
		args[na++] = "--kselftest";
		args[na++] = o->kselftest;
		args[na++] = "-t";
		args[na++] = p->ks_test;
	} else if (p->bootscript) {
		args[na++] = p->bootscript;
	}
	for (int t = 0; t < o->ntests && na < 62; t++)
		args[na++] = o->tests[t];
	args[na] = NULL;
}

/* Run `tapboot run` (this binary) for one attempt; its exit status, or -1. */
static int run_attempt(char *const *argv)
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	pid = proc_fork();
	if (pid < 0)
		return error_errno("cannot fork");
	if (pid == 0) {
		/* the results stay on disk; the attempt's table goes to stderr, stdout is ours */
		dup2(2, 1);
		execv("/proc/self/exe", argv);
		error_errno("cannot run /proc/self/exe");
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return error_errno("cannot wait for tapboot run");
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return EXIT_INTERRUPTED;
}

/* A kselftest case the report says fails, failing again in dir's results.json. */
static bool kselftest_failed(const struct repro_plan *p, const char *dir)
{
	char *res = xasprintf("%s/results.json", dir), *js;
	size_t jl;
	bool failed = false;

	if (!repro_read_file(res, &js, &jl)) {
		char *pat =
			p->ks_case ? xasprintf("\"name\": \"%s\", \"result\": \"fail\"", p->ks_case)
				   : xstrdup("\"result\": \"fail\"");
		failed = strstr(js, pat) != NULL;
		free(pat);
		free(js);
	}
	free(res);
	return failed;
}

/* Attempt i's verdict from its console (rs: tapboot run's exit status, set to EXIT_VM when there
 * is no console), said in its line. */
static enum repro_verdict judge_attempt(const struct repro_plan *p, unsigned i, const char *dir,
					int *rs)
{
	char *console = xasprintf("%s/console.log", dir), *buf;
	enum repro_verdict v = REPRO_CLEAN;
	size_t len;

	if (!repro_read_file(console, &buf, &len)) {
		struct repro_match m;
		repro_match_console(p->r, buf, len, &m);
		v = m.verdict;
		if (v == REPRO_CLEAN && p->ks_test && *rs == 1 && kselftest_failed(p, dir))
			v = REPRO_REPRODUCED;
		printf("attempt %u: %s", i, repro_verdict_name(v));
		if (m.verdict != REPRO_CLEAN)
			printf(": %s (%s:%zu)", m.scan.hits[m.lines[0]].id, console,
			       m.scan.hits[m.lines[0]].line);
		else if (*rs == EXIT_VM)
			printf(" (the boot or VM failed before the test; tapboot run exit %d)",
			       *rs);
		printf("  [%s]\n", dir);
		repro_match_release(&m);
		free(buf);
	} else {
		printf("attempt %u: no console.log (tapboot run exit %d)\n", i, *rs);
		*rs = EXIT_VM;
	}
	free(console);
	return v;
}

/* Up to o->n attempts (the first reproduction ends them unless --all). 0, or the exit status
 * that ends the run early (bad usage of tapboot run, interrupted). */
static int run_attempts(const struct repro_plan *p, struct repro_tally *t)
{
	for (unsigned i = 1; i <= p->o->n; i++) {
		const char *args[64];
		char *dir = xasprintf("%s/attempt-%u", p->outdir, i);
		int rs;

		attempt_argv(p, dir, args);
		rs = run_attempt((char *const *)args);
		if (rs == EXIT_USAGE || rs == EXIT_INTERRUPTED || rs < 0) {
			free(dir);
			return rs == EXIT_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_USAGE;
		}
		enum repro_verdict v = judge_attempt(p, i, dir, &rs);
		t->done++;
		if (v == REPRO_REPRODUCED)
			t->reproduced++;
		else if (v == REPRO_OTHER)
			t->other++;
		else if (rs == EXIT_VM)
			t->untestable++;
		else
			t->clean++;
		free(dir);
		if (t->reproduced && !p->o->all)
			break;
	}
	return 0;
}

/* The run's verdict line and results directory; its exit status. */
static int summary(const struct repro_plan *p, const struct repro_tally *t, int gap)
{
	int status;

	if (t->reproduced) {
		printf("reproduced %u/%u: %s\n", t->reproduced, t->done, p->sig ? p->sig : "");
		status = 1;
	} else if (t->other || t->untestable) {
		printf("not tested %u/%u: %s\n", t->other + t->untestable, t->done,
		       t->other ? "another crash or warning came first"
				: "the boot failed before the test");
		status = EXIT_VM;
	} else {
		printf("not reproduced 0/%u%s\n", t->done,
		       gap > 0 ? ": on a kernel without the options above this proves little" : "");
		status = 0;
	}
	printf("results: %s/\n", p->outdir);
	return status;
}

/* Everything before the attempts: the test, the config, the machine, the directory, the
 * report: and cmdline: lines. 0, or -1 after a message. */
static int plan_attempts(struct repro_plan *p, int *gap)
{
	const struct repro_run_opts *o = p->o;
	const char **ids;

	if (!o->ntests && repro_pick_test(p->r, o->kselftest, &p->ks_test, &p->ks_case))
		return -1;
	*gap = report_config(p);
	p->cmdline = repro_cmdline_for_run(p->r->cmdline);
	repro_machine_pick(p->r, kvm_usable(o->accel), &p->machine, stdout);
	if (make_outdir(p))
		return -1;
	size_t nids = repro_report_target_ids(p->r, &ids);
	p->sig = nids ? ids[0] : NULL;
	printf("report: %s%s%s\n", p->sig ? p->sig : "(no signature)",
	       p->r->commit ? " on commit " : "", p->r->commit ? p->r->commit : "");
	printf("cmdline: %s\n", *p->cmdline ? p->cmdline : "(none beyond tapboot's)");
	free(ids);
	return 0;
}

int repro_run(const struct repro_run_opts *o)
{
	struct repro_report r;
	struct repro_plan p = {.o = o, .r = &r};
	struct repro_tally t = {0, 0, 0, 0, 0};
	int status = EXIT_USAGE, gap = 0;

	repro_report_init(&r);
	if (!repro_report_read(&r, o->report) && !plan_attempts(&p, &gap)) {
		status = run_attempts(&p, &t);
		if (!status)
			status = summary(&p, &t, gap);
	}
	repro_machine_release(&p.machine);
	free(p.cmdline);
	free(p.ks_test);
	free(p.ks_case);
	free(p.outdir);
	free(p.bootscript);
	repro_report_release(&r);
	return status;
}
