// SPDX-License-Identifier: GPL-2.0-only
/* crash_id.c: the lkp ids of console lines (crash_id.h).
 *
 * The lkp rules (intel/lkp-tests lib/dmesg.rb, etc/oops-pattern): a line counts when it matches a
 * known problem pattern or holds "+0x"; its id is the line with the timestamp and caller tag
 * dropped, known shapes cut to their stable part, then numbers, hex and addresses turned into '#'
 * and spaces into '_'. Call-trace lines through a few well-known entry points give
 * "calltrace:FUNC" ids. Lines decoded by the kernel's scripts/decode_stacktrace.sh
 * ("func (file.c:12)") are turned back into "func+0x0/0x0" first, since the robot computes its
 * ids on the raw console. */
#include "crash_id.h"

#include <pthread.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash_sig.h"
#include "error.h"
#include "strbuf.h"

/* A problem pattern: a literal that any matching line holds (the fast filter), and an extended
 * regex run on the raw line when the literal alone is not the pattern. lkp's id is computed from
 * the matched text, not the whole line, so each regex matches exactly what lkp's does (".*" at
 * the end takes the rest of the line); eol marks the literal-only ones that do the same. The
 * order matters: at the same position the earlier pattern wins, as in lkp's alternation. */
struct problem {
	const char *needle;
	const char *re;
	bool eol;
};

