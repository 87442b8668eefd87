// SPDX-License-Identifier: GPL-2.0-only
/* crash_sig.c: crash signatures of a kernel console: the scan that gathers its lkp ids (the ids
 * of each line are crash_id.c's), a syzkaller-style title, and the signature of a file. */
#include "crash_sig.h"

#include <fcntl.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash_id.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"

void crash_scan_init(struct crash_scan *s)
{
	memset(s, 0, sizeof(*s));
}

void crash_scan_release(struct crash_scan *s)
{
	for (size_t i = 0; i < s->nhits; i++) {
		free(s->hits[i].id);
		free(s->hits[i].text);
	}
	free(s->hits);
	free(s->title);
	crash_scan_init(s);
}

static void add_hit(struct crash_scan *s, char *id, size_t line, const char *text, size_t len)
{
	if (!id)
		return;
	for (size_t i = 0; i < s->nhits; i++)
		if (!strcmp(s->hits[i].id, id)) {
			free(id);
			return;
		}
	xgrow(&s->hits, &s->alloc, s->nhits + 1, sizeof(*s->hits));
	s->hits[s->nhits].id = id;
	s->hits[s->nhits].line = line;
	s->hits[s->nhits].text = xstrndup(text, len);
	s->nhits++;
}

static void add_calltrace(struct crash_scan *s, const char *l, size_t line, const char *text,
			  size_t len)
{
	if (!l || crash_id_calltrace_ignored(l))
		return;
	const char *p = strstr(l, ">] ");
	while (p) {
		const char *f = p + 3, *e = f;
		while (crash_id_is_word(*e) || *e == '.')
			e++;
		if (e > f && !strncmp(e, "+0x", 3)) {
			add_hit(s, xasprintf("calltrace:%.*s", (int)(e - f), f), line, text, len);
			return;
		}
		p = strstr(p + 1, ">] ");
	}
}

/* The lock-dependency reports name the locks and tasks in the next lines; lkp joins the first
 * four "trying to acquire lock" / "already holding lock" / "at: " lines into a second id. */
