/* kernel_image.c: kernel image headers, and host-side decompression for PVH boots.
 * Formats: Documentation/arch/x86/boot.rst (bzImage), arm64/booting.rst, arm's zImage magic,
 * riscv's boot-image-header.rst, and ELF for vmlinux. */
#include "kernel_image.h"

#include <archive.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"

const char *kernel_format_name(enum kernel_format f)
{
	static const char *const names[] = { "unknown", "bzImage", "arm64 Image", "zImage",
					     "riscv Image", "ELF vmlinux", "gzip" };
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

static const char *elf_arch(unsigned machine, unsigned cls, bool msb)
{
	switch (machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return "arm64";
	case EM_ARM:
		return "arm";
	case EM_PPC64:
		return msb ? NULL : "ppc64le";
	case EM_RISCV:
		return cls == 64 ? "riscv64" : NULL;
	default:
		return NULL;
	}
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

int kernel_image_probe(const char *path, struct kernel_image *k)
{
	unsigned char h[1024];
	ssize_t n;
	int fd;

	memset(k, 0, sizeof(*k));
	fd = open(path, O_RDONLY | O_CLOEXEC);
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
		k->arch = elf_arch(k->elf_machine, k->elf_class, k->elf_msb);
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
	}
	close(fd);
	return 0;
}

int file_sha256(const char *path, char hex[65])
{
	unsigned char buf[1 << 16], dig[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	sha256_init(&ctx);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(&ctx, (size_t)n, buf);
	if (n < 0) {
		error_errno("cannot read '%s'", path);
		close(fd);
		return -1;
	}
	close(fd);
	sha256_digest(&ctx, sizeof(dig), dig);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(hex + 2 * i, "%02x", dig[i]);
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

int kernel_image_extract_vmlinux(const char *bzimage, const char *sha256, const char *cache_dir,
				 char **out, bool verbose)
{
	char *dir = NULL, *path = NULL, *tmp = NULL;
	unsigned char *data = NULL;
	struct stat st;
	int fd = -1, ofd = -1, ret = -1;
	uint32_t setup_sects, payload_off, payload_len;
	size_t base;

	dir = xasprintf("%s/vmlinux", cache_dir);
	path = xasprintf("%s/%s", dir, sha256);
	/* a hit is marked used (mtime now: the cache's upkeep keeps what was used in the last
	 * day and removes the least recently used first) */
	if (!access(path, R_OK)) {
		utimensat(AT_FDCWD, path, NULL, 0);
		*out = path;
		free(dir);
		return 0;
	}
	fd = open(bzimage, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 0x300)
		goto out;
	data = xmalloc((size_t)st.st_size);
	if (pread(fd, data, (size_t)st.st_size, 0) != st.st_size)
		goto out;
	/* Boot protocol 2.08+: payload_offset (0x248) and payload_length (0x24c), relative to
	 * the protected-mode code, which starts after (setup_sects + 1) sectors. */
	if (le16(data + 0x206) < 0x208)
		goto out;
	setup_sects = data[0x1f1] ? data[0x1f1] : 4;
	payload_off = le32(data + 0x248);
	payload_len = le32(data + 0x24c);
	base = (size_t)(setup_sects + 1) * 512;
	if (base + payload_off + payload_len > (size_t)st.st_size || !payload_len)
		goto out;
	if (mkdir_p(dir) < 0) {
		if (verbose)
			error_errno("cannot create '%s'", dir);
		goto out;
	}
	tmp = xasprintf("%s/.tmp.XXXXXX", dir);
	ofd = mkstemp(tmp);
	if (ofd < 0) {
		if (verbose)
			error_errno("cannot create a file in '%s'", dir);
		goto out;
	}
	/* The build appends the decompressed size as a little-endian u32 to every compressed
	 * payload (scripts/Makefile.lib, size_append); xz refuses it as trailing garbage. */
	if (payload_len <= 4 ||
	    decompress_payload(data + base + payload_off, payload_len - 4, ofd) < 0 ||
	    lseek(ofd, 0, SEEK_END) != (off_t)le32(data + base + payload_off + payload_len - 4)) {
		if (verbose)
			error("cannot decompress the payload of '%s'", bzimage);
		goto out;
	}
	if (fsync(ofd) < 0 || close(ofd) < 0) {
		ofd = -1;
		goto out;
	}
	ofd = -1;
	{
		struct kernel_image k;

		if (kernel_image_probe(tmp, &k) < 0 || k.format != KERNEL_ELF)
			goto out;
	}
	if (rename(tmp, path) < 0)
		goto out;
	free(tmp);
	tmp = NULL;
	*out = path;
	path = NULL;
	ret = 0;
out:
	if (ofd >= 0)
		close(ofd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	if (fd >= 0)
		close(fd);
	free(data);
	free(path);
	free(dir);
	return ret;
}