static const struct problem problems[] = {
	{" -- System halted", NULL, false},
	{" but this task is not holding: ", " but this task is not holding: .*", false},
	{" is exiting with locks still held!", NULL, false},
	{" is freeing memory ", " is freeing memory .*, with a lock still held there!", false},
	{" is leaving the kernel with locks still held!", NULL, false},
	{" is trying to contend lock (", " is trying to contend lock \\(.*\\) at", false},
	{" is trying to lock: ", NULL, true},
	{" is trying to release lock (", " is trying to release lock \\(.*\\) at", false},
	{"32-bit relocation outside of kernel!", NULL, false},
	{"64-bit relocation outside of kernel!", NULL, false},
	{"addition on 0; use-after-free", NULL, false},
	{"Assertion failed", NULL, false},
	{"assertion failed", NULL, false},
	{"Assertion failure", NULL, false},
	{"assertion failure", NULL, false},
	{"audit: (", "audit: \\(.*\\) error: .*", false},
	{"BUG ", "BUG .* \\(.*\\): .*", false},
	{"CFI failure at ", "CFI failure at [a-zA-Z0-9_]+", false},
	{" cpu clock throttled ", "CPU[0-9]+: .* cpu clock throttled .*", false},
	{"decrement hit 0; leaking memory", NULL, false},
	{"Destination address inappropriately aligned", NULL, false},
	{"Destination address too large", NULL, false},
	{"EIP is at ", "EIP is at [a-zA-Z0-9._]+\\+0x.*/0x.*", false},
	{"EIP: ", "EIP: [a-zA-Z0-9._]+\\+0x[a-f0-9]+/0x[a-f0-9]+", false},
	{"Failed to allocate space for phdrs", NULL, false},
	{"failed to enable IOPF feature", NULL, false},
	{"genirq: Flags mismatch irq ", NULL, true},
	{"getblk(): invalid block size ", "getblk\\(\\): invalid block size [0-9]+ requested", false},
	{"GUP no longer grows the stack", NULL, false},
	{"inconsistent {", "inconsistent \\{.*\\} -> \\{.*\\} usage\\.", false},
	{"INFO: ", "INFO: .* cpu=.*", false},
	{"INFO: ", "INFO: .*detected stall.*", false},
	{"INFO: 0x", "INFO: 0x.*\\. First byte 0x.*", false},
	{"INFO: Object 0x", NULL, true},
	{"INFO: Slab 0x", NULL, true},
	{"INFO: task ", "INFO: task .* blocked for more than .* seconds", false},
	{"INFO: trying to register non-static key", NULL, false},
	{"initcall ", "initcall .* returned with .*", false},
	{"Initiating system reboot", NULL, false},
	{"Initramfs unpacking failed:", NULL, false},
	{"invoked oom-killer: gfp_mask=0x", NULL, false},
	{"IP-Config: Auto-configuration of network failed", NULL, false},
	{" nobody cared", "irq .* nobody cared", false},
	{"KASAN: ", NULL, true},
	{"Kernel BUG at", NULL, false},
	{"kernel BUG at ", NULL, true},
	{"Kernel is not a valid ELF file", NULL, false},
	{"Kernel panic - not syncing: ", NULL, true},
	{"KGDB: re-enter exception: ALL breakpoints killed", NULL, false},
	{"kobject ", "kobject .*: (tried to .*|invalid kobject pointer!|must have a ktype to be "
		     "initialized properly!)", false},
	{"low stack detected by irq handler", NULL, false},
	{"Mem-Info:", NULL, false},
	{"neighbour: Destroying alive neighbour", NULL, true},
	{"no CFI hash found at", NULL, true},
	{"Oops: ", NULL, true},
	{"Out of memory and no killable processes", NULL, false},
	{"Out of memory: Kill process", NULL, false},
	{"page allocation failure: order:", "page allocation failure: order:[0-9]+, mode:0x.*", false},
	{"pagealloc: memory corruption", NULL, false},
	{"pagealloc: single bit error", NULL, false},
	{"PANIC: double fault,", NULL, false},
	{"PANIC: early exception", NULL, false},
	{"refcount_t: underflow; use-after-free", NULL, false},
	{"RIP: ", "RIP: [0-9a-f]{4}:[a-zA-Z0-9._]+\\+0x.*/0x.*", false},
	{"RIP: ", "RIP: [0-9a-f]{4}:\\[.*\\] [a-zA-Z0-9._]+\\+0x.*/0x.*", false},
	{"rootfs image is not initramfs (invalid magic at start of compressed archive)", NULL, false},
	{" bad frame in 32bit sigreturn", "rsyslogd.* bad frame in 32bit sigreturn", false},
	{"S0Box: more than 5 loops in s0box_interrupt", NULL, false},
	{"saturated; leaking memory", NULL, false},
	{"smp: csd: Re-sending CSD lock", NULL, false},
	{"sysctl could not get directory:", NULL, false},
	{"sysctl duplicate entry:", NULL, false},
	{"sysctl link missing during unregister:", NULL, false},
	{"sysctl table check failed:", NULL, false},
	{"sysfs: cannot create duplicate filename", NULL, false},
	{"UBSAN: ", NULL, true},
	{"Unknown interrupt or fault at:", NULL, false},
	{"unknown saturation event", NULL, false},
	{"WARNING: ", "WARNING: .* detected$", false},
	{"WARNING: ", "WARNING: .* lock.*", false},
	{"WARNING: ", "WARNING: .*!$", false},
	{"WARNING: at ", NULL, true},
	{"WARNING: bad lookup idx: ", NULL, true},
	{"WARNING: chain_key collision", NULL, false},
	{"WARNING: CPU: ", "WARNING: CPU: [0-9]+ PID: .+ at .*", false},
	{"WARNING: dead process", NULL, false},
	{"WARNING: kernel stack", NULL, false},
	{"WARNING: stack recursion", NULL, false},
	{"WARNING: suspicious RCU usage", NULL, false},
	{"WARNING: workqueue cpumask:", NULL, false},
	{"warn_alloc_failed+0x", NULL, false},
	{"Wrong destination address", NULL, false},
	{" [#", "[a-zA-Z0-9_ #]+: [0-9a-f]{4} \\[#[0-9]+\\]", false},
	{": BUG: ", "[a-zA-Z0-9_ -]+: BUG: .*", false},
	{".c:", "[^ ]*\\.[ch]:[0-9]+ .*!$", false},
	{".h:", "[^ ]*\\.[ch]:[0-9]+ .*!$", false},
	{"] BUG: ", "\\[ *[0-9.]+\\] BUG: .*", false},
	{"[ BUG: ", "\\[ BUG: [^b].*! \\]", false},
	{"[ INFO: ", "\\[ INFO: [^i].* \\]", false},
	{"] BUG: ", "\\[ {0,4}[A-Z][0-9]{1,5}\\] BUG: .*", false},
	{"[drm:", "\\[drm:.*\\[i915\\]\\]", false},
	{"BUG: ", "^BUG: .*", false},
	{"dmesg.", "^dmesg\\.(BUG:|BUG_|invoked_oom-killer:gfp_mask=0x|kernel_BUG_at|"
		   "Kernel_panic-not_syncing:|Oops:|Out_of_memory|page_allocation_failure:order:)",
	 false},
};
#define NPROBLEMS (sizeof(problems) / sizeof(problems[0]))

