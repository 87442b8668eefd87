/* cmd_run.c: tapboot run: build the image, boot it, read the console, write the results. */
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "arch_config.h"
#include "builder.h"
#include "commands.h"
#include "commands_lava.h"
#include "crash_sig.h"
#include "error.h"
#include "kconfig_check.h"
#include "kernel_image.h"
#include "kselftest.h"
#include "launch.h"
#include "line_tag.h"
#include "protocol.h"
#include "qemu_argv.h"
#include "report.h"
#include "strbuf.h"
#include "tap_parser.h"

enum accel_mode { ACCEL_AUTO, ACCEL_KVM, ACCEL_TCG };

struct run_opts {
	const char *kernel;
	const char *arch;
	const char *out_dir;
	const char *cpu, *machine, *qemu, *append, *sysroot, *modules_dir, *config;
	unsigned timeout_s;
	bool timeout_given;
	bool force, disruptive, quiet;
	bool boot_as_is; /* --boot-as-is: no host-side unpacking of the kernel image */
	enum accel_mode accel;
	int busybox;
	enum builder_compress compress;
	unsigned memory_mb, smp;
	unsigned idle_s, boot_s;
	unsigned jobs; /* -j: VMs at once */
	bool jobs_auto; /* -j auto: auto_jobs() decides once the memory is known */
	const char *kselftest, *kselftest_src;
	const char *kcidb_origin; /* --kcidb-origin */
	struct strlist ks_targets, ks_skip_targets, ks_tests;
	struct report_policy policy;
	struct strlist expect_skip;
	struct strlist filters, load_modules;
	char **tests;
	size_t ntests;
};

/* Everything one run owns; released in run_release(). */
struct vm;
struct run {
	struct run_opts o;
	struct arch_config cfg;
	char *kernel_image; /* the image file (resolved from a build directory) */
	char *kernel_config; /* the kernel's .config when known */
	char *boot_kernel; /* what QEMU boots (maybe the extracted vmlinux) */
	char kernel_sha256[65]; /* of kernel_image, "" until kernel_sha256() computed it */
	bool tcg_single; /* the VMs booting now share the host: TCG thread=single */
	bool bzimage;
	bool zimage; /* an arm zImage */
	char *dir; /* results directory */
	bool dir_created; /* by this run: removed again when the run fails before booting */
	char *initrd;
	char nonce[33];
	unsigned char key[LINE_TAG_KEY_LEN]; /* the init tags its lines with it (line_tag.h) */
	struct plan plan;
	struct strlist inputs; /* the builder's inputs: the tests, and the kselftest manifest */
	struct vm *vms; /* nvms: the shards and the disruptive tests' own VMs */
	size_t nvms;
	bool tty, interrupted;
	int signo;
	double start;
	char *accel_note;
	enum qemu_accel accel;
};

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
	"  -q, --quiet          no live progress on stderr\n"
	"  --skip=ok|fail       does a skip fail the run? (default ok: skips are listed)\n"
	"  --expect-skip FILE   only the tests (globs) listed in FILE may skip\n"
	"  --kcidb-origin NAME  the KCIDB origin in kcidb.json's ids (default tapboot)\n"
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
	"input, 3 the boot or the VM failed (panic, hang, QEMU error), 130 interrupted.\n"
	"Results: console.log, results.tap, results.json, junit.xml, kcidb.json, tests/NAME.log,\n"
	"reproduce.sh in the results directory.\n";

static void push_commas(struct strlist *l, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
		strlist_push(l, w);
	free(copy);
}

