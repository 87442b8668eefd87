// SPDX-License-Identifier: GPL-2.0-only
/* cmd_run.c: tapboot run: the usage, the option table, the matrix of kernels; one run of one
 * kernel is run/'s (prepare, boot, finish). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "commands_lava.h"
#include "error.h"
#include "json.h"
#include "kernel_spec.h"
#include "run.h"
#include "run_build.h"
#include "strbuf.h"

static const char run_usage[] =
	"usage: tapboot run --kernel IMAGE|DIR|debian:ARCH [options] TEST...\n"
	"\n"
	"Boot IMAGE (or the image in kernel build directory DIR) in QEMU with an initramfs\n"
	"holding the TESTs and tapboot's init, and report each test's result.\n"
	"\n"
	"  --kernel IMAGE|DIR   bzImage, Image, zImage, vmlinux, or an O= build directory;\n"
	"                       debian:ARCH[:RELEASE] is Debian's packaged kernel, fetched into\n"
	"                       the cache when needed (tapboot kernel fetch);\n"
	"                       several --kernel (each with its --arch) run as a matrix, and\n"
	"                       {arch} in a TEST path becomes each run's architecture\n"
	"  --arch ARCH          guest architecture (default: read from the kernel image)\n"
	"  -o, --output DIR     results directory (default: a new one under ./tapboot-out/)\n"
	"  --force              write into an existing non-empty -o DIR\n"
	"  --timeout SECONDS    per-test timeout (default 45, kselftest's; 0: none)\n"
	"  --filter GLOB        run only tests whose name matches (repeatable)\n"
	"  --disruptive         also run tests flagged disruptive\n"
	"  --accel auto|kvm|tcg accelerator (default auto: KVM only when it works here)\n"
	"  --cpu MODEL, --machine M, --memory MB, --smp N, --qemu BINARY\n"
	"  --append ARGS        extra kernel command line\n"
	"  --config FILE        the kernel's .config (default: DIR/.config or config-* beside IMAGE)\n"
	"  --boot-as-is         boot IMAGE itself: no vmlinux (x86 PVH) or Image (arm zImage)\n"
	"                       unpacked on the host, so the kernel's own decompressor runs\n"
	"  --compress none|gzip|xz|zstd|lz4   initramfs compression (default none: fastest boot)\n"
	"  --busybox, --no-busybox            add (or never add) a static busybox\n"
	"  --sysroot DIR        where shared libraries of dynamic tests are found\n"
	"  --modules DIR        pack a lib/modules/VERSION tree; --module NAME loads one\n"
	"  --idle-timeout S     stop when the console is silent this long (default: longest\n"
	"                       test timeout + 60)\n"
	"  -j, --jobs N|auto    shard the tests over N VMs at once (default 1, with --kselftest\n"
	"                       auto: CPUs + 1, fewer if memory is short); with --disruptive\n"
	"                       each disruptive test gets its own VM\n"
	"  --isolate            every test in a VM of its own (from the snapshot: no test sees\n"
	"                       the kernel state another left); with -j, that many at once\n"
	"  --no-snapshot        boot every VM cold (default: the VM is saved at the init's\n"
	"                       ready point once per kernel, image and QEMU command line, in\n"
	"                       the cache, and every VM starts from that state)\n"
	"  -q, --quiet          no live progress on stderr\n"
	"  --skip=ok|fail       does a skip fail the run? (default ok: skips are listed)\n"
	"  --expect-skip FILE   only the tests (globs) listed in FILE may skip\n"
	"  --kcidb-origin NAME  the KCIDB origin in kcidb.json's ids (default tapboot)\n"
	"  --history FILE       the results history to record the run in (default\n"
	"                       $XDG_CACHE_HOME/tapboot/history.sqlite); --no-history: none\n"
	"  --history-label L    what the history records the run as (default run)\n"
	"\n"
	CLI_BUILD_USAGE
	"\n"
	"kselftest (an install tree from make -C tools/testing/selftests install):\n"
	"  --kselftest DIR      run DIR's kselftest-list.txt, each test from its collection's\n"
	"                       directory with the timeout from its settings file\n"
	"  --targets a,b        only these collections (TARGETS=); --skip-targets a,b\n"
	"  -t COLLECTION:TEST   this test (repeatable)\n"
	"  --kselftest-src DIR  tools/testing/selftests: collections whose config fragment the\n"
	"                       kernel's config lacks are reported skipped, options named\n"
	"\n"
	"Exit status: 0 all tests passed or skipped, 1 a test failed or timed out, 2 bad usage or\n"
	"input (or, without --bisect, a kernel that did not configure or build), 3 the boot or\n"
	"the VM failed (panic, hang, QEMU error), 125 with --bisect: the kernel did not build,\n"
	"130 interrupted.\n"
	"Results: console.log, results.tap, results.json, junit.xml, kcidb.json, tests/NAME.log,\n"
	"reproduce.sh, results.html in the results directory.\n";

static void push_commas(struct strlist *l, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
		strlist_push(l, w);
	free(copy);
}

enum {
	OPT_KERNEL = 256,
	OPT_ARCH,
	OPT_TIMEOUT,
	OPT_FORCE,
	OPT_ACCEL,
	OPT_CPU,
	OPT_MACHINE,
	OPT_MEMORY,
	OPT_SMP,
	OPT_QEMU,
	OPT_APPEND,
	OPT_CONFIG,
	OPT_FILTER,
	OPT_DISRUPTIVE,
	OPT_IDLE,
	OPT_BOOT,
	OPT_JOBS,
	OPT_KSELFTEST,
	OPT_KS_SRC,
	OPT_TARGETS,
	OPT_SKIP_TARGETS,
	OPT_BOOT_AS_IS,
	OPT_KCIDB_ORIGIN,
	OPT_NO_SNAPSHOT,
	OPT_ISOLATE,
	OPT_HISTORY,
	OPT_NO_HISTORY,
	OPT_HISTORY_LABEL,
};

static const struct option run_longopts[] = {
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "arch", required_argument, NULL, OPT_ARCH },
	{ "output", required_argument, NULL, 'o' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "accel", required_argument, NULL, OPT_ACCEL },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "machine", required_argument, NULL, OPT_MACHINE },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "smp", required_argument, NULL, OPT_SMP },
	{ "qemu", required_argument, NULL, OPT_QEMU },
	{ "append", required_argument, NULL, OPT_APPEND },
	{ "config", required_argument, NULL, OPT_CONFIG },
	CLI_IMAGE_LONGOPTS,
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "disruptive", no_argument, NULL, OPT_DISRUPTIVE },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE },
	{ "boot-timeout", required_argument, NULL, OPT_BOOT },
	{ "boot-as-is", no_argument, NULL, OPT_BOOT_AS_IS },
	{ "no-snapshot", no_argument, NULL, OPT_NO_SNAPSHOT },
	{ "isolate", no_argument, NULL, OPT_ISOLATE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "kselftest", required_argument, NULL, OPT_KSELFTEST },
	{ "kselftest-src", required_argument, NULL, OPT_KS_SRC },
	{ "targets", required_argument, NULL, OPT_TARGETS },
	{ "skip-targets", required_argument, NULL, OPT_SKIP_TARGETS },
	{ "test", required_argument, NULL, 't' },
	CLI_POLICY_LONGOPTS,
	{ "kcidb-origin", required_argument, NULL, OPT_KCIDB_ORIGIN },
	{ "history", required_argument, NULL, OPT_HISTORY },
	{ "no-history", no_argument, NULL, OPT_NO_HISTORY },
	{ "history-label", required_argument, NULL, OPT_HISTORY_LABEL },
	CLI_BUILD_LONGOPTS,
	CLI_HELP_LONGOPT,
	{ NULL, 0, NULL, 0 },
};

/* The VM's options: QEMU, the kernel's command line and config, the snapshot. 1 taken, 0 not
 * one of them, -1 after a message. */