/* Lines lkp deliberately does not count (test modules that crash on purpose, trinity noise). */
static const char *const ignored_re[] = {
	"BUG: KASAN: .* \\[kasan_test\\]",
	"BUG: KFENCE: .* \\[kfence_test\\]",
	"INFO: NMI handler .* took too long to run",
	"INFO: Stall ended before state dump start",
	"Killed process [0-9]+ \\(",
	"Out of memory: .*trinity",
	"Spectre V2 : WARNING: Unprivileged eBPF is enabled",
	"trinity.*: page allocation (failure|stalls for)",
};
#define NIGNORED (sizeof(ignored_re) / sizeof(ignored_re[0]))

/* The id cut to the stable part of a known message: the first pattern that matches wins and
 * its parenthesised groups, joined, become the line. */
static const char *const known_re[] = {
	"(INFO: rcu[_a-z]* self-detected stall on CPU)",
	"(INFO: rcu[_a-z]* detected stalls on CPUs/tasks:)",
	"(related general protection fault:)",
	"(BUG: using __this_cpu_read\\(\\) in preemptible)",
	"(BUG: unable to handle kernel)",
	"(BUG: workqueue leaked lock or atomic:)",
	"(BUG: scheduling while atomic:)",
	"(BUG: Bad page map in process)",
	"(BUG: Bad page state in process)",
	"(BUG: Bad page cache in process)",
	"(BUG: soft lockup - CPU#[0-9]+ stuck for [0-9]+s!.*)",
	"(BUG: spinlock .* on CPU#[0-9]+)",
	"(Out of memory: Kill process) [0-9]+ \\(",
	"(Writer stall state [A-Za-z0-9_]*).+ g[0-9]+ c[0-9]+ f",
	"(BUG: workqueue lockup - pool)",
	"(rcu_sched kthread starved) for [0-9]+ jiffies",
	"(Could not create tracefs)",
	"(used greatest stack depth:)",
	"(BUG: KASAN: [a-z_ -]+ in [a-z_]+)\\+",
	"(BUG: KFENCE: [a-z_ -]+ in [a-z_]+)\\+",
	"(cpu clock throttled)",
	"(Kernel panic - not syncing: No working init found\\.)  Try passing init= option",
	"(Kernel panic - not syncing: No init found\\.)  Try passing init= option",
	/* two-part messages: the parts around the variable middle */
	"(BUG: ).* (still has locks held)",
	"(INFO: task ).* (blocked for more than [0-9]+ seconds)",
	"(BUG: key )[0-9a-f]+ (not in .data)",
	"(BUG: Dentry ).* (still in use) .* \\[unmount of ",
};
#define NKNOWN (sizeof(known_re) / sizeof(known_re[0]))

struct compiled {
	regex_t problem[NPROBLEMS];
	bool has_re[NPROBLEMS];
	regex_t ignored[NIGNORED];
	regex_t known[NKNOWN];
	regex_t warning, ubsan, smp_id, frame_ret, mixed_ts, paths, dev, isra, decoded;
	/* the needles starting with bytes b0 b1: by_key[key_start[k] .. + key_count[k]], where
	 * k = b0 | b1 << 8; a line with none of them is no problem (most lines) */
	unsigned short key_start[65536];
	unsigned char key_count[65536];
	const char *by_key[NPROBLEMS + 1];
	unsigned char by_key_len[NPROBLEMS + 1];
	bool ok;
};

static struct compiled re;
static pthread_once_t re_once = PTHREAD_ONCE_INIT;

static bool compile(regex_t *r, const char *pat)
{
	int rc = regcomp(r, pat, REG_EXTENDED);
	if (rc) {
		char msg[200];
		regerror(rc, r, msg, sizeof(msg));
		error("crash_sig: bad pattern '%s': %s", pat, msg);
		return false;
	}
	return true;
}

/* The tables are compiled once per process: regcomp of ~100 patterns costs more than scanning
 * a small console. */