static int parse_opts(struct run_opts *o, int argc, char **argv)
{
	enum {
		OPT_KERNEL = 256, OPT_ARCH, OPT_TIMEOUT, OPT_FORCE, OPT_ACCEL, OPT_CPU, OPT_MACHINE, OPT_MEMORY,
		OPT_SMP, OPT_QEMU, OPT_APPEND, OPT_CONFIG, OPT_COMPRESS, OPT_BUSYBOX, OPT_NO_BUSYBOX, OPT_SYSROOT,
		OPT_MODULES, OPT_MODULE, OPT_FILTER, OPT_DISRUPTIVE, OPT_IDLE, OPT_BOOT, OPT_HELP, OPT_JOBS, OPT_KSELFTEST, OPT_KS_SRC,
		OPT_TARGETS, OPT_SKIP_TARGETS, OPT_SKIP, OPT_EXPECT_SKIP, OPT_BOOT_AS_IS,
		OPT_KCIDB_ORIGIN,
	};
	static const struct option longopts[] = {
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
		{ "compress", required_argument, NULL, OPT_COMPRESS },
		{ "busybox", no_argument, NULL, OPT_BUSYBOX },
		{ "no-busybox", no_argument, NULL, OPT_NO_BUSYBOX },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "modules", required_argument, NULL, OPT_MODULES },
		{ "module", required_argument, NULL, OPT_MODULE },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "disruptive", no_argument, NULL, OPT_DISRUPTIVE },
		{ "idle-timeout", required_argument, NULL, OPT_IDLE },
		{ "boot-timeout", required_argument, NULL, OPT_BOOT },
		{ "boot-as-is", no_argument, NULL, OPT_BOOT_AS_IS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "kselftest", required_argument, NULL, OPT_KSELFTEST },
		{ "kselftest-src", required_argument, NULL, OPT_KS_SRC },
		{ "targets", required_argument, NULL, OPT_TARGETS },
		{ "skip-targets", required_argument, NULL, OPT_SKIP_TARGETS },
		{ "test", required_argument, NULL, 't' },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "expect-skip", required_argument, NULL, OPT_EXPECT_SKIP },
		{ "kcidb-origin", required_argument, NULL, OPT_KCIDB_ORIGIN },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->timeout_s = PLAN_DEFAULT_TIMEOUT;
	o->busybox = 0;
	o->compress = BUILDER_COMPRESS_NONE;
	o->boot_s = 120;
	optind = 0; /* 0, not 1: GNU getopt fully re-initialises (a matrix parses several argv) */
	while ((c = getopt_long(argc, argv, "o:qhj:t:", longopts, NULL)) != -1) {
		unsigned v;

		switch (c) {
		case OPT_KERNEL:
			o->kernel = optarg;
			break;
		case OPT_KCIDB_ORIGIN:
			if (!report_kcidb_origin_ok(optarg)) {
				error("--kcidb-origin wants lower-case letters, digits and '_' (KCIDB's origin), got '%s'",
				      optarg);
				return -1;
			}
			o->kcidb_origin = optarg;
			break;
		case OPT_ARCH:
			o->arch = optarg;
			break;
		case 'o':
			o->out_dir = optarg;
			break;
		case OPT_TIMEOUT:
			if (cli_parse_seconds(optarg, &o->timeout_s) < 0)
				return error("--timeout wants whole seconds, got '%s'", optarg);
			o->timeout_given = true;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_ACCEL:
			if (!strcmp(optarg, "auto"))
				o->accel = ACCEL_AUTO;
			else if (!strcmp(optarg, "kvm"))
				o->accel = ACCEL_KVM;
			else if (!strcmp(optarg, "tcg"))
				o->accel = ACCEL_TCG;
			else
				return error("--accel wants auto, kvm or tcg, got '%s'", optarg);
			break;
		case OPT_CPU:
			o->cpu = optarg;
			break;
		case OPT_MACHINE:
			o->machine = optarg;
			break;
		case OPT_MEMORY:
			if (cli_parse_seconds(optarg, &v) < 0 || v < 64)
				return error("--memory wants MiB (at least 64), got '%s'", optarg);
			o->memory_mb = v;
			break;
		case OPT_SMP:
			if (cli_parse_seconds(optarg, &v) < 0 || v < 1 || v > 64)
				return error("--smp wants 1 to 64, got '%s'", optarg);
			o->smp = v;
			break;
		case OPT_QEMU:
			o->qemu = optarg;
			break;
		case OPT_APPEND:
			o->append = optarg;
			break;
		case OPT_CONFIG:
			o->config = optarg;
			break;
		case OPT_COMPRESS:
			if (cli_parse_compress(optarg, &o->compress) < 0)
				return -1;
			break;
		case OPT_BUSYBOX:
			o->busybox = 1;
			break;
		case OPT_NO_BUSYBOX:
			o->busybox = -1;
			break;
		case OPT_SYSROOT:
			o->sysroot = optarg;
			break;
		case OPT_MODULES:
			o->modules_dir = optarg;
			break;
		case OPT_MODULE:
			strlist_push(&o->load_modules, optarg);
			break;
		case OPT_FILTER:
			if (strpbrk(optarg, " \t\n"))
				return error("--filter '%s': a glob without spaces, please", optarg);
			strlist_push(&o->filters, optarg);
			break;
		case OPT_DISRUPTIVE:
			o->disruptive = true;
			break;
		case OPT_IDLE:
			if (cli_parse_seconds(optarg, &o->idle_s) < 0)
				return error("--idle-timeout wants whole seconds, got '%s'", optarg);
			break;
		case OPT_BOOT:
			if (cli_parse_seconds(optarg, &o->boot_s) < 0)
				return error("--boot-timeout wants whole seconds, got '%s'", optarg);
			break;
		case OPT_BOOT_AS_IS:
			o->boot_as_is = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_KSELFTEST:
			o->kselftest = optarg;
			break;
		case OPT_KS_SRC:
			o->kselftest_src = optarg;
			break;
		case OPT_TARGETS:
			push_commas(&o->ks_targets, optarg);
			break;
		case OPT_SKIP_TARGETS:
			push_commas(&o->ks_skip_targets, optarg);
			break;
		case 't':
			strlist_push(&o->ks_tests, optarg);
			break;
		case OPT_SKIP:
			if (!strcmp(optarg, "ok"))
				o->policy.skip = REPORT_SKIP_OK;
			else if (!strcmp(optarg, "fail"))
				o->policy.skip = REPORT_SKIP_FAIL;
			else
				return error("--skip wants ok or fail, got '%s'", optarg);
			break;
		case OPT_EXPECT_SKIP:
			if (report_expect_skip_load(optarg, &o->expect_skip) < 0)
				return -1;
			o->policy.expect_skip = &o->expect_skip;
			break;
		case 'j':
			if (!strcmp(optarg, "auto")) {
				o->jobs_auto = true;
				o->jobs = 0;
			} else if (cli_parse_seconds(optarg, &v) < 0 || v < 1 || v > 64) {
				return error("-j wants 1 to 64 or auto, got '%s'", optarg);
			} else {
				o->jobs = v;
				o->jobs_auto = false;
			}
			break;
		case OPT_HELP:
		case 'h':
			/* 1: done; main checks stdout before the exit status is 0 */
			fputs(run_usage, stdout);
			return 1;
		default:
			fputs("try 'tapboot run --help'\n", stderr);
			return -1;
		}
	}
	if (!o->kernel)
		return error("run: --kernel IMAGE is required (try 'tapboot run --help')");
	if (optind >= argc && !o->kselftest)
		return error("run: no tests given (try 'tapboot run --help')");
	if (!o->kselftest && (o->ks_targets.n || o->ks_skip_targets.n || o->ks_tests.n ||
			      o->kselftest_src))
		return error("run: --targets, --skip-targets, -t and --kselftest-src need "
			     "--kselftest DIR");
	o->tests = argv + optind;
	o->ntests = (size_t)(argc - optind);
	return 0;
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A Debian kernel unpacked with dpkg -x has boot/config-VERSION beside boot/vmlinuz-VERSION. */
static char *config_beside(const char *image)
{
	const char *slash = strrchr(image, '/');
	const char *base = slash ? slash + 1 : image;
	const char *dash = strchr(base, '-');
	char *path;

	if (!dash || (strncmp(base, "vmlinuz-", 8) && strncmp(base, "vmlinux-", 8)))
		return NULL;
	path = xasprintf("%.*sconfig%s", (int)(base - image), image, dash);
	if (access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/* --kernel: a file, or a build directory whose .config says the arch (never the source
 * tree's .config: the O= directory is what was built). */
static int resolve_kernel_at(struct run *r, const char *k)
{
	const char *configs = arch_config_dir();
	struct kernel_image img;
	char *arch = NULL;
	int ret = -1;

	if (is_dir(k)) {
		char *dotconfig = xasprintf("%s/.config", k);

		if (access(dotconfig, R_OK) < 0) {
			error_errno("kernel build directory '%s' has no readable .config", k);
			free(dotconfig);
			return -1;
		}
		r->kernel_config = dotconfig;
		arch = r->o.arch ? xstrdup(r->o.arch) : arch_config_find_kconfig(configs, dotconfig);
		if (!arch)
			return error("'%s' names no architecture tapboot knows (%s): pass --arch",
				     dotconfig, "no CONFIG_X86_64, CONFIG_ARM64, ... set");
		if (arch_config_load(&r->cfg, configs, arch) < 0)
			goto out;
		for (size_t i = 0; i < r->cfg.image_paths.n; i++) {
			char *p = xasprintf("%s/%s", k, r->cfg.image_paths.v[i]);

			if (access(p, R_OK) == 0) {
				r->kernel_image = p;
				break;
			}
			free(p);
		}
		if (!r->kernel_image) {
			error("no kernel image in build directory '%s' (looked for %s/{%s%s}): "
			      "build it first",
			      k, k, r->cfg.image_paths.n ? r->cfg.image_paths.v[0] : "",
			      r->cfg.image_paths.n > 1 ? ",..." : "");
			goto out;
		}
	} else {
		if (access(k, R_OK) < 0) {
			error_errno("cannot read kernel '%s'", k);
			return -1;
		}
		r->kernel_image = xstrdup(k);
	}
	if (kernel_image_probe(r->kernel_image, &img) < 0)
		goto out;
	if (!arch) {
		if (r->o.arch)
			arch = xstrdup(r->o.arch);
		else if (img.arch)
			arch = xstrdup(img.arch);
		else {
			error("cannot tell the architecture of kernel '%s' (%s): pass --arch",
			      r->kernel_image, kernel_format_name(img.format));
			goto out;
		}
		if (arch_config_load(&r->cfg, configs, arch) < 0)
			goto out;
	}
	if (img.arch && strcmp(img.arch, r->cfg.arch)) {
		error("kernel '%s' is %s (%s), not %s", r->kernel_image, img.arch,
		      kernel_format_name(img.format), r->cfg.arch);
		goto out;
	}
	if (img.format == KERNEL_UNKNOWN)
		warning("'%s' is no kernel image format tapboot knows; booting it anyway",
			r->kernel_image);
	if (r->o.config) {
		free(r->kernel_config);
		if (access(r->o.config, R_OK) < 0) {
			error_errno("cannot read kernel config '%s'", r->o.config);
			goto out;
		}
		r->kernel_config = xstrdup(r->o.config);
	} else if (!r->kernel_config) {
		r->kernel_config = config_beside(r->kernel_image);
	}
	r->bzimage = img.format == KERNEL_BZIMAGE;
	r->zimage = img.format == KERNEL_ARM_ZIMAGE;
	ret = 0;
out:
	free(arch);
	return ret;
}

/* --kernel debian:ARCH[:RELEASE] is Debian's packaged kernel, fetched when not cached. */
static int resolve_kernel(struct run *r)
{
	char *fetched, *arch = NULL;
	int ret;

	if (!strncmp(r->o.kernel, "O=", 2)) /* make's O=DIR, as a user types it */
		return resolve_kernel_at(r, r->o.kernel + 2);
	if (strncmp(r->o.kernel, CLI_KERNEL_DEBIAN, strlen(CLI_KERNEL_DEBIAN)))
		return resolve_kernel_at(r, r->o.kernel);
	fetched = cli_kernel_spec(r->o.kernel, r->o.arch, &arch);
	if (!fetched)
		return -1;
	if (!r->o.arch)
		r->o.arch = arch;
	ret = resolve_kernel_at(r, fetched);
	if (r->o.arch == arch)
		r->o.arch = NULL;
	free(arch);
	free(fetched);
	return ret;
}

/* The kernel image's sha256 (the vmlinux cache key and reproduce.sh), computed at most once per
 * run and kept in the cache while the file is unchanged (cli_stat_cache_get): hashing Debian's
 * 33 MB arm64 Image took 30 ms of every run. NULL after a message when it cannot be read. */
static const char *kernel_sha256(struct run *r)
{
	if (r->kernel_sha256[0])
		return r->kernel_sha256;
	if (cli_stat_cache_get(CLI_STAT_CACHE_SHA256, r->kernel_image, r->kernel_sha256,
			       sizeof(r->kernel_sha256)) &&
	    strlen(r->kernel_sha256) == 64 &&
	    strspn(r->kernel_sha256, "0123456789abcdef") == 64)
		return r->kernel_sha256;
	if (file_sha256(r->kernel_image, r->kernel_sha256) < 0) {
		r->kernel_sha256[0] = '\0';
		return NULL;
	}
	cli_stat_cache_put(CLI_STAT_CACHE_SHA256, r->kernel_image, r->kernel_sha256);
	return r->kernel_sha256;
}

/* x86: a bzImage decompresses itself for about 4 s under TCG (FACTS.md); when its vmlinux has
 * a PVH entry, decompress it once on the host (cached by the image's hash) and boot that.
 * arm: a zImage decompresses its Image for about 2.5 s under TCG (5.7-6.1 s against 3.4-3.5 s
 * per boot of Debian's armmp kernel here); unpack it on the host as a uImage QEMU loads where
 * the decompressor would have put it. --boot-as-is keeps the image as given. */
static void choose_boot_image(struct run *r)
{
	char *cache, *unpacked = NULL;
	const char *sum;
	struct kernel_image img;

	r->boot_kernel = xstrdup(r->kernel_image);
	if (r->o.boot_as_is)
		return;
	if (r->zimage && r->cfg.zimage_ram_base && (sum = kernel_sha256(r))) {
		cache = cli_cache_dir();
		if (kernel_image_unpack_zimage(r->kernel_image, sum, r->cfg.zimage_ram_base, cache,
					       &unpacked, false) == 0) {
			free(r->boot_kernel);
			r->boot_kernel = unpacked;
		}
		free(cache);
		return;
	}
	if (!r->bzimage || !r->cfg.pvh || !(sum = kernel_sha256(r)))
		return;
	cache = cli_cache_dir();
	if (kernel_image_extract_vmlinux(r->kernel_image, sum, cache, &unpacked, false) == 0 &&
	    kernel_image_probe(unpacked, &img) == 0 && img.has_pvh) {
		free(r->boot_kernel);
		r->boot_kernel = unpacked;
		r->bzimage = false;
	} else {
		free(unpacked);
	}
	free(cache);
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return true;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

/* A new, uniquely named directory under ./tapboot-out/ (never a fixed name, never /tmp):
 * tapboot-out/YYYYmmdd-HHMMSS-WHAT-XXXXXX. Caller frees; NULL after a message. */
static char *new_results_dir(const char *what)
{
	char stamp[32], *dir;
	time_t t = time(NULL);
	struct tm tm;

	if (mkdir("tapboot-out", 0755) < 0 && errno != EEXIST) {
		error_errno("cannot create 'tapboot-out'");
		return NULL;
	}
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	dir = xasprintf("tapboot-out/%s-%s-XXXXXX", stamp, what);
	if (!mkdtemp(dir)) {
		error_errno("cannot create a results directory under 'tapboot-out'");
		free(dir);
		return NULL;
	}
	return dir;
}

static int make_results_dir(struct run *r)
{
	if (r->o.out_dir) {
		if (mkdir(r->o.out_dir, 0755) < 0) {
			if (errno != EEXIST || !is_dir(r->o.out_dir))
				return error_errno("cannot create results directory '%s'",
						   r->o.out_dir);
			if (!dir_is_empty(r->o.out_dir) && !r->o.force)
				return error("results directory '%s' is not empty: pass --force "
					     "to write into it, or choose another -o",
					     r->o.out_dir);
		} else {
			r->dir_created = true;
		}
		r->dir = xstrdup(r->o.out_dir);
	} else {
		r->dir = new_results_dir(r->cfg.arch);
		if (!r->dir)
			return -1;
		r->dir_created = true;
	}
	{
		char *t = xasprintf("%s/tests", r->dir);

		if (mkdir(t, 0755) < 0 && errno != EEXIST) {
			error_errno("cannot create '%s'", t);
			free(t);
			return -1;
		}
		free(t);
	}
	return 0;
}

static void make_nonce(char out[33])
{
	unsigned char b[16];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		/* getrandom cannot fail for 16 bytes once the pool is ready; fall back anyway */
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)(rand() ^ getpid() ^ time(NULL));
	}
	for (size_t i = 0; i < sizeof(b); i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* The run's secret, appended to its image: the init's lines carry its tag, which no test can
 * make (docs/DESIGN.md "Console protocol"). */
static int make_key(struct run *r)
{
	if (getrandom(r->key, sizeof(r->key), 0) != (ssize_t)sizeof(r->key))
		return error_errno("cannot get random bytes for the run's secret");
	return builder_append_key(r->initrd, r->o.compress, r->key, sizeof(r->key));
}

/* One QEMU process: a shard of the plan, or one disruptive test on its own. */
struct vm {
	struct run *r;
	unsigned index; /* 1-based, for file names and messages */
	char *select_args; /* tapboot.shard= / tapboot.only= / tapboot.disruptive= for this VM */
	size_t *tests; /* plan indices this VM runs, in order */
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
};

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
	if (vm->r->tty && !vm->r->o.quiet) {
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
	if (vm->r->o.quiet)
		return;
	fprintf(stderr, "%s  %-7s %7.2fs  %s%s%s\n", vm->r->tty ? "\r\033[K" : "",
		verdict_name(t->verdict), t->duration_s < 0 ? 0.0 : t->duration_s, t->name,
		t->reason && *t->reason ? "  # " : "", t->reason ? t->reason : "");
}

static void on_crash(void *ctx, const char *line)
{
	struct vm *vm = ctx;

	if (!vm->r->o.quiet)
		fprintf(stderr, "%skernel: %s\n", vm->r->tty ? "\r\033[K" : "", line);
}

static enum watch_action console_data(void *ctx, const char *buf, size_t len)
{
	struct vm *vm = ctx;
	const struct tap_summary *s;

	/* flushed per read: console.log is live (tail -f, and the boot tests wait on it) */
	fwrite(buf, 1, len, vm->console);
	fflush(vm->console);
	tap_parser_feed(vm->parser, buf, len);
	s = tap_parser_summary(vm->parser);
	if (s->complete)
		return WATCH_FINISH;
	if (s->crashed)
		return WATCH_CRASH;
	return WATCH_CONTINUE;
}

static unsigned test_timeout(const struct run *r, size_t i)
{
	return r->o.timeout_given ? r->o.timeout_s : r->plan.tests[i].timeout_s;
}

/* The deadline: every test's timeout plus a boot allowance and a margin per test for the
 * init's bookkeeping; the idle limit: the longest test timeout plus a minute, since a test
 * may be silent for all of its time. A timeout of 0 (none) lifts both. */
static void limits(const struct vm *vm, double *idle, double *deadline)
{
	const struct run *r = vm->r;
	unsigned max = 0;
	double sum = 0;
	bool unlimited = false;

	for (size_t i = 0; i < vm->ntests; i++) {
		unsigned t = test_timeout(r, vm->tests[i]);

		if (t == 0)
			unlimited = true;
		if (t > max)
			max = t;
		sum += t + 10;
	}
	*idle = r->o.idle_s ? r->o.idle_s : unlimited ? 0 : max + 60.0;
	*deadline = unlimited ? 0 : sum + r->o.boot_s;
}

static char *kernel_extra_args(const struct vm *vm)
{
	const struct run *r = vm->r;
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, TAPBOOT_ARG_NONCE "%s", r->nonce);
	if (r->o.timeout_given)
		strbuf_addf(&sb, " " TAPBOOT_ARG_TIMEOUT "%u", r->o.timeout_s);
	for (size_t i = 0; i < r->o.filters.n; i++)
		strbuf_addf(&sb, " " TAPBOOT_ARG_FILTER "%s", r->o.filters.v[i]);
	if (vm->select_args && *vm->select_args)
		strbuf_addf(&sb, " %s", vm->select_args);
	if (r->o.append)
		strbuf_addf(&sb, " %s", r->o.append);
	return strbuf_detach(&sb);
}

static const char *host_arch(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__)
	return "arm64";
#else
	return "";
#endif
}

static char *kvm_cache_key(const struct run *r)
{
	struct utsname u;

	uname(&u);
	return xasprintf("%s %s %s", u.release, r->cfg.qemu, r->cfg.arch);
}

static char *kvm_cache_file(void)
{
	char *dir = cli_cache_dir(), *f = xasprintf("%s/kvm-broken", dir);

	free(dir);
	return f;
}

static bool kvm_known_broken(const struct run *r)
{
	char *f = kvm_cache_file(), *key = kvm_cache_key(r), line[512];
	FILE *fp = fopen(f, "r");
	bool broken = false;

	if (fp) {
		while (fgets(line, sizeof(line), fp)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strcmp(line, key))
				broken = true;
		}
		fclose(fp);
	}
	free(f);
	free(key);
	return broken;
}

