// SPDX-License-Identifier: GPL-2.0-only
/* kernel_image.c: kernel image headers, and host-side decompression for PVH boots.
 * Formats: Documentation/arch/x86/boot.rst (bzImage), arm64/booting.rst, arm's zImage magic,
 * riscv's boot-image-header.rst, s390's entry-point table (arch/s390/boot/head.S), and ELF for
 * vmlinux. */
#include "kernel_image.h"

#include <archive.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "arch_config.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"

const char *kernel_format_name(enum kernel_format f)
{
	static const char *const names[] = { "unknown", "bzImage", "arm64 Image", "zImage",
					     "riscv Image", "ELF vmlinux", "gzip",
					     "s390 image" };
	return (unsigned)f < ARRAY_SIZE(names) ? names[f] : "unknown";
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* A vmlinux's architecture: the config with its ELF machine, class and byte order (the one
 * architecture table, configs/). */
static void elf_arch(struct kernel_image *k)
{
	char *arch = arch_config_find_elf(arch_config_dir(), k->elf_machine, k->elf_class,
					  k->elf_msb);

	if (arch && strlen(arch) < sizeof(k->elf_arch)) {
		strcpy(k->elf_arch, arch);
		k->arch = k->elf_arch;
	}
	free(arch);
}
/* Does the ELF have XEN_ELFNOTE_PHYS32_ENTRY (18, name "Xen"), the PVH entry QEMU boots? */
static bool elf_has_pvh(int fd)
{
	Elf *e;
	size_t nphdr;
	bool found = false;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return false;
	if (elf_getphdrnum(e, &nphdr) == 0) {
		for (size_t i = 0; i < nphdr && !found; i++) {
			GElf_Phdr ph;
			Elf_Data *d;
			size_t off = 0, noff, doff;
			GElf_Nhdr nh;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(e, (off_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
			if (!d)
				continue;
			while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0)
				if (nh.n_type == 18 && nh.n_namesz == 4 &&
				    !memcmp((char *)d->d_buf + noff, "Xen", 4)) {
					found = true;
					break;
				}
		}
	}
	elf_end(e);
	return found;
}

/* How many bytes the header says the file holds, 0 when it does not say. bzImage: the setup
 * sectors (setup_sects at 0x1f1, 0 meaning 4) and the boot sector, then syssize (0x1f4, in
 * 16-byte paragraphs, protocol 2.04+), Documentation/arch/x86/boot.rst. arm64 Image: its
 * image_size (offset 16) counts the BSS, so it is no bound; an EFI-stub Image ("MZ") is a PE
 * file whose sections' raw data must be in the file (Debian's 6.1: .data ends 448 bytes before
 * the end). */
static uint64_t header_size(int fd, const unsigned char *h, size_t n, enum kernel_format f)
{
	/* syssize 0: a header without a kernel after it (a probe's fixture), no claim */
	if (f == KERNEL_BZIMAGE && le16(h + 0x206) >= 0x204 && le32(h + 0x1f4)) {
		unsigned setup = h[0x1f1] ? h[0x1f1] : 4;

		return (uint64_t)(setup + 1) * 512 + (uint64_t)le32(h + 0x1f4) * 16;
	}
	if (f == KERNEL_ARM64_IMAGE && n >= 0x40 && h[0] == 'M' && h[1] == 'Z') {
		unsigned char pe[24], sec[40];
		uint32_t pe_at = le32(h + 0x3c);
		uint64_t end = 0;
		unsigned nsec;

		if (pread(fd, pe, sizeof(pe), pe_at) != (ssize_t)sizeof(pe) ||
		    memcmp(pe, "PE\0\0", 4))
			return 0;
		nsec = le16(pe + 6);
		for (unsigned i = 0; i < nsec && i < 96; i++) {
			off_t at = (off_t)pe_at + 24 + le16(pe + 20) + (off_t)i * 40;

			if (pread(fd, sec, sizeof(sec), at) != (ssize_t)sizeof(sec))
				return 0;
			if ((uint64_t)le32(sec + 20) + le32(sec + 16) > end)
				end = (uint64_t)le32(sec + 20) + le32(sec + 16);
		}
		return end;
	}
	return 0;
}

int kernel_image_probe(const char *path, struct kernel_image *k)
{
	unsigned char h[1024];
	ssize_t n;
	int fd;

	memset(k, 0, sizeof(*k));
	fd = open_regular(path, O_RDONLY);
	if (fd < 0)
		return error_errno("cannot open kernel '%s'", path);
	n = pread(fd, h, sizeof(h), 0);
	if (n < 0) {
		error_errno("cannot read kernel '%s'", path);
		close(fd);
		return -1;
	}
	if (n >= 64 && !memcmp(h, ELFMAG, SELFMAG)) {
		k->format = KERNEL_ELF;
		k->elf_class = h[EI_CLASS] == ELFCLASS64 ? 64 : 32;
		k->elf_msb = h[EI_DATA] == ELFDATA2MSB;
		k->elf_machine = k->elf_msb ? (unsigned)(h[18] << 8 | h[19]) : le16(h + 18);
		elf_arch(k);
		k->has_pvh = elf_has_pvh(fd);
	} else if (n >= 0x240 && !memcmp(h + 0x202, "HdrS", 4)) {
		/* xloadflags (protocol 2.12+) bit 0, XLF_KERNEL_64: a 64-bit kernel. */
		uint16_t version = le16(h + 0x206);
		uint16_t kver = le16(h + 0x20e);

		k->format = KERNEL_BZIMAGE;
		k->arch = (version >= 0x20c && (le16(h + 0x236) & 1)) ? "x86_64" : "i386";
		if (kver && (size_t)kver + 0x200 < sizeof(h) - 1) {
			size_t i;

			for (i = 0; i + 1 < sizeof(k->release) && kver + 0x200 + i < (size_t)n; i++) {
				char c = (char)h[kver + 0x200 + i];

				if (c == '\0' || c == ' ')
					break;
				k->release[i] = c;
			}
			k->release[i] = '\0';
		}
	} else if (n >= 64 && !memcmp(h + 56, "ARM\x64", 4)) {
		k->format = KERNEL_ARM64_IMAGE;
		k->arch = "arm64";
	} else if (n >= 64 && !memcmp(h + 56, "RSC\x05", 4)) {
		k->format = KERNEL_RISCV_IMAGE;
		k->arch = "riscv64";
	} else if (n >= 0x30 && le32(h + 0x24) == 0x016f2818) {
		k->format = KERNEL_ARM_ZIMAGE;
		k->arch = "arm";
	} else if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b) {
		k->format = KERNEL_GZIP;
	} else {
		/* An s390 image has no magic at its start (its IPL PSW and channel programs); the
		 * kernel's ABI table of entry points, "S390EP", is at 0x10008 (head.S EP_OFFSET),
		 * where QEMU's s390 loader looks for it too. */
		unsigned char ep[6];

		if (pread(fd, ep, sizeof(ep), 0x10008) == (ssize_t)sizeof(ep) &&
		    !memcmp(ep, "S390EP", 6)) {
			k->format = KERNEL_S390_IMAGE;
			k->arch = "s390x";
		}
	}
	if (k->format == KERNEL_BZIMAGE || k->format == KERNEL_ARM64_IMAGE) {
		uint64_t want = header_size(fd, h, (size_t)n, k->format);
		struct stat st;

		/* a truncated image boots into nothing, and was blamed on a missing console option
		 * (issue 41) */
		if (want && !fstat(fd, &st) && (uint64_t)st.st_size < want) {
			error("kernel '%s' is truncated: the file has %llu bytes, its %s "
			      "header says %llu",
			      path, (unsigned long long)st.st_size, kernel_format_name(k->format),
			      (unsigned long long)want);
			close(fd);
			return -1;
		}
	}
	close(fd);
	return 0;
}

