// SPDX-License-Identifier: GPL-2.0-only
/* image.c: the initramfs of a run: its inputs (the tests, {arch} expanded; the kselftest
 * manifest), the init and target for its arch, the builder. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accel.h"
#include "cache.h"
#include "error.h"
#include "fs.h"
#include "kconfig_check.h"
#include "kselftest.h"
#include "paths.h"
#include "proc.h"
#include "vm.h"
#include "strbuf.h"

/* "{arch}" in a test path becomes the run's architecture, so one command line serves a
 * matrix of kernels (build/guest/{arch}/static/pass). Each must be a regular file or a
 * directory: a FIFO, a socket or a device is refused here, before anything opens it (the
 * kernel-config check reads each test's first bytes, and the open of a FIFO blocks). -1 after
 * a message. */
static int add_test_inputs(struct run *r)
{
	for (size_t i = 0; i < r->o->ntests; i++) {
		struct strbuf in = STRBUF_INIT;
		const char *t = r->o->tests[i], *at;
		struct stat st;

		strbuf_grow(&in, 0);
		while ((at = strstr(t, "{arch}"))) {
			strbuf_add(&in, t, (size_t)(at - t));
			strbuf_addstr(&in, r->cfg.arch);
			t = at + strlen("{arch}");
		}
		strbuf_addstr(&in, t);
		/* one that is not there is the builder's to name ("cannot read input") */
		if (!stat(in.buf, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			error("test '%s' is %s, not a file or a directory", in.buf,
			      fs_kind_name(st.st_mode));
			strbuf_release(&in);
			return -1;
		}
		strlist_push(&r->inputs, in.buf);
		strbuf_release(&in);
	}
	return 0;
}

/* The Debian package of arch's cross compiler ("gcc-aarch64-linux-gnu"), from its config's
 * cross_compile; NULL for the host's own arch or an unknown one. Caller frees. */
static char *cross_gcc_package(const char *arch)
{
	struct arch_config c;
	char *pkg = NULL;
	size_t n;

	arch_config_init(&c);
	if (!arch_config_load(&c, arch_config_dir(), arch) && c.cross_compile &&
	    (n = strlen(c.cross_compile)) > 1)
		pkg = xasprintf("gcc-%.*s", (int)(n - 1), c.cross_compile);
	arch_config_release(&c);
	return pkg;
}

char *run_find_init(const char *arch)
{
	struct tapboot_dirs d;
	char *path, *pkg;

	tapboot_dirs_get(&d);
	path = xasprintf("%s/%s/init", d.inits, arch);
	if (access(path, R_OK) == 0) {
		tapboot_dirs_release(&d);
		return path;
	}
	pkg = cross_gcc_package(arch);
	if (d.installed)
		error("no init for %s at '%s': this tapboot was installed without it; Debian's "
		      "tapboot package ships the inits of x86_64 and arm64, and 'make "
		      "INIT_ARCHES=%s install' in tapboot's source tree builds and installs it "
		      "(needs %s)",
		      arch, path, arch, pkg ? pkg : "the cross compiler");
	else
		error("no init for %s at '%s': build it with 'make INIT_ARCHES=%s' (needs %s, "
		      "see 'make help')",
		      arch, path, arch, pkg ? pkg : "the cross compiler");
	free(pkg);
	free(path);
	tapboot_dirs_release(&d);
	return NULL;
}

int run_builder_target(struct builder_opts *o, const struct arch_config *cfg, const char *sysroot,
		       char **init)
{
	o->target.arch = cfg->arch;
	o->target.elf_machine = cfg->elf_machine;
	o->target.elf_class = cfg->elf_class;
	if (sysroot)
		o->target.sysroot = sysroot;
	else if (!strcmp(cfg->arch, run_host_arch()))
		o->target.sysroot = "/";
	else
		o->target.sysroot = cfg->sysroot && *cfg->sysroot ? cfg->sysroot : "/";
	*init = run_find_init(cfg->arch);
	o->init_path = *init;
	return *init ? 0 : -1;
}

char *run_fetch_busybox(const char *arch)
{
	char *script = tapboot_script_path("fetch-busybox.sh");
	const char *argv[] = {script, arch, NULL};
	struct strbuf out = STRBUF_INIT;
	int st;

	strbuf_init(&out);
	st = proc_capture(argv, &out, false);
	while (out.len && out.buf[out.len - 1] == '\n')
		out.buf[--out.len] = '\0';
	if (st || !out.len) {
		if (st >= 0)
			error("cannot get a busybox for %s: '%s %s' failed (status %d)", arch,
			      script, arch, st);
		free(script);
		strbuf_release(&out);
		return NULL;
	}
	free(script);
	return strbuf_detach(&out);
}

/* The tests' archive becomes an ivshmem device's memory: a power of two, at least 1 MiB
 * (QEMU's ivshmem takes any power of two; 1 MiB keeps small runs on one snapshot key: the key
 * holds the size, not the content). Padded with zeros (sparse). */
static int pad_tests_image(struct run *r)
{
	struct stat st;
	unsigned long long size = 1ull << 20;

	if (stat(r->tests_image, &st) < 0)
		return error_errno("cannot stat '%s'", r->tests_image);
	r->tests_len = (unsigned long long)st.st_size;
	while (size < (unsigned long long)st.st_size)
		size <<= 1;
	if (truncate(r->tests_image, (off_t)size) < 0)
		return error_errno("cannot pad '%s'", r->tests_image);
	/* read-only from here on: QEMU maps it readonly=on (qemu_argv.c), and nothing else of
	 * the run writes it */
	if (chmod(r->tests_image, 0444) < 0)
		return error_errno("cannot make '%s' read-only", r->tests_image);
	r->tests_size = size;
	return 0;
}

/* len bytes of in at its current offset to out; -1 with errno set. */
static int copy_fd(int in, int out, unsigned long long len)
{
	char buf[1 << 16];

	while (len) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)len, 0), w;

		if (n > 0) {
			len -= (unsigned long long)n;
			continue;
		}
		if (n == 0) {
			errno = EIO; /* shorter than it was */
			return -1;
		}
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -1;
		/* another file system or none of it: read and write */
		n = read(in, buf, len < sizeof(buf) ? (size_t)len : sizeof(buf));
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		len -= (unsigned long long)n;
		for (char *p = buf; n > 0; p += w, n -= w) {
			w = write(out, p, (size_t)n);
			if (w < 0)
				return -1;
		}
	}
	return 0;
}