static void kvm_remember_broken(const struct run *r)
{
	char *f = kvm_cache_file(), *key = kvm_cache_key(r);
	FILE *fp = fopen(f, "a");

	if (fp) {
		fprintf(fp, "%s\n", key);
		fclose(fp);
	}
	free(f);
	free(key);
}

/* auto: KVM only when the guest matches the host, /dev/kvm opens, and it was not seen broken
 * here before; the boot itself is the final probe (see boot_all()). */
static bool want_kvm(struct run *r)
{
	const char *kvm_dev = getenv("TAPBOOT_KVM_DEVICE") ? getenv("TAPBOOT_KVM_DEVICE") : "/dev/kvm";
	int fd;

	if (r->o.accel == ACCEL_TCG) {
		r->accel_note = xstrdup("tcg (--accel tcg)");
		return false;
	}
	if (r->o.accel == ACCEL_KVM) {
		r->accel_note = xstrdup("kvm (--accel kvm)");
		return true;
	}
	if (strcmp(r->cfg.arch, host_arch())) {
		/* "an arm64 guest on an x86_64 host", "a riscv64 guest" */
		r->accel_note = xasprintf("tcg (%s %s guest on %s %s host)",
					  strchr("aeiox", r->cfg.arch[0]) ? "an" : "a", r->cfg.arch,
					  strchr("aeiox", host_arch()[0]) ? "an" : "a", host_arch());
		return false;
	}
	/* TAPBOOT_KVM_DEVICE: another device node to try (tests/boot/25-forgery.sh makes auto
	 * probe KVM with a QEMU that fails it, on a host without /dev/kvm) */
	fd = open(kvm_dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		r->accel_note = xasprintf("tcg (%s: %s)", kvm_dev, strerror(errno));
		return false;
	}
	close(fd);
	if (kvm_known_broken(r)) {
		char *f = kvm_cache_file();

		r->accel_note = xasprintf("tcg (KVM failed to boot a guest here before, noted in "
					  "%s; --accel kvm tries again)",
					  f);
		free(f);
		return false;
	}
	r->accel_note = xstrdup("kvm (auto)");
	return true;
}

