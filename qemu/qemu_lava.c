// SPDX-License-Identifier: GPL-2.0-only
/* qemu_lava.c: QEMU's command line in LAVA's device context, written and read back. */
#include "qemu_lava.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

static void push_opt(struct strlist *opts, const char *opt, const char *value)
{
	char *s = xasprintf("%s %s", opt, value);

	strlist_push(opts, s);
	free(s);
}

static void push_num(struct strlist *opts, const char *opt, unsigned value)
{
	char *s = xasprintf("%s %u", opt, value);

	strlist_push(opts, s);
	free(s);
}

void qemu_lava_context_options(const struct qemu_lava *l, bool with_machine_cpu,
			       struct strlist *opts)
{
	if (with_machine_cpu)
		push_opt(opts, "-machine", l->machine);
	if (with_machine_cpu && !l->kvm && l->cpu && *l->cpu)
		push_opt(opts, "-cpu", l->cpu);
	push_num(opts, "-smp", l->smp);
	strlist_push(opts, "-no-reboot");
}

void qemu_lava_template_options(const struct qemu_lava *l, struct strlist *opts)
{
	strlist_push(opts, "-nographic");
	strlist_push(opts, "-nic none");
	push_num(opts, "-m", l->memory_mb);
	strlist_push(opts, "-monitor none");
	if (l->kvm) {
		strlist_push(opts, "-cpu host");
		strlist_push(opts, "-enable-kvm");
	}
}

char *qemu_lava_kernel_arg(const char *cmdline)
{
	return xasprintf("-kernel {kernel} -append \"%s\"", cmdline);
}

char *qemu_lava_ramdisk_arg(void)
{
	return xstrdup("-initrd {ramdisk}");
}

/* The word after key in a command line ("-machine q35"), or NULL. */
static char *word_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	size_t n;

	if (!p)
		return NULL;
	p += strlen(key);
	n = strcspn(p, " \"");
	return n ? xstrndup(p, n) : NULL;
}

void qemu_lava_read_boot_command(const char *cmd, char **machine, char **qemu_arch, bool *kvm)
{
	const char *q = strstr(cmd, "qemu-system-");

	free(*machine);
	*machine = word_after(cmd, " -machine ");
	if (!*machine)
		*machine = word_after(cmd, " -M ");
	free(*qemu_arch);
	*qemu_arch = q ? word_after(q, "qemu-system-") : NULL;
	*kvm = strstr(cmd, "-enable-kvm") || strstr(cmd, "accel=kvm");
}
