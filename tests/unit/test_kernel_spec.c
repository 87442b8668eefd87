// SPDX-License-Identifier: GPL-2.0-only
/* test_kernel_spec.c: what --kernel names (kernel/kernel_spec.c) and Debian kernel fetching's
 * parts that need no download (kernel/debian.c): the debian:ARCH[:RELEASE] spec, release
 * names, the host's codename, the fetch script's result, the cached kernels' list lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "debian.h"
#include "error.h"
#include "harness.h"
#include "kernel_spec.h"

struct parse_arg {
	const char *spec, *want_arch;
	char *arch;
	const char *release;
};

static int do_parse(void *v)
{
	struct parse_arg *a = v;

	return kernel_debian_spec_parse(a->spec, a->want_arch, &a->arch, &a->release);
}

/* kernel_debian_spec_parse of spec against want_arch; its stderr in *err (caller frees). */
static int parse(struct parse_arg *a, const char *spec, const char *want_arch, char **err)
{
	int ret;

	a->spec = spec;
	a->want_arch = want_arch;
	a->arch = (char *)"unset";
	a->release = "unset";
	*err = test_capture_stderr(do_parse, a, &ret);
	return ret;
}

static void test_spec_parse(void)
{
	struct parse_arg a;
	char *err;

	check(kernel_debian_is_spec("debian:x86_64"));
	check(kernel_debian_is_spec("debian:"));
	check(!kernel_debian_is_spec("debian"));
	check(!kernel_debian_is_spec("./debian:x86_64"));
	check(!kernel_debian_is_spec("/boot/vmlinuz"));

	check_int(parse(&a, "debian:arm64", NULL, &err), ==, 0);
	check_str(a.arch, "arm64");
	check(a.release == NULL);
	check_str(err, "");
	free(a.arch);
	free(err);

	check_int(parse(&a, "debian:x86_64:trixie", "x86_64", &err), ==, 0);
	check_str(a.arch, "x86_64");
	check_str(a.release, "trixie");
	check_str(err, "");
	free(a.arch);
	free(err);

	/* the release is everything after the arch's colon, checked by the fetch, not here */
	check_int(parse(&a, "debian:arm:", NULL, &err), ==, 0);
	check_str(a.arch, "arm");
	check_str(a.release, "");
	free(a.arch);
	free(err);
	check_int(parse(&a, "debian:arm:a:b", NULL, &err), ==, 0);
	check_str(a.release, "a:b");
	free(a.arch);
	free(err);

	check_int(parse(&a, "debian:", NULL, &err), ==, -1);
	check(a.arch == NULL);
	check_str(err, "tapboot: --kernel debian: names no architecture (debian:ARCH or "
		       "debian:ARCH:RELEASE)\n");
	free(err);
	check_int(parse(&a, "debian::trixie", "x86_64", &err), ==, -1);
	check_str(err, "tapboot: --kernel debian::trixie names no architecture (debian:ARCH or "
		       "debian:ARCH:RELEASE)\n");
	free(err);
	check_int(parse(&a, "debian:arm64:trixie", "x86_64", &err), ==, -1);
	check(a.arch == NULL);
	check_str(err, "tapboot: --kernel debian:arm64:trixie is for arm64, but --arch says "
		       "x86_64\n");
	free(err);
}

static void test_release_names(void)
{
	check(kernel_debian_release_ok("bookworm"));
	check(kernel_debian_release_ok("trixie"));
	check(kernel_debian_release_ok("bookworm-backports"));
	check(kernel_debian_release_ok("13"));
	check(!kernel_debian_release_ok(""));
	check(!kernel_debian_release_ok("bad name"));
	check(!kernel_debian_release_ok("Trixie"));
	check(!kernel_debian_release_ok("../etc"));
	check(!kernel_debian_release_ok("sid;rm"));
}

static char *codename_of(const char *text)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	char *rel = kernel_debian_codename(fp);

	fclose(fp);
	return rel;
}