static char *lock_context(const char *line, const char *next, const char *end)
{
	struct strbuf sb;
	int found = 0;
	strbuf_init(&sb);
	strbuf_addstr(&sb, line);
	for (int n = 0; n < 30 && next < end && found < 4; n++) {
		const char *nl = memchr(next, '\n', end - next);
		size_t len = nl ? (size_t)(nl - next) : (size_t)(end - next);
		char *l = xstrndup(next, len);
		size_t ll = strlen(l);
		if (ll && l[ll - 1] == '\r')
			l[--ll] = '\0';
		const char *at = NULL;
		for (const char *q = l; (q = strstr(q, " at:")); q++)
			at = q;
		if (strstr(l, "trying to acquire lock") || strstr(l, "already holding lock") ||
		    strstr(l, "at: ")) {
			const char *t = l;
			if (at)
				t = at + 1;
			else if (*t == '[') {
				const char *c = strstr(t, "] ");
				/* the greedy ^\[.*\]  of lkp: up to the last "] " */
				for (const char *q = c; q; q = strstr(q + 1, "] "))
					c = q;
				if (c)
					t = c + 2;
			}
			strbuf_addch(&sb, ' ');
			strbuf_addstr(&sb, t);
			found++;
		}
		free(l);
		next = nl ? nl + 1 : end;
	}
	if (!found) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

static char *syz_title(const char *buf, size_t len, size_t from, size_t *title_line);

void crash_scan_text(struct crash_scan *s, const char *buf, size_t len)
{
	if (!crash_id_ready())
		return;
	const char *p = buf, *end = buf + len;
	size_t lineno = 0;
	char *prev = NULL;
	bool has_oom = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *next = nl ? nl + 1 : end;
		lineno++;
		/* tapboot's init forwards the kernel's messages as "# kernel: MSG" TAP comments, and
		 * a failing test's YAML repeats the warning in its reason: the former are the
		 * kernel's lines, the latter is tapboot's */
		const char *lp = p;
		size_t ln = n;
		while (ln && (*lp == ' ' || *lp == '\t'))
			lp++, ln--;
		if (ln > 10 && !memcmp(lp, "# kernel: ", 10)) {
			p = lp + 10;
			n = ln - 10;
		} else if (ln > 9 && !memcmp(lp, "reason: \"", 9)) {
			n = 0;
		}
		if (n > 1 && crash_id_needle_hit(p, n)) {
			char *raw = xstrndup(p, n);
			size_t rl = strlen(raw); /* shorter than n when the line holds a NUL byte */
			while (rl && (raw[rl - 1] == '\r'))
				raw[--rl] = '\0';
			char *l = crash_id_undecode(raw);
			/* lkp's fixup_dmesg: build paths and .isra suffixes out; a line with a
			 * second timestamp inside is two messages run together */
			crash_id_drop_isra(&l);
			char *parts[2] = {l, NULL};
			const char *from = *l ? l + 1 : l;
			const char *last = NULL;
			while (*from && (from = crash_id_timestamp(from))) {
				last = from;
				from = last + 1;
			}
			if (last && strncmp(l, "kern  :", 7) && strncmp(l, "user  :", 7) &&
			    strncmp(l, "daemon:", 7) && l[0] != '<') {
				parts[1] = xstrdup(last);
				l[last - l] = '\0';
			}
			for (int k = 0; k < 2 && parts[k]; k++) {
				const char *x = parts[k];
				char *hit = crash_id_problem_match(x);
				bool off = strstr(x, "+0x") != NULL;
				if ((!hit && !off) || crash_id_ignored_line(x)) {
					free(hit);
					continue;
				}
				if (hit) {
					add_hit(s, crash_sig_line_id(hit), lineno, raw, rl);
					free(hit);
					if (strstr(x, "invoked oom-killer: gfp_mask=") ||
					    strstr(x, "Out of memory and no killable processes..."))
						has_oom = true;
					if (strstr(x, "possible recursive locking detected") ||
					    strstr(x, "possible circular locking dependency detected")) {
						char *ctx = lock_context(x, next, end);
						char *cm = ctx ? crash_id_problem_match(ctx) : NULL;
						if (cm)
							add_hit(s, crash_sig_line_id(cm), lineno, raw, rl);
						free(cm);
						free(ctx);
					}
				} else if (!strstr(x, " ? ")) {
					if (crash_id_calltrace_entry(x)) {
						if (!has_oom) {
							if (!strstr(x, "SyS_"))
								add_calltrace(s, prev, lineno, raw, rl);
							add_calltrace(s, x, lineno, raw, rl);
						}
						free(prev);
						prev = NULL;
					} else {
						free(prev);
						prev = xstrdup(x);
					}
				}
			}
			free(parts[1]);
			free(l);
			free(raw);
		}
		p = next;
	}
	free(prev);
	s->nlines = lineno;
	/* the crash header is the first problem line or, for a few titles, a later one: no need to
	 * look at what came before */
	if (s->nhits)
		s->title = syz_title(buf, len, s->hits[0].line, &s->title_line);
}

/* --- syzkaller-style titles ------------------------------------------------------------- */

/* Frames that are the reporting machinery, not the culprit (syzkaller's skip list, shortened). */
static bool skip_frame(const char *f)
{
	static const char *const pre[] = {
		"__warn", "warn_", "report_bug", "dump_stack", "show_stack", "panic", "kasan_",
		"__kasan", "check_memory_region", "print_address", "print_report", "lock_acquire",
		"lock_release", "_raw_spin", "do_raw_spin", "spin_", "mutex_", "__mutex", "kfree",
		"kmalloc", "__kmalloc", "kzalloc", "kcalloc", "kvmalloc", "slab_", "__slab",
		"kmem_cache", "fixup_bug", "do_error_trap", "do_trap", "handle_bug", "exc_",
		"asm_exc_", "do_invalid_op", "invalid_op", "page_fault", "do_page_fault",
		"__do_page_fault", "bad_area", "no_context", "__bad_area", "do_user_addr_fault",
		"kernelmode_fixup_or_oops", "page_fault_oops", "die", "oops_", "ubsan_", "__ubsan",
		"lkdtm_do_action", "memcpy", "memset", "memmove", "strcpy", "strlen", "copy_to_user",
		"copy_from_user", "_copy_", "__might_", "___might_",
	};
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(f, pre[i], strlen(pre[i])))
			return true;
	return false;
}

