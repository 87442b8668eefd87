/* test_kernel_image.c: kernel formats and architectures from headers. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "kernel_image.h"

static const char *write_hdr(const char *name, const unsigned char *h, size_t n)
{
	return test_write_file(name, h, n, 0);
}

static void test_headers(void)
{
	unsigned char h[1024];
	struct kernel_image k;

	memset(h, 0, sizeof(h));
	memcpy(h + 0x202, "HdrS", 4);
	h[0x206] = 0x0f; /* protocol 2.15 */
	h[0x207] = 0x02;
	h[0x236] = 1; /* XLF_KERNEL_64 */
	check_int(kernel_image_probe(write_hdr("bz64", h, sizeof(h)), &k), ==, 0);
	check_int(k.format, ==, KERNEL_BZIMAGE);
	check_str(k.arch, "x86_64");
	h[0x236] = 0;
	check_int(kernel_image_probe(write_hdr("bz32", h, sizeof(h)), &k), ==, 0);
	check_str(k.arch, "i386");

	memset(h, 0, sizeof(h));
	memcpy(h + 56, "ARM\x64", 4);
	check_int(kernel_image_probe(write_hdr("Image", h, 64), &k), ==, 0);
	check_int(k.format, ==, KERNEL_ARM64_IMAGE);
	check_str(k.arch, "arm64");

	memset(h, 0, sizeof(h));
	h[0x24] = 0x18;
	h[0x25] = 0x28;
	h[0x26] = 0x6f;
	h[0x27] = 0x01;
	check_int(kernel_image_probe(write_hdr("zImage", h, 64), &k), ==, 0);
	check_str(k.arch, "arm");

	memset(h, 0, sizeof(h));
	memcpy(h + 56, "RSC\x05", 4);
	check_int(kernel_image_probe(write_hdr("rv", h, 64), &k), ==, 0);
	check_str(k.arch, "riscv64");

	memset(h, 0, sizeof(h));
	check_int(kernel_image_probe(write_hdr("junk", h, 100), &k), ==, 0);
	check_int(k.format, ==, KERNEL_UNKNOWN);
	check(k.arch == NULL);
}

static void test_elf(void)
{
	struct kernel_image k;
	Elf64_Ehdr e;

	memset(&e, 0, sizeof(e));
	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_machine = EM_PPC64;
	check_int(kernel_image_probe(write_hdr("vmlinux-ppc", (void *)&e, sizeof(e)), &k), ==, 0);
	check_int(k.format, ==, KERNEL_ELF);
	check_str(k.arch, "ppc64le");
	check(!k.has_pvh);
	/* this test program is an ELF for the host */
	check_int(kernel_image_probe("/proc/self/exe", &k), ==, 0);
	check_str(k.arch, "x86_64");
}

static int probe_missing(void *v)
{
	struct kernel_image k;

	(void)v;
	return kernel_image_probe("/nonexistent/bzImage", &k);
}

static void test_missing(void)
{
	int ret;
	char *err = test_capture_stderr(probe_missing, NULL, &ret);

	check_int(ret, ==, -1);
	check_str(err, "tapboot: cannot open kernel '/nonexistent/bzImage': No such file or directory\n");
	free(err);
}

static void test_sha256(void)
{
	char hex[65];
	const char *p = test_write_file("abc", "abc", 3, 0);

	check_int(file_sha256(p, hex), ==, 0);
	check_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

int main(void)
{
	TEST(test_headers, "bzImage, arm64 Image, zImage, riscv Image headers");
	TEST(test_elf, "ELF vmlinux machine and endianness");
	TEST(test_missing, "a missing kernel is named");
	TEST(test_sha256, "sha256 of a file (FIPS 180-2 'abc' vector)");
	return test_done();
}