static void compile_all(void)
{
	bool ok = true;
	const char *needles[NPROBLEMS + 1];
	size_t nn = 0;
	for (size_t i = 0; i < NPROBLEMS; i++) {
		const char *n = problems[i].needle;
		bool dup = false;
		for (size_t j = 0; j < nn; j++)
			dup |= !strcmp(needles[j], n);
		if (!dup)
			needles[nn++] = n;
		re.has_re[i] = problems[i].re != NULL;
		if (re.has_re[i])
			ok &= compile(&re.problem[i], problems[i].re);
	}
	needles[nn++] = "+0x";
	/* bucket the needles by their first two bytes */
	size_t pos = 0;
	for (unsigned k = 0; k < 65536; k++) {
		re.key_start[k] = (unsigned short)pos;
		for (size_t j = 0; j < nn; j++)
			if (((unsigned char)needles[j][0] | (unsigned char)needles[j][1] << 8) == (int)k) {
				re.by_key_len[pos] = (unsigned char)strlen(needles[j]);
				re.by_key[pos++] = needles[j];
				re.key_count[k]++;
			}
	}
	for (size_t i = 0; i < NIGNORED; i++)
		ok &= compile(&re.ignored[i], ignored_re[i]);
	for (size_t i = 0; i < NKNOWN; i++)
		ok &= compile(&re.known[i], known_re[i]);
	ok &= compile(&re.warning, "WARNING:.* at .* ([a-zA-Z.0-9_]+)\\+0x");
	ok &= compile(&re.ubsan, "(UBSAN: .+)");
	ok &= compile(&re.smp_id, "(BUG: using smp_processor_id\\(\\) in preemptible)");
	ok &= compile(&re.frame_ret, "^[0-9a-z]+>\\] (.+)");
	ok &= compile(&re.mixed_ts, "\\[ *[0-9]{1,6}\\.[0-9]{6}\\] ");
	ok &= compile(&re.paths, "/c/kernel-tests/src/[^/]+/|/c/(wfg|yliu)/[^/]+/|"
				 "/lkp/[^/]+/linux[0-9]*/|/kernel-tests/linux[0-9]*/");
	ok &= compile(&re.dev, "(^|[^A-Za-z0-9_])(bcache|blkext|btt|dasd|drbd|fd|hd|jsfd|lloop|loop|"
			       "md|mdp|mmc|nbd|nd_blk|nfhd|nullb|nvme|pmem|ramdisk|scm|sd|simdisk|sr|"
			       "ubd|ubiblock|virtblk|xsysace|zram)[0-9]+");
	ok &= compile(&re.isra, "\\.(isra|constprop|part)\\.[0-9]+");
	/* decode_stacktrace.sh's "func (path/file.c:123)" (maybe "(inline)" after it) */
	/* (without DWARF addr2line says "file.c:?" or "??:?") */
	ok &= compile(&re.decoded, "([A-Za-z0-9_.$]+) \\(([A-Za-z0-9_./+?-]+:([0-9]+|\\?))( \\(discriminator "
				   "[0-9]+\\))?\\)( \\[[A-Za-z0-9_]+\\])?");
	re.ok = ok;
}

bool crash_id_is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_alnum(int c)
{
	return crash_id_is_word(c) && c != '_';
}

static bool is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Replace every match of r in *s by repl, where "\N" in repl is group N (N < 10). */
static void re_gsub(char **s, const regex_t *r, const char *repl)
{
	struct strbuf out;
	regmatch_t m[10];
	const char *p = *s;
	int flags = 0;
	bool changed = false;

	strbuf_init(&out);
	while (*p && !regexec(r, p, 10, m, flags)) {
		changed = true;
		strbuf_add(&out, p, m[0].rm_so);
		for (const char *q = repl; *q; q++) {
			if (*q == '\\' && is_digit(q[1])) {
				int g = *++q - '0';
				if (m[g].rm_so >= 0)
					strbuf_add(&out, p + m[g].rm_so, m[g].rm_eo - m[g].rm_so);
			} else {
				strbuf_addch(&out, *q);
			}
		}
		if (m[0].rm_eo == m[0].rm_so) {
			if (!p[m[0].rm_eo])
				break;
			strbuf_addch(&out, p[m[0].rm_eo]);
			p += m[0].rm_eo + 1;
		} else {
			p += m[0].rm_eo;
		}
		flags = REG_NOTBOL;
	}
	if (!changed) {
		strbuf_release(&out);
		return;
	}
	strbuf_addstr(&out, p);
	free(*s);
	*s = strbuf_detach(&out);
}

/* A hand-written scan for the Ruby patterns POSIX regex cannot say (\b, \w): fn looks at
 * position i of s (preceded by prev) and returns how many bytes match there (0: none); the
 * match is replaced by repl. */
typedef size_t (*match_fn)(const char *s, size_t i);

static void scan_sub(char **s, match_fn fn, const char *repl)
{
	struct strbuf out;
	const char *p = *s;
	size_t i = 0;

	strbuf_init(&out);
	while (p[i]) {
		size_t n = fn(p, i);
		if (n) {
			strbuf_addstr(&out, repl);
			i += n;
		} else {
			strbuf_addch(&out, p[i++]);
		}
	}
	free(*s);
	*s = strbuf_detach(&out);
}

