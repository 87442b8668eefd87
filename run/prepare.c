// SPDX-License-Identifier: GPL-2.0-only
/* prepare.c: before a run boots: the kernel (a file or a build directory), the image QEMU boots,
 * the results directory, the nonce, the tests and kselftest input, the initramfs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "accel.h"
#include "cache.h"
#include "error.h"
#include "filehash.h"
#include "fs.h"
#include "kernel_image.h"
#include "shard.h"
#include "strbuf.h"
#include "vm.h"

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
static int resolve_kernel(struct run *r)
{
	const char *k = r->kernel;
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
		arch = r->arch ? xstrdup(r->arch) : arch_config_find_kconfig(configs, dotconfig);
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
		/* a FIFO would block the open below forever (issue 41) */
		if (fs_check_regular(k, "kernel") < 0)
			return -1;
		if (access(k, R_OK) < 0) {
			error_errno("cannot read kernel '%s'", k);
			return -1;
		}
		r->kernel_image = xstrdup(k);
	}
	if (kernel_image_probe(r->kernel_image, &img) < 0)
		goto out;
	if (!arch) {
		if (r->arch)
			arch = xstrdup(r->arch);
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
	if (r->o->config) {
		free(r->kernel_config);
		if (fs_check_regular(r->o->config, "kernel config") < 0)
			goto out;
		if (access(r->o->config, R_OK) < 0) {
			error_errno("cannot read kernel config '%s'", r->o->config);
			goto out;
		}
		r->kernel_config = xstrdup(r->o->config);
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

/* The kernel image's sha256 (the vmlinux cache key, the snapshot key of an unpacked kernel and
 * reproduce.sh), once a run; file_sha256 keeps it while the file is unchanged: hashing
 * Debian's 33 MB arm64 Image took 30 ms of every run. "" after a message when unreadable. */
static void hash_kernel(struct run *r)
{
	if (file_sha256(r->kernel_image, r->kernel_sha256) < 0)
		r->kernel_sha256[0] = '\0';
}

/* x86: a bzImage decompresses itself for about 4 s under TCG (README, x86_64); when its vmlinux has
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
	if (r->o->boot_as_is)
		return;
	sum = r->kernel_sha256[0] ? r->kernel_sha256 : NULL;
	if (r->zimage && r->cfg.zimage_ram_base && sum) {
		cache = cache_dir();
		if (kernel_image_unpack_zimage(r->kernel_image, sum, r->cfg.zimage_ram_base, cache,
					       &unpacked, false) == 0) {
			free(r->boot_kernel);
			r->boot_kernel = unpacked;
		}
		free(cache);
		return;
	}
	if (!r->bzimage || !r->cfg.pvh || !sum)
		return;
	cache = cache_dir();
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

char *run_new_results_dir(const char *what)
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

static int remove_log(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	size_t n = strlen(path);

	(void)st;
	(void)ftw;
	if (flag == FTW_F && n > 4 && !strcmp(path + n - 4, ".log") && unlink(path) < 0 &&
	    errno != ENOENT)
		return -1;
	if (flag == FTW_DP)
		rmdir(path); /* emptied: a directory of the tests' names; else it stays */
	return 0;
}

/* The per-test logs under dir (NAME.log, in the tests' directories), and the directories
 * they leave empty; nothing else. A missing dir is no error. */
static int remove_logs(const char *dir)
{
	if (access(dir, F_OK) < 0)
		return 0;
	return nftw(dir, remove_log, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether dir holds a tapboot run: results.json that tapboot wrote, or a console.log beside
 * an image it built (a run stopped before its reports). */
static bool is_tapboot_dir(const char *dir)
{
	static const char *const mark[][2] = {
		{"results.json", "{\n  \"tapboot_version\""},
		{"tests.cpio", "070701"},
		{"initramfs.cpio", "070701"},
	};
	char *c = xasprintf("%s/console.log", dir);
	bool console = !access(c, F_OK);

	free(c);
	for (size_t i = 0; i < ARRAY_SIZE(mark); i++) {
		char *p = xasprintf("%s/%s", dir, mark[i][0]), buf[32] = "";
		FILE *fp = fopen(p, "rb");
		size_t want = strlen(mark[i][1]);
		bool hit = fp && fread(buf, 1, want, fp) == want && !memcmp(buf, mark[i][1], want);

		if (fp)
			fclose(fp);
		free(p);
		if (hit && (i == 0 || console))
			return true;
	}
	return false;
}

/* What an earlier tapboot run wrote into dir, removed before --force writes a new run there
 * (its files stayed, a 4 MiB tests.cpio among them, mixed with the new run's). Only in a
 * tapboot results directory (is_tapboot_dir) and only tapboot's names: anything else in dir
 * stays. 0, or -1 after a message. */
static int clear_old_run(const char *dir)
{
	static const char *const names[] = {
		"console.log",	"qemu.log",    "initramfs.cpio",     "tests.cpio",
		"results.json", "results.tap", "junit.xml",	     "kcidb.json",
		"reproduce.sh", "matrix.json", "kselftest.manifest", "results.html",
		RUN_RESERVE_NAME,
	};
	DIR *d;
	struct dirent *de;
	char *p;
	int ret = 0;

	if (!is_tapboot_dir(dir))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(names) && !ret; i++) {
		p = xasprintf("%s/%s", dir, names[i]);
		if (unlink(p) < 0 && errno != ENOENT)
			ret = error_errno("cannot remove '%s' (--force)", p);
		free(p);
	}
	/* -j's per-VM consoles and QEMU logs: console.N.log, qemu.N.log */
	d = opendir(dir);
	while (d && !ret && (de = readdir(d))) {
		unsigned n;
		char tail[8];

		if ((sscanf(de->d_name, "console.%u.%7s", &n, tail) == 2 ||
		     sscanf(de->d_name, "qemu.%u.%7s", &n, tail) == 2) &&
		    !strcmp(tail, "log")) {
			p = xasprintf("%s/%s", dir, de->d_name);
			if (unlink(p) < 0 && errno != ENOENT)
				ret = error_errno("cannot remove '%s' (--force)", p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	p = xasprintf("%s/tests", dir);
	if (!ret && remove_logs(p) < 0)
		ret = error_errno("cannot remove '%s' (--force)", p);
	free(p);
	return ret;
}

static int make_results_dir(struct run *r)
{
	if (r->out_dir) {
		if (mkdir(r->out_dir, 0755) < 0) {
			if (errno != EEXIST || !is_dir(r->out_dir))
				return error_errno("cannot create results directory '%s'",
						   r->out_dir);
			if (!dir_is_empty(r->out_dir) && !r->o->force)
				return error("results directory '%s' is not empty: pass --force "
					     "to write into it, or choose another -o",
					     r->out_dir);
			if (r->o->force && clear_old_run(r->out_dir) < 0)
				return -1;
		} else {
			r->dir_created = true;
		}
		r->dir = xstrdup(r->out_dir);
	} else {
		r->dir = run_new_results_dir(r->cfg.arch);
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
	/* snapshot boot: the image is the same run after run (the snapshot's key); the secret
	 * comes with each VM's handoff line instead (protocol.h) */
	if (r->snap.handoff)
		return 0;
	return builder_append_key(r->initrd, r->o->image.compress, r->key, sizeof(r->key));
}

static char *abs_path(const char *p)
{
	char *r = realpath(p, NULL);

	return r ? r : xstrdup(p);
}

/* Bad input after the results directory was made: leave nothing behind (the builder removes
 * its own temporary file). */
static void remove_results_dir(struct run *r)
{
	char *t = xasprintf("%s/tests", r->dir), *m = xasprintf("%s/kselftest.manifest", r->dir);

	if (r->dir_created) {
		unlink(m);
		if (r->tests_image)
			unlink(r->tests_image);
		rmdir(t);
		rmdir(r->dir);
	}
	free(m);
	free(t);
}

/* The kernel, the results directory and the initramfs (an absolute path), for a boot and for
 * an export alike (check_kconfig: the kernel's config first, kconfig_check_run). -1 after a
 * message, the results directory removed when this run made it. */
static int prepare_image(struct run *r, bool check_kconfig)
{
	char *a;

	if (resolve_kernel(r) < 0 || make_results_dir(r) < 0)
		return -1;
	if (run_build_image(r, check_kconfig) < 0) {
		remove_results_dir(r);
		return -1;
	}
	a = abs_path(r->initrd);
	free(r->initrd);
	r->initrd = a;
	if (r->tests_image) {
		a = abs_path(r->tests_image);
		free(r->tests_image);
		r->tests_image = a;
	}
	return 0;
}

/* Room for the reports, kept from the start: a file of 64 KiB and 4 KiB per test (results.json,
 * junit.xml, kcidb.json and results.tap of a test take about 1.5 KiB together; subtests more),
 * at most 64 MiB, allocated (posix_fallocate) in the results directory after the image is
 * built. When a write fails there later (a full disk), run_write_failed removes it, so that
 * console.log's cut note and the reports can still be written; finish removes it before the
 * reports. A directory without room for it fails here: exit 2, nothing booted. */
static int make_reserve(struct run *r)
{
	unsigned long long size = (64 + 4ULL * r->plan.n) * 1024;
	int fd, err;

	if (size > 64ULL << 20)
		size = 64ULL << 20;
	free(r->reserve);
	r->reserve = xasprintf("%s/" RUN_RESERVE_NAME, r->dir);
	fd = open(r->reserve, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return error_errno("cannot create '%s'", r->reserve);
	err = posix_fallocate(fd, 0, (off_t)size);
	if (close(fd) < 0 && !err)
		err = errno;
	if (err) {
		error("cannot keep %llu KiB for the reports in '%s': %s", size >> 10, r->reserve,
		      strerror(err));
		unlink(r->reserve);
		return -1;
	}
	return 0;
}

int run_prepare(struct run *r)
{
	struct durations d;
	char *dpath;

	r->tests_apart = !r->o->no_snapshot;
	if (prepare_image(r, true) < 0)
		return -1;
	if (r->o->qemu) {
		free(r->cfg.qemu);
		r->cfg.qemu = xstrdup(r->o->qemu);
	}
	if (make_reserve(r) < 0) {
		remove_results_dir(r);
		return -1;
	}
	hash_kernel(r);
	choose_boot_image(r);
	make_nonce(r->nonce);
	snapshot_setup(r);
	if (make_key(r) < 0) {
		remove_results_dir(r);
		return -1;
	}
	/* kselftests spend much of their time asleep (pidfd, ptrace, futex: 9 to 31 s each on
	 * the host), so several VMs overlap well even on two cores: auto unless -j says
	 * otherwise. Other runs keep one VM and one raw console unless asked. */
	r->jobs = r->o->jobs;
	if (r->o->jobs_auto || (!r->o->jobs && r->o->kselftest))
		r->jobs = accel_run_jobs(r);
	dpath = durations_path(r->cfg.arch);
	durations_load(&d, dpath);
	shard_plan_vms(r, &d);
	durations_release(&d);
	free(dpath);
	if (!r->o->quiet)
		note("%s kernel %s, %zu test%s in %zu VM%s, results in %s/", r->cfg.arch,
		     r->kernel_image, r->plan.n, r->plan.n == 1 ? "" : "s", r->nvms,
		     r->nvms == 1 ? "" : "s", r->dir);
	return 0;
}

int run_prepare_export(struct run *r, bool kvm, struct run_export *x)
{
	/* the machine as lava-job always chose it: the lab's kernel may not be a bzImage */
	const struct qemu_boot b = {.cfg = &r->cfg,
				    .accel = kvm ? QEMU_ACCEL_KVM : QEMU_ACCEL_TCG,
				    .cpu = r->o->cpu,
				    .machine = r->o->machine,
				    .memory_mb = r->o->memory_mb,
				    .smp = r->o->smp};
	struct vm vm;
	char *extra, *t;
	unsigned max = 0, sum = 0;
	bool unlimited = false;

	memset(x, 0, sizeof(*x));
	strlist_init(&x->tests);
	/* as lava-job always did: the lab's kernel may not be the one given here */
	if (prepare_image(r, false) < 0)
		return -1;
	t = xasprintf("%s/tests", r->dir);
	rmdir(t); /* run's per-test logs: a LAVA job has none */
	free(t);
	make_nonce(r->nonce);
	r->accel = kvm ? QEMU_ACCEL_KVM : QEMU_ACCEL_TCG;
	/* one VM runs the whole plan: no selection arguments */
	memset(&vm, 0, sizeof(vm));
	vm.r = r;
	extra = vm_kernel_args(&vm);
	x->cmdline = qemu_kernel_cmdline(&r->cfg, r->accel, extra);
	free(extra);
	for (size_t i = 0; i < r->plan.n; i++) {
		unsigned to = run_test_timeout(r, i);

		unlimited |= to == 0;
		max = to > max ? to : max;
		sum += to + 10;
	}
	/* tapboot run's vm_limits(): every test's timeout with a margin, plus the boot allowance */
	x->deadline_s = unlimited ? 0 : sum + r->o->boot_s;
	x->longest_s = unlimited ? 0 : max;
	memcpy(x->nonce, r->nonce, sizeof(x->nonce));
	x->arch = xstrdup(r->cfg.arch);
	x->qemu = xstrdup(r->cfg.qemu);
	x->console = xstrdup(r->cfg.console);
	x->machine = xstrdup(qemu_boot_machine(&b));
	x->cpu = xstrdup(qemu_boot_cpu(&b));
	x->memory_mb = qemu_boot_memory_mb(&b);
	x->smp = qemu_boot_smp(&b);
	x->kernel_image = abs_path(r->kernel_image);
	x->image = xstrdup(r->initrd);
	x->dir = abs_path(r->dir);
	for (size_t i = 0; i < r->plan.n; i++)
		strlist_push(&x->tests, r->plan.tests[i].name);
	return 0;
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