/* The function name at s ("func+0x..", "func (file:line)", "func.cold+0x"), syscall
 * wrappers' prefixes dropped; NULL if s does not start with one. */
static char *frame_name(const char *s)
{
	const char *e = s;
	while (crash_id_is_word(*e))
		e++;
	if (e == s || (*e != '+' && *e != '.' && strncmp(e, " (", 2)))
		return NULL;
	static const char *const wrap[] = {"__x64_sys_", "__ia32_sys_", "__arm64_sys_",
					   "__do_sys_", "__se_sys_", "ksys_", "SyS_", "__sys_"};
	for (size_t i = 0; i < sizeof(wrap) / sizeof(wrap[0]); i++) {
		size_t wl = strlen(wrap[i]);
		if ((size_t)(e - s) > wl && !strncmp(s, wrap[i], wl)) {
			return xstrndup(s + wl, e - s - wl);
		}
	}
	return xstrndup(s, e - s);
}

/* Strip timestamp and caller tag (and tapboot's "# kernel: "): the message of a console line. */
static const char *msg_start(const char *l)
{
	const char *p = l;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncmp(p, "# kernel: ", 10))
		return p + 10;
	for (int k = 0; k < 2; k++) {
		while (*p == ' ')
			p++;
		if (*p == '[') {
			const char *c = strchr(p, ']');
			if (!c)
				break;
			p = c + 1;
		}
	}
	while (*p == ' ')
		p++;
	return p;
}

/* The culprit function of the crash whose header is at line h: the RIP/pc line's function, else
 * the first stack frame after it that is not reporting machinery. */
static char *culprit(const char *hdr, const char *end, bool prefer_frames)
{
	const char *p = hdr;
	char *rip = NULL, *frame = NULL;
	for (int n = 0; n < 80 && p < end && !(rip && frame); n++) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *l = xstrndup(p, len);
		const char *m = msg_start(l);
		if (n > 0 && (strstr(m, "---[ end trace") || strstr(m, "Kernel panic"))) {
			free(l);
			break;
		}
		const char *r = NULL;
		if (!strncmp(m, "RIP: ", 5) && strchr(m + 5, ':'))
			r = strchr(m + 5, ':') + 1;
		else if (!strncmp(m, "pc : ", 5))
			r = m + 5;
		else if (!strncmp(m, "EIP: ", 5))
			r = m + 5;
		if (r && !rip) {
			if (!strncmp(r, "[<", 2) && strstr(r, "] "))
				r = strstr(r, "] ") + 2;
			while (*r == ' ')
				r++;
			rip = frame_name(r);
			if (rip && skip_frame(rip)) {
				free(rip);
				rip = NULL;
			}
		} else if (n > 0 && !frame) {
			const char *f = m;
			if (!strncmp(f, "? ", 2)) {
				free(l);
				p = nl ? nl + 1 : end;
				continue;
			}
			if (!strncmp(f, "[<", 2) && strstr(f, "] "))
				f = strstr(f, "] ") + 2;
			while (*f == ' ')
				f++;
			char *fn = frame_name(f);
			if (fn && (strstr(f, "+0x") || strstr(f, " (")) && !skip_frame(fn))
				frame = fn;
			else
				free(fn);
		}
		free(l);
		p = nl ? nl + 1 : end;
	}
	char *keep = prefer_frames ? (frame ? frame : rip) : (rip ? rip : frame);
	if (keep != rip)
		free(rip);
	if (keep != frame)
		free(frame);
	return keep;
}

static char *with_func(const char *what, const char *hdr, const char *end, bool frames)
{
	char *f = culprit(hdr, end, frames);
	char *t = f ? xasprintf("%s in %s", what, f) : xstrdup(what);
	free(f);
	return t;
}