static bool boundary_before(const char *s, size_t i)
{
	return i == 0 || !crash_id_is_word(s[i - 1]);
}

/* \b[3-9]\.[0-9]+[-a-z0-9.]+ : a kernel version such as 4.8.0-rc1 */
static size_t m_version(const char *s, size_t i)
{
	if (!boundary_before(s, i) || s[i] < '3' || s[i] > '9' || s[i + 1] != '.' ||
	    !is_digit(s[i + 2]))
		return 0;
	size_t j = i + 2;
	while (s[j] && (is_digit(s[j]) || (s[j] >= 'a' && s[j] <= 'z') || s[j] == '-' || s[j] == '.'))
		j++;
	return j - (i + 2) >= 2 ? j - i : 0;
}

/* \b[1-9][0-9]-[A-Z][a-z]+-[0-9]{4}\b : a date such as 28-Dec-2013 */
static size_t m_date(const char *s, size_t i)
{
	if (!boundary_before(s, i) || s[i] < '1' || s[i] > '9' || !is_digit(s[i + 1]) ||
	    s[i + 2] != '-' || !(s[i + 3] >= 'A' && s[i + 3] <= 'Z'))
		return 0;
	size_t j = i + 4;
	if (!(s[j] >= 'a' && s[j] <= 'z'))
		return 0;
	while (s[j] >= 'a' && s[j] <= 'z')
		j++;
	if (s[j] != '-')
		return 0;
	for (int k = 1; k <= 4; k++)
		if (!is_digit(s[j + k]))
			return 0;
	return crash_id_is_word(s[j + 5]) ? 0 : j + 5 - i;
}

/* \b0x[0-9a-f]+\b */
static size_t m_hex0x(const char *s, size_t i)
{
	if (!boundary_before(s, i) || s[i] != '0' || s[i + 1] != 'x' || !is_hex(s[i + 2]))
		return 0;
	size_t j = i + 2;
	while (is_hex(s[j]))
		j++;
	return crash_id_is_word(s[j]) ? 0 : j - i;
}

/* \b[0-9a-f]{N}\b for N in 8, 16 (the first pass) or 40 (common_error_id's SHA-1) */
static size_t hexrun(const char *s, size_t i)
{
	if (!boundary_before(s, i))
		return 0;
	size_t j = i;
	while (is_hex(s[j]))
		j++;
	return crash_id_is_word(s[j]) ? 0 : j - i;
}

static size_t m_hex8_16(const char *s, size_t i)
{
	size_t n = hexrun(s, i);
	return n == 8 || n == 16 ? n : 0;
}

static size_t m_sha1(const char *s, size_t i)
{
	return hexrun(s, i) == 40 ? 40 : 0;
}

/* \b[0-9][0-9.]* */
static size_t m_number(const char *s, size_t i)
{
	if (!boundary_before(s, i) || !is_digit(s[i]))
		return 0;
	size_t j = i + 1;
	while (is_digit(s[j]) || s[j] == '.')
		j++;
	return j - i;
}

/* [+/]0x[0-9a-f]+\b and then [+/][0-9a-f]+\b : offsets and sizes */
static size_t m_off0x(const char *s, size_t i)
{
	if ((s[i] != '+' && s[i] != '/') || s[i + 1] != '0' || s[i + 2] != 'x' || !is_hex(s[i + 3]))
		return 0;
	size_t j = i + 3;
	while (is_hex(s[j]))
		j++;
	return crash_id_is_word(s[j]) ? 0 : j - i;
}

static size_t m_off(const char *s, size_t i)
{
	if ((s[i] != '+' && s[i] != '/') || !is_hex(s[i + 1]))
		return 0;
	size_t j = i + 1;
	while (is_hex(s[j]))
		j++;
	return crash_id_is_word(s[j]) ? 0 : j - i;
}

/* [^/a-zA-Z0-9_]\w[0-9]+\W  and  \W\w[0-9]+[^/a-zA-Z0-9_] */
static size_t wdigits(const char *s, size_t i, bool slash_first)
{
	if (!s[i] || crash_id_is_word(s[i]) || (slash_first && s[i] == '/'))
		return 0;
	if (!crash_id_is_word(s[i + 1]) || !is_digit(s[i + 2]))
		return 0;
	size_t j = i + 2;
	while (is_digit(s[j]))
		j++;
	if (!s[j] || crash_id_is_word(s[j]) || (!slash_first && s[j] == '/'))
		return 0;
	return j + 1 - i;
}