static int vm_option(struct run_opts *o, int c, const char *arg)
{
	unsigned v;

	switch (c) {
	case OPT_ACCEL:
		if (!strcmp(arg, "auto"))
			o->accel = ACCEL_AUTO;
		else if (!strcmp(arg, "kvm"))
			o->accel = ACCEL_KVM;
		else if (!strcmp(arg, "tcg"))
			o->accel = ACCEL_TCG;
		else
			return error("--accel wants auto, kvm or tcg, got '%s'", arg);
		return 1;
	case OPT_CPU:
		o->cpu = arg;
		return 1;
	case OPT_MACHINE:
		o->machine = arg;
		return 1;
	case OPT_MEMORY:
		if (cli_parse_seconds(arg, &v) < 0 || v < 64)
			return error("--memory wants MiB (at least 64), got '%s'", arg);
		o->memory_mb = v;
		return 1;
	case OPT_SMP:
		if (cli_parse_seconds(arg, &v) < 0 || v < 1 || v > 64)
			return error("--smp wants 1 to 64, got '%s'", arg);
		o->smp = v;
		return 1;
	case OPT_QEMU:
		o->qemu = arg;
		return 1;
	case OPT_APPEND:
		o->append = arg;
		return 1;
	case OPT_CONFIG:
		o->config = arg;
		return 1;
	case OPT_NO_SNAPSHOT:
		o->no_snapshot = true;
		return 1;
	case OPT_ISOLATE:
		o->isolate = true;
		return 1;
	case OPT_BOOT_AS_IS:
		o->boot_as_is = true;
		return 1;
	default:
		return 0;
	}
}