static const char *last_line(const char *s)
{
	static char buf[512];
	const char *end = s + strlen(s), *start;

	while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	snprintf(buf, sizeof(buf), "%.*s", (int)(end - start), start);
	return buf;
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
}

static void vm_release(struct vm *vm)
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
		.cpu = r->o.cpu,
		.machine = r->o.machine,
		.memory_mb = r->o.memory_mb,
		.smp = r->o.smp,
	};
	char *extra = kernel_extra_args(vm), *cmdline = qemu_kernel_cmdline(&r->cfg, r->accel, extra);

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
	if (qemu_spawn(&vm->proc, &vm->argv, qemu_package_hint(&r->cfg)) < 0)
		return -1;
	vm->spawned = true;
	return 0;
}

/* Boot a wave of VMs at once and supervise them; fills each vm's res, qemu_err, status. */
static void boot_wave(struct run *r, struct vm **vms, size_t n, int sigfd, bool probe_kvm)
{
	struct qemu_proc *ps = xcalloc(n, sizeof(*ps));
	struct watch_opts *os = xcalloc(n, sizeof(*os));
	enum watch_result *res = xcalloc(n, sizeof(*res));
	size_t *map = xcalloc(n, sizeof(*map));
	size_t live = 0;

	for (size_t i = 0; i < n; i++) {
		vms[i]->res = WATCH_EXITED;
		if (vm_start(vms[i]) < 0)
			continue;
		ps[live] = vms[i]->proc;
		os[live] = (struct watch_opts){ .signal_fd = -1, .on_console = console_data,
						.ctx = vms[i] };
		limits(vms[i], &os[live].idle_s, &os[live].deadline_s);
		/* KVM boots to the init in about a second where it works; 15 s covers a busy
		 * host. */
		if (probe_kvm)
			os[live].first_line_s = 15;
		map[live++] = i;
	}
	if (live)
		qemu_watch_all(ps, os, res, live, sigfd, &r->signo);
	for (size_t j = 0; j < live; j++) {
		struct vm *vm = vms[map[j]];

		vm->proc = ps[j];
		vm->res = res[j];
		vm->qemu_status = vm->proc.exited ? vm->proc.status : -1;
		vm->qemu_err = xstrdup(vm->proc.err.buf ? vm->proc.err.buf : "");
		if (res[j] == WATCH_INTERRUPTED)
			r->interrupted = true;
	}
	free(map);
	free(res);
	free(os);
	free(ps);
}

/* The plan indices that survive --filter, as the init selects them (fnmatch on the name). */
static size_t *filtered_tests(const struct run *r, size_t *n)
{
	size_t *sel = xcalloc(r->plan.n + 1, sizeof(*sel));

	*n = 0;
	for (size_t i = 0; i < r->plan.n; i++) {
		bool ok = !r->o.filters.n;

		for (size_t j = 0; j < r->o.filters.n && !ok; j++)
			ok = !fnmatch(r->o.filters.v[j], r->plan.tests[i].name, 0);
		if (ok)
			sel[(*n)++] = i;
	}
	return sel;
}

/* Test durations seen in earlier runs, per architecture ($XDG_CACHE_HOME/tapboot/durations-ARCH,
 * "seconds<TAB>name" lines): the shards of -j are balanced with them. */
struct durations {
	struct strlist names;
	double *secs;
	size_t alloc;
};

static char *durations_path(const struct run *r)
{
	char *dir = cli_cache_dir(), *p = xasprintf("%s/durations-%s", dir, r->cfg.arch);

	free(dir);
	return p;
}

static void durations_load(const struct run *r, struct durations *d)
{
	char *path = durations_path(r), *line = NULL;
	size_t len = 0;
	FILE *fp = fopen(path, "r");

	strlist_init(&d->names);
	d->secs = NULL;
	d->alloc = 0;
	while (fp && getline(&line, &len, fp) > 0) {
		char *tab = strchr(line, '\t'), *end;
		double v;

		line[strcspn(line, "\n")] = '\0';
		if (!tab)
			continue;
		*tab = '\0';
		v = strtod(line, &end);
		if (end == line || *end || v < 0)
			continue;
		xgrow(&d->secs, &d->alloc, d->names.n + 1, sizeof(*d->secs));
		d->secs[d->names.n] = v;
		strlist_push(&d->names, tab + 1);
	}
	if (fp)
		fclose(fp);
	free(line);
	free(path);
}

static double *durations_find(struct durations *d, const char *name)
{
	for (size_t i = 0; i < d->names.n; i++)
		if (!strcmp(d->names.v[i], name))
			return &d->secs[i];
	return NULL;
}

static void durations_release(struct durations *d)
{
	strlist_release(&d->names);
	free(d->secs);
}

/* Remember this run's durations (tests that ran to a verdict) for the next -j. */
static void durations_save(const struct run *r, const struct tap_test *tests, size_t n)
{
	struct durations d;
	char *path = durations_path(r), *tmp = xasprintf("%s.%d", path, (int)getpid());
	FILE *fp;

	durations_load(r, &d);
	for (size_t i = 0; i < n; i++) {
		double *v;

		if (tests[i].duration_s < 0 || tests[i].verdict == VERDICT_CRASH ||
		    tests[i].verdict == VERDICT_MISSING)
			continue;
		v = durations_find(&d, tests[i].name);
		if (!v) {
			xgrow(&d.secs, &d.alloc, d.names.n + 1, sizeof(*d.secs));
			d.secs[d.names.n] = 0;
			strlist_push(&d.names, tests[i].name);
			v = &d.secs[d.names.n - 1];
		}
		*v = tests[i].duration_s;
	}
	fp = fopen(tmp, "w");
	if (fp) {
		for (size_t i = 0; i < d.names.n; i++)
			if (!strchr(d.names.v[i], '\n'))
				fprintf(fp, "%.3f\t%s\n", d.secs[i], d.names.v[i]);
		if (fclose(fp) != 0 || rename(tmp, path) < 0)
			unlink(tmp);
	}
	durations_release(&d);
	free(tmp);
	free(path);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* tapboot.only=1,4,7-9 for plan indices idx (sorted, 0-based). */
static char *only_arg(const size_t *idx, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, TAPBOOT_ARG_ONLY);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && idx[j + 1] == idx[j] + 1)
			j++;
		strbuf_addf(&sb, "%s%zu", i ? "," : "", idx[i] + 1);
		if (j > i)
			strbuf_addf(&sb, "-%zu", idx[j] + 1);
		i = j + 1;
	}
	return strbuf_detach(&sb);
}

/* Longest first onto the least loaded shard (LPT), with durations from earlier runs; tests
 * never seen count as the mean of the known ones. Returns false (leaving the modulo shards)
 * when fewer than half the tests are known or the lists would not fit the kernel's command
 * line (2048 bytes on x86 and arm64; a margin for the rest). */
static bool balance_shards(struct run *r, size_t nshards)
{
	struct durations d;
	size_t n = 0, known = 0, total_len = 0;
	size_t *order, **saved = NULL, *saved_n = NULL;
	double *est, *load, mean = 0;
	bool ok = false;

	durations_load(r, &d);
	for (size_t v = 0; v < nshards; v++)
		n += r->vms[v].ntests;
	order = xcalloc(n + 1, sizeof(*order));
	est = xcalloc(n + 1, sizeof(*est));
	load = xcalloc(nshards, sizeof(*load));
	n = 0;
	for (size_t v = 0; v < nshards; v++)
		for (size_t k = 0; k < r->vms[v].ntests; k++) {
			double *sec = durations_find(&d, r->plan.tests[r->vms[v].tests[k]].name);

			order[n] = r->vms[v].tests[k];
			est[n] = sec ? *sec : -1;
			if (sec) {
				known++;
				mean += *sec;
			}
			n++;
		}
	if (!n || known * 2 < n)
		goto out;
	saved = xcalloc(nshards, sizeof(*saved));
	saved_n = xcalloc(nshards, sizeof(*saved_n));
	for (size_t v = 0; v < nshards; v++) {
		saved[v] = xcalloc(r->vms[v].ntests + 1, sizeof(**saved));
		memcpy(saved[v], r->vms[v].tests, r->vms[v].ntests * sizeof(**saved));
		saved_n[v] = r->vms[v].ntests;
	}
	mean /= (double)known;
	for (size_t i = 0; i < n; i++)
		if (est[i] < 0)
			est[i] = mean;
	/* sort by estimate, longest first (insertion sort: plans are small) */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && est[j] > est[j - 1]; j--) {
			double te = est[j];
			size_t to = order[j];

			est[j] = est[j - 1];
			order[j] = order[j - 1];
			est[j - 1] = te;
			order[j - 1] = to;
		}
	for (size_t v = 0; v < nshards; v++)
		r->vms[v].ntests = 0;
	for (size_t i = 0; i < n; i++) {
		size_t best = 0;

		for (size_t v = 1; v < nshards; v++)
			if (load[v] < load[best])
				best = v;
		load[best] += est[i];
		r->vms[best].tests[r->vms[best].ntests++] = order[i];
	}
	ok = true;
	for (size_t v = 0; v < nshards; v++) {
		struct vm *vm = &r->vms[v];
		char *only;

		if (!vm->ntests) {
			ok = false;
			break;
		}
		qsort(vm->tests, vm->ntests, sizeof(*vm->tests), cmp_size);
		only = only_arg(vm->tests, vm->ntests);
		total_len = strlen(only) > total_len ? strlen(only) : total_len;
		free(vm->select_args);
		vm->select_args = only;
	}
	if (!ok || total_len >= 1200) {
		/* back to the modulo assignment the init's shards make */
		ok = false;
		for (size_t v = 0; v < nshards; v++) {
			memcpy(r->vms[v].tests, saved[v], saved_n[v] * sizeof(**saved));
			r->vms[v].ntests = saved_n[v];
			free(r->vms[v].select_args);
			r->vms[v].select_args = NULL;
		}
	}