/* Decompress the bzImage payload (any filter libarchive reads: gzip, xz, lzma, zstd, lz4, bzip2)
 * into fd_out. */
static int decompress_payload(const unsigned char *data, size_t len, int fd_out)
{
	struct archive *a = archive_read_new();
	struct archive_entry *entry;
	int ret = -1;

	if (!a)
		return -1;
	if (archive_read_support_filter_all(a) != ARCHIVE_OK ||
	    archive_read_support_format_raw(a) != ARCHIVE_OK ||
	    archive_read_open_memory(a, data, len) != ARCHIVE_OK)
		goto out_free;
	if (archive_read_next_header(a, &entry) != ARCHIVE_OK)
		goto out_free;
	/* A raw read of uncompressed data is no payload we know. */
	if (archive_filter_count(a) < 2)
		goto out_free;
	/* The payload is followed by the decompressor's tail; a truncated-stream warning at the
	 * end is expected, so accept whatever decompressed as long as it is an ELF. */
	if (archive_read_data_into_fd(a, fd_out) == ARCHIVE_FATAL)
		goto out_free;
	ret = 0;
out_free:
	archive_read_free(a);
	return ret;
}

/* What the two unpackers share: the image read whole, a temporary file beside the cache entry
 * for fill() to write, and the entry itself, renamed into place only when fill() succeeded. */
