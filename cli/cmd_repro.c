/* cmd_repro.c: tapboot repro parse|match|run: a kernel test robot report read, matched against a
 * console, and reproduced on the user's kernel with a yes or no (and git bisect run's codes). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "commands_repro.h"
#include "error.h"
#include "proc.h"
#include "repro.h"
#include "strbuf.h"

static const char usage[] =
	"usage: tapboot repro parse REPORT\n"
	"       tapboot repro match REPORT CONSOLE\n"
	"       tapboot repro run REPORT --kernel IMAGE|DIR [-n N] [--all] [--bisect] [TEST...]\n"
	"\n"
	"REPORT: a kernel test robot mail (plain text, mbox, MIME with base64 or quoted-printable\n"
	"parts, dmesg.xz/kmsg.xz attachments) or a directory of its materials (config-*,\n"
	"job-script, job.yaml, dmesg.xz, kmsg.xz, reproduce.sh). The job-script is parsed, never run.\n"
	"\n"
	"parse   print the report as JSON\n"
	"match   reproduced (a signature of the report's commit column is in CONSOLE), other (a\n"
	"        different crash or warning) or clean, with the matching lines\n"
	"run     boot the kernel with the report's command line and the test, up to N times\n"
	"\n"
	"run options:\n"
	"  --kernel IMAGE|DIR   the kernel to test (an O= build directory, an image, Debian's)\n"
	"  -n N                 attempts (default 1); stops at the first reproduction unless --all\n"
	"  --all                run all N attempts\n"
	"  --bisect             exit codes for git bisect run: 0 good, 1 bad, 125 cannot test,\n"
	"                       255 bad input\n"
	"  --config FILE        the kernel's .config (default: DIR/.config or config-* beside IMAGE)\n"
	"  --kselftest DIR      kselftest install tree for kernel-selftests.* testcases\n"
	"  -o, --output DIR     where the attempts' results directories go (default: a new\n"
	"                       ./tapboot-repro.XXXXXX)\n"
	"  --timeout S, --accel auto|kvm|tcg, --memory MB   passed to tapboot run\n"
	"  TEST...              the test that triggers the problem (needed unless the testcase is\n"
	"                       boot or kernel-selftests.*)\n"
	"\n"
	"Exit status (match and run): 0 not reproduced (clean), 1 reproduced, 2 bad usage or input,\n"
	"3 the kernel could not be tested (boot failed before the test, or another crash came\n"
	"first); with --bisect: 0, 1, 125 and 255 (bad input).\n";

static int do_parse(int argc, char **argv)
{
	struct repro_report r;

	if (argc != 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	repro_report_init(&r);
	if (repro_report_read(&r, argv[1])) {
		repro_report_release(&r);
		return EXIT_USAGE;
	}
	repro_report_json(stdout, &r);
	repro_report_release(&r);
	return 0;
}

static int read_file(const char *path, char **out, size_t *len)
{
	return repro_read_file(path, out, len);
}

static int verdict_status(enum repro_verdict v)
{
	return v == REPRO_REPRODUCED ? 1 : v == REPRO_OTHER ? EXIT_VM : 0;
}

static void print_match(const char *console, const struct repro_match *m)
{
	printf("%s", repro_verdict_name(m->verdict));
	if (m->verdict != REPRO_CLEAN)
		printf(": %s", m->scan.hits[m->lines[0]].id);
	putchar('\n');
	if (m->scan.title)
		printf("  title: %s\n", m->scan.title);
	for (size_t i = 0; i < m->nlines; i++) {
		const struct crash_hit *h = &m->scan.hits[m->lines[i]];
		printf("  %s:%zu: %s\n    id: %s\n", console, h->line, h->text, h->id);
	}
}

static int do_match(int argc, char **argv)
{
	struct repro_report r;
	struct repro_match m;
	char *buf;
	size_t len;
	int status;

	if (argc != 3) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	repro_report_init(&r);
	if (repro_report_read(&r, argv[1]) || read_file(argv[2], &buf, &len)) {
		repro_report_release(&r);
		return EXIT_USAGE;
	}
	repro_match_console(&r, buf, len, &m);
	print_match(argv[2], &m);
	status = verdict_status(m.verdict);
	repro_match_release(&m);
	repro_report_release(&r);
	free(buf);
	return status;
}

/* ---- run ---- */