out:
	if (saved)
		for (size_t v = 0; v < nshards; v++)
			free(saved[v]);
	free(saved);
	free(saved_n);
	free(order);
	free(est);
	free(load);
	durations_release(&d);
	return ok;
}

/* Shards: -j N VMs split the tests the way the init's tapboot.shard=K/N does; with
 * --disruptive, every disruptive test gets a VM of its own (tapboot.only=), and the shards
 * leave it out (reported by its own VM only). */
static void plan_vms(struct run *r)
{
	size_t nsel, *sel = filtered_tests(r, &nsel), nshards = r->o.jobs ? r->o.jobs : 1;
	size_t ndisr = 0;

	if (r->o.disruptive)
		for (size_t i = 0; i < nsel; i++)
			if (r->plan.tests[sel[i]].flags & PLAN_FLAG_DISRUPTIVE)
				ndisr++;
	if (nshards > nsel - ndisr && nsel > ndisr)
		nshards = nsel - ndisr;
	if (nsel == ndisr)
		nshards = ndisr ? 0 : 1;
	r->nvms = nshards + ndisr;
	r->vms = xcalloc(r->nvms, sizeof(*r->vms));
	for (size_t v = 0; v < r->nvms; v++) {
		r->vms[v].r = r;
		r->vms[v].index = (unsigned)v + 1;
		r->vms[v].tests = xcalloc(nsel + 1, sizeof(size_t));
		r->vms[v].console_path =
			r->nvms == 1 ? xasprintf("%s/console.log", r->dir) :
				       xasprintf("%s/console.%zu.log", r->dir, v + 1);
	}
	for (size_t i = 0, d = 0, seen = 0; i < nsel; i++) {
		const struct plan_test *t = &r->plan.tests[sel[i]];
		struct vm *vm;

		if (r->o.disruptive && (t->flags & PLAN_FLAG_DISRUPTIVE)) {
			vm = &r->vms[nshards + d++];
			vm->select_args =
				xasprintf(TAPBOOT_ARG_ONLY "%zu " TAPBOOT_ARG_DISRUPTIVE "1",
					  sel[i] + 1);
		} else {
			/* the init's shard counts over what it selects: the filtered tests less
			 * the disruptive ones when those run elsewhere */
			vm = &r->vms[nshards > 1 ? seen % nshards : 0];
			seen++;
		}
		vm->tests[vm->ntests++] = sel[i];
	}
	if (nshards > 1 && balance_shards(r, nshards)) {
		free(sel);
		return;
	}
	/* No history to balance with (or too long a list): the init's own modulo shards,
	 * which need the same assignment as above. */
	for (size_t v = 0; v < nshards; v++) {
		struct strbuf a = STRBUF_INIT;

		strbuf_grow(&a, 0);
		if (nshards > 1)
			strbuf_addf(&a, TAPBOOT_ARG_SHARD "%zu/%zu", v, nshards);
		if (ndisr)
			strbuf_addf(&a, "%s" TAPBOOT_ARG_DISRUPTIVE "elsewhere", a.len ? " " : "");
		r->vms[v].select_args = strbuf_detach(&a);
	}
	free(sel);
}

/* The binary a command name runs (PATH search, as execvp does); NULL when none. */
static char *path_lookup(const char *name)
{
	const char *p = getenv("PATH"), *end;

	if (strchr(name, '/'))
		return access(name, X_OK) ? NULL : xstrdup(name);
	for (p = p ? p : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		char *cand;

		end = strchrnul(p, ':');
		cand = xasprintf("%.*s/%s", (int)(end - p), p, name);
		if (!access(cand, X_OK))
			return cand;
		free(cand);
	}
	return NULL;
}

/* QEMU's version line into out ("unknown" when it cannot be had). `qemu --version` costs about
 * 20 ms at the end of every run, so the answer is cached per binary (cli_stat_cache_get: a
 * reinstalled QEMU has a new inode, mtime and ctime). */
static void qemu_version(const char *qemu, char *out, size_t n)
{
	char *bin = path_lookup(qemu), *vcmd;
	FILE *fp;

	if (bin && cli_stat_cache_get(CLI_STAT_CACHE_QEMU_VERSION, bin, out, n))
		goto out;
	snprintf(out, n, "unknown");
	vcmd = xasprintf("%s --version 2>/dev/null", bin ? bin : qemu);
	fp = popen(vcmd, "r");
	free(vcmd);
	if (!fp)
		goto out;
	if (!fgets(out, (int)n, fp))
		snprintf(out, n, "unknown");
	out[strcspn(out, "\n")] = '\0';
	if (pclose(fp) == 0 && bin && strcmp(out, "unknown"))
		cli_stat_cache_put(CLI_STAT_CACHE_QEMU_VERSION, bin, out);
out:
	free(bin);
}

static void write_reproduce(struct run *r, const char *cmd_line)
{
	char *path = xasprintf("%s/reproduce.sh", r->dir), *tmp = xasprintf("%s.tmp", path);
	char khash[65] = "", ihash[65] = "", qver[256];
	FILE *fp;

	if (kernel_sha256(r))
		strcpy(khash, r->kernel_sha256);
	else
		strcpy(khash, "unreadable");
	if (file_sha256(r->initrd, ihash) < 0)
		strcpy(ihash, "unreadable");
	qemu_version(r->cfg.qemu, qver, sizeof(qver));
	fp = fopen(tmp, "w");
	if (!fp) {
		warning_errno("cannot write '%s'", tmp);
		goto out;
	}
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
		r->nvms > 1 ? "s (one per VM, run one after the other)" : "", TAPBOOT_VERSION, qver,
		r->kernel_image, khash, r->initrd, ihash, r->boot_kernel,
		r->accel_note ? r->accel_note : "", cmd_line);
	for (size_t v = 0; v < r->nvms; v++) {
		char *qcmd = qemu_argv_shell(&r->vms[v].argv);

		if (r->vms[v].argv.n)
			fprintf(fp, "%s%s\n", r->nvms == 1 ? "exec " : "", qcmd);
		free(qcmd);
	}
	if (fclose(fp) != 0 || chmod(tmp, 0755) < 0 || rename(tmp, path) < 0)
		warning_errno("cannot write '%s'", path);
out:
	free(tmp);
	free(path);
}

static char *abs_path(const char *p)
{
	char *r = realpath(p, NULL);

	return r ? r : xstrdup(p);
}

static void run_release(struct run *r)
{
	for (size_t v = 0; v < r->nvms; v++)
		vm_release(&r->vms[v]);
	free(r->vms);
	arch_config_release(&r->cfg);
	plan_release(&r->plan);
	strlist_release(&r->o.filters);
	strlist_release(&r->o.load_modules);
	strlist_release(&r->o.ks_targets);
	strlist_release(&r->o.ks_skip_targets);
	strlist_release(&r->o.ks_tests);
	strlist_release(&r->o.expect_skip);
	strlist_release(&r->inputs);
	free(r->kernel_image);
	free(r->kernel_config);
	free(r->boot_kernel);
	free(r->dir);
	free(r->initrd);
	free(r->accel_note);
}

static int build_image(struct run *r)
{
	struct builder_opts bo;
	char *top = cli_cache_dir(), *cache = xasprintf("%s/segments", top);
	int ret;

	builder_opts_init(&bo);
	if (cli_builder_target(&bo, &r->cfg, r->o.sysroot) < 0) {
		builder_opts_release(&bo);
		free(cache);
		free(top);
		return -1;
	}
	bo.compress = r->o.compress;
	bo.busybox = r->o.busybox;
	bo.modules_dir = r->o.modules_dir;
	for (size_t i = 0; i < r->o.load_modules.n; i++)
		strlist_push(&bo.load_modules, r->o.load_modules.v[i]);
	bo.default_timeout = r->o.timeout_s;
	bo.cache_dir = cache;
	bo.kernel_config = r->kernel_config;
	bo.quiet = r->o.quiet;
	r->initrd = xasprintf("%s/initramfs.cpio", r->dir);
	ret = builder_build(&bo, (const char *const *)r->inputs.v, r->inputs.n, r->initrd, &r->plan);
	free((char *)bo.init_path);
	bo.init_path = NULL;
	builder_opts_release(&bo);
	free(cache);
	free(top);
	return ret;
}