/* Which tests run, how long each may take and how many VMs run them (kselftest's options
 * too). 1 taken, 0 not one of them, -1 after a message. */
static int test_option(struct run_opts *o, int c, const char *arg)
{
	unsigned v;

	switch (c) {
	case OPT_TIMEOUT:
		if (cli_seconds_option("--timeout", arg, &o->timeout_s) < 0)
			return -1;
		o->timeout_given = true;
		return 1;
	case OPT_FILTER:
		if (strpbrk(arg, " \t\n"))
			return error("--filter '%s': a glob without spaces, please", arg);
		strlist_push(&o->filters, arg);
		return 1;
	case OPT_DISRUPTIVE:
		o->disruptive = true;
		return 1;
	case OPT_IDLE:
		if (cli_seconds_option("--idle-timeout", arg, &o->idle_s) < 0)
			return -1;
		return 1;
	case OPT_BOOT:
		if (cli_seconds_option("--boot-timeout", arg, &o->boot_s) < 0)
			return -1;
		return 1;
	case OPT_KSELFTEST:
		o->kselftest = arg;
		return 1;
	case OPT_KS_SRC:
		o->kselftest_src = arg;
		return 1;
	case OPT_TARGETS:
		push_commas(&o->ks_targets, arg);
		return 1;
	case OPT_SKIP_TARGETS:
		push_commas(&o->ks_skip_targets, arg);
		return 1;
	case 't':
		strlist_push(&o->ks_tests, arg);
		return 1;
	case 'j':
		if (!strcmp(arg, "auto")) {
			o->jobs_auto = true;
			o->jobs = 0;
		} else if (cli_parse_seconds(arg, &v) < 0 || v < 1 || v > 64) {
			return error("-j wants 1 to 64 or auto, got '%s'", arg);
		} else {
			o->jobs = v;
			o->jobs_auto = false;
		}
		return 1;
	default:
		return 0;
	}
}

/* After the options: what they need of each other, and each --arch given to its --kernel
 * (arches[narch]). The tests are what getopt left from optind. 0, or -1 after a message. */
static int finish_opts(struct run_opts *o, const char **arches, size_t narch, int argc, char **argv,
		       bool building)
{
	if (building) {
		if (o->ntargets)
			return error("run: --build SRC or --kernel, not both");
		if (narch > 1)
			return error("run: --build builds for one --arch, got %zu", narch);
		/* the kernel is the build directory, once built (cmd_run) */
		o->targets = xcalloc(1, sizeof(*o->targets));
		o->targets[0] = (struct run_target){ NULL, narch ? arches[0] : NULL };
		o->ntargets = 1;
		narch = 0;
	}
	if (!o->ntargets)
		return error("run: --kernel IMAGE (or --build SRC) is required (try 'tapboot run "
			     "--help')");
	if (optind >= argc && !o->kselftest)
		return error("run: no tests given (try 'tapboot run --help')");
	if (!o->kselftest &&
	    (o->ks_targets.n || o->ks_skip_targets.n || o->ks_tests.n || o->kselftest_src))
		return error("run: --targets, --skip-targets, -t and --kselftest-src need "
			     "--kselftest DIR");
	if (o->ntargets > 1 && narch && narch != o->ntargets)
		return error("run: %zu --kernel but %zu --arch: give one --arch per --kernel, or "
			     "none",
			     o->ntargets, narch);
	/* one kernel: the last --arch, as for any option given twice */
	for (size_t k = 0; narch && k < o->ntargets; k++)
		o->targets[k].arch = o->ntargets == 1 ? arches[narch - 1] : arches[k];
	o->tests = argv + optind;
	o->ntests = (size_t)(argc - optind);
	return 0;
}