struct run_opts {
	const char *kernel, *config, *kselftest, *out, *timeout, *accel, *memory;
	unsigned n;
	bool all, bisect;
	char **tests;
	int ntests;
};

/* The kernel's config: the one given, DIR/.config, config-* beside the image (Debian's
 * /boot/config-REL for /boot/vmlinuz-REL). Caller frees; NULL when none is found. */
static char *kernel_config_path(const struct run_opts *o)
{
	struct stat st;
	if (o->config)
		return xstrdup(o->config);
	if (!stat(o->kernel, &st) && S_ISDIR(st.st_mode)) {
		char *p = xasprintf("%s/.config", o->kernel);
		if (!access(p, R_OK))
			return p;
		free(p);
		return NULL;
	}
	char *dir = xstrdup(o->kernel), *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : dir;
	const char *dash = strchr(base, '-');
	char *p = NULL;
	if (slash)
		*slash = '\0';
	if (dash) {
		p = xasprintf("%s/config%s", slash ? dir : ".", dash);
		if (access(p, R_OK)) {
			free(p);
			p = NULL;
		}
	}
	if (!p) {
		p = xasprintf("%s/.config", slash ? dir : ".");
		if (access(p, R_OK)) {
			free(p);
			p = NULL;
		}
	}
	free(dir);
	return p;
}

static bool config_has(const char *cfg, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *p = cfg; (p = strstr(p, opt)); p += n)
		if ((p == cfg || p[-1] == '\n') && p[n] == '=' && (p[n + 1] == 'y' || p[n + 1] == 'm'))
			return true;
	return false;
}

/* Options whose absence makes a report unlikely to reproduce: the sanitizers and debug
 * checks that produce the signatures in the robot's tables. */
static bool debug_relevant(const char *opt)
{
	static const char *const keys[] = {"KASAN", "KFENCE", "KCSAN", "KMSAN", "UBSAN", "LOCKDEP",
					   "PROVE_", "DEBUG_", "LKDTM", "PAGE_OWNER", "SLUB_DEBUG",
					   "KMEMLEAK", "FAULT_INJECTION", "RANDSTRUCT", "PAGE_POISONING",
					   "FORTIFY_SOURCE", "HARDENED_USERCOPY", "BUG_ON_DATA_CORRUPTION"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strstr(opt, keys[i]))
			return true;
	return false;
}

static void want_add(struct strbuf *w, const char *opt)
{
	char *key = xasprintf("%s\n", opt);
	if (!w->buf || !strstr(w->buf, key))
		strbuf_addstr(w, key);
	free(key);
}

/* Compare the kernel's config with what the report needs. Returns how many are missing (their
 * names in *missing, one per line); -1 when the kernel's config is not known. */