/* --kselftest: the install tree becomes a manifest in the results directory (kept: it says what
 * was selected, with which timeouts and skips), which the builder reads like any input. */
static int kselftest_input(struct run *r)
{
	struct kselftest_opts ko;
	struct kselftest_info info;
	struct strbuf msg = STRBUF_INIT;
	char *manifest = xasprintf("%s/kselftest.manifest", r->dir);
	int ret;

	kselftest_opts_init(&ko);
	kselftest_info_init(&info);
	ko.install_dir = r->o.kselftest;
	for (size_t i = 0; i < r->o.ks_targets.n; i++)
		strlist_push(&ko.targets, r->o.ks_targets.v[i]);
	for (size_t i = 0; i < r->o.ks_skip_targets.n; i++)
		strlist_push(&ko.skip_targets, r->o.ks_skip_targets.v[i]);
	for (size_t i = 0; i < r->o.ks_tests.n; i++)
		strlist_push(&ko.tests, r->o.ks_tests.v[i]);
	ko.src_dir = r->o.kselftest_src;
	ko.kernel_config = r->kernel_config;
	ko.modules = r->o.modules_dir != NULL;
	ko.timeout = r->o.timeout_given ? r->o.timeout_s : 0;
	ret = kselftest_manifest(&ko, manifest, &info);
	if (!ret) {
		kselftest_info_describe(&info, &msg);
		if (!r->o.quiet)
			fputs(msg.buf, stderr);
		strlist_push(&r->inputs, manifest);
	}
	strbuf_release(&msg);
	kselftest_info_release(&info);
	kselftest_opts_release(&ko);
	free(manifest);
	return ret;
}

/* Several VMs at once under TCG whose vCPUs outnumber the host's CPUs: each VM gets one host
 * thread for all its vCPUs (thread=single) instead of one per vCPU. The guests still see --smp
 * CPUs; what changes is that 2 VMs x 2 vCPUs no longer fight over 2 cores. Measured here on 2
 * CPUs, 2 VMs of 2 vCPUs, interleaved: the demo kselftest tree 16.6-19.8 s against 18.3-20.1 s
 * with thread=multi (four runs each); 20 one-second tests 13.0-13.6 s against 13.5-14.1 s. */
static bool tcg_share_host(const struct run *r, size_t nvms_at_once)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned smp = r->o.smp ? r->o.smp : r->cfg.smp;

	return nvms_at_once > 1 && cpus > 0 && nvms_at_once * (smp ? smp : 1) > (size_t)cpus;
}

/* -j auto: one VM more than the host has CPUs, as make -j N+1 (the tests' sleeps and a VM's
 * boot leave CPUs idle that another VM fills), but no more VMs than MemAvailable holds with
 * their guest memory plus 128 MiB of QEMU's own each. Measured on the demo kselftest tree
 * (x86_64, 2 CPUs, 1 GiB guests, interleaved): -j 2 19.8-21.2 s, -j 3 16.0-20.1 s (median
 * 16.7 of five), -j 4 19.1-19.5 s. */
static unsigned auto_jobs(const struct run *r)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned mem = r->o.memory_mb ? r->o.memory_mb : r->cfg.memory_mb;
	unsigned n = cpus > 0 ? (unsigned)cpus + 1 : 1;
	unsigned long long avail_kb = 0;
	char line[256];
	FILE *fp = fopen("/proc/meminfo", "r");

	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "MemAvailable: %llu kB", &avail_kb) == 1)
			break;
	if (fp)
		fclose(fp);
	if (avail_kb && mem) {
		unsigned long long fit = avail_kb / 1024 / ((unsigned long long)mem + 128);

		if (fit < n)
			n = fit ? (unsigned)fit : 1;
	}
	return n > 64 ? 64 : n;
}

/* Run every VM, in waves of at most -j at a time; KVM under auto falls back to TCG once. */
static void boot_all(struct run *r, int sigfd)
{
	size_t jobs = r->o.jobs ? r->o.jobs : 1;
	struct vm **wave = xcalloc(r->nvms + 1, sizeof(*wave));
	bool kvm = want_kvm(r);
	size_t at_once = r->nvms < jobs ? r->nvms : jobs;

	for (int attempt = 0; attempt < 2; attempt++) {
		bool probe = kvm && r->o.accel == ACCEL_AUTO, any_begun = false;
		struct vm *kvm_failed = NULL;

		r->accel = kvm ? QEMU_ACCEL_KVM : QEMU_ACCEL_TCG;
		r->tcg_single = !kvm && tcg_share_host(r, at_once);
		if (r->tcg_single) {
			char *note = xasprintf("%s; one host thread per VM (%zu VMs at once on %ld "
					       "CPUs)", r->accel_note, at_once,
					       sysconf(_SC_NPROCESSORS_ONLN));

			free(r->accel_note);
			r->accel_note = note;
		}
		if (!r->o.quiet)
			fprintf(stderr, "accelerator: %s\n", r->accel_note);
		for (size_t v = 0; v < r->nvms && !r->interrupted; v += jobs) {
			size_t n = r->nvms - v < jobs ? r->nvms - v : jobs;

			for (size_t i = 0; i < n; i++)
				wave[i] = &r->vms[v + i];
			boot_wave(r, wave, n, sigfd, probe);
			for (size_t i = 0; i < n; i++) {
				any_begun |= wave[i]->begun;
				if (wave[i]->res == WATCH_QEMU_FATAL && !kvm_failed)
					kvm_failed = &r->vms[v + i];
			}
			if (probe && (!any_begun || kvm_failed))
				break;
		}
		if (probe && kvm_failed && !r->interrupted) {
			/* QEMU said KVM failed (at once, not after the 15 s probe): all under TCG */
			char *line = qemu_fatal_line(kvm_failed->qemu_err, strlen(kvm_failed->qemu_err));

			free(r->accel_note);
			r->accel_note = xasprintf("tcg (KVM failed: QEMU said: %s)", line);
			free(line);
			kvm_remember_broken(r);
			kvm = false;
			continue;
		}
		if (probe && !any_begun && !r->interrupted) {
			/* KVM opened but did not boot a guest to the init. */
			const char *qerr = r->vms[0].qemu_err;
			char *why = xasprintf("tcg (KVM did not reach the init: %s%s%s)",
					      r->vms[0].res == WATCH_NO_FIRST_LINE ?
						      "no output within 15 s" :
						      "QEMU exited",
					      qerr && *qerr ? "; QEMU said: " : "",
					      qerr && *qerr ? last_line(qerr) : "");

			free(r->accel_note);
			r->accel_note = why;
			kvm_remember_broken(r);
			kvm = false;
			continue;
		}
		break;
	}
	free(wave);
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
					  "here; --accel tcg runs it without KVM)", line)
			      : xasprintf("QEMU stopped the guest: %s", line);
		free(line);
		return why;
	}
	if (vm->res == WATCH_EXITED && vm->qemu_status >= 0 && WIFSIGNALED(vm->qemu_status))
		return qemu_exit_text(vm->qemu_status);
	return NULL;
}

/* What cut the console off, when tapboot did: the reason the running test gets. */
static char *vm_cut_reason(struct run *r, const struct vm *vm)
{
	double idle, deadline;

	limits(vm, &idle, &deadline);
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
			   const char *cut);

/* Why a VM's run did not complete, or NULL. When the guest hung or QEMU ended before the init,
 * with no kernel report to explain it, and QEMU booted what tapboot unpacked (the x86 PVH
 * vmlinux, the arm Image), the message says so and names --boot-as-is, the way to tell
 * tapboot's unpacking from the kernel's own fault. */
static char *vm_error(struct run *r, struct vm *vm, const struct tap_summary *s, const char *cut)
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
	if (!vm->begun)
		return xasprintf("the guest never reached tapboot's init (QEMU %s%s%s)",
				 vm->qemu_status > 0 ? "exited with an error" : "exited",
				 qerr && *qerr ? ": " : "", qerr && *qerr ? last_line(qerr) : "");
	return xstrdup("the guest stopped before the end of the run (no end marker with this "
		       "run's nonce)");
}

/* console.log of a multi-VM run: every VM's raw console one after the other (each begins
 * with its own begin marker, so `tapboot parse` reads them as one run). */
static void concat_consoles(struct run *r)
{
	char *path = xasprintf("%s/console.log", r->dir);
	FILE *out = fopen(path, "w");
	char buf[65536];
	size_t n;

	for (size_t v = 0; out && v < r->nvms; v++) {
		FILE *in = fopen(r->vms[v].console_path, "r");

		if (!in)
			continue;
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, out);
		fclose(in);
	}
	if (!out || fclose(out) != 0)
		warning_errno("cannot write '%s'", path);
	free(path);
}