/* One header line -> title, or NULL when the line is no crash header. */
static char *title_of(const char *m, const char *hdr, const char *end)
{
	const char *q;
	if ((q = strstr(m, "BUG: KASAN: "))) {
		const char *in = strstr(q, " in ");
		const char *kind = q + 12;
		/* the access line follows the header; the console need not end in a NUL */
		size_t span = (size_t)(end - hdr);
		const char *rd = memmem(hdr, span, "Read of size", 12);
		const char *wr = memmem(hdr, span, "Write of size", 13);
		const char *rw = rd && (!wr || rd < wr) ? "Read" : "Write";
		if (in) {
			char *f = frame_name(in + 4);
			char *t = xasprintf("KASAN: %.*s %s in %s", (int)(in - kind), kind, rw,
					    f ? f : in + 4);
			free(f);
			return t;
		}
		return xasprintf("KASAN: %s", kind);
	}
	if ((q = strstr(m, "BUG: KFENCE: "))) {
		const char *in = strstr(q, " in ");
		if (in) {
			char *f = frame_name(in + 4);
			char *t = xasprintf("KFENCE: %.*s in %s", (int)(in - q - 13), q + 13,
					    f ? f : in + 4);
			free(f);
			return t;
		}
	}
	if (strstr(m, "BUG: kernel NULL pointer dereference") ||
	    strstr(m, "Unable to handle kernel NULL pointer dereference") ||
	    strstr(m, "BUG: unable to handle kernel NULL pointer dereference"))
		return with_func("BUG: unable to handle kernel NULL pointer dereference", hdr, end,
				 false);
	if (strstr(m, "BUG: unable to handle page fault") ||
	    strstr(m, "Unable to handle kernel paging request") ||
	    strstr(m, "BUG: unable to handle kernel paging request"))
		return with_func("BUG: unable to handle kernel paging request", hdr, end, false);
	if (strstr(m, "general protection fault"))
		return with_func("general protection fault", hdr, end, false);
	if (!strncmp(m, "kernel BUG at ", 14) || !strncmp(m, "Kernel BUG at ", 14) ||
	    strstr(m, "Internal error: Oops - BUG"))
		return with_func("kernel BUG", hdr, end, false);
	if (!strncmp(m, "WARNING: ", 9)) {
		const char *at = strstr(m, " at ");
		if (at && strstr(m, "PID: ")) {
			/* WARNING: CPU: 0 PID: 1 at file.c:12 func+0x.. */
			const char *sp = strchr(at + 4, ' ');
			char *f = sp ? frame_name(sp + 1) : NULL;
			char *t = f ? xasprintf("WARNING in %s", f) : with_func("WARNING", hdr, end, true);
			free(f);
			return t;
		}
		if (strstr(m, "possible circular locking dependency"))
			return with_func("possible deadlock", hdr, end, true);
		if (strstr(m, "suspicious RCU usage"))
			return xstrdup("WARNING: suspicious RCU usage");
		return xstrdup(m);
	}
	if ((q = strstr(m, "UBSAN: ")) == m) {
		const char *in = strstr(m, " in ");
		char *what = xstrndup(m, in ? (size_t)(in - m) : strlen(m));
		char *t = with_func(what, hdr, end, true);
		free(what);
		return t;
	}
	if (!strncmp(m, "INFO: task ", 11) && strstr(m, "blocked for more than"))
		return with_func("INFO: task hung", hdr, end, true);
	if (strstr(m, "soft lockup - CPU#"))
		return with_func("BUG: soft lockup", hdr, end, true);
	if (strstr(m, "rcu") && strstr(m, "stall"))
		return with_func("INFO: rcu detected stall", hdr, end, true);
	if (!strncmp(m, "invalid opcode: ", 16))
		return with_func("invalid opcode", hdr, end, false);
	if (!strncmp(m, "divide error: ", 14))
		return with_func("divide error", hdr, end, false);
	if (!strncmp(m, "Kernel panic - not syncing: ", 28))
		return xasprintf("kernel panic: %s", m + 28);
	if (!strncmp(m, "BUG: ", 5)) {
		/* "BUG: sleeping function called ..." -> up to the first ':' or digit run */
		size_t n = strcspn(m + 5, ":,0123456789");
		while (n && m[5 + n - 1] == ' ')
			n--;
		char *what = xasprintf("BUG: %.*s", (int)n, m + 5);
		char *t = with_func(what, hdr, end, true);
		free(what);
		return t;
	}
	if (!strncmp(m, "Oops: ", 6) || strstr(m, "Internal error: "))
		return with_func("Oops", hdr, end, false);
	return NULL;
}

