// SPDX-License-Identifier: GPL-2.0-only
/* test_kernel_image.c: kernel formats and architectures from headers, and the arm zImage's
 * Image unpacked on the host. */
#include <dirent.h>
#include <elf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "error.h"
#include "kernel_image.h"

static const char *write_hdr(const char *name, const unsigned char *h, size_t n)
{
	return test_write_file(name, h, n, 0);
}

static int probe_into(void *path)
{
	struct kernel_image k;

	return kernel_image_probe(path, &k);
}

static void test_headers(void)
{
	unsigned char h[1024], big[2048];
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
	/* shorter than its header says: (1 setup sector + the boot sector) * 512 + 0x40 * 16 */
	h[0x1f1] = 1;
	h[0x1f4] = 0x40;
	{
		const char *p = write_hdr("bz-short", h, sizeof(h));
		char *err, *want = xasprintf("tapboot: kernel '%s' is truncated: the file has 1024 "
					     "bytes, its bzImage header says 2048\n",
					     p);

		err = test_capture_stderr(probe_into, (void *)p, NULL);
		check_str(err, want);
		free(err);
		free(want);
		/* the same header with the file as long as it says */
		memset(big, 0, sizeof(big));
		memcpy(big, h, sizeof(h));
		check_int(kernel_image_probe(write_hdr("bz-whole", big, sizeof(big)), &k), ==, 0);
	}
	h[0x1f1] = 0;
	h[0x1f4] = 0;

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

	/* s390: "S390EP" at 0x10008, past the first KiB the probe reads; a shorter file or
	 * another string there is no s390 image */
	{
		size_t n = 0x10010;
		unsigned char *s = calloc(1, n);

		memcpy(s + 0x10008, "S390EP", 6);
		check_int(kernel_image_probe(write_hdr("s390", s, n), &k), ==, 0);
		check_int(k.format, ==, KERNEL_S390_IMAGE);
		check_str(k.arch, "s390x");
		check_str(kernel_format_name(k.format), "s390 image");
		s[0x1000d] = 'X';
		check_int(kernel_image_probe(write_hdr("s390-bad", s, n), &k), ==, 0);
		check_int(k.format, ==, KERNEL_UNKNOWN);
		check_int(kernel_image_probe(write_hdr("s390-short", s, 0x1000a), &k), ==, 0);
		check_int(k.format, ==, KERNEL_UNKNOWN);
		free(s);
	}

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
	/* s390x: 64-bit big-endian, the machine number in big-endian order */
	e.e_ident[EI_DATA] = ELFDATA2MSB;
	e.e_machine = (Elf64_Half)(EM_S390 << 8);
	check_int(kernel_image_probe(write_hdr("vmlinux-s390", (void *)&e, sizeof(e)), &k), ==, 0);
	check_str(k.arch, "s390x");
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

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/* A fake arm Image of n bytes: head.S's pgtbl pair at 0x84 as Debian's armmp kernel has it
 * (add r4, r8, #0x208000; sub r4, r4, #0x4000), the rest a pattern. */
static unsigned char *fake_image(size_t n, uint32_t add, uint32_t sub)
{
	unsigned char *img = malloc(n);

	for (size_t i = 0; i < n; i++)
		img[i] = (unsigned char)(i * 7 + i / 4096);
	put_le32(img + 0x84, add);
	put_le32(img + 0x88, sub);
	return img;
}

static void test_arm_text_offset(void)
{
	unsigned char *img = fake_image(8192, 0xe2884982, 0xe2444901);
	uint32_t off = 0;

	check_int(kernel_image_arm_text_offset(img, 8192, &off), ==, 0);
	check_int(off, ==, 0x208000);
	/* TEXT_OFFSET 0x8000 (0x02 ror 18 is 0x8000: rot field 9, imm 2), LPAE's 0x5000 */
	put_le32(img + 0x84, 0xe2884902);
	put_le32(img + 0x88, 0xe2444a05);
	check_int(kernel_image_arm_text_offset(img, 8192, &off), ==, 0);
	check_int(off, ==, 0x8000);
	/* a sub by something that is no page-table size is not the pair */
	put_le32(img + 0x88, 0xe2444b01);
	check_int(kernel_image_arm_text_offset(img, 8192, &off), ==, -1);
	/* nor is the pair past the first 4 KiB */
	put_le32(img + 0x84, 0);
	put_le32(img + 0x1004, 0xe2884982);
	put_le32(img + 0x1008, 0xe2444901);
	check_int(kernel_image_arm_text_offset(img, 8192, &off), ==, -1);
	free(img);
}

static size_t xz_compress(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	size_t pos = 0;

	return lzma_easy_buffer_encode(1, LZMA_CHECK_CRC32, NULL, in, n, out, &pos, cap) == LZMA_OK
		       ? pos
		       : 0;
}

static size_t gzip_compress(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	z_stream z = { 0 };
	size_t len;

	if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	z.next_in = (unsigned char *)in;
	z.avail_in = (unsigned)n;
	z.next_out = out;
	z.avail_out = (unsigned)cap;
	len = deflate(&z, Z_FINISH) == Z_STREAM_END ? z.total_out : 0;
	deflateEnd(&z);
	return len;
}

/* A zImage as the kernel lays it out: the header (magic at 0x24), decompressor code holding an
 * xz magic of its own, the compressed Image, its size (size_append), then more decompressor. */
static const char *fake_zimage(const char *name, const unsigned char *img, size_t n, bool gzip,
			       int32_t size_skew)
{
	size_t cap = n + 4096, len;
	unsigned char *z = calloc(1, 0x1000 + cap + 0x800);
	const char *path;

	put_le32(z + 0x24, 0x016f2818);
	memcpy(z + 0x400, "\xfd" "7zXZ\0", 6); /* the xz decompressor's own magic check */
	len = gzip ? gzip_compress(img, n, z + 0x1000, cap) : xz_compress(img, n, z + 0x1000, cap);
	check(len > 0);
	put_le32(z + 0x1000 + len, (uint32_t)((int32_t)n + size_skew));
	memset(z + 0x1000 + len + 4, 0xa5, 0x7fc);
	path = test_write_file(name, z, 0x1000 + len + 0x800, 0);
	free(z);
	return path;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."));
	closedir(d);
	return n;
}

static void check_uimage(const char *path, const unsigned char *img, size_t n, uint32_t load)
{
	size_t len = 0;
	unsigned char *u = (unsigned char *)test_read_file(path, &len);
	unsigned char h[64];

	if (!check(u != NULL) || !check_int(len, ==, n + 64))
		goto out;
	check_int(get_be32(u), ==, 0x27051956);
	check_int(get_be32(u + 12), ==, n);
	check_int(get_be32(u + 16), ==, load);
	check_int(get_be32(u + 20), ==, load);
	check_int(get_be32(u + 24), ==, crc32(0, img, (unsigned)n));
	check_int(u[28], ==, 5); /* Linux: QEMU passes the device tree */
	check_int(u[29], ==, 2); /* ARM */
	check_int(u[30], ==, 2); /* a kernel */
	check_int(u[31], ==, 0); /* not compressed */
	memcpy(h, u, sizeof(h));
	memset(h + 4, 0, 4);
	check_int(get_be32(u + 4), ==, crc32(0, h, sizeof(h)));
	check_mem(u + 64, img, n);
out:
	free(u);
}

static void test_unpack_zimage(void)
{
	size_t n = 300000;
	unsigned char *img = fake_image(n, 0xe2884982, 0xe2444901);
	const char *zx = fake_zimage("zImage-xz", img, n, false, 0);
	const char *zg = fake_zimage("zImage-gz", img, n, true, 0);
	const char *zbad = fake_zimage("zImage-bad", img, n, false, 1);
	char *cache, *dir, *out = NULL, *again = NULL;
	char hx[65], hg[65], hb[65];

	check(asprintf(&cache, "%s/cache", test_tmpdir()) > 0);
	check(asprintf(&dir, "%s/vmlinux", cache) > 0);
	check_int(file_sha256(zx, hx), ==, 0);
	check_int(file_sha256(zg, hg), ==, 0);
	check_int(file_sha256(zbad, hb), ==, 0);

	check_int(kernel_image_unpack_zimage(zx, hx, 0x40000000, cache, &out, false), ==, 0);
	if (check(out != NULL)) {
		check(strstr(out, "-uimage-40000000") != NULL);
		check_uimage(out, img, n, 0x40208000);
	}
	/* a second call is a cache hit: the same file */
	check_int(kernel_image_unpack_zimage(zx, hx, 0x40000000, cache, &again, false), ==, 0);
	if (out && again)
		check_str(again, out);
	free(out);
	free(again);
	out = NULL;
	check_int(kernel_image_unpack_zimage(zg, hg, 0x80000000, cache, &out, false), ==, 0);
	if (check(out != NULL))
		check_uimage(out, img, n, 0x80208000);
	free(out);
	out = NULL;
	check_int(count_entries(dir), ==, 2);
	/* the size after the stream must be the size that came out: nothing else is an Image,
	 * and nothing is left behind */
	check_int(kernel_image_unpack_zimage(zbad, hb, 0x40000000, cache, &out, false), ==, -1);
	check(out == NULL);
	check_int(count_entries(dir), ==, 2);
	free(img);
	/* an Image without head.S's pgtbl pair is not placed (Thumb-2, big-endian, not a kernel) */
	img = fake_image(n, 0, 0);
	zbad = fake_zimage("zImage-thumb", img, n, false, 0);
	check_int(file_sha256(zbad, hb), ==, 0);
	check_int(kernel_image_unpack_zimage(zbad, hb, 0x40000000, cache, &out, false), ==, -1);
	check_int(count_entries(dir), ==, 2);
	free(img);
	free(dir);
	free(cache);
}

int main(void)
{
	error_set_prog("tapboot");
	TEST(test_headers, "bzImage, arm64 Image, zImage, riscv Image, s390 image headers");
	TEST(test_elf, "ELF vmlinux machine and endianness");
	TEST(test_missing, "a missing kernel is named");
	TEST(test_sha256, "sha256 of a file (FIPS 180-2 'abc' vector)");
	TEST(test_arm_text_offset, "arm Image: TEXT_OFFSET from head.S's pgtbl instructions");
	TEST(test_unpack_zimage, "arm zImage: xz and gzip payloads unpacked as a uImage, cached");
	return test_done();
}