static int finish_run(struct run *r, const char *cmd_line)
{
	struct report_run rep = { 0 };
	struct crash_sig *crash;
	struct tap_summary sum;
	struct tap_test *tests = xcalloc(r->plan.n + 1, sizeof(*tests));
	struct strbuf errors = STRBUF_INIT;
	size_t ntests = 0;
	bool *used;
	int status;
	char *p;

	memset(&sum, 0, sizeof(sum));
	sum.complete = true;
	sum.planned = 0;
	for (size_t v = 0; v < r->nvms; v++) {
		struct vm *vm = &r->vms[v];
		const struct tap_summary *s;
		char *e, *cut;

		if (!vm->parser)
			continue;
		cut = vm_cut_reason(r, vm);
		tap_parser_finish(vm->parser, cut);
		if (vm->console)
			fflush(vm->console);
		s = tap_parser_summary(vm->parser);
		e = vm_error(r, vm, s, cut);
		free(cut);
		if (e) {
			/* the cut reason for the running test: now that we know it */
			if (errors.len)
				strbuf_addstr(&errors, "; ");
			if (r->nvms > 1)
				strbuf_addf(&errors, "VM %u: ", vm->index);
			strbuf_addstr(&errors, e);
			vm->error = e;
		}
		sum.complete &= s->complete;
		sum.saw_version |= s->saw_version;
		sum.saw_begin |= s->saw_begin;
		sum.bailed_out |= s->bailed_out;
		if (!sum.bail_reason)
			sum.bail_reason = s->bail_reason;
		sum.crashed |= s->crashed;
		if (!sum.crash_line)
			sum.crash_line = s->crash_line;
		if (!sum.kernel)
			sum.kernel = s->kernel;
		sum.planned += s->planned > 0 ? s->planned : 0;
	}
	/* Results in plan order: each test from the VM that ran it. */
	used = xcalloc(r->plan.n + 1, sizeof(*used));
	for (size_t v = 0; v < r->nvms; v++) {
		struct vm *vm = &r->vms[v];
		size_t n = 0;
		const struct tap_test *t = vm->parser ? tap_parser_tests(vm->parser, &n) : NULL;

		for (size_t k = 0; k < vm->ntests; k++) {
			const char *name = r->plan.tests[vm->tests[k]].name;

			for (size_t j = 0; j < n; j++)
				if (!strcmp(t[j].name, name)) {
					tests[vm->tests[k]] = t[j];
					used[vm->tests[k]] = true;
					break;
				}
		}
		/* a VM that never started has no parser: its tests are missing */
		for (size_t k = 0; k < vm->ntests; k++)
			if (!used[vm->tests[k]]) {
				tests[vm->tests[k]].name = r->plan.tests[vm->tests[k]].name;
				tests[vm->tests[k]].verdict = VERDICT_MISSING;
				tests[vm->tests[k]].duration_s = -1;
				tests[vm->tests[k]].exit_code = -1;
				used[vm->tests[k]] = true;
			}
	}
	for (size_t i = 0; i < r->plan.n; i++)
		if (used[i])
			tests[ntests++] = tests[i];
	free(used);
	for (size_t i = 0; i < ntests; i++) {
		sum.count[tests[i].verdict]++;
		sum.total++;
	}
	durations_save(r, tests, ntests);
	if (r->nvms > 1)
		concat_consoles(r);
	rep.arch = r->cfg.arch;
	rep.kernel = r->kernel_image;
	rep.kernel_release = sum.kernel;
	rep.accel = r->accel == QEMU_ACCEL_KVM ? "kvm" : "tcg";
	rep.suite = r->o.kselftest ? "kselftest" : "tapboot";
	rep.complete = sum.complete;
	rep.error = errors.len ? errors.buf : NULL;
	rep.wall_s = now_s() - r->start;
	rep.tests = tests;
	rep.ntests = ntests;
	rep.summary = &sum;
	rep.kcidb_origin = r->o.kcidb_origin;
	rep.run_id = r->nonce;
	rep.nonce = r->nonce;
	rep.machine = r->o.machine ? r->o.machine :
		      r->bzimage && r->cfg.machine_bzimage && *r->cfg.machine_bzimage ?
					  r->cfg.machine_bzimage : r->cfg.machine;
	rep.start_time = (double)time(NULL) - (now_s() - r->start);
	rep.reproduce = "reproduce.sh"; /* in the results directory */
	/* a crash, or a kernel warning in a run that failed, named as the robot and syzkaller do */
	p = xasprintf("%s/console.log", r->dir);
	crash = report_exit_status(&rep) ? crash_sig_from_file(p) : NULL;
	rep.crash = crash;
	free(p);
	p = xasprintf("%s/results.json", r->dir);
	report_json_write(p, &rep);
	free(p);
	p = xasprintf("%s/results.tap", r->dir);
	report_tap_write(p, &rep);
	free(p);
	p = xasprintf("%s/junit.xml", r->dir);
	report_junit_write(p, &rep);
	free(p);
	p = xasprintf("%s/kcidb.json", r->dir);
	report_kcidb_write(p, &rep);
	free(p);
	for (size_t v = 0; v < r->nvms; v++) {
		const char *qerr = r->vms[v].qemu_err;
		FILE *fp;

		if (!qerr || !*qerr)
			continue;
		p = r->nvms == 1 ? xasprintf("%s/qemu.log", r->dir) :
				   xasprintf("%s/qemu.%zu.log", r->dir, v + 1);
		fp = fopen(p, "w");
		if (fp) {
			fputs(qerr, fp);
			fclose(fp);
		}
		free(p);
	}
	write_reproduce(r, cmd_line);
	if (r->tty && !r->o.quiet)
		fputs("\r\033[K", stderr);
	/* each result was shown live on stderr: when stdout is the same terminal or file, the
	 * table would show them all again */
	if (!r->o.quiet && same_file(1, 2))
		report_totals_fprint_policy(stdout, &rep, &r->o.policy);
	else
		report_summary_fprint_policy(stdout, &rep, &r->o.policy);
	if (errors.len)
		error("%s", errors.buf);
	printf("results: %s/\n", r->dir);
	status = r->interrupted ? EXIT_INTERRUPTED :
				  report_exit_status_policy(&rep, &r->o.policy, NULL);
	strbuf_release(&errors);
	crash_sig_free(crash);
	free(tests);
	return status;
}

/* An empty run: what cmd_run_one and run_export both start from. */
static void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	strlist_init(&r->o.filters);
	strlist_init(&r->o.load_modules);
	strlist_init(&r->o.ks_targets);
	strlist_init(&r->o.ks_skip_targets);
	strlist_init(&r->o.ks_tests);
	strlist_init(&r->o.expect_skip);
	strlist_init(&r->inputs);
	arch_config_init(&r->cfg);
	plan_init(&r->plan);
	r->start = now_s();
}

static int cmd_run_one(int argc, char **argv)
{
	struct run r;
	sigset_t mask;
	int sigfd = -1, status = EXIT_VM;
	char *cmd_line;
	struct strbuf cl = STRBUF_INIT;
	struct kconfig_needs kn;

	run_init(&r);
	r.tty = isatty(2);

	strbuf_addstr(&cl, "tapboot");
	for (int i = 0; i < argc; i++)
		strbuf_addf(&cl, " %s", argv[i]);
	cmd_line = strbuf_detach(&cl);

	/* Signals are taken through a signalfd from here on, so an interrupt always ends in the
	 * same place: QEMU stopped, partial results written, exit 130. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);

	status = parse_opts(&r.o, argc, argv);
	if (status > 0) {
		status = EXIT_PASS;
		goto out;
	}
	if (status < 0 || resolve_kernel(&r) < 0) {
		status = EXIT_USAGE;
		goto out;
	}
	if (r.o.qemu) {
		free(r.cfg.qemu);
		r.cfg.qemu = xstrdup(r.o.qemu);
	}
	if (make_results_dir(&r) < 0) {
		status = EXIT_USAGE;
		goto out;
	}
	/* "{arch}" in a test path becomes the run's architecture, so one command line serves a
	 * matrix of kernels (build/guest/{arch}/static/pass) */
	for (size_t i = 0; i < r.o.ntests; i++) {
		struct strbuf in = STRBUF_INIT;
		const char *t = r.o.tests[i], *at;

		strbuf_grow(&in, 0);
		while ((at = strstr(t, "{arch}"))) {
			strbuf_add(&in, t, (size_t)(at - t));
			strbuf_addstr(&in, r.cfg.arch);
			t = at + strlen("{arch}");
		}
		strbuf_addstr(&in, t);
		strlist_push(&r.inputs, in.buf);
		strbuf_release(&in);
	}
	/* the kernel options this run needs, from the kernel's config, before anything is built */
	kn = (struct kconfig_needs){ &r.cfg, builder_compress_name(r.o.compress), false,
				     r.o.load_modules.n > 0 };
	kn.scripts = kconfig_inputs_have_script((const char *const *)r.inputs.v, r.inputs.n) ||
		     (r.o.kselftest && kconfig_inputs_have_script(&r.o.kselftest, 1));
	if (kconfig_check_run(r.kernel_config, &kn, r.o.quiet) < 0 ||
	    (r.o.kselftest && kselftest_input(&r) < 0) || build_image(&r) < 0) {
		/* bad input: leave nothing behind (the builder removes its own temporary file) */
		if (r.dir_created) {
			char *t = xasprintf("%s/tests", r.dir);

			char *m = xasprintf("%s/kselftest.manifest", r.dir);

			unlink(m);
			free(m);
			rmdir(t);
			rmdir(r.dir);
			free(t);
		}
		status = EXIT_USAGE;
		goto out;
	}
	{
		char *a = abs_path(r.initrd);

		free(r.initrd);
		r.initrd = a;
	}
	choose_boot_image(&r);
	make_nonce(r.nonce);
	if (make_key(&r) < 0)
		goto out;
	/* kselftests spend much of their time asleep (pidfd, ptrace, futex: 9 to 31 s each on
	 * the host), so several VMs overlap well even on two cores: auto unless -j says
	 * otherwise. Other runs keep one VM and one raw console unless asked. */
	if (r.o.jobs_auto || (!r.o.jobs && r.o.kselftest))
		r.o.jobs = auto_jobs(&r);
	plan_vms(&r);
	if (!r.o.quiet)
		fprintf(stderr, "tapboot: %s kernel %s, %zu test%s in %zu VM%s, results in %s/\n",
			r.cfg.arch, r.kernel_image, r.plan.n, r.plan.n == 1 ? "" : "s", r.nvms,
			r.nvms == 1 ? "" : "s", r.dir);
	boot_all(&r, sigfd);
	status = finish_run(&r, cmd_line);
	if (status == EXIT_VM) /* a kernel that died before the init: its last lines, and why */
		kconfig_check_postmortem(r.dir, r.kernel_config, &kn);
out:
	if (sigfd >= 0)
		close(sigfd);
	free(cmd_line);
	run_release(&r);
	return status;
}