static char *syz_title(const char *buf, size_t len, size_t from, size_t *title_line)
{
	const char *p = buf, *end = buf + len;
	size_t lineno = 0;
	while (p < end && lineno + 1 < from) {
		const char *nl = memchr(p, '\n', end - p);
		lineno++;
		p = nl ? nl + 1 : end;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		if (n > 5 && (memmem(p, n, "BUG", 3) || memmem(p, n, "WARNING: ", 9) ||
			      memmem(p, n, "UBSAN: ", 7) || memmem(p, n, "INFO: ", 6) ||
			      memmem(p, n, "fault", 5) || memmem(p, n, "Kernel panic", 12) ||
			      memmem(p, n, "Oops", 4) || memmem(p, n, "error: ", 7) ||
			      memmem(p, n, "Unable to handle", 16) || memmem(p, n, "Internal error", 14))) {
			char *l = xstrndup(p, n);
			size_t ll = strlen(l);
			while (ll && (l[ll - 1] == '\r' || l[ll - 1] == ' '))
				l[--ll] = '\0';
			char *t = title_of(msg_start(l), p, end);
			free(l);
			if (t) {
				*title_line = lineno;
				return t;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

/* --- crash_sig -------------------------------------------------------------------------- */

bool crash_sig_id_is_crash(const char *id)
{
	static const char *const crash[] = {"BUG:", "BUG_", "Oops", "RIP:", "EIP", "Kernel_panic",
					    "kernel_BUG", "general_protection", "invalid_opcode",
					    "divide_error", "UBSAN:", "KASAN", "PANIC"};
	for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		if (!strncmp(id, crash[i], strlen(crash[i])))
			return true;
	return false;
}

struct crash_sig *crash_sig_from_text(const char *buf, size_t len)
{
	struct crash_scan s;
	crash_scan_init(&s);
	crash_scan_text(&s, buf, len);
	if (!s.nhits) {
		crash_scan_release(&s);
		return NULL;
	}
	struct crash_sig *sig = xcalloc(1, sizeof(*sig));
	sig->ids = xcalloc(s.nhits, sizeof(*sig->ids));
	for (size_t i = 0; i < s.nhits; i++) {
		sig->ids[i] = s.hits[i].id;
		s.hits[i].id = NULL;
	}
	sig->nids = s.nhits;
	if (s.title) {
		sig->title = s.title;
		s.title = NULL;
	} else {
		sig->title = xstrdup(sig->ids[0]);
	}
	sig->excerpt = crash_scan_excerpt(&s, buf, len);
	crash_scan_release(&s);
	return sig;
}

/* The line after the one at p (end when there is none). */
static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', end - p);

	return nl ? nl + 1 : end;
}

char *crash_scan_excerpt(const struct crash_scan *s, const char *buf, size_t len)
{
	size_t first = s->title_line ? s->title_line : s->hits[0].line;
	const char *p = buf, *q, *end = buf + len;

	for (size_t i = 0; i < s->nhits; i++)
		if (s->hits[i].line < first)
			first = s->hits[i].line;
	for (size_t l = 1; l < first && p < end; l++)
		p = next_line(p, end);
	q = p;
	for (int l = 0; l < 60 && q < end; l++)
		q = next_line(q, end);
	return xstrndup(p, q - p);
}

struct crash_sig *crash_sig_from_file(const char *path)
{
	struct crash_sig *sig;
	struct stat st;
	char *buf;
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	/* Mapped, not copied: tapboot parse reads a 100 MB console twice (the parser, then this
	 * scan), and reading it into a buffer grown by doubling cost 25,000 page faults and a
	 * copy of the file (63% of the parse's faults, about 5 us each on a para-virtualised
	 * host). */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX / 2) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);

		if (m != MAP_FAILED) {
			close(fd);
			sig = crash_sig_from_text(m, (size_t)st.st_size);
			munmap(m, (size_t)st.st_size);
			return sig;
		}
	}
	close(fd);
	/* an empty file, a pipe, a mapping refused */
	if (read_file(path, &buf, &len) < 0)
		return NULL;
	sig = crash_sig_from_text(buf, len);
	free(buf);
	return sig;
}

void crash_sig_free(struct crash_sig *sig)
{
	if (!sig)
		return;
	for (size_t i = 0; i < sig->nids; i++)
		free(sig->ids[i]);
	free(sig->ids);
	free(sig->title);
	free(sig->excerpt);
	free(sig);
}