static int config_gap(const struct repro_report *r, const struct run_opts *o, struct strbuf *missing,
		      const char **why)
{
	struct strbuf want;
	char *path = kernel_config_path(o), *cfg = NULL;
	size_t len;
	int n = 0;

	strbuf_init(&want);
	if (r->config_text) {
		*why = "the report's config";
		for (const char *p = r->config_text; p && *p;) {
			const char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			if (l > 9 && !strncmp(p, "CONFIG_", 7)) {
				const char *eq = memchr(p, '=', l);
				if (eq && (eq[1] == 'y' || eq[1] == 'm')) {
					char *opt = xstrndup(p, eq - p);
					if (debug_relevant(opt))
						want_add(&want, opt);
					free(opt);
				}
			}
			p = e ? e + 1 : NULL;
		}
	}
	for (size_t i = 0; i < r->nneed; i++) {
		char *opt = xstrndup(r->need_kconfig[i], strcspn(r->need_kconfig[i], "="));
		if (!strchr(r->need_kconfig[i], '=') || strstr(r->need_kconfig[i], "=y") ||
		    strstr(r->need_kconfig[i], "=m"))
			want_add(&want, opt);
		free(opt);
		if (!r->config_text)
			*why = "the job's need_kconfig";
	}
	if (!r->config_text) {
		/* what the signatures imply */
		struct strbuf all;
		strbuf_init(&all);
		for (size_t i = 0; i < r->nrows; i++)
			strbuf_addf(&all, "%s\n", r->rows[i].id);
		if (r->headline)
			strbuf_addf(&all, "%s\n", r->headline);
		if (r->dmesg)
			strbuf_addstr(&all, r->dmesg);
		if (r->cmdline)
			strbuf_addf(&all, "\n%s\n", r->cmdline);
		static const struct {
			const char *sign, *opt;
		} implied[] = {
			{"KASAN", "CONFIG_KASAN"}, {"KFENCE", "CONFIG_KFENCE"}, {"KCSAN", "CONFIG_KCSAN"},
			{"UBSAN", "CONFIG_UBSAN"}, {"lockdep", "CONFIG_PROVE_LOCKING"},
			{"possible circular locking", "CONFIG_PROVE_LOCKING"},
			{"possible_circular_locking", "CONFIG_PROVE_LOCKING"},
			{"possible recursive locking", "CONFIG_PROVE_LOCKING"},
			{"suspicious RCU usage", "CONFIG_PROVE_RCU"},
			{"DEBUG_PAGEALLOC", "CONFIG_DEBUG_PAGEALLOC"}, {"page_owner=on", "CONFIG_PAGE_OWNER"},
			{"kmemleak", "CONFIG_DEBUG_KMEMLEAK"}, {"lkdtm", "CONFIG_LKDTM"},
			{"provoke-crash", "CONFIG_LKDTM"},
		};
		for (size_t i = 0; all.buf && i < sizeof(implied) / sizeof(implied[0]); i++)
			if (strstr(all.buf, implied[i].sign)) {
				want_add(&want, implied[i].opt);
				if (!r->nneed)
					*why = "the options its signatures imply";
			}
		strbuf_release(&all);
	}
	if (!want.len) {
		free(path);
		strbuf_release(&want);
		return 0;
	}
	if (!path || read_file(path, &cfg, &len)) {
		free(path);
		strbuf_release(&want);
		return -1;
	}
	for (const char *p = want.buf; *p;) {
		const char *e = strchr(p, '\n');
		char *opt = xstrndup(p, e - p);
		if (!config_has(cfg, opt)) {
			strbuf_addf(missing, "%s\n", opt);
			n++;
		}
		free(opt);
		p = e + 1;
	}
	free(cfg);
	free(path);
	strbuf_release(&want);
	return n;
}

/* "-m 16G" / "-smp 2" / "-cpu SandyBridge" of the report's test machine line. */
static char *machine_arg(const char *machine, const char *flag)
{
	const char *p = machine;
	size_t fl = strlen(flag);
	while (p && (p = strstr(p, flag))) {
		if ((p == machine || p[-1] == ' ') && p[fl] == ' ') {
			const char *v = p + fl + 1;
			return xstrndup(v, strcspn(v, " "));
		}
		p += fl;
	}
	return NULL;
}

