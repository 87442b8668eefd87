// SPDX-License-Identifier: GPL-2.0-only
/* qemu_argv.c: builds QEMU's command line in each mode a run uses, and the snapshot key from the
 * same words; nothing else in tapboot knows QEMU's options. */
#include "qemu_argv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#include "error.h"
#include "filehash.h"
#include "launch.h"
#include "qmp.h"
#include "strbuf.h"

/* Where the words of a command line go: argv, and the key's text (a line each, or the line the
 * caller gives in the word's place). Either may be NULL. */
struct words {
	struct strlist *argv;
	struct strbuf *key;
};

static void put_keyed(struct words *w, const char *word, const char *key_line)
{
	if (w->argv)
		strlist_push(w->argv, word);
	if (w->key)
		strbuf_addf(w->key, "%s\n", key_line);
}

static void put(struct words *w, const char *word)
{
	put_keyed(w, word, word);
}

static void put_split(struct words *w, const char *words)
{
	char *copy = xstrdup(words), *save = NULL;

	for (char *s = strtok_r(copy, " \t", &save); s; s = strtok_r(NULL, " \t", &save))
		put(w, s);
	free(copy);
}

/* A file's line in the key: its content's sha256 ("sha256:" alone when unreadable, said). */
static void put_file(struct words *w, const char *path, const char *from_sha256)
{
	char hex[65] = "", *line;

	if (w->key && from_sha256) {
		const char *base = strrchr(path, '/');

		/* unpacked on the host into the cache, named by the image's sha256: the image's
		 * hash (stat-cached) names it. Hashing the 60-70 MB vmlinux cost 0.08-0.11 s a
		 * run, since the cache upkeep's mark of use moves its ctime. */
		line = xasprintf("unpacked %s from sha256:%s", base ? base + 1 : path, from_sha256);
	} else {
		if (w->key && file_sha256(path, hex) < 0)
			hex[0] = '\0';
		line = xasprintf("sha256:%s", hex);
	}
	put_keyed(w, path, line);
	free(line);
}

static void put_num(struct words *w, const char *opt, unsigned long long v)
{
	char num[32];

	snprintf(num, sizeof(num), "%llu", v);
	put(w, opt);
	put(w, num);
}

/* -kernel, -initrd and -append (key: the saved VM's, whatever the mode). */
static void put_boot(const struct qemu_boot *b, struct words *w, bool key)
{
	if (!key && b->mode == QEMU_MODE_RESTORE)
		return; /* the saved RAM and CPUs hold them: reading a 33 MB arm64 Image twice cost
			 * 0.33 s of a restored QEMU's start here */
	put(w, "-kernel");
	put_file(w, b->kernel, b->kernel_from_sha256);
	put(w, "-initrd");
	put_file(w,
		 !key && b->mode == QEMU_MODE_SAVE && b->saver_initrd ? b->saver_initrd : b->initrd,
		 NULL);
	put(w, "-append");
	put(w, b->cmdline);
}

static void put_tests_image(const struct qemu_boot *b, struct words *w)
{
	/* share=on: the guest reads the host's file itself, and QEMU's x-ignore-shared leaves it
	 * out of a saved state; master=on: without it ivshmem blocks migration ("peer mode").
	 * The guest needs no driver: it maps the device's BAR 2 through sysfs. readonly=on (QEMU
	 * 6.2 on): QEMU opens and maps the file read-only and the region is read-only to the
	 * guest, whose writes are dropped: a root test could otherwise map the BAR writable
	 * and change the host's file, the tests of every later VM of the run (issue 41). */
	char *obj = xasprintf(QEMU_TESTS_OBJECT ",share=on,readonly=on,mem-path=%s,size=%llu",
			      b->tests_image, b->tests_size);
	char *key = xasprintf(QEMU_TESTS_OBJECT " tests image,size=%llu", b->tests_size);

	put(w, "-object");
	put_keyed(w, obj, key);
	put(w, "-device");
	put(w, "ivshmem-plain,memdev=tapboot-tests,master=on");
	free(key);
	free(obj);
}