int run_saver_initrd(struct run *r)
{
	static const char zeros[4];
	char *path;
	struct stat st;
	int in = -1, out = -1, ret = -1;

	if (r->saver_initrd)
		return access(r->saver_initrd, R_OK) == 0 ? 0 : -1;
	if (!r->tests_image || !r->tests_len)
		return -1;
	path = xasprintf("%s/.initramfs+tests.cpio", r->dir);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	in = out < 0 ? -1 : open(r->initrd, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0 || copy_fd(in, out, (unsigned long long)st.st_size) < 0)
		goto out;
	if ((st.st_size & 3) && write(out, zeros, 4 - (st.st_size & 3)) != 4 - (st.st_size & 3))
		goto out;
	close(in);
	in = open(r->tests_image, O_RDONLY | O_CLOEXEC);
	if (in < 0 || copy_fd(in, out, r->tests_len) < 0)
		goto out;
	ret = close(out);
	out = -1;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (ret < 0) {
		if (!r->o->quiet)
			note("cannot write '%s' (%s): the saved VM reads its "
			     "tests after the ready point, as the others",
			     path, strerror(errno));
		unlink(path);
		free(path);
		return -1;
	}
	r->saver_initrd = path;
	return 0;
}

static int build_image(struct run *r)
{
	struct builder_opts bo;
	char *top = cache_dir(), *cache = xasprintf("%s/segments", top), *init = NULL;
	int ret = -1;

	builder_opts_init(&bo);
	if (run_builder_target(&bo, &r->cfg, r->o->sysroot, &init) < 0)
		goto out;
	bo.compress = r->o->image.compress;
	bo.busybox = r->o->image.busybox;
	bo.modules_dir = r->o->image.modules_dir;
	for (size_t i = 0; i < r->o->image.load_modules.n; i++)
		strlist_push(&bo.load_modules, r->o->image.load_modules.v[i]);
	bo.default_timeout = r->o->timeout_s;
	bo.cache_dir = cache;
	bo.kernel_config = r->kernel_config;
	bo.fetch_busybox = run_fetch_busybox;
	bo.quiet = r->o->quiet;
	r->initrd = xasprintf("%s/initramfs.cpio", r->dir);
	/* only where the kernel's config says it can see the device (a minimal kernel without
	 * PCI would find no tests): an unknown config keeps them in the initramfs */
	r->tests_apart = r->tests_apart && r->cfg.snapshot_tests &&
			 !strcmp(r->cfg.snapshot_tests, "ivshmem") &&
			 !(r->cfg.snapshot_off && *r->cfg.snapshot_off) && r->kernel_config &&
			 kconfig_all_y(r->kernel_config, &r->cfg.snapshot_tests_kconfig);
	if (r->tests_apart) {
		r->tests_image = xasprintf("%s/tests.cpio", r->dir);
		bo.tests_out = r->tests_image;
		bo.tests_key = r->tests_key;
	}
	ret = builder_build(&bo, (const char *const *)r->inputs.v, r->inputs.n, r->initrd,
			    &r->plan);
	if (!ret && r->tests_apart)
		ret = pad_tests_image(r);
out:
	builder_opts_release(&bo);
	free(init);
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
	ko.install_dir = r->o->kselftest;
	for (size_t i = 0; i < r->o->ks_targets.n; i++)
		strlist_push(&ko.targets, r->o->ks_targets.v[i]);
	for (size_t i = 0; i < r->o->ks_skip_targets.n; i++)
		strlist_push(&ko.skip_targets, r->o->ks_skip_targets.v[i]);
	for (size_t i = 0; i < r->o->ks_tests.n; i++)
		strlist_push(&ko.tests, r->o->ks_tests.v[i]);
	ko.src_dir = r->o->kselftest_src;
	ko.kernel_config = r->kernel_config;
	ko.modules = r->o->image.modules_dir != NULL;
	ko.timeout = r->o->timeout_given ? r->o->timeout_s : 0;
	ret = kselftest_manifest(&ko, manifest, &info);
	if (!ret) {
		kselftest_info_describe(&info, &msg);
		if (!r->o->quiet)
			fputs(msg.buf, stderr);
		strlist_push(&r->inputs, manifest);
	}
	strbuf_release(&msg);
	kselftest_info_release(&info);
	kselftest_opts_release(&ko);
	free(manifest);
	return ret;
}

int run_build_image(struct run *r, bool check_kconfig)
{
	if (add_test_inputs(r) < 0)
		return -1;
	/* the kernel options this run needs, from the kernel's config, before anything is built */
	r->kneeds = (struct kconfig_needs){&r->cfg, builder_compress_name(r->o->image.compress),
					   false, r->o->image.load_modules.n > 0};
	r->kneeds.scripts =
		kconfig_inputs_have_script((const char *const *)r->inputs.v, r->inputs.n) ||
		(r->o->kselftest && kconfig_inputs_have_script(&r->o->kselftest, 1));
	if (check_kconfig && kconfig_check_run(r->kernel_config, &r->kneeds, r->o->quiet) < 0)
		return -1;
	if (r->o->kselftest && kselftest_input(r) < 0)
		return -1;
	return build_image(r);
}