static bool kvm_usable(const char *accel)
{
	if (accel && !strcmp(accel, "tcg"))
		return false;
	return !access("/dev/kvm", R_OK | W_OK);
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
		fprintf(stderr, "tapboot: cannot run /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return error_errno("cannot wait for tapboot run");
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return EXIT_INTERRUPTED;
}

static int bisect_code(int status, bool bisect)
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

static int do_run(int argc, char **argv)
{
	enum { OPT_KERNEL = 256, OPT_ALL, OPT_BISECT, OPT_CONFIG, OPT_KSELFTEST, OPT_TIMEOUT,
	       OPT_ACCEL, OPT_MEMORY };
	static const struct option longopts[] = {
		{"kernel", required_argument, NULL, OPT_KERNEL},
		{"all", no_argument, NULL, OPT_ALL},
		{"bisect", no_argument, NULL, OPT_BISECT},
		{"config", required_argument, NULL, OPT_CONFIG},
		{"kselftest", required_argument, NULL, OPT_KSELFTEST},
		{"output", required_argument, NULL, 'o'},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"accel", required_argument, NULL, OPT_ACCEL},
		{"memory", required_argument, NULL, OPT_MEMORY},
		CLI_HELP_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	struct run_opts o = {0};
	struct repro_report r;
	struct strbuf missing;
	const char *why = NULL;
	char *outdir = NULL, *cmdline = NULL, *bootscript = NULL, *smp = NULL, *mem = NULL,
	     *cpu = NULL, *ks_test = NULL, *ks_case = NULL;
	unsigned reproduced = 0, other = 0, untestable = 0, clean = 0, done = 0;
	int c, gap, status = EXIT_USAGE;
	const char *sig = NULL;

	o.n = 1;
	optind = 0;
	/* --bisect changes what bad usage exits with: look for it first */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--bisect"))
			o.bisect = true;
	while ((c = getopt_long(argc, argv, "n:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_KERNEL: o.kernel = optarg; break;
		case OPT_ALL: o.all = true; break;
		case OPT_BISECT: o.bisect = true; break;
		case OPT_CONFIG: o.config = optarg; break;
		case OPT_KSELFTEST: o.kselftest = optarg; break;
		case 'o': o.out = optarg; break;
		case OPT_TIMEOUT: o.timeout = optarg; break;
		case OPT_ACCEL: o.accel = optarg; break;
		case OPT_MEMORY: o.memory = optarg; break;
		case 'n': {
			char *e;
			unsigned long v = strtoul(optarg, &e, 10);
			if (*e || !v || v > 10000) {
				error("-n wants a count from 1 to 10000, not '%s'", optarg);
				return bisect_code(EXIT_USAGE, o.bisect);
			}
			o.n = (unsigned)v;
			break;
		}
		default:
			return bisect_code(cli_usage_option(c, usage, NULL), o.bisect);
		}
	}
	if (optind >= argc || !o.kernel) {
		error(optind >= argc ? "repro run: no REPORT given" : "repro run: no --kernel given");
		fputs(usage, stderr);
		return bisect_code(EXIT_USAGE, o.bisect);
	}
	repro_report_init(&r);
	strbuf_init(&missing);
	if (repro_report_read(&r, argv[optind]))
		goto out;
	o.tests = argv + optind + 1;
	o.ntests = argc - optind - 1;

	/* the test */
	if (!o.ntests) {
		const char *tc = r.testcase ? r.testcase : "boot";
		if (!strcmp(tc, "boot")) {
			/* lkp's boot job runs "sleep 1" once the system is up: a trivial test */
		} else if (!strncmp(tc, "kernel-selftests", 16)) {
			/* kernel-selftests.<coll>.<test>[.<case>] from the table or the headline */
			const char *key = NULL;
			for (size_t i = 0; i < r.nrows && !key; i++)
				if (!strncmp(r.rows[i].id, "kernel-selftests.", 17))
					key = r.rows[i].id;
			if (!key && r.headline && !strncmp(r.headline, "kernel-selftests.", 17))
				key = r.headline;
			if (!key || !o.kselftest) {
				error("testcase '%s': %s", tc,
				      !key ? "the report names no kernel-selftests.COLLECTION.TEST"
					   : "give the kselftest install tree with --kselftest DIR");
				goto out;
			}
			char *k = xstrdup(key + 17);
			size_t kl = strlen(k);
			if (kl > 5 && !strcmp(k + kl - 5, ".fail"))
				k[kl - 5] = '\0';
			char *dot1 = strchr(k, '.');
			char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
			if (!dot1) {
				error("testcase '%s': cannot read COLLECTION.TEST from '%s'", tc, key);
				free(k);
				goto out;
			}
			*dot1 = ':';
			if (dot2) {
				*dot2 = '\0';
				ks_case = xstrdup(dot2 + 1);
			}
			ks_test = k;
		} else {
			error("testcase '%s' is not one tapboot runs itself (boot and kernel-selftests.* "
			      "are): give the TEST that triggers it", tc);
			goto out;
		}
	}

	/* the kernel's config against the report's */
	gap = config_gap(&r, &o, &missing, &why);
	if (gap < 0)
		printf("config: cannot compare with %s: no config for '%s' (give --config FILE)\n",
		       why, o.kernel);
	else if (gap > 0) {
		printf("config: the kernel lacks what %s has:", why);
		for (char *p = missing.buf; *p;) {
			char *e = strchr(p, '\n');
			printf(" %.*s", (int)(e - p), p);
			p = e + 1;
		}
		putchar('\n');
	}

	/* the QEMU machine, like the report's where it matters */
	cmdline = repro_cmdline_for_run(r.cmdline);
	smp = machine_arg(r.machine, "-smp");
	mem = machine_arg(r.machine, "-m");
	cpu = machine_arg(r.machine, "-cpu");
	if (cpu && !kvm_usable(o.accel)) {
		printf("machine: TCG cannot model the report's -cpu %s: QEMU's default CPU instead\n",
		       cpu);
		free(cpu);
		cpu = NULL;
	}
	if (mem) {
		/* lkp caps memory at half of what the host has; tapboot keeps the guest small so
		 * attempts can run side by side: 2 GiB at most, said aloud */
		char *e;
		double v = strtod(mem, &e);
		double mb = *e == 'G' || *e == 'g' ? v * 1024 : v;
		free(mem);
		mem = NULL;
		if (mb > 2048) {
			printf("machine: the report's %.0f MB of memory capped at 2048 MB\n", mb);
			mb = 2048;
		}
		if (mb >= 64)
			mem = xasprintf("%.0f", mb);
	}
	bool i440fx = (r.dmesg && strstr(r.dmesg, "i440FX")) ||
		      (r.full_dmesg && strstr(r.full_dmesg, "i440FX"));

	/* where the attempts go */
	if (o.out) {
		if (mkdir(o.out, 0777) && errno != EEXIST) {
			error_errno("cannot create '%s'", o.out);
			goto out;
		}
		outdir = xstrdup(o.out);
	} else {
		char tmpl[] = "tapboot-repro.XXXXXX";
		if (!mkdtemp(tmpl)) {
			error_errno("cannot create a directory in the current one");
			goto out;
		}
		outdir = xstrdup(tmpl);
	}
	if (!o.ntests && !ks_test) {
		bootscript = xasprintf("%s/boot", outdir);
		FILE *fp = fopen(bootscript, "w");
		if (!fp || fputs("#!/bin/sh\n# the boot testcase: the system came up; lkp sleeps 1 s here\n"
				 "sleep 1\n", fp) < 0 || fclose(fp)) {
			error_errno("cannot write '%s'", bootscript);
			goto out;
		}
		chmod(bootscript, 0755);
	}
	{
		const char **ids;
		size_t nids = repro_report_target_ids(&r, &ids);
		sig = nids ? ids[0] : NULL;
		printf("report: %s%s%s\n", sig ? sig : "(no signature)",
		       r.commit ? " on commit " : "", r.commit ? r.commit : "");
		printf("cmdline: %s\n", *cmdline ? cmdline : "(none beyond tapboot's)");
		free(ids);
	}

	for (unsigned i = 1; i <= o.n; i++) {
		struct strbuf ab;
		const char *args[64];
		int na = 0, rs;
		char *dir = xasprintf("%s/attempt-%u", outdir, i), *console, *buf;
		size_t len;

		strbuf_init(&ab);
		args[na++] = "tapboot";
		args[na++] = "run";
		args[na++] = "--kernel";
		args[na++] = o.kernel;
		args[na++] = "-o";
		args[na++] = dir;
		args[na++] = "-q";
		if (*cmdline) {
			args[na++] = "--append";
			args[na++] = cmdline;
		}
		if (smp) {
			args[na++] = "--smp";
			args[na++] = smp;
		}
		if (o.memory || mem) {
			args[na++] = "--memory";
			args[na++] = (o.memory ? o.memory : mem);
		}
		if (cpu) {
			args[na++] = "--cpu";
			args[na++] = cpu;
		}
		if (i440fx) {
			args[na++] = "--machine";
			args[na++] = "pc";
		}
		if (o.config) {
			args[na++] = "--config";
			args[na++] = o.config;
		}
		if (o.timeout) {
			args[na++] = "--timeout";
			args[na++] = o.timeout;
		}
		if (o.accel) {
			args[na++] = "--accel";
			args[na++] = o.accel;
		}
		if (ks_test) {
			args[na++] = "--kselftest";
			args[na++] = o.kselftest;
			args[na++] = "-t";
			args[na++] = ks_test;
		} else if (bootscript) {
			args[na++] = bootscript;
		}
		for (int t = 0; t < o.ntests && na < 62; t++)
			args[na++] = o.tests[t];
		args[na] = NULL;
		rs = run_attempt((char *const *)args);
		if (rs == EXIT_USAGE || rs == EXIT_INTERRUPTED || rs < 0) {
			free(dir);
			status = rs == EXIT_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_USAGE;
			goto out;
		}
		console = xasprintf("%s/console.log", dir);
		enum repro_verdict v = REPRO_CLEAN;
		if (!read_file(console, &buf, &len)) {
			struct repro_match m;
			repro_match_console(&r, buf, len, &m);
			v = m.verdict;
			/* a kselftest case the report says fails, failing again, reproduces it */
			if (v == REPRO_CLEAN && ks_test && rs == 1) {
				char *res = xasprintf("%s/results.json", dir), *js;
				size_t jl;
				if (!read_file(res, &js, &jl)) {
					char *pat = ks_case ? xasprintf("\"name\": \"%s\", \"result\": \"fail\"",
									ks_case)
							    : xstrdup("\"result\": \"fail\"");
					if (strstr(js, pat))
						v = REPRO_REPRODUCED;
					free(pat);
					free(js);
				}
			}
			printf("attempt %u: %s", i, repro_verdict_name(v));
			if (m.verdict != REPRO_CLEAN)
				printf(": %s (%s:%zu)", m.scan.hits[m.lines[0]].id, console,
				       m.scan.hits[m.lines[0]].line);
			else if (rs == EXIT_VM)
				printf(" (the boot or VM failed before the test; tapboot run exit %d)", rs);
			printf("  [%s]\n", dir);
			repro_match_release(&m);
			free(buf);
		} else {
			printf("attempt %u: no console.log (tapboot run exit %d)\n", i, rs);
			rs = EXIT_VM;
		}
		done++;
		if (v == REPRO_REPRODUCED)
			reproduced++;
		else if (v == REPRO_OTHER)
			other++;
		else if (rs == EXIT_VM)
			untestable++;
		else
			clean++;
		free(console);
		free(dir);
		strbuf_release(&ab);
		if (reproduced && !o.all)
			break;
	}
	if (reproduced) {
		printf("reproduced %u/%u: %s\n", reproduced, done, sig ? sig : "");
		status = 1;
	} else if (other || untestable) {
		printf("not tested %u/%u: %s\n", other + untestable, done,
		       other ? "another crash or warning came first" : "the boot failed before the test");
		status = EXIT_VM;
	} else {
		printf("not reproduced 0/%u%s\n", done,
		       gap > 0 ? ": on a kernel without the options above this proves little" : "");
		status = 0;
	}
	printf("results: %s/\n", outdir);
out:
	free(outdir);
	free(cmdline);
	free(bootscript);
	free(smp);
	free(mem);
	free(cpu);
	free(ks_test);
	free(ks_case);
	strbuf_release(&missing);
	repro_report_release(&r);
	return bisect_code(status, o.bisect);
}

int cmd_repro(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "parse"))
		return do_parse(argc - 1, argv + 1);
	if (!strcmp(argv[1], "match"))
		return do_match(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return do_run(argc - 1, argv + 1);
	error("repro: unknown subcommand '%s' (parse, match or run)", argv[1]);
	return EXIT_USAGE;
}
