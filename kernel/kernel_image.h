/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel_image.h: what a kernel image is (format, architecture) and how to boot it fastest. */
#ifndef TAPBOOT_KERNEL_IMAGE_H
#define TAPBOOT_KERNEL_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filehash.h" /* file_sha256(), which the kernel's hash and the unpacking caches use */

enum kernel_format {
	KERNEL_UNKNOWN,
	KERNEL_BZIMAGE, /* x86 boot protocol */
	KERNEL_ARM64_IMAGE, /* Documentation/arch/arm64/booting.rst header */
	KERNEL_ARM_ZIMAGE, /* magic 0x016f2818 at 0x24 */
	KERNEL_RISCV_IMAGE, /* "RSC\x05" at 56 */
	KERNEL_ELF, /* vmlinux */
	KERNEL_GZIP, /* Image.gz and the like: QEMU decompresses them itself */
	KERNEL_S390_IMAGE, /* "S390EP" at 0x10008: arch/s390/boot/bzImage */
};

struct kernel_image {
	enum kernel_format format;
	/* From the header: "x86_64", "i386", "arm64", "arm", "riscv64", "ppc64le", "s390x", or NULL
	 * when the header does not say (arm64 Image.gz). Not owned: a literal, or elf_arch below
	 * (so a copy of the struct must not outlive the original). */
	const char *arch;
	char elf_arch[32]; /* KERNEL_ELF: the configs' arch for its ELF machine, class and data */
	unsigned elf_machine; /* for KERNEL_ELF */
	unsigned elf_class;
	bool elf_msb;
	bool has_pvh; /* KERNEL_ELF with a Xen PHYS32_ENTRY note (CONFIG_PVH) */
	char release[128]; /* version string from the bzImage header, "" when unknown */
};

const char *kernel_format_name(enum kernel_format f);
/* Read the header of path; -1 after a message when it cannot be read. An unknown format is not
 * an error here (format KERNEL_UNKNOWN). */
int kernel_image_probe(const char *path, struct kernel_image *k);
/* The vmlinux inside a bzImage, decompressed on the host once and cached under cache_dir by the
 * image's sha256 (sha256: its 64 hex digits, from file_sha256()). *out (caller frees) is its
 * path. 0 on success; -1 when there is no payload we can decompress (a message is printed only
 * when verbose). */
int kernel_image_extract_vmlinux(const char *bzimage, const char *sha256, const char *cache_dir,
				 char **out, bool verbose);
/* arm (32-bit): the Image inside a zImage, decompressed on the host once and wrapped as a uImage
 * that QEMU loads at ram_base + TEXT_OFFSET (read from the Image's own code,
 * kernel_image_arm_text_offset), where the zImage's decompressor would have put it. Cached under
 * cache_dir by the image's sha256 and ram_base; *out (caller frees) is its path. 0 on success,
 * -1 when the zImage holds no payload tapboot can decompress and place (a message only when
 * verbose). */
int kernel_image_unpack_zimage(const char *zimage, const char *sha256, uint32_t ram_base,
			       const char *cache_dir, char **out, bool verbose);
/* TEXT_OFFSET of a decompressed arm Image (ARM encoding): the immediate of head.S's pgtbl macro,
 * "add r4, r8, #TEXT_OFFSET; sub r4, r4, #PG_DIR_SIZE", in its first 4 KiB. -1 when absent
 * (a Thumb-2 or big-endian kernel, or no kernel). */
int kernel_image_arm_text_offset(const unsigned char *image, size_t len, uint32_t *text_offset);

#endif
