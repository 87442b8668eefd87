/* lava_qemu.c: the QEMU command-line text LAVA's files carry and its log shows (LOCAL until
 * qemu/ has LAVA's device context: lava_qemu.h). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "lava_qemu.h"
#include "protocol.h"

void lava_qemu_context_options(const struct run_export *x, bool kvm, bool with_machine_cpu,
			       struct strlist *opts)
{
	char *s;

	if (with_machine_cpu) {
		s = xasprintf("-machine %s", x->machine);
		strlist_push(opts, s);
		free(s);
	}
	if (with_machine_cpu && !kvm && x->cpu && *x->cpu) {
		s = xasprintf("-cpu %s", x->cpu);
		strlist_push(opts, s);
		free(s);
	}
	s = xasprintf("-smp %u", x->smp);
	strlist_push(opts, s);
	free(s);
	/* a reboot or a panic (panic=-1) ends QEMU, as in tapboot run */
	strlist_push(opts, "-no-reboot");
}

void lava_qemu_template_options(const struct run_export *x, bool kvm, struct strlist *opts)
{
	char *s = xasprintf("-m %u", x->memory_mb);

	strlist_push(opts, "-nographic");
	strlist_push(opts, "-nic none");
	strlist_push(opts, s);
	strlist_push(opts, "-monitor none");
	if (kvm) {
		strlist_push(opts, "-cpu host");
		strlist_push(opts, "-enable-kvm");
	}
	free(s);
}

char *lava_qemu_kernel_arg(const char *cmdline)
{
	return xasprintf("-kernel {kernel} -append \"%s\"", cmdline);
}

char *lava_qemu_ramdisk_arg(void)
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

void lava_qemu_read_boot_command(const char *cmd, struct lava_run *l)
{
	const char *q = strstr(cmd, "qemu-system-");

	free(l->nonce);
	l->nonce = word_after(cmd, TAPBOOT_ARG_NONCE);
	free(l->machine);
	l->machine = word_after(cmd, " -machine ");
	if (!l->machine)
		l->machine = word_after(cmd, " -M ");
	free(l->qemu_arch);
	l->qemu_arch = q ? word_after(q, "qemu-system-") : NULL;
	l->kvm = strstr(cmd, "-enable-kvm") || strstr(cmd, "accel=kvm");
}