static void put_ram_file(const struct qemu_boot *b, struct words *w)
{
	unsigned long long size = qemu_boot_ram_size(b);
	char *obj;

	if (!size)
		return;
	obj = xasprintf(QEMU_RAM_OBJECT ",size=%llu,mem-path=/proc/self/fd/%d,share=%s", size,
			QEMU_SPAWN_RAM_FD, b->mode == QEMU_MODE_SAVE ? "on" : "off");
	put(w, "-object");
	put(w, obj);
	put(w, "-machine");
	put(w, "memory-backend=tapboot-ram");
	free(obj);
}

static void put_qmp(struct words *w)
{
	struct strlist q;

	strlist_init(&q);
	qmp_argv(&q);
	for (size_t i = 0; i < q.n; i++)
		put(w, q.v[i]);
	strlist_release(&q);
}

const char *qemu_boot_machine(const struct qemu_boot *b)
{
	const struct arch_config *c = b->cfg;

	if (b->machine)
		return b->machine;
	return b->bzimage && c->machine_bzimage && *c->machine_bzimage ? c->machine_bzimage
								       : c->machine;
}

const char *qemu_boot_cpu(const struct qemu_boot *b)
{
	if (b->cpu)
		return b->cpu;
	return b->accel == QEMU_ACCEL_KVM ? b->cfg->cpu_kvm : b->cfg->cpu_tcg;
}

unsigned qemu_boot_memory_mb(const struct qemu_boot *b)
{
	return b->memory_mb ? b->memory_mb : b->cfg->memory_mb;
}

unsigned qemu_boot_smp(const struct qemu_boot *b)
{
	if (b->smp)
		return b->smp;
	return b->accel == QEMU_ACCEL_KVM ? b->cfg->smp : b->cfg->smp_tcg;
}

/* The command line in b->mode into w; key: the saved VM's command line, as the key sees it. */
static void put_all(const struct qemu_boot *b, struct words *w, bool key)
{
	const struct arch_config *c = b->cfg;
	const char *cpu = qemu_boot_cpu(b);
	bool kvm = b->accel == QEMU_ACCEL_KVM;

	put(w, c->qemu);
	put(w, "-M");
	put(w, qemu_boot_machine(b));
	put(w, "-accel");
	/* thread=multi: one host thread per vCPU under TCG (MTTCG); thread=single: one for all */
	put_keyed(w,
		  kvm		  ? "kvm"
		  : b->tcg_single ? "tcg,thread=single"
				  : "tcg,thread=multi",
		  kvm ? "kvm" : "tcg");
	if (cpu && *cpu) {
		put(w, "-cpu");
		put(w, cpu);
	}
	put_num(w, "-m", qemu_boot_memory_mb(b));
	put_num(w, "-smp", qemu_boot_smp(b));
	if (c->bios && *c->bios) {
		put(w, "-bios");
		put(w, c->bios);
	}
	/* -nographic would also put the monitor on stdio; this keeps stdio for the console only.
	 * -no-reboot turns the guest's reboot (and a panic with panic=-1) into QEMU exiting. */
	put(w, "-no-reboot");
	put(w, "-display");
	put(w, "none");
	put(w, "-monitor");
	put(w, "none");
	put(w, "-serial");
	put(w, "stdio");
	/* No default NIC: q35's e1000e needs an option ROM (ipxe-qemu's efi-e1000e.rom) or QEMU
	 * refuses to start, and the guest would probe a device no test uses. */
	put(w, "-nic");
	put(w, "none");
	put_boot(b, w, key);
	if (b->tests_image)
		put_tests_image(b, w);
	if (c->qemu_args && *c->qemu_args)
		put_split(w, c->qemu_args);
	if (b->qmp)
		put_qmp(w);
	if (key)
		return;
	if (b->mode == QEMU_MODE_RESTORE) {
		/* x-ignore-shared is set over QMP before the load (qmp_incoming): the saver's RAM
		 * and the tests image are shared, left out of the state */
		put(w, "-incoming");
		put(w, "defer");
	}
	if (b->mode != QEMU_MODE_COLD)
		put_ram_file(b, w);
}