static void test_codename(void)
{
	char *rel;

	rel = codename_of("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian "
			  "GNU/Linux\"\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\nID=debian\n");
	check_str(rel, "bookworm");
	free(rel);
	rel = codename_of("VERSION_CODENAME=noble"); /* no final newline */
	check_str(rel, "noble");
	free(rel);
	rel = codename_of("NAME=Alpine\nVERSION_CODENAME=\nID=alpine\n");
	check_str(rel, "unknown");
	free(rel);
	rel = codename_of("");
	check_str(rel, "unknown");
	free(rel);
	rel = kernel_debian_codename(NULL); /* no /etc/os-release */
	check_str(rel, "unknown");
	free(rel);
}

struct result_arg {
	struct strbuf *out;
	int wstatus;
	const char *release;
};

static int do_result(void *v)
{
	struct result_arg *a = v;

	return kernel_debian_fetch_result(a->out, a->wstatus, "arm64", a->release,
					  "/s/fetch-kernel.sh");
}

/* kernel_debian_fetch_result of output text and wstatus; its stderr in *err (caller frees). */
static int result(struct strbuf *out, const char *text, int wstatus, const char *release,
		  char **err)
{
	struct result_arg a = {out, wstatus, release};
	int ret;

	strbuf_reset(out);
	strbuf_addstr(out, text);
	*err = test_capture_stderr(do_result, &a, &ret);
	return ret;
}

static void test_fetch_result(void)
{
	const char *image = test_write_file("kernels/arm64/boot/vmlinuz-6.1.0-1-arm64", "MZ", 2, 0);
	struct strbuf out = STRBUF_INIT, text = STRBUF_INIT;
	char *err;

	/* one line naming a readable file, its newlines trimmed: the path */
	strbuf_addf(&text, "%s\n\n", image);
	check_int(result(&out, text.buf, W_EXITCODE(0, 0), NULL, &err), ==, EXIT_PASS);
	check_str(out.buf, image);
	check_str(err, "");
	free(err);

	/* two lines, no line, a file that is not there: the download failed (3) */
	strbuf_reset(&text);
	strbuf_addf(&text, "%s\n%s\n", image, image);
	check_int(result(&out, text.buf, W_EXITCODE(0, 0), NULL, &err), ==, EXIT_VM);
	check_str(err, "tapboot: cannot fetch Debian's kernel for arm64: '/s/fetch-kernel.sh "
		       "arm64' failed (status 0)\n");
	free(err);
	check_int(result(&out, "\n", W_EXITCODE(0, 0), "trixie", &err), ==, EXIT_VM);
	check_str(err, "tapboot: cannot fetch Debian's kernel for arm64 from trixie: "
		       "'/s/fetch-kernel.sh arm64 trixie' failed (status 0)\n");
	free(err);
	check_int(result(&out, "/nonexistent/vmlinuz\n", W_EXITCODE(0, 0), NULL, &err), ==,
		  EXIT_VM);
	free(err);

	/* the script's own status: 2 is bad usage, anything else a failed download */
	strbuf_reset(&text);
	strbuf_addf(&text, "%s\n", image);
	check_int(result(&out, text.buf, W_EXITCODE(2, 0), "sid", &err), ==, EXIT_USAGE);
	check_str(err, "tapboot: cannot fetch Debian's kernel for arm64 from sid: "
		       "'/s/fetch-kernel.sh arm64 sid' failed (status 2)\n");
	free(err);
	check_int(result(&out, text.buf, W_EXITCODE(1, 0), NULL, &err), ==, EXIT_VM);
	check_str(err, "tapboot: cannot fetch Debian's kernel for arm64: '/s/fetch-kernel.sh "
		       "arm64' failed (status 1)\n");
	free(err);
	check_int(result(&out, text.buf, W_EXITCODE(0, 9), NULL, &err), ==, EXIT_VM);
	check_str(err, "tapboot: cannot fetch Debian's kernel for arm64: '/s/fetch-kernel.sh "
		       "arm64' failed (signal 9)\n");
	free(err);
	strbuf_release(&text);
	strbuf_release(&out);
}