struct unpack {
	const char *image; /* the kernel file */
	const unsigned char *data; /* its bytes */
	size_t len;
	const char *tmp; /* the temporary file, open as ofd */
	int ofd;
	uint32_t ram_base; /* zImage: where the machine's RAM starts */
	bool verbose;
};

/* cache_dir/vmlinux/name, made by fill(u) when missing; *out (caller frees) is its path. A hit
 * is marked used (mtime now: the cache's upkeep keeps what was used in the last day and removes
 * the least recently used first). */
static int cached_unpack(const char *cache_dir, const char *name, int (*fill)(struct unpack *u),
			 struct unpack *u, char **out)
{
	char *dir = xasprintf("%s/vmlinux", cache_dir);
	char *path = xasprintf("%s/%s", dir, name);
	char *tmp = NULL;
	unsigned char *data = NULL;
	struct stat st;
	int fd, ret = -1;

	u->ofd = -1;
	if (!access(path, R_OK)) {
		utimensat(AT_FDCWD, path, NULL, 0);
		*out = path;
		free(dir);
		return 0;
	}
	fd = open(u->image, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (fstat(fd, &st) < 0 || st.st_size < 0x30)
		goto out_close;
	data = xmalloc((size_t)st.st_size);
	if (pread(fd, data, (size_t)st.st_size, 0) != st.st_size)
		goto out_close;
	if (mkdir_p(dir) < 0) {
		if (u->verbose)
			error_errno("cannot create '%s'", dir);
		goto out_close;
	}
	tmp = xasprintf("%s/.tmp.XXXXXX", dir);
	u->ofd = mkstemp(tmp);
	if (u->ofd < 0) {
		if (u->verbose)
			error_errno("cannot create a file in '%s'", dir);
		goto out_close;
	}
	u->data = data;
	u->len = (size_t)st.st_size;
	u->tmp = tmp;
	if (fill(u) < 0)
		goto out_close;
	if (fsync(u->ofd) < 0 || close(u->ofd) < 0) {
		if (u->verbose)
			error_errno("cannot write '%s'", tmp);
		u->ofd = -1;
		goto out_close;
	}
	u->ofd = -1;
	if (rename(tmp, path) < 0)
		goto out_close;
	*out = path;
	path = NULL;
	ret = 0;
out_close:
	close(fd);
out:
	if (u->ofd >= 0)
		close(u->ofd);
	if (tmp) {
		if (ret < 0)
			unlink(tmp);
		free(tmp);
	}
	free(data);
	free(path);
	free(dir);
	return ret;
}

static int fill_vmlinux(struct unpack *u)
{
	const unsigned char *data = u->data;
	uint32_t setup_sects, payload_off, payload_len;
	size_t base;
	struct kernel_image k;

	/* Boot protocol 2.08+: payload_offset (0x248) and payload_length (0x24c), relative to
	 * the protected-mode code, which starts after (setup_sects + 1) sectors. */
	if (u->len < 0x300 || le16(data + 0x206) < 0x208)
		return -1;
	setup_sects = data[0x1f1] ? data[0x1f1] : 4;
	payload_off = le32(data + 0x248);
	payload_len = le32(data + 0x24c);
	base = (size_t)(setup_sects + 1) * 512;
	if (base + payload_off + payload_len > u->len || !payload_len)
		return -1;
	/* The build appends the decompressed size as a little-endian u32 to every compressed
	 * payload (scripts/Makefile.lib, size_append); xz refuses it as trailing garbage. */
	if (payload_len <= 4 ||
	    decompress_payload(data + base + payload_off, payload_len - 4, u->ofd) < 0 ||
	    lseek(u->ofd, 0, SEEK_END) != (off_t)le32(data + base + payload_off + payload_len - 4)) {
		if (u->verbose)
			error("cannot decompress the payload of '%s'", u->image);
		return -1;
	}
	if (kernel_image_probe(u->tmp, &k) < 0 || k.format != KERNEL_ELF)
		return -1;
	return 0;
}

int kernel_image_extract_vmlinux(const char *bzimage, const char *sha256, const char *cache_dir,
				 char **out, bool verbose)
{
	struct unpack u = { .image = bzimage, .verbose = verbose };

	return cached_unpack(cache_dir, sha256, fill_vmlinux, &u, out);
}

/* The immediate of an ARM data-processing instruction: 8 bits rotated right by twice the
 * 4-bit rotate field (ARM ARM A5.2.4). */
static uint32_t arm_imm(uint32_t insn)
{
	uint32_t imm = insn & 0xff, rot = ((insn >> 8) & 0xf) * 2;

	return rot ? (imm >> rot) | (imm << (32 - rot)) : imm;
}

int kernel_image_arm_text_offset(const unsigned char *image, size_t len, uint32_t *text_offset)
{
	/* add r4, r8, #imm is 0xe2884xxx; sub r4, r4, #imm is 0xe2444xxx. PG_DIR_SIZE is 0x4000
	 * (0x5000 with LPAE); TEXT_OFFSET is 0x8000 plus a platform's reserve (0x208000 in
	 * Debian's armmp kernel: CONFIG_ARCH_MESON, arch/arm/Makefile's textofs-y). */
	for (size_t i = 0; i + 8 <= len && i < 4096; i += 4) {
		uint32_t add = le32(image + i), sub = le32(image + i + 4);
		uint32_t off = arm_imm(add), pg = arm_imm(sub);

		if ((add & 0xfffff000) == 0xe2884000 && (sub & 0xfffff000) == 0xe2444000 &&
		    (pg == 0x4000 || pg == 0x5000) && off >= pg && off < (16u << 20) &&
		    !(off & 0xfff)) {
			*text_offset = off;
			return 0;
		}
	}
	return -1;
}

static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	static uint32_t table[256];

	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void be32_put(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* QEMU's arm loader places a raw image at RAM + 0x10000 (KERNEL_LOAD_ADDR, hw/arm/boot.c), where
 * a kernel cannot run; a uImage (U-Boot's legacy header, include/image.h) says where it goes. */
#define UIMAGE_HEADER 64

/* A zImage's payload is followed by the rest of its decompressor and nothing says where the
 * stream ends; libarchive's filters drop their last buffer when garbage follows a stream, so the
 * two compressors Debian and the kernel's default use are read with their own libraries, which
 * stop at the stream's end and say how much they read. (lzo, lz4, lzma and zstd zImages boot as
 * they are.) One function per library: in, its length, the output fd at its offset; the bytes
 * written, or -1, and *used the compressed length. */
static bool write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static long long inflate_gzip(const unsigned char *in, size_t len, int fd, size_t *used)
{
	unsigned char buf[1 << 16];
	z_stream z = { 0 };
	int rc = Z_OK;

	if (len > UINT_MAX || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) /* gzip wrapper only */
		return -1;
	z.next_in = (unsigned char *)in;
	z.avail_in = (unsigned)len;
	while (rc == Z_OK) {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = inflate(&z, Z_NO_FLUSH);
		if ((rc != Z_OK && rc != Z_STREAM_END) ||
		    !write_all(fd, buf, sizeof(buf) - z.avail_out))
			rc = Z_DATA_ERROR;
	}
	*used = z.total_in;
	inflateEnd(&z);
	return rc == Z_STREAM_END ? (long long)z.total_out : -1;
}

static long long inflate_xz(const unsigned char *in, size_t len, int fd, size_t *used)
{
	unsigned char buf[1 << 16];
	lzma_stream x = LZMA_STREAM_INIT;
	lzma_ret rc = LZMA_OK;

	/* one stream, not LZMA_CONCATENATED: what follows it is the decompressor's code */
	if (lzma_stream_decoder(&x, UINT64_MAX, 0) != LZMA_OK)
		return -1;
	x.next_in = in;
	x.avail_in = len;
	while (rc == LZMA_OK) {
		x.next_out = buf;
		x.avail_out = sizeof(buf);
		rc = lzma_code(&x, LZMA_FINISH);
		if ((rc != LZMA_OK && rc != LZMA_STREAM_END) ||
		    !write_all(fd, buf, sizeof(buf) - x.avail_out))
			rc = LZMA_DATA_ERROR;
	}
	*used = (size_t)x.total_in;
	lzma_end(&x);
	return rc == LZMA_STREAM_END ? (long long)x.total_out : -1;
}

/* Try the payload at data[off]: decompress it after the header's room in ofd and check it. The
 * build appends the decompressed size right after the stream (scripts/Makefile.lib,
 * size_append), and the Image's code must say its TEXT_OFFSET. That offset, or 0 when this is
 * no Image. */
static uint32_t try_zimage_payload(const unsigned char *data, size_t len, size_t off, int ofd)
{
	unsigned char head[4096];
	const unsigned char *p = data + off;
	size_t left = len - off, used = 0;
	long long size;
	uint32_t text_offset;
	bool gzip = left >= 3 && !memcmp(p, "\x1f\x8b\x08", 3);
	bool xz = left >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6);

	if ((!gzip && !xz) || ftruncate(ofd, UIMAGE_HEADER) < 0 ||
	    lseek(ofd, UIMAGE_HEADER, SEEK_SET) < 0)
		return 0;
	size = gzip ? inflate_gzip(p, left, ofd, &used) : inflate_xz(p, left, ofd, &used);
	if (size < (long long)sizeof(head) || size > UINT32_MAX || used + 4 > left ||
	    le32(p + used) != (uint32_t)size ||
	    pread(ofd, head, sizeof(head), UIMAGE_HEADER) != (ssize_t)sizeof(head) ||
	    kernel_image_arm_text_offset(head, sizeof(head), &text_offset) < 0)
		return 0;
	return text_offset;
}

static int write_uimage_header(int fd, uint32_t size, uint32_t load, uint32_t dcrc)
{
	unsigned char h[UIMAGE_HEADER] = { 0 };

	be32_put(h, 0x27051956); /* IH_MAGIC */
	be32_put(h + 12, size);
	be32_put(h + 16, load); /* ih_load */
	be32_put(h + 20, load); /* ih_ep: the Image is entered at its first word */
	be32_put(h + 24, dcrc);
	h[28] = 5; /* IH_OS_LINUX: QEMU then passes the device tree in r2 */
	h[29] = 2; /* IH_ARCH_ARM */
	h[30] = 2; /* IH_TYPE_KERNEL */
	h[31] = 0; /* IH_COMP_NONE */
	memcpy(h + 32, "tapboot: unpacked zImage", 24);
	be32_put(h + 4, crc32_update(0, h, sizeof(h)));
	return pwrite(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) ? 0 : -1;
}

static int uimage_crc(int fd, uint32_t *crc)
{
	unsigned char buf[1 << 16];
	off_t pos = UIMAGE_HEADER;
	ssize_t n;

	*crc = 0;
	while ((n = pread(fd, buf, sizeof(buf), pos)) > 0) {
		*crc = crc32_update(*crc, buf, (size_t)n);
		pos += n;
	}
	return n < 0 ? -1 : 0;
}

static int fill_uimage(struct unpack *u)
{
	uint32_t text_offset = 0, crc;
	off_t end;

	/* The payload's offset is nowhere in the header: try each gzip or xz magic after it (the
	 * decompressor's own code holds an xz magic too, which fails at once). */
	for (size_t off = 0x30; off < u->len && !text_offset; off++)
		text_offset = try_zimage_payload(u->data, u->len, off, u->ofd);
	if (!text_offset) {
		if (u->verbose)
			error("no arm Image found in the payload of '%s'", u->image);
		return -1;
	}
	end = lseek(u->ofd, 0, SEEK_END);
	if (uimage_crc(u->ofd, &crc) < 0 ||
	    write_uimage_header(u->ofd, (uint32_t)(end - UIMAGE_HEADER),
				u->ram_base + text_offset, crc) < 0) {
		if (u->verbose)
			error_errno("cannot write '%s'", u->tmp);
		return -1;
	}
	return 0;
}

int kernel_image_unpack_zimage(const char *zimage, const char *sha256, uint32_t ram_base,
			       const char *cache_dir, char **out, bool verbose)
{
	struct unpack u = { .image = zimage, .ram_base = ram_base, .verbose = verbose };
	char *name = xasprintf("%s-uimage-%08x", sha256, ram_base);
	int ret = cached_unpack(cache_dir, name, fill_uimage, &u, out);

	free(name);
	return ret;
}