static size_t m_wd1(const char *s, size_t i)
{
	return wdigits(s, i, true);
}

static size_t m_wd2(const char *s, size_t i)
{
	return wdigits(s, i, false);
}

/* (=)[0-9a-f]+\b  ->  =# */
static size_t m_eqhex(const char *s, size_t i)
{
	if (s[i] != '=' || !is_hex(s[i + 1]))
		return 0;
	size_t j = i + 1;
	while (is_hex(s[j]))
		j++;
	return crash_id_is_word(s[j]) ? 0 : j - i;
}

/* #x\b -> 0x */
static size_t m_hashx(const char *s, size_t i)
{
	return s[i] == '#' && s[i + 1] == 'x' && !crash_id_is_word(s[i + 2]) ? 2 : 0;
}

static void remove_str(char *s, const char *what)
{
	size_t n = strlen(what);
	char *p;
	while ((p = strstr(s, what)))
		memmove(p, p + n, strlen(p + n) + 1);
}

static void replace_str(char **s, const char *what, const char *with)
{
	if (!strstr(*s, what))
		return;
	struct strbuf out;
	const char *p = *s, *q;
	strbuf_init(&out);
	while ((q = strstr(p, what))) {
		strbuf_add(&out, p, q - p);
		strbuf_addstr(&out, with);
		p = q + strlen(what);
	}
	strbuf_addstr(&out, p);
	free(*s);
	*s = strbuf_detach(&out);
}

/* lkp's common_error_id: numbers, hex, versions and dates to '#', spaces squeezed then '_'. */
static void common_error_id(char **s)
{
	scan_sub(s, m_version, "#");
	scan_sub(s, m_date, "#");
	scan_sub(s, m_hex0x, "#");
	scan_sub(s, m_sha1, "#");
	scan_sub(s, m_number, "#");
	scan_sub(s, m_hashx, "0x");

	/* one pass for the character-level rewrites, in lkp's order */
	char *p = *s, *w;
	for (w = p; *w; w++)
		if (*w == '\\' || *w == '"' || *w == '$')
			*w = '~';
		else if (*w == '\t')
			*w = ' ';
	/* squeeze runs of spaces */
	char *o = p;
	for (char *r = p; *r; r++)
		if (!(*r == ' ' && o > p && o[-1] == ' ' && r > p && r[-1] == ' '))
			*o++ = *r;
	*o = '\0';
	/* ([^a-zA-Z0-9])<space> -> \1 */
	o = p;
	for (char *r = p; *r; r++) {
		*o++ = *r;
		if (!is_alnum(*r) && r[1] == ' ')
			r++;
	}
	*o = '\0';
	/* <space>([^a-zA-Z]) -> \1 */
	o = p;
	for (char *r = p; *r; r++) {
		if (*r == ' ' && r[1] && !is_alpha(r[1])) {
			*o++ = *++r;
			continue;
		}
		*o++ = *r;
	}
	*o = '\0';
	if (*p == ' ')
		memmove(p, p + 1, strlen(p));
	for (w = p; *w; w++)
		if (*w == ' ')
			*w = '_';
	size_t n = strlen(p);
	while (n && strchr("-_.,;:#!*[(", p[n - 1]))
		p[--n] = '\0';
}

/* lkp's generate_error_id */
static void generate_error_id(char **s)
{
	size_t n = strlen(*s);
	if (n >= 2 && !strcmp(*s + n - 2, " ]"))
		(*s)[n - 2] = '\0';
	re_gsub(s, &re.paths, "");
	re_gsub(s, &re.isra, "");
	re_gsub(s, &re.dev, "\\1\\2#");
	scan_sub(s, m_hex8_16, "#");
	scan_sub(s, m_eqhex, "=#");
	scan_sub(s, m_off0x, "");
	scan_sub(s, m_off, "");
	char *t = strstr(*s, " (Tainted:");
	if (t) {
		char *close = strrchr(t + 11, ')');
		if (close)
			memmove(t, close + 1, strlen(close + 1) + 1);
	}
	common_error_id(s);
	/* ([a-z]:)[0-9]+\b -> \1 */
	char *p = *s, *o = p;
	for (char *r = p; *r; r++) {
		*o++ = *r;
		if (*r == ':' && r > p && r[-1] >= 'a' && r[-1] <= 'z' && is_digit(r[1])) {
			char *e = r + 1;
			while (is_digit(*e))
				e++;
			if (!crash_id_is_word(*e))
				r = e - 1;
		}
	}
	*o = '\0';
	remove_str(*s, "#:[<#>][<#>]");
	replace_str(s, "RIP:#:", "RIP:");
	scan_sub(s, m_wd1, "#");
	scan_sub(s, m_wd2, "#");
}

