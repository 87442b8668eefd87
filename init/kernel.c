// SPDX-License-Identifier: GPL-2.0-only
/* kernel.c: kernel health around one test: new taint bits and new /dev/kmsg records. */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"

/* Taint bits that mean the kernel misbehaved (Documentation/admin-guide/tainted-kernels.rst):
 * M machine check, B bad page, D died (oops), W warning, L soft lockup. The others (O, E, N,
 * ...) come from loading modules, which tests do on purpose (N is every KUnit module). */
#define TAINT_BAD ((1ul << 4) | (1ul << 5) | (1ul << 7) | (1ul << 9) | (1ul << 14))
/* The kernel's taint_flags[] letters, bit 0 first (kernel/panic.c, 6.1). */
static const char taint_chars[] = "PFSRMBUDAWCIOELKXTN";

/* A kernel report starts with one of these (lib/bug.c, mm/kasan, arch fault handlers...). */
static const char *const bad_prefixes[] = {
	"WARNING:",
	"BUG:",
	"kernel BUG at",
	"Oops",
	"general protection fault",
	"Unable to handle kernel",
	"Internal error:",
	"UBSAN:",
	"KASAN:",
	"KFENCE:",
	"Kernel panic",
	"INFO: task",
	"INFO: rcu",
	"rcu: INFO:",
	"Call Trace:",
	"Call trace:",
	"list_add corruption",
	"list_del corruption",
	"kernel tried to execute",
	"unreferenced object",
	"watchdog: BUG:",
	"NMI backtrace",
};

const char *init_taint_letters(unsigned long taint, char *buf, size_t size)
{
	size_t n = 0;

	for (unsigned b = 0; b < sizeof(taint_chars) - 1 && n + 1 < size; b++)
		if (taint & (1ul << b))
			buf[n++] = taint_chars[b];
	buf[n] = '\0';
	return buf;
}

bool init_kernel_line_is_bad(const char *msg)
{
	for (size_t i = 0; i < sizeof(bad_prefixes) / sizeof(bad_prefixes[0]); i++)
		if (!strncmp(msg, bad_prefixes[i], strlen(bad_prefixes[i])))
			return true;
	return false;
}

/* The file stays open and is read again from offset 0 (a sysctl file produces its value on
 * every read): an open and a close per read cost more than the read under TCG, twice a test. */
static bool read_taint(struct init_kernel *k, unsigned long *v)
{
	char buf[64];
	ssize_t n;

	if (!k->taint_open) {
		k->taint_fd = open(k->taint_path, O_RDONLY | O_CLOEXEC);
		if (k->taint_fd < 0)
			return false;
		k->taint_open = true;
	}
	do
		n = pread(k->taint_fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	*v = strtoul(buf, NULL, 10);
	return true;
}

void init_kernel_begin(struct init_kernel *k)
{
	if (k->kmsg_fd >= 0 && !k->kmsg_at_end)
		lseek(k->kmsg_fd, 0, SEEK_END);
	if (k->after_known) {
		k->taint_before = k->taint_after;
		k->taint_known = true;
	} else {
		k->taint_known = k->taint_path && read_taint(k, &k->taint_before);
	}
}

/* One record: "prio,seq,usec,flags[,more];message" (Documentation/ABI/testing/dev-kmsg). */
static void one_record(const char *rec, size_t n, struct strbuf *out, struct init_health *h)
{
	const char *semi = memchr(rec, ';', n);
	struct strbuf text;
	unsigned long prio;

	if (!semi || rec[0] < '0' || rec[0] > '9')
		return;
	prio = strtoul(rec, NULL, 10);
	/* Only the kernel's own (facility 0: a write to /dev/kmsg without a "<N>" prefix is
	 * LOG_USER) at warning (4) or worse; the level is the low 3 bits. */
	if ((prio >> 3) != 0 || (prio & 7) > 4)
		return;
	strbuf_init(&text);
	init_sanitize(&text, semi + 1, n - (size_t)(semi + 1 - rec));
	if (!h->first_bad && init_kernel_line_is_bad(text.buf))
		h->first_bad = xstrdup(text.buf);
	if (h->lines < INIT_KMSG_LINES_MAX)
		strbuf_addf(out, "%*s# kernel: %s\n", TAPBOOT_NEST_INDENT, "", text.buf);
	else if (h->lines == INIT_KMSG_LINES_MAX)
		strbuf_addf(out, "%*s# kernel: (more lines not shown)\n", TAPBOOT_NEST_INDENT, "");
	h->lines++;
	strbuf_release(&text);
}

void init_kmsg_parse(const char *buf, size_t len, struct strbuf *out, struct init_health *h)
{
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		/* Continuation lines (" SUBSYSTEM=...") carry dictionary data, not text. */
		if (n && buf[0] != ' ')
			one_record(buf, n, out, h);
		buf += n + (nl ? 1 : 0);
		len -= n + (nl ? 1 : 0);
	}
}

void init_kernel_end(struct init_kernel *k, struct strbuf *out, struct init_health *h)
{
	/* /dev/kmsg returns one record per read and needs room for the longest (8 KiB,
	 * CONSOLE_EXT_LOG_MAX); a regular file (host tests) returns as much as fits. */
	char *buf = xmalloc(16384);

	memset(h, 0, sizeof(*h));
	k->kmsg_at_end = false;
	while (k->kmsg_fd >= 0) {
		ssize_t n = read(k->kmsg_fd, buf, 16384);

		if (n < 0 && errno == EPIPE)
			continue; /* records were overwritten before we read them */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			k->kmsg_at_end = n == 0 || errno == EAGAIN;
			break;
		}
		init_kmsg_parse(buf, (size_t)n, out, h);
	}
	free(buf);
	k->after_known = false;
	if (k->taint_known && read_taint(k, &k->taint_after)) {
		k->after_known = true;
		h->taint_after = k->taint_after;
		h->new_taint = k->taint_after & ~k->taint_before;
		h->bad_taint = h->new_taint & TAINT_BAD;
		if (h->new_taint) {
			char letters[32];

			strbuf_addf(out, "%*s# kernel: taint changed from %lu to %lu (new: %s)\n",
				    TAPBOOT_NEST_INDENT, "", k->taint_before, k->taint_after,
				    init_taint_letters(h->new_taint, letters, sizeof(letters)));
		}
	}
}

void init_health_release(struct init_health *h)
{
	free(h->first_bad);
	memset(h, 0, sizeof(*h));
}