/* The command line into o (initialised), once: every --kernel with its --arch becomes a target.
 * 1 after --help (printed), 0, or -1 after a message. */
static int parse_opts(struct run_opts *o, struct cli_build *b, int argc, char **argv)
{
	const char **arches = xcalloc((size_t)argc + 1, sizeof(*arches));
	size_t alloc = 0, narch = 0;
	int c, ret = -1;

	optind = 0; /* 0, not 1: GNU getopt fully re-initialises (tests call cmd_run again) */
	while ((c = getopt_long(argc, argv, "o:O:qhj:t:", run_longopts, NULL)) != -1) {
		int taken = cli_image_option(&o->image, &o->sysroot, c, optarg);

		if (!taken && b)
			taken = cli_build_option(b, c, optarg);

		if (!taken)
			taken = cli_policy_option(&o->policy, &o->expect_skip, c, optarg);
		if (!taken)
			taken = vm_option(o, c, optarg);
		if (!taken)
			taken = test_option(o, c, optarg);
		if (taken < 0)
			goto out;
		if (taken)
			continue;
		switch (c) {
		case OPT_KERNEL:
			xgrow(&o->targets, &alloc, o->ntargets + 1, sizeof(*o->targets));
			o->targets[o->ntargets++] = (struct run_target){ optarg, NULL };
			break;
		case OPT_KCIDB_ORIGIN:
			if (cli_parse_kcidb_origin(optarg, &o->kcidb_origin) < 0)
				goto out;
			break;
		case OPT_ARCH:
			arches[narch++] = optarg;
			break;
		case OPT_HISTORY:
			o->history = optarg;
			break;
		case OPT_NO_HISTORY:
			o->no_history = true;
			break;
		case OPT_HISTORY_LABEL:
			o->history_label = optarg;
			break;
		case 'o':
			o->out_dir = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		default:
			/* 1 after --help: main checks stdout before the exit status is 0 */
			ret = cli_usage_option(c, run_usage, "run") == EXIT_PASS ? 1 : -1;
			goto out;
		}
	}
	if (b && !b->src && (b->dir || b->base || b->frags.n || b->debug.n || b->bisect || b->llvm)) {
		error("run: -O, --base, --fragment, --debug, --bisect and --llvm go with --build SRC");
		goto out;
	}
	ret = finish_opts(o, arches, narch, argc, argv, b && b->src);
out:
	free(arches);
	return ret;
}

static int status_rank(int st)
{
	/* the worst outcome decides the matrix: a VM failure, an interrupt, bad input, a failed
	 * test, all passed */
	switch (st) {
	case EXIT_VM:
		return 4;
	case EXIT_INTERRUPTED:
		return 3;
	case EXIT_USAGE:
		return 2;
	case EXIT_TESTS_FAILED:
		return 1;
	default:
		return 0;
	}
}

/* The target with its --kernel resolved (kernel_spec.h: O=DIR, debian:ARCH[:RELEASE]) into
 * *out, which points into ks (kernel_spec_release after use). -1 after a message. */
static int resolve_target(const struct run_target *t, struct run_target *out,
			  struct kernel_spec *ks)
{
	if (kernel_spec_resolve(ks, t->kernel, t->arch) < 0)
		return -1;
	*out = *t;
	out->kernel = ks->path;
	out->arch = ks->arch;
	return 0;
}