/* lkp's preprocess_line: no kmsg prefix, no caller tag, nothing before the first letter. */
static char *preprocess(const char *line)
{
	const char *p = line;
	static const char *const kmsg[] = {"kern  :", "user  :", "daemon:"};
	for (size_t i = 0; i < 3; i++)
		if (!strncmp(p, kmsg[i], 7) && strlen(p) >= 15 && p[13] == ':' && p[14] == ' ') {
			p += 15;
			break;
		}
	char *s = xstrdup(p);
	/* \[ {0,4}[A-Z][0-9]{1,5}\] -> ' ', first one */
	for (char *q = s; (q = strchr(q, '[')); q++) {
		char *r = q + 1;
		int sp = 0;
		while (*r == ' ' && sp < 5)
			r++, sp++;
		if (sp > 4 || !(*r >= 'A' && *r <= 'Z'))
			continue;
		char *d = ++r;
		while (is_digit(*r) && r - d < 6)
			r++;
		if (r == d || r - d > 5 || r[0] != ']' || r[1] != ' ')
			continue;
		*q = ' ';
		memmove(q + 1, r + 2, strlen(r + 2) + 1);
		break;
	}
	char *a = s;
	while (*a && !is_alpha(*a))
		a++;
	memmove(s, a, strlen(a) + 1);
	return s;
}

static char *join_groups(const char *s, const regmatch_t *m, size_t n)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (size_t g = 1; g < n; g++)
		if (m[g].rm_so >= 0)
			strbuf_add(&sb, s + m[g].rm_so, m[g].rm_eo - m[g].rm_so);
	return strbuf_detach(&sb);
}

/* lkp's handle_known_patterns: the line reduced to what identifies it, or NULL to keep it. */
static char *known_shape(const char *line)
{
	regmatch_t m[4];
	for (size_t i = 0; i < NKNOWN; i++)
		if (!regexec(&re.known[i], line, 4, m, 0))
			return join_groups(line, m, 4);
	if (!regexec(&re.warning, line, 2, m, 0)) {
		const char *at = strstr(line, "at ");
		return xasprintf("WARNING: %s", at);
	}
	if (!regexec(&re.ubsan, line, 2, m, 0) || !regexec(&re.smp_id, line, 2, m, 0) ||
	    !regexec(&re.frame_ret, line, 2, m, 0))
		return xstrndup(line + m[1].rm_so, m[1].rm_eo - m[1].rm_so);
	if (strstr(line, "Corrupted low memory at")) {
		char *s = xstrdup(line);
		char *ph = strstr(s, " phys");
		if (ph) {
			char *b = ph;
			while (b > s && is_hex(b[-1]))
				b--;
			if (b < ph && (b == s || !crash_id_is_word(b[-1]))) {
				char *t = xasprintf("%.*s#%s", (int)(b - s), s, ph);
				free(s);
				s = t;
			}
		}
		char *eq = strstr(s, "= ");
		if (eq && is_hex(eq[2])) {
			char *e = eq + 2;
			while (is_hex(*e))
				e++;
			char *t = xasprintf("%.*s= #%s", (int)(eq - s), s, e);
			free(s);
			s = t;
		}
		return s;
	}
	const char *k = strstr(line, "kobject (");
	if (k && strstr(k, "): tried to init an initialized object")) {
		const char *e = strstr(k, "): ");
		return xasprintf("%.*skobject (#)%s", (int)(k - line), line, e + 1);
	}
	const char *rss = strstr(line, "BUG: Bad rss-counter state mm:");
	if (rss) {
		const char *e = strchr(rss + 30, ' ');
		if (e)
			return xasprintf("%.*sBUG: Bad rss-counter state mm:#%s", (int)(rss - line), line,
					 e);
	}
	const char *bp = strstr(line, "Bad pagetable: ");
	if (bp && is_hex(bp[15])) {
		const char *e = bp + 15;
		while (is_hex(*e))
			e++;
		if (!strncmp(e, " [#", 3))
			return xasprintf("%.*sBad pagetable: #%s", (int)(bp - line), line, e);
	}
	const char *slab = strstr(line, "INFO: Slab 0x(____ptrval____) objects=");
	if (slab) {
		const char *fp = strstr(slab, "fp=0x"), *fl = strstr(slab, " flags=");
		if (fp && fl && fl > fp)
			return xasprintf("%.*s(#)%s", (int)(fp + 5 - slab), slab, fl);
	}
	const char *end = strstr(line, " ]---");
	if (end)
		return xasprintf("%.*s%s", (int)(end - line), line, end + 5);
	if (strstr(line, "segfault at ") && strstr(line, " ip ") && strstr(line, " sp ") &&
	    strstr(line, " error"))
		return xstrdup("segfault at ip sp error");
	return NULL;
}

