// SPDX-License-Identifier: GPL-2.0-only
/* elfinfo.c: ELF machine, interpreter and dynamic dependencies through libelf. */
#include "elfinfo.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "image.h"

void elfinfo_init(struct elfinfo *ei)
{
	memset(ei, 0, sizeof(*ei));
	strlist_init(&ei->needed);
	strlist_init(&ei->rpath);
	strlist_init(&ei->runpath);
}

void elfinfo_release(struct elfinfo *ei)
{
	free(ei->interp);
	strlist_release(&ei->needed);
	strlist_release(&ei->rpath);
	strlist_release(&ei->runpath);
	elfinfo_init(ei);
}

const char *elfinfo_machine_name(unsigned m)
{
	static char buf[32];

	switch (m) {
	case EM_X86_64:
		return "x86_64";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return "arm64"; /* as users type it (the ELF name is aarch64) */
	case EM_ARM:
		return "arm";
	case EM_PPC64:
		return "ppc64";
	case EM_PPC:
		return "ppc";
	case EM_RISCV:
		return "riscv";
	case EM_S390:
		return "s390";
	case EM_MIPS:
		return "mips";
	case EM_LOONGARCH:
		return "loongarch";
	case EM_SPARCV9:
		return "sparc64";
	}
	/* One caller formats one message at a time. */
	snprintf(buf, sizeof(buf), "machine %u", m);
	return buf;
}

static void split_path_list(struct strlist *l, const char *s)
{
	while (*s) {
		const char *end = strchrnul(s, ':');

		if (end > s) {
			char *one = xstrndup(s, (size_t)(end - s));

			strlist_push(l, one);
			free(one);
		}
		s = *end ? end + 1 : end;
	}
}

/* The dynamic section through the section headers (strip keeps .dynamic and .dynstr). */
static int read_dynamic(Elf *elf, struct elfinfo *ei, bool *pie)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			return -1;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, (int)i, &dyn))
				return -1;
			if (dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
				*pie = true;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH &&
			    dyn.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				return -1;
			if (dyn.d_tag == DT_NEEDED)
				strlist_push(&ei->needed, s);
			else
				split_path_list(dyn.d_tag == DT_RPATH ? &ei->rpath : &ei->runpath,
						s);
		}
	}
	return 0;
}

int elfinfo_read(struct elfinfo *ei, const char *path, const char *origin)
{
	unsigned char magic[4];
	GElf_Ehdr eh;
	size_t phnum;
	bool pie = false;
	Elf *elf;
	int fd, ret = -1;
	ssize_t r;

	elfinfo_release(ei);
	fd = open_regular(path, O_RDONLY);
	if (fd < 0)
		return error_errno(ORIGIN_FMT "cannot open '%s'", ORIGIN_ARGS(origin, path), path);
	r = pread(fd, magic, sizeof(magic), 0);
	if (r < 0) {
		error_errno(ORIGIN_FMT "cannot read '%s'", ORIGIN_ARGS(origin, path), path);
		goto out_close;
	}
	if (r < (ssize_t)sizeof(magic) || memcmp(magic, ELFMAG, SELFMAG)) {
		ret = 0;
		goto out_close;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		error("cannot use libelf: %s", elf_errmsg(-1));
		goto out_close;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getphdrnum(elf, &phnum)) {
		error(ORIGIN_FMT "'%s' is a damaged ELF file: %s", ORIGIN_ARGS(origin, path), path,
		      elf_errmsg(-1));
		goto out_end;
	}
	ei->is_elf = true;
	ei->machine = eh.e_machine;
	ei->bits = gelf_getclass(elf) == ELFCLASS64 ? 64 : 32;
	ei->type = eh.e_type;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		char *s;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		s = elf_rawfile(elf, NULL);
		if (!s || ph.p_offset + ph.p_filesz > (GElf_Off)lseek(fd, 0, SEEK_END) ||
		    !ph.p_filesz) {
			error(ORIGIN_FMT "'%s' is a damaged ELF file: bad PT_INTERP",
			      ORIGIN_ARGS(origin, path), path);
			goto out_end;
		}
		ei->interp = xstrndup(s + ph.p_offset, ph.p_filesz);
	}
	if (read_dynamic(elf, ei, &pie)) {
		error(ORIGIN_FMT "'%s' is a damaged ELF file: %s", ORIGIN_ARGS(origin, path), path,
		      elf_errmsg(-1));
		goto out_end;
	}
	ei->shared_lib = ei->type == ET_DYN && !ei->interp && !pie;
	ret = 0;
out_end:
	elf_end(elf);
out_close:
	close(fd);
	if (ret)
		elfinfo_release(ei);
	return ret;
}