static const int run_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Before the boot (fetching a kernel, building the image, hashing it) nothing reads the
 * signalfd, and a blocked signal waited for the boot: an interrupt there ends tapboot at once,
 * exit 130 as in the boot; its children die with it (kill_tree; proc_fork's PDEATHSIG). */
/* SIGKILL to process pid's descendants and (below the top) to it: the children libarchive starts
 * itself (an xz -6 busy with a block wrote nothing for seconds after tapboot was gone, so its
 * broken pipe came late) and the fetch script's apt-get have no PDEATHSIG. Each is stopped
 * first, so that it forks no more while its children are read. Async-signal-safe: open, read,
 * kill, and the digits by hand. */
static void kill_tree(long pid, unsigned depth)
{
	char path[64] = "/proc/", digits[24], buf[512];
	size_t n = strlen(path), k = 0;
	long p = pid, cur = 0;
	ssize_t got;
	int fd;

	if (depth > 6)
		return;
	if (depth)
		kill((pid_t)pid, SIGSTOP);
	do
		digits[k++] = (char)('0' + p % 10);
	while ((p /= 10) && k < sizeof(digits) / 2);
	for (size_t d = k; d;)
		path[n++] = digits[--d];
	memcpy(path + n, "/task/", 6);
	n += 6;
	for (size_t d = k; d;)
		path[n++] = digits[--d];
	memcpy(path + n, "/children", sizeof("/children"));
	/* one read: a list of a few pids (more than fit would be a fork bomb, not tapboot) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	got = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (fd >= 0)
		close(fd);
	for (ssize_t i = 0; i <= got; i++) {
		if (i < got && buf[i] >= '0' && buf[i] <= '9') {
			cur = cur * 10 + (buf[i] - '0');
		} else if (cur) {
			kill_tree(cur, depth + 1);
			cur = 0;
		}
	}
	if (depth)
		kill((pid_t)pid, SIGKILL);
}

static void interrupted_early(int sig)
{
	static const char msg[] = "tapboot: interrupted before the boot\n";

	(void)sig;
	kill_tree(getpid(), 0);
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(EXIT_INTERRUPTED);
	_exit(EXIT_INTERRUPTED);
}

/* early: the handler above, unblocked; otherwise blocked, for the signalfd the boot watches. */
static void signals_phase(bool early)
{
	struct sigaction sa;
	sigset_t mask;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = interrupted_early;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&mask);
	for (size_t i = 0; i < ARRAY_SIZE(run_signals); i++) {
		sigaction(run_signals[i], &sa, NULL);
		sigaddset(&mask, run_signals[i]);
	}
	sigprocmask(early ? SIG_UNBLOCK : SIG_BLOCK, &mask, NULL);
}

/* One kernel's run, results in out_dir (NULL: a new directory). */
static int run_one(const struct run_opts *o, const struct run_target *t, const char *out_dir,
		   const char *cmd_line, int sigfd)
{
	struct run_target rt;
	struct kernel_spec ks;
	struct run r;
	int status = EXIT_USAGE;

	signals_phase(true);
	if (resolve_target(t, &rt, &ks) < 0)
		return status;
	run_init(&r, o, &rt, out_dir);
	if (run_prepare(&r) == 0) {
		/* from here an interrupt stops the VMs and the partial results are written */
		signals_phase(false);
		run_boot(&r, sigfd);
		status = run_finish(&r, cmd_line);
		/* after the results directory: a history that fails costs a warning only */
		run_record_history(&r, t->kernel, status);
	}
	run_release(&r);
	kernel_spec_release(&ks);
	return status;
}

/* Several --kernel (each with its --arch when given): one run per kernel, each in its own
 * results directory under the matrix's, and a summary of them all. */
static int run_matrix(const struct run_opts *o, const char *cmd_line, int sigfd)
{
	size_t nk = o->ntargets;
	int worst = 0, worst_rank = -1, *st = xcalloc(nk, sizeof(*st));
	bool bad;
	char *dir, *sj;
	FILE *fp;

	if (o->out_dir) {
		if (mkdir(o->out_dir, 0755) < 0 && errno != EEXIST) {
			error_errno("cannot create results directory '%s'", o->out_dir);
			free(st);
			return EXIT_USAGE;
		}
		dir = xstrdup(o->out_dir);
	} else if (!(dir = run_new_results_dir("matrix"))) {
		free(st);
		return EXIT_USAGE;
	}
	for (size_t k = 0; k < nk; k++) {
		char *sub = xasprintf("%s/%zu", dir, k + 1);

		printf("== %zu/%zu: %s\n", k + 1, nk, o->targets[k].kernel);
		fflush(stdout);
		st[k] = run_one(o, &o->targets[k], sub, cmd_line, sigfd);
		if (status_rank(st[k]) > worst_rank) {
			worst_rank = status_rank(st[k]);
			worst = st[k];
		}
		free(sub);
		if (st[k] == EXIT_INTERRUPTED)
			break;
	}
	sj = xasprintf("%s/matrix.json", dir);
	fp = fopen(sj, "w");
	printf("\nmatrix: %zu kernels\n", nk);
	if (fp)
		fputs("{\"runs\": [\n", fp);
	for (size_t k = 0; k < nk; k++) {
		printf("  exit %d  %s/%zu/  %s\n", st[k], dir, k + 1, o->targets[k].kernel);
		if (fp) {
			fputs("  {\"kernel\": ", fp);
			json_put_str(fp, o->targets[k].kernel);
			fprintf(fp, ", \"dir\": \"%zu\", \"exit\": %d}%s\n", k + 1, st[k],
				k + 1 < nk ? "," : "");
		}
	}
	/* a matrix whose summary could not be written did not report (issue 41): never 0 or 1 */
	bad = !fp || fputs("]}\n", fp) < 0 || fflush(fp) != 0 || ferror(fp);
	if (fp && fclose(fp) != 0)
		bad = true;
	if (bad) {
		error_errno("cannot write '%s'", sj);
		if (worst == EXIT_PASS || worst == EXIT_TESTS_FAILED)
			worst = EXIT_VM;
	}
	free(sj);
	free(dir);
	free(st);
	return worst;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	struct cli_build b;
	struct strbuf cl = STRBUF_INIT;
	char *build_dir = NULL, *build_arch = NULL;
	sigset_t mask;
	int sigfd, status, ret;

	run_opts_init(&o);
	cli_build_init(&b);
	ret = parse_opts(&o, &b, argc, argv);
	if (ret == 0 && b.src) {
		status = cli_build_kernel(&b, o.targets[0].arch, o.quiet, &build_dir, &build_arch);
		if (status != EXIT_PASS) {
			cli_build_release(&b);
			run_opts_release(&o);
			return status;
		}
		o.targets[0] = (struct run_target){ build_dir, build_arch };
	}
	cli_build_release(&b);
	if (ret != 0) {
		run_opts_release(&o);
		return ret > 0 ? EXIT_PASS : EXIT_USAGE;
	}
	strbuf_addstr(&cl, "tapboot");
	for (int i = 0; i < argc; i++)
		strbuf_addf(&cl, " %s", argv[i]);
	/* During the boot, signals are taken through a signalfd (blocked: signals_phase), so an
	 * interrupt always ends in the same place: QEMU stopped, partial results written, exit
	 * 130. Before it they end tapboot at once (interrupted_early). */
	sigemptyset(&mask);
	for (size_t i = 0; i < ARRAY_SIZE(run_signals); i++)
		sigaddset(&mask, run_signals[i]);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);
	status = o.ntargets > 1 ? run_matrix(&o, cl.buf, sigfd) :
				  run_one(&o, &o.targets[0], o.out_dir, cl.buf, sigfd);
	if (sigfd >= 0)
		close(sigfd);
	strbuf_release(&cl);
	run_opts_release(&o);
	free(build_dir);
	free(build_arch);
	cache_upkeep();
	return status;
}

/* tapboot lava-job (cli/cmd_lava.c): run's options and its preparation (run_prepare_export),
 * without booting. The image lands in -o DIR as initramfs.cpio. */
int run_export(int argc, char **argv, bool kvm, struct run_export *x)
{
	struct run_opts o;
	struct run_target t;
	struct kernel_spec ks = {0};
	struct run r;
	int status = EXIT_USAGE;

	memset(x, 0, sizeof(*x));
	strlist_init(&x->tests);
	run_opts_init(&o);
	if (parse_opts(&o, NULL, argc, argv) != 0)
		goto out;
	if (o.ntargets != 1) {
		error("lava-job: one --kernel, got %zu", o.ntargets);
		goto out;
	}
	if (resolve_target(&o.targets[0], &t, &ks) < 0)
		goto out;
	run_init(&r, &o, &t, o.out_dir);
	if (run_prepare_export(&r, kvm, x) == 0)
		status = 0;
	run_release(&r);
out:
	kernel_spec_release(&ks);
	run_opts_release(&o);
	return status;
}