/* The value of option name in argv[i] ("--kernel X" or "--kernel=X"), advancing *i past it;
 * NULL when argv[i] is not that option. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(argv[*i], name))
		return *i + 1 < argc ? argv[++*i] : NULL;
	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	return NULL;
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

/* Several --kernel (each with its --arch when given): one run per kernel, each in its own
 * results directory under the matrix's, and a summary of them all. */
static int cmd_run_matrix(int argc, char **argv, size_t nkernels)
{
	const char **kernels = xcalloc(nkernels, sizeof(*kernels));
	const char **arches = xcalloc(nkernels, sizeof(*arches));
	const char *out = NULL;
	struct strlist rest;
	size_t nk = 0, na = 0;
	int worst = 0, worst_rank = -1, *st = xcalloc(nkernels, sizeof(*st));
	char *dir = NULL, *sj;
	FILE *fp;

	strlist_init(&rest);
	for (int i = 1; i < argc; i++) {
		const char *v;
		int j = i;

		if ((v = opt_value(argc, argv, &j, "--kernel")))
			kernels[nk++] = v;
		else if ((v = opt_value(argc, argv, &j, "--arch")) && na < nkernels)
			arches[na++] = v;
		else if ((v = opt_value(argc, argv, &j, "--output")) ||
			 (v = opt_value(argc, argv, &j, "-o")))
			out = v;
		else
			strlist_push(&rest, argv[i]);
		i = j;
	}
	if (na && na != nk) {
		error("run: %zu --kernel but %zu --arch: give one --arch per --kernel, or none", nk,
		      na);
		worst = EXIT_USAGE;
		goto out;
	}
	if (out) {
		if (mkdir(out, 0755) < 0 && errno != EEXIST) {
			error_errno("cannot create results directory '%s'", out);
			worst = EXIT_USAGE;
			goto out;
		}
		dir = xstrdup(out);
	} else {
		dir = new_results_dir("matrix");
		if (!dir) {
			worst = EXIT_USAGE;
			goto out;
		}
	}
	for (size_t k = 0; k < nk; k++) {
		struct strlist av;
		char *sub = xasprintf("%s/%zu", dir, k + 1);

		strlist_init(&av);
		strlist_push(&av, "run");
		strlist_push(&av, "--kernel");
		strlist_push(&av, kernels[k]);
		if (na) {
			strlist_push(&av, "--arch");
			strlist_push(&av, arches[k]);
		}
		strlist_push(&av, "-o");
		strlist_push(&av, sub);
		for (size_t i = 0; i < rest.n; i++)
			strlist_push(&av, rest.v[i]);
		printf("== %zu/%zu: %s\n", k + 1, nk, kernels[k]);
		fflush(stdout);
		st[k] = cmd_run_one((int)av.n, av.v);
		if (status_rank(st[k]) > worst_rank) {
			worst_rank = status_rank(st[k]);
			worst = st[k];
		}
		strlist_release(&av);
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
		printf("  exit %d  %s/%zu/  %s\n", st[k], dir, k + 1, kernels[k]);
		if (fp) {
			fputs("  {\"kernel\": \"", fp);
			for (const char *c = kernels[k]; *c; c++)
				fprintf(fp, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
			fprintf(fp, "\", \"dir\": \"%zu\", \"exit\": %d}%s\n", k + 1, st[k],
				k + 1 < nk ? "," : "");
		}
	}
	if (fp && (fputs("]}\n", fp) < 0 || fclose(fp) != 0))
		warning_errno("cannot write '%s'", sj);
	free(sj);
out:
	free(st);
	free(dir);
	free(kernels);
	free(arches);
	strlist_release(&rest);
	return worst;
}

int cmd_run(int argc, char **argv)
{
	size_t nkernels = 0;
	int status;

	for (int i = 1; i < argc; i++) {
		int j = i;

		if (!strcmp(argv[i], "--"))
			break;
		if (opt_value(argc, argv, &j, "--kernel"))
			nkernels++;
		i = j;
	}
	status = nkernels > 1 ? cmd_run_matrix(argc, argv, nkernels) : cmd_run_one(argc, argv);
	cli_cache_prune();
	return status;
}

/* tapboot lava-job (cli/cmd_lava.c): the preparation of cmd_run_one, without booting. The
 * options are run's; the image lands in -o DIR as initramfs.cpio. */
int run_export(int argc, char **argv, bool kvm, struct run_export *x)
{
	struct run r;
	struct vm vm;
	char *extra;
	unsigned max = 0, sum = 0;
	bool unlimited = false;
	int status = EXIT_USAGE;

	memset(x, 0, sizeof(*x));
	run_init(&r);
	memset(&vm, 0, sizeof(vm));
	if (parse_opts(&r.o, argc, argv) < 0 || resolve_kernel(&r) < 0 || make_results_dir(&r) < 0)
		goto out;
	for (size_t i = 0; i < r.o.ntests; i++)
		strlist_push(&r.inputs, r.o.tests[i]);
	if ((r.o.kselftest && kselftest_input(&r) < 0) || build_image(&r) < 0)
		goto out;
	{
		char *t = xasprintf("%s/tests", r.dir);

		rmdir(t); /* run's per-test logs: a LAVA job has none */
		free(t);
	}
	make_nonce(r.nonce);
	r.accel = kvm ? QEMU_ACCEL_KVM : QEMU_ACCEL_TCG;
	vm.r = &r;
	extra = kernel_extra_args(&vm);
	x->cmdline = qemu_kernel_cmdline(&r.cfg, r.accel, extra);
	free(extra);
	for (size_t i = 0; i < r.plan.n; i++) {
		unsigned t = test_timeout(&r, i);

		unlimited |= t == 0;
		max = t > max ? t : max;
		sum += t + 10;
	}
	/* tapboot run's limits(): every test's timeout with a margin, plus the boot allowance */
	x->deadline_s = unlimited ? 0 : sum + r.o.boot_s;
	x->longest_s = unlimited ? 0 : max;
	memcpy(x->nonce, r.nonce, sizeof(x->nonce));
	x->arch = xstrdup(r.cfg.arch);
	x->qemu = xstrdup(r.cfg.qemu);
	x->console = xstrdup(r.cfg.console);
	x->machine = xstrdup(r.o.machine ? r.o.machine : r.cfg.machine);
	x->cpu = xstrdup(r.o.cpu ? r.o.cpu : kvm ? r.cfg.cpu_kvm : r.cfg.cpu_tcg);
	x->memory_mb = r.o.memory_mb ? r.o.memory_mb : r.cfg.memory_mb;
	x->smp = r.o.smp ? r.o.smp : r.cfg.smp;
	x->kernel_image = abs_path(r.kernel_image);
	x->image = abs_path(r.initrd);
	x->dir = abs_path(r.dir);
	strlist_init(&x->tests);
	for (size_t i = 0; i < r.plan.n; i++)
		strlist_push(&x->tests, r.plan.tests[i].name);
	status = 0;
out:
	if (status && r.dir_created) {
		/* bad input: leave nothing behind (the builder removes its own temporary file) */
		char *t = xasprintf("%s/tests", r.dir), *m = xasprintf("%s/kselftest.manifest", r.dir);

		unlink(m);
		rmdir(t);
		rmdir(r.dir);
		free(t);
		free(m);
	}
	run_release(&r);
	return status;
}

void run_export_release(struct run_export *x)
{
	free(x->cmdline);
	free(x->arch);
	free(x->qemu);
	free(x->console);
	free(x->machine);
	free(x->cpu);
	free(x->kernel_image);
	free(x->image);
	free(x->dir);
	strlist_release(&x->tests);
}