void qemu_argv_build(const struct qemu_boot *b, struct strlist *argv)
{
	struct words w = {argv, NULL};

	put_all(b, &w, false);
}

/* A plain number of MiB ("512", "512M"), or 0. */
static unsigned long long plain_mib(const char *v)
{
	unsigned long long mb;
	char *end;

	errno = 0;
	mb = strtoull(v, &end, 10);
	if (errno || end == v || (*end && strcmp(end, "M")) || mb > (1ull << 32))
		return 0;
	return mb;
}

unsigned long long qemu_boot_ram_size(const struct qemu_boot *b)
{
	unsigned long long mb = qemu_boot_memory_mb(b);
	const char *args = b->cfg->qemu_args;

	if (mb > (1ull << 32))
		mb = 0;
	if (args && *args) {
		/* the config's own -m comes after tapboot's: the last counts, as for QEMU */
		char *copy = xstrdup(args), *save = NULL, *prev = NULL;

		for (char *s = strtok_r(copy, " \t", &save); s; s = strtok_r(NULL, " \t", &save)) {
			if (prev && !strcmp(prev, "-m"))
				mb = plain_mib(s);
			prev = s;
		}
		free(copy);
	}
	return mb << 20;
}

void qemu_snapshot_key_text(const struct qemu_boot *b, const char *qemu_version, struct strbuf *sb)
{
	struct words w = {NULL, sb};

	strbuf_addf(sb, "tapboot snapshot 2 (the RAM apart)\nqemu %s\n", qemu_version);
	put_all(b, &w, true);
}

void qemu_snapshot_key(const struct qemu_boot *b, const char *qemu_version, char key[65])
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char dig[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;

	qemu_snapshot_key_text(b, qemu_version, &sb);
	sha256_init(&ctx);
	sha256_update(&ctx, sb.len, (const uint8_t *)sb.buf);
	sha256_digest(&ctx, sizeof(dig), dig);
	strbuf_release(&sb);
	for (size_t i = 0; i < sizeof(dig); i++)
		sprintf(key + 2 * i, "%02x", dig[i]);
}

char *qemu_kernel_cmdline(const struct arch_config *cfg, enum qemu_accel accel, const char *extra)
{
	struct strbuf sb = STRBUF_INIT;

	/* panic=-1: reboot at once on a panic, which -no-reboot turns into QEMU exiting, so a
	 * panicked guest never sits until the deadline. oops=panic: after an Oops the kernel is
	 * not to be trusted with more tests (lkp boots the same way). quiet: only warnings and
	 * worse reach the slow emulated UART; the init reads everything else from /dev/kmsg. */
	strbuf_addf(&sb, "console=%s panic=-1 oops=panic quiet rdinit=/init", cfg->console);
	/* Under TCG a vCPU is a host thread: on a loaded host (two VMs of -j 2 and a build on
	 * two cores) a guest saw "soft lockup - CPU#0 stuck for 26s" in a crypto self-test, a
	 * false crash. The largest watchdog_thresh (60: soft lockups reported after 120 s) and a
	 * 120 s RCU stall timeout keep real lockups visible without the false ones. */
	if (accel == QEMU_ACCEL_TCG)
		strbuf_addstr(&sb, " watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120");
	if (cfg->append && *cfg->append)
		strbuf_addf(&sb, " %s", cfg->append);
	if (extra && *extra)
		strbuf_addf(&sb, " %s", extra);
	return strbuf_detach(&sb);
}

static void add_quoted(struct strbuf *sb, const char *s)
{
	bool plain = *s != '\0';

	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%",
			    *p))
			plain = false;
	if (plain) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '\'');
}

char *qemu_argv_shell(const struct strlist *argv)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_grow(&sb, 0);
	for (size_t i = 0; i < argv->n; i++) {
		if (i)
			strbuf_addch(&sb, ' ');
		add_quoted(&sb, argv->v[i]);
	}
	return strbuf_detach(&sb);
}

const char *qemu_package_hint(const struct arch_config *cfg)
{
	return cfg->qemu_package && *cfg->qemu_package ? cfg->qemu_package : "qemu-system";
}