char *crash_sig_line_id(const char *line)
{
	pthread_once(&re_once, compile_all);
	if (!re.ok)
		return NULL;
	char *s = preprocess(line);
	if (!strncmp(s, "calltrace:", 10) || !strncmp(s, "backtrace:", 10))
		return s;
	char *k = known_shape(s);
	if (k) {
		free(s);
		s = k;
	}
	generate_error_id(&s);
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

/* The line decode_stacktrace.sh would have started from: "func (file.c:12)" -> "func+0x0/0x0". */
char *crash_id_undecode(const char *line)
{
	char *s = xstrdup(line);
	if (strstr(s, ":") && strchr(s, '('))
		re_gsub(&s, &re.decoded, "\\1+0x0/0x0");
	return s;
}

bool crash_id_needle_hit(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned k = (unsigned char)s[i] | (unsigned char)s[i + 1] << 8;
		for (unsigned j = 0; j < re.key_count[k]; j++) {
			size_t l = re.by_key_len[re.key_start[k] + j];
			if (i + l <= n && !memcmp(s + i, re.by_key[re.key_start[k] + j], l))
				return true;
		}
	}
	return false;
}

/* The text the leftmost problem pattern matches in s (the first pattern at a tie), or NULL. */
char *crash_id_problem_match(const char *s)
{
	regoff_t best = -1, best_end = 0;
	for (size_t i = 0; i < NPROBLEMS; i++) {
		const char *hit = strstr(s, problems[i].needle);
		regoff_t so, eo;
		if (!hit)
			continue;
		if (re.has_re[i]) {
			regmatch_t m[1];
			if (regexec(&re.problem[i], s, 1, m, 0))
				continue;
			so = m[0].rm_so, eo = m[0].rm_eo;
		} else {
			so = hit - s;
			eo = problems[i].eol ? (regoff_t)strlen(s) : so + (regoff_t)strlen(problems[i].needle);
		}
		if (best < 0 || so < best)
			best = so, best_end = eo;
	}
	return best < 0 ? NULL : xstrndup(s + best, best_end - best);
}

bool crash_id_ignored_line(const char *s)
{
	for (size_t i = 0; i < NIGNORED; i++)
		if (!regexec(&re.ignored[i], s, 0, NULL, 0))
			return true;
	return false;
}

static const char *const calltrace_common[] = {
	"do_one_initcall+0x", "do_basic_setup+0x", "kernel_init_freeable+0x", "kernel_init+0x",
	"kthread+0x", "kernel_thread+0x", "process_one_work+0x", "notifier_call_chain+0x",
};

bool crash_id_calltrace_entry(const char *s)
{
	for (size_t i = 0; i < 8; i++)
		if (strstr(s, calltrace_common[i]))
			return true;
	const char *p = s;
	while ((p = strstr(p, "SyS_"))) {
		const char *q = p + 4;
		while ((*q >= 'a' && *q <= 'z') || is_digit(*q) || *q == '_')
			q++;
		if (q > p + 4 && !strncmp(q, "+0x", 3))
			return true;
		p += 4;
	}
	return false;
}

bool crash_id_calltrace_ignored(const char *s)
{
	if (crash_id_calltrace_entry(s) && !strstr(s, "SyS_"))
		return true;
	if (strstr(s, "worker_thread+0x"))
		return true;
	const char *w = strstr(s, "warn_slowpath_");
	return w && strstr(w, "+0x");
}

bool crash_id_ready(void)
{
	pthread_once(&re_once, compile_all);
	return re.ok;
}

void crash_id_drop_isra(char **s)
{
	re_gsub(s, &re.isra, "");
}

const char *crash_id_timestamp(const char *s)
{
	regmatch_t m[1];

	return regexec(&re.mixed_ts, s, 1, m, REG_NOTBOL) ? NULL : s + m[0].rm_so;
}