static void test_list_line(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	kernel_debian_list_line(fp, "x86_64",
				"/c/kernels/x86_64/linux-image-6.1.0-40-amd64/boot/"
				"vmlinuz-6.1.0-40-amd64",
				"bookworm");
	kernel_debian_list_line(fp, "arm64-trixie",
				"/c/kernels/arm64-trixie/boot/"
				"vmlinuz-6.12.57+deb13-arm64",
				"bookworm");
	kernel_debian_list_line(fp, "riscv64", "vmlinuz", "unknown");
	fclose(fp);
	check_str(buf, "x86_64    bookworm   6.1.0-40-amd64            "
		       "/c/kernels/x86_64/linux-image-6.1.0-40-amd64/boot/vmlinuz-6.1.0-40-amd64\n"
		       "arm64     trixie     6.12.57+deb13-arm64       "
		       "/c/kernels/arm64-trixie/boot/vmlinuz-6.12.57+deb13-arm64\n"
		       "riscv64   unknown    vmlinuz                   vmlinuz\n");
	free(buf);
}

struct resolve_arg {
	struct kernel_spec ks;
	const char *spec, *want_arch;
};

static int do_resolve(void *v)
{
	struct resolve_arg *a = v;

	return kernel_spec_resolve(&a->ks, a->spec, a->want_arch);
}

static int resolve(struct resolve_arg *a, const char *spec, const char *want_arch, char **err)
{
	int ret;

	a->spec = spec;
	a->want_arch = want_arch;
	*err = test_capture_stderr(do_resolve, a, &ret);
	return ret;
}

static void test_resolve(void)
{
	struct resolve_arg a;
	char *err;

	/* a path as it is; O=DIR the build directory, as make's O= */
	check_int(resolve(&a, "build/arch/x86/boot/bzImage", NULL, &err), ==, 0);
	check_str(a.ks.path, "build/arch/x86/boot/bzImage");
	check(a.ks.arch == NULL);
	check_str(err, "");
	kernel_spec_release(&a.ks);
	free(err);
	check_int(resolve(&a, "O=/src/out", "arm64", &err), ==, 0);
	check_str(a.ks.path, "/src/out");
	check_str(a.ks.arch, "arm64");
	kernel_spec_release(&a.ks);
	free(err);

	/* debian: specs that fail before any download: exit 2's messages */
	check_int(resolve(&a, "debian:", NULL, &err), ==, -1);
	check(a.ks.path == NULL && a.ks.own_arch == NULL);
	check_str(err, "tapboot: --kernel debian: names no architecture (debian:ARCH or "
		       "debian:ARCH:RELEASE)\n");
	free(err);
	check_int(resolve(&a, "debian:arm64", "x86_64", &err), ==, -1);
	check_str(err, "tapboot: --kernel debian:arm64 is for arm64, but --arch says x86_64\n");
	free(err);
	check_int(resolve(&a, "debian:x86_64:bad name", NULL, &err), ==, -1);
	check_str(err, "tapboot: 'bad name' is no Debian release name (bookworm, trixie, ...)\n");
	free(err);
	check_int(resolve(&a, "debian:x86_64:", NULL, &err), ==, -1);
	check_str(err, "tapboot: '' is no Debian release name (bookworm, trixie, ...)\n");
	free(err);
	check_int(resolve(&a, "debian:sparc", NULL, &err), ==, -1);
	check(strstr(err, "tapboot: unknown architecture 'sparc' (no ") == err);
	free(err);
	kernel_spec_release(&a.ks);
}

int main(void)
{
	TEST(test_spec_parse, "debian:ARCH[:RELEASE]: the arch, the release, the messages");
	TEST(test_release_names, "Debian release names: lower-case letters, digits and dashes");
	TEST(test_codename, "the host's release from os-release's VERSION_CODENAME");
	TEST(test_fetch_result, "the fetch script's output and status: path, exit 2 or 3");
	TEST(test_list_line, "kernel list: ARCH, RELEASE, VERSION, IMAGE columns");
	TEST(test_resolve, "--kernel: a path, O=DIR, debian: errors before any download");
	return test_done();
}
