/* qemu_argv.c: builds QEMU's command line; nothing else in tapboot knows QEMU's options. */
#include "qemu_argv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "launch.h"
#include "strbuf.h"

static void push_split(struct strlist *argv, const char *words)
{
	char *copy = xstrdup(words), *save = NULL;

	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		strlist_push(argv, w);
	free(copy);
}

void qemu_argv_build(const struct qemu_boot *b, struct strlist *argv)
{
	const struct arch_config *c = b->cfg;
	const char *machine = b->machine;
	const char *cpu = b->cpu;
	char num[32];

	if (!machine)
		machine = b->bzimage && c->machine_bzimage && *c->machine_bzimage ?
				  c->machine_bzimage :
				  c->machine;
	if (!cpu)
		cpu = b->accel == QEMU_ACCEL_KVM ? c->cpu_kvm : c->cpu_tcg;

	strlist_push(argv, c->qemu);
	strlist_push(argv, "-M");
	strlist_push(argv, machine);
	strlist_push(argv, "-accel");
	/* thread=multi: one host thread per vCPU under TCG (MTTCG); thread=single: one for all. */
	strlist_push(argv, b->accel == QEMU_ACCEL_KVM ? "kvm" :
			   b->tcg_single		  ? "tcg,thread=single" :
							    "tcg,thread=multi");
	if (cpu && *cpu) {
		strlist_push(argv, "-cpu");
		strlist_push(argv, cpu);
	}
	snprintf(num, sizeof(num), "%u", b->memory_mb ? b->memory_mb : c->memory_mb);
	strlist_push(argv, "-m");
	strlist_push(argv, num);
	snprintf(num, sizeof(num), "%u",
		 b->smp ? b->smp : b->accel == QEMU_ACCEL_KVM ? c->smp : c->smp_tcg);
	strlist_push(argv, "-smp");
	strlist_push(argv, num);
	if (c->bios && *c->bios) {
		strlist_push(argv, "-bios");
		strlist_push(argv, c->bios);
	}
	/* -nographic would also put the monitor on stdio; this keeps stdio for the console only.
	 * -no-reboot turns the guest's reboot (and a panic with panic=-1) into QEMU exiting. */
	strlist_push(argv, "-no-reboot");
	strlist_push(argv, "-display");
	strlist_push(argv, "none");
	strlist_push(argv, "-monitor");
	strlist_push(argv, "none");
	strlist_push(argv, "-serial");
	strlist_push(argv, "stdio");
	/* No default NIC: q35's e1000e needs an option ROM (ipxe-qemu's efi-e1000e.rom) or QEMU
	 * refuses to start, and the guest would probe a device no test uses. */
	strlist_push(argv, "-nic");
	strlist_push(argv, "none");
	strlist_push(argv, "-kernel");
	strlist_push(argv, b->kernel);
	strlist_push(argv, "-initrd");
	strlist_push(argv, b->initrd);
	strlist_push(argv, "-append");
	strlist_push(argv, b->cmdline);
	if (b->tests_image) {
		/* share=on: the guest reads the host's file itself, and QEMU's x-ignore-shared
		 * leaves it out of a saved state; master=on: without it ivshmem blocks migration
		 * ("peer mode"). The guest needs no driver: it maps the device's BAR 2 through
		 * sysfs. */
		char *obj = xasprintf(QEMU_TESTS_OBJECT ",share=on,mem-path=%s,size=%llu",
				      b->tests_image, b->tests_size);

		strlist_push(argv, "-object");
		strlist_push(argv, obj);
		strlist_push(argv, "-device");
		strlist_push(argv, "ivshmem-plain,memdev=tapboot-tests,master=on");
		free(obj);
	}
	if (c->qemu_args && *c->qemu_args)
		push_split(argv, c->qemu_args);
}

unsigned long long qemu_argv_ram_size(const struct strlist *argv)
{
	unsigned long long mb = 0;

	/* the last -m counts, as for QEMU */
	for (size_t i = 0; i + 1 < argv->n; i++)
		if (!strcmp(argv->v[i], "-m")) {
			const char *v = argv->v[i + 1];
			char *end;

			errno = 0;
			mb = strtoull(v, &end, 10);
			if (errno || end == v || (*end && strcmp(end, "M")) || mb > (1ull << 32))
				mb = 0;
		}
	return mb << 20;
}

int qemu_argv_ram_file(struct strlist *argv, bool share)
{
	unsigned long long size = qemu_argv_ram_size(argv);
	char *obj;

	if (!size)
		return -1;
	obj = xasprintf(QEMU_RAM_OBJECT ",size=%llu,mem-path=/proc/self/fd/%d,share=%s", size,
			QEMU_SPAWN_RAM_FD, share ? "on" : "off");
	strlist_push(argv, "-object");
	strlist_push(argv, obj);
	strlist_push(argv, "-machine");
	strlist_push(argv, "memory-backend=tapboot-ram");
	free(obj);
	return 0;
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
