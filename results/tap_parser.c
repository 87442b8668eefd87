// SPDX-License-Identifier: GPL-2.0-only
/* tap_parser.c: streaming TAP 13 / TAP 14 / KTAP parser for dirty serial consoles (tap_parser.h).
 *
 * Lines. Bytes are split at '\n'; trailing '\r's are dropped (the UART writes CRLF), NUL bytes
 * become spaces, other bytes pass through untouched (non-UTF-8 is the writers' problem). A line
 * longer than LINE_CAP is parsed on its first LINE_CAP bytes, the rest reaches on_line in pieces
 * of at most LINE_CAP bytes and is not parsed.
 *
 * Kernel lines. Every printk prefix ("[    1.234567] ", optionally followed by a caller id
 * "[  T1] " or "[    C0] ") is stripped per line, not with a width measured once (kunit_tool's
 * mistake). A prefix in the middle of a line means the kernel wrote its record while a test was
 * half-way through a line: the console then carries "test te[ 1.2] kernel msg\nxt\n". The
 * text before the prefix is kept as a fragment and glued to the next line that carries no printk
 * prefix ("test text"); everything from the prefix to the end of the line is the kernel line.
 * What cannot be repaired: a test line landing inside a kernel line (the kernel line has no
 * marker for where its own text ends), and a fragment whose test never finished the line (it is
 * glued to the next user line anyway).
 *
 * Structure. A stack of levels, each with the exact byte prefix its lines start with: level 0 is
 * the top-level document; a version line, plan, result or "# Subtest:" header indented deeper
 * than the current level opens a level at that indentation (so 2-space KTAP and 4-space KUnit and
 * tapboot nesting all work), and "# TAP version" / "# KTAP version" opens a level whose prefix
 * adds "# " (the kselftest runner's nesting). Results at a level collect until the parent's
 * result line arrives and takes them as its subtests. Memory: the stack (at most MAX_DEPTH), one
 * record per result, a log of at most TAP_LOG_CAP per top-level test. */
#include "tap_parser.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "line_tag.h"
#include "protocol.h"
#include "results.h"
#include "strbuf.h"

#define LINE_CAP (64 * 1024)
#define MAX_DEPTH 32
/* A level's prefix (indentation and "# "s); deeper-indented blocks stay plain text. */
#define PREFIX_CAP 256
/* A garbage plan ("1..4000000000") must not make us allocate millions of records. The fuzz
 * build lowers it, or every "1..99999" the fuzzer finds costs 10000 records. */
#ifndef TAP_MISSING_CAP
#define TAP_MISSING_CAP 10000
#endif
#define MISSING_CAP TAP_MISSING_CAP

struct level {
	char prefix[PREFIX_CAP]; /* the bytes every line of this level starts with */
	size_t plen;
	struct tap_test *tests; /* owned results of this level, not yet handed to a parent */
	size_t n, alloc;
	size_t doc_start; /* first test of the current document (kselftest prints one per
			     collection) */
	long plan;	  /* current document's plan, -1 none */
	char *plan_skip;  /* owned: "1..0 # SKIP reason" */
	unsigned last_num;
	bool doc_used;	    /* a plan or result was seen in the current document */
	char *subtest_name; /* owned: this level's "# Subtest: NAME" (KTAP puts it inside) */
	char *next_name;    /* owned: a "# Subtest: NAME" for the next deeper block (TAP 14) */
};

/* The strings of the results (names, reasons, logs) live in chunks freed with the parser:
 * malloc and free per string were a quarter of the parse time on a 100 MB console. */
#define ARENA_CHUNK (256 * 1024)
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

struct tap_parser {
	struct arena_chunk *arena;
	char *nonce;  /* owned, may be NULL */
	bool foreign; /* no nonce given: a foreign log */
	struct tap_parser_events ev;
	char **expect;
	size_t nexpect;

	/* line splitting */
	char *lbuf;
	size_t llen;
	bool overflow; /* the current line went past LINE_CAP and was already parsed */
	bool overflow_kernel;
	struct strbuf frag; /* test text cut by a kernel line, waiting for its end */

	struct level lv[MAX_DEPTH];
	size_t depth; /* levels in use, >= 1 */

	/* the result whose YAML block may follow */
	bool await; /* a result was just seen at yaml_level */
	bool in_yaml;
	size_t yaml_level, yaml_idx, yaml_indent;
	char *yaml_note;  /* owned: numbering note appended to the reason when the result ends */
	bool yaml_reason; /* the YAML block set the reason */
	char *yaml_signal;

	struct strbuf pending_log; /* lines for the next top-level result */
	bool pending_log_trunc;
	struct strbuf cur_log; /* lines of the top-level result awaiting its YAML block */
	bool cur_log_trunc;
	size_t log_cap;	   /* TAP_LOG_CAP unless tap_parser_set_log_cap */
	char *runner_name; /* owned: the kselftest runner's last "# selftests: C: T" header */

	unsigned running; /* tapboot: run N */
	char *running_name;

	/* Sequencing (tap_parser_set_mode): only the init's own lines make results. */
	enum tap_parser_mode mode;
	bool sequenced; /* on: TAP_PARSE_TAPBOOT, or AUTO after a begin marker */
	bool keyed;
	unsigned char key[LINE_TAG_KEY_LEN];
	bool need_tag;	      /* unkeyed: the begin line was tagged, so every init line is */
	/* The init tags its YAML block once, on the "  ..." line (line_tag.h): after its verdict
	 * the block's lines are held until that tag is found right, else they are test output. */
	bool block_want;     /* an init verdict was just accepted: its block may follow */
	bool yaml_may;	     /* the last init line was a verdict or a block's (an old console's
			      * block tagged per line): a tagged 2-space line may be the init's */
	uint64_t block_seq;  /* the number its block's tag must have: the verdict's + 1 */
	bool block_open;     /* lines held in block */
	struct strbuf block; /* the held lines, joined by '\n' */
	size_t block_lines;
	bool init_block;      /* the result awaiting its block got the init's (verified) block */
	uint64_t last_seq;    /* of the last accepted tagged line */
	unsigned last_run;    /* the last accepted `run N` */
	unsigned last_result; /* the last test number whose result was accepted */
	unsigned long rejected; /* protocol-shaped lines taken as test output */
	bool saw_end;
	const char *cut_reason; /* during tap_parser_finish */
	bool crash_after_plan;	/* the crash came when the plan was already met */
	bool unmet;		/* a level-0 document ended with its plan unmet */
	long begin_tests;
	long planned_sum;
	bool any_plan;
	bool finished;
	bool interrupted; /* tap_parser_interrupted */

	struct tap_summary sum;
};

/* ---- small helpers ---- */

static bool starts(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	return n >= l && !memcmp(s, lit, l);
}

static bool starts_ci(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	return n >= l && !strncasecmp(s, lit, l);
}

static size_t skip_sp(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static size_t rtrim(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

static char *dup_trim(const char *s, size_t n)
{
	size_t i = skip_sp(s, n, 0);

	n = rtrim(s, n);
	return i < n ? xstrndup(s + i, n - i) : NULL;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parse digits at s[*i]; false when there are none. Saturates instead of overflowing. */
static bool parse_uint(const char *s, size_t n, size_t *i, unsigned long *out)
{
	unsigned long v = 0;
	size_t j = *i;

	if (j >= n || !is_digit(s[j]))
		return false;
	for (; j < n && is_digit(s[j]); j++)
		v = v > 400000000UL ? 4000000000UL : v * 10 + (unsigned long)(s[j] - '0');
	*i = j;
	*out = v;
	return true;
}

static char *a_take(struct tap_parser *p, char *s);
static char *a_str(struct tap_parser *p, const char *s);

static void append_reason(struct tap_parser *p, char **reason, const char *more)
{
	if (!more || !*more)
		return;
	if (!*reason)
		*reason = a_str(p, more);
	else
		*reason = a_take(p, xasprintf("%s; %s", *reason, more));
}

/* Append a line to a capped log buffer. */
static void log_add(struct strbuf *sb, bool *trunc, size_t cap, const char *s, size_t n)
{
	size_t room;

	if (*trunc)
		return;
	if (!cap) {
		*trunc = n > 0;
		return;
	}
	room = cap - sb->len;
	if (n + 1 > room) {
		strbuf_add(sb, s, room > 0 ? room - 1 : 0);
		*trunc = true;
		return;
	}
	strbuf_add(sb, s, n);
	strbuf_addch(sb, '\n');
}

/* ---- string arena ---- */

static char *a_alloc(struct tap_parser *p, size_t n)
{
	struct arena_chunk *c = p->arena;

	if (!c || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;

		c = xmalloc(sizeof(*c) + cap);
		c->cap = cap;
		c->used = 0;
		if (n > ARENA_CHUNK / 4 && p->arena) {
			/* a big one-off: keep filling the current chunk afterwards */
			c->next = p->arena->next;
			p->arena->next = c;
		} else {
			c->next = p->arena;
			p->arena = c;
		}
	}
	c->used += n;
	return c->data + c->used - n;
}

static char *a_mem(struct tap_parser *p, const char *s, size_t n)
{
	char *d = a_alloc(p, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static char *a_str(struct tap_parser *p, const char *s)
{
	return a_mem(p, s, strlen(s));
}

/* Move a malloc'ed string (may be NULL) into the arena. */
static char *a_take(struct tap_parser *p, char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = a_str(p, s);
	free(s);
	return d;
}

/* ---- test records ---- */

/* Names, reasons and logs are the arena's. */
/* Give t the finished subtests kids (an array a level grew with malloc, freed here): they are
 * copied into the arena, so a test owns nothing and freeing the parser is freeing its chunks
 * (walking 580k records to free their arrays was 6% of parsing a 100 MB log). */
static void set_subtests(struct tap_parser *p, struct tap_test *t, struct tap_test *kids,
			 size_t n)
{
	t->subtests = NULL;
	t->nsub = t->sub_alloc = 0;
	if (n) {
		/* arena strings are not aligned: round up for the records */
		char *m = a_alloc(p, n * sizeof(*kids) + _Alignof(struct tap_test) - 1);

		t->subtests = (struct tap_test *)(((uintptr_t)m + _Alignof(struct tap_test) - 1) &
						  ~((uintptr_t)_Alignof(struct tap_test) - 1));
		memcpy(t->subtests, kids, n * sizeof(*kids));
		t->nsub = t->sub_alloc = n;
	}
	free(kids);
}

static struct tap_test *tests_push(struct tap_test **v, size_t *n, size_t *alloc)
{
	struct tap_test *t;

	xgrow(v, alloc, *n + 1, sizeof(**v));
	t = &(*v)[(*n)++];
	memset(t, 0, sizeof(*t));
	t->duration_s = -1;
	t->exit_code = -1;
	return t;
}

/* The worst verdict of a list, for a group of subtests that never got its own result line. */
static enum verdict worst(const struct tap_test *v, size_t n)
{
	static const int rank[VERDICT_COUNT] = {
		[VERDICT_PASS] = 0,    [VERDICT_SKIP] = 1,  [VERDICT_XFAIL] = 2,
		[VERDICT_XPASS] = 3,   [VERDICT_FAIL] = 4,  [VERDICT_MISSING] = 5,
		[VERDICT_TIMEOUT] = 6, [VERDICT_CRASH] = 7, [VERDICT_INTERRUPTED] = 5,
	};
	enum verdict w = VERDICT_PASS;

	for (size_t i = 0; i < n; i++)
		if (rank[v[i].verdict] > rank[w])
			w = v[i].verdict;
	return w;
}

/* A group of subtests whose own result line never came (a level closed without one) becomes a
 * synthesised record with the worst verdict of its subtests: built here only. name (malloc'd,
 * may be NULL) is taken. */
static void push_group(struct tap_parser *p, struct tap_test **v, size_t *n, size_t *alloc,
		       char *name, struct tap_test *kids, size_t nkids)
{
	struct tap_test *g = tests_push(v, n, alloc);

	g->name = name ? a_take(p, name) : a_str(p, "");
	g->verdict = worst(kids, nkids);
	g->reason = a_str(p, "no result line for this group of subtests");
	set_subtests(p, g, kids, nkids);
}

/* ---- levels ---- */

static void level_set(struct level *l, const char *prefix, size_t plen)
{
	l->tests = NULL;
	l->n = l->alloc = l->doc_start = 0;
	l->plan_skip = l->subtest_name = l->next_name = NULL;
	l->last_num = 0;
	l->doc_used = false;
	memcpy(l->prefix, prefix, plen);
	l->plen = plen;
	l->plan = -1;
}

static void level_release(struct level *l)
{
	free(l->tests);
	free(l->plan_skip);
	free(l->subtest_name);
	free(l->next_name);
	l->tests = NULL;
	l->n = l->alloc = 0;
	l->plan_skip = l->subtest_name = l->next_name = NULL;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The name of a test the stream never named: the planned name for number num when the plan's
 * names apply (the first document of the top level), else "test NUM". */
static char *synth_name(struct tap_parser *p, bool from_plan, unsigned long num)
{
	if (from_plan && num >= 1 && num <= p->nexpect)
		return a_str(p, p->expect[num - 1]);
	return a_take(p, xasprintf("test %lu", num));
}

static char *missing_reason(struct tap_parser *p)
{
	if (p->sum.bailed_out)
		return a_str(p, "not run: bailed out");
	if (p->sum.crash_line)
		return a_str(p, "not run: the kernel crashed");
	if (p->cut_reason)
		return a_take(p, xasprintf("not run: %s", p->cut_reason));
	return a_str(p, "not run: no result line");
}

/* End the current document of level li: planned tests not seen become missing. */
static void level_close_doc(struct tap_parser *p, size_t li)
{
	struct level *l = &p->lv[li];
	size_t seen = l->n - l->doc_start, added = 0;
	long plan = l->plan;
	unsigned *nums;

	if (li == 0 && plan < 0 && p->begin_tests >= 0 && l->doc_start == 0)
		plan = p->begin_tests;
	if (li == 0 && plan >= 0) {
		p->planned_sum += plan;
		p->any_plan = true;
	}
	if (plan < 0 || (size_t)plan <= seen) {
		l->doc_start = l->n;
		l->plan = -1;
		l->last_num = 0;
		l->doc_used = false;
		return;
	}
	if (li == 0)
		p->unmet = true;
	nums = xcalloc(seen + 1, sizeof(*nums));
	for (size_t i = 0; i < seen; i++)
		nums[i] = l->tests[l->doc_start + i].num;
	qsort(nums, seen, sizeof(*nums), cmp_uint);
	for (unsigned long k = 1, j = 0; k <= (unsigned long)plan && added < MISSING_CAP; k++) {
		struct tap_test *t;

		while (j < seen && nums[j] < k)
			j++;
		if (j < seen && nums[j] == k)
			continue;
		t = tests_push(&l->tests, &l->n, &l->alloc);
		t->num = (unsigned)k;
		t->verdict = VERDICT_MISSING;
		t->name = synth_name(p, li == 0 && l->doc_start == 0, k);
		t->reason = missing_reason(p);
		added++;
	}
	free(nums);
	l->doc_start = l->n;
	l->plan = -1;
	l->last_num = 0;
	l->doc_used = false;
}

/* Pop level li (> 0), moving its results (and missing ones) into *out. */
static void level_pop(struct tap_parser *p, size_t li, struct tap_test **out, size_t *nout,
		      char **skip_reason, char **subtest_name)
{
	struct level *l = &p->lv[li];

	level_close_doc(p, li);
	*out = l->tests;
	*nout = l->n;
	l->tests = NULL;
	l->n = 0;
	*skip_reason = l->plan_skip;
	l->plan_skip = NULL;
	*subtest_name = l->subtest_name;
	l->subtest_name = NULL;
	level_release(l);
	p->depth = li;
}

/* Close levels deeper than keep; the results of level keep+1 are returned for the result line
 * at level keep; deeper orphans (no result line at their parent level) become a synthesised
 * group test so nothing is lost. */
static void close_deeper(struct tap_parser *p, size_t keep, struct tap_test **subs, size_t *nsub,
			 char **skip_reason, char **subtest_name)
{
	struct tap_test *kids = NULL;
	size_t nkids = 0;
	char *sr = NULL, *sn = NULL;

	while (p->depth > keep + 1) {
		size_t li = p->depth - 1;
		struct tap_test *v;
		size_t n;
		char *r, *name;

		level_pop(p, li, &v, &n, &r, &name);
		if (kids) {
			/* kids belonged to a level deeper than li whose parent result never came */
			push_group(p, &v, &n, &(size_t){n}, sn, kids, nkids);
			sn = NULL;
		}
		free(sr);
		free(sn);
		kids = v;
		nkids = n;
		sr = r;
		sn = name;
	}
	*subs = kids;
	*nsub = nkids;
	if (skip_reason)
		*skip_reason = sr;
	else
		free(sr);
	if (subtest_name)
		*subtest_name = sn;
	else
		free(sn);
}

/* ---- the parser object ---- */

struct tap_parser *tap_parser_new(const char *nonce, const struct tap_parser_events *events)
{
	struct tap_parser *p = xcalloc(1, sizeof(*p));

	if (nonce)
		p->nonce = xstrdup(nonce);
	p->foreign = !nonce;
	if (events)
		p->ev = *events;
	p->lbuf = xmalloc(LINE_CAP + 1);
	strbuf_init(&p->frag);
	strbuf_init(&p->block);
	strbuf_init(&p->pending_log);
	strbuf_init(&p->cur_log);
	level_set(&p->lv[0], "", 0);
	p->depth = 1;
	p->begin_tests = -1;
	p->sum.planned = -1;
	p->log_cap = TAP_LOG_CAP;
	return p;
}

void tap_parser_free(struct tap_parser *p)
{
	if (!p)
		return;
	free(p->nonce);
	for (size_t i = 0; i < p->nexpect; i++)
		free(p->expect[i]);
	free(p->expect);
	free(p->lbuf);
	strbuf_release(&p->frag);
	strbuf_release(&p->block);
	strbuf_release(&p->pending_log);
	strbuf_release(&p->cur_log);
	for (size_t i = 0; i < p->depth; i++)
		level_release(&p->lv[i]);
	free(p->yaml_note);
	free(p->yaml_signal);
	free(p->running_name);
	free(p->runner_name);
	free(p->sum.bail_reason);
	free(p->sum.crash_line);
	free(p->sum.kernel);
	while (p->arena) {
		struct arena_chunk *c = p->arena;

		p->arena = c->next;
		free(c);
	}
	free(p);
}

void tap_parser_set_mode(struct tap_parser *p, enum tap_parser_mode mode,
			 const unsigned char *key)
{
	p->mode = mode;
	p->sequenced = mode == TAP_PARSE_TAPBOOT;
	p->keyed = key != NULL;
	if (key)
		memcpy(p->key, key, sizeof(p->key));
}

unsigned long tap_parser_rejected(const struct tap_parser *p)
{
	return p->rejected;
}

void tap_parser_set_log_cap(struct tap_parser *p, size_t cap)
{
	p->log_cap = cap > TAP_LOG_CAP ? TAP_LOG_CAP : cap;
}

void tap_parser_expect(struct tap_parser *p, const char *const *names, size_t n)
{
	for (size_t i = 0; i < p->nexpect; i++)
		free(p->expect[i]);
	free(p->expect);
	p->expect = xcalloc(n + 1, sizeof(*p->expect));
	for (size_t i = 0; i < n; i++)
		p->expect[i] = xstrdup(names[i] ? names[i] : "");
	p->nexpect = n;
}

/* ---- kernel crash reports ---- */

/* Is this (prefix-stripped) line the first line of a kernel crash report? */
static bool is_crash_line(const char *s, size_t n)
{
	if (n < 4)
		return false;
	switch (s[0]) {
	case 'K':
		return starts(s, n, "Kernel panic - not syncing");
	case 'B':
		return starts(s, n, "BUG: ");
	case 'O':
		return starts(s, n, "Oops");
	case 'g':
		return starts(s, n, "general protection fault");
	case 'w':
		return starts(s, n, "watchdog: BUG: soft lockup");
	case 'r':
		/* "rcu: INFO: rcu_sched self-detected stall on CPU",
		 * "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" */
		return starts(s, n, "rcu: INFO: rcu_") && memmem(s, n, "stall", 5);
	case 'N':
		return starts(s, n, "No working init found");
	case 'U':
		return starts(s, n, "Unable to handle kernel");
	case 'k':
		return starts(s, n, "kernel BUG at");
	case 'I':
		return starts(s, n, "Internal error:") || starts(s, n, "INFO: rcu_");
	case 'A':
		return starts(s, n, "Attempted to kill init");
	default:
		return false;
	}
}

/* ---- YAML blocks ---- */

static struct tap_test *yaml_target(struct tap_parser *p)
{
	struct level *l = &p->lv[p->yaml_level];

	return p->yaml_idx < l->n ? &l->tests[p->yaml_idx] : NULL;
}

/* A YAML scalar: "quoted with \" \\ \xNN escapes", 'single quoted' or plain. */
static char *yaml_scalar(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = skip_sp(s, n, 0);

	n = rtrim(s, n);
	if (i >= n)
		return NULL;
	strbuf_init(&sb);
	if (s[i] == '"') {
		for (i++; i < n && s[i] != '"'; i++) {
			if (s[i] == '\\' && i + 1 < n) {
				char c = s[++i];

				if (c == 'n')
					strbuf_addch(&sb, '\n');
				else if (c == 't')
					strbuf_addch(&sb, '\t');
				else if (c == 'x' && i + 2 < n) {
					char hex[3] = {s[i + 1], s[i + 2], 0};

					strbuf_addch(&sb, (int)strtol(hex, NULL, 16));
					i += 2;
				} else
					strbuf_addch(&sb, c);
			} else
				strbuf_addch(&sb, s[i]);
		}
	} else if (s[i] == '\'' && n - i >= 2 && s[n - 1] == '\'') {
		strbuf_add(&sb, s + i + 1, n - i - 2);
	} else {
		strbuf_add(&sb, s + i, n - i);
	}
	return strbuf_detach(&sb);
}

/* strtod for what the init writes ("0.819": digits, a point, at most 9 decimals), exact
 * without strtod (an integer below 2^53 divided by a power of ten is rounded once, as strtod
 * rounds); anything else goes to strtod. strtod was 4% of a parse's time. */
static double decimal(const char *s, char **end)
{
	static const double pow10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
	const char *c = s;
	unsigned long long v = 0;
	int ndig = 0, frac = -1;

	while (*c == ' ' || *c == '\t')
		c++;
	for (;; c++) {
		if (*c >= '0' && *c <= '9') {
			v = v * 10 + (unsigned)(*c - '0');
			ndig++;
			if (frac >= 0)
				frac++;
		} else if (*c == '.' && frac < 0) {
			frac = 0;
		} else {
			break;
		}
	}
	if (!ndig || ndig > 15 || frac > 9 || *c == 'e' || *c == 'E' ||
	    (*c && *c != ' ' && *c != '\t' && *c != '\r'))
		return strtod(s, end);
	*end = (char *)c;
	return (double)v / pow10[frac > 0 ? frac : 0];
}

static void yaml_line(struct tap_parser *p, const char *s, size_t n)
{
	struct tap_test *t = yaml_target(p);
	size_t i = skip_sp(s, n, 0);
	const char *k = s + i;
	size_t kn = n - i;
	char *v;

	if (!t)
		return;
	if (starts(k, kn, "duration_s:")) {
		char num[64];
		size_t l = kn - 11 < sizeof(num) - 1 ? kn - 11 : sizeof(num) - 1;
		char *end;
		double d;

		memcpy(num, k + 11, l);
		num[l] = '\0';
		d = decimal(num, &end);
		if (end != num && d >= 0)
			t->duration_s = d;
	} else if (starts(k, kn, "exit:")) {
		char num[32];
		size_t l = kn - 5 < sizeof(num) - 1 ? kn - 5 : sizeof(num) - 1;

		memcpy(num, k + 5, l);
		num[l] = '\0';
		t->exit_code = atoi(num);
	} else if (starts(k, kn, "signal:")) {
		free(p->yaml_signal);
		p->yaml_signal = yaml_scalar(k + 7, kn - 7);
	} else if (starts(k, kn, "result:")) {
		/* results.tap's crash and missing, which have no TAP directive */
		v = yaml_scalar(k + 7, kn - 7);
		if (v && (!strcmp(v, "crash") || !strcmp(v, "missing")))
			t->verdict = (enum verdict)verdict_from_name(v);
		free(v);
	} else if (starts(k, kn, "reason:")) {
		v = yaml_scalar(k + 7, kn - 7);
		if (v) {
			t->reason = a_take(p, v);
			p->yaml_reason = true;
		}
	}
}

/* The result awaiting its YAML block is complete. */
static void result_done(struct tap_parser *p)
{
	struct tap_test *t;

	if (!p->await)
		return;
	p->await = false;
	p->in_yaml = false;
	t = yaml_target(p);
	if (t) {
		/* an older init left "exit: 0" out of a plain pass's block */
		if (p->init_block && t->verdict == VERDICT_PASS && t->exit_code < 0 &&
		    !p->yaml_signal)
			t->exit_code = 0;
		if (p->yaml_signal && !p->yaml_reason)
			t->reason = a_take(p, xasprintf("killed by %s", p->yaml_signal));
		append_reason(p, &t->reason, p->yaml_note);
	}
	free(p->yaml_note);
	p->yaml_note = NULL;
	free(p->yaml_signal);
	p->yaml_signal = NULL;
	p->yaml_reason = false;
	p->init_block = false;
	if (t && p->yaml_level == 0) {
		if (p->cur_log.len) {
			/* an exact copy: the buffer is reused, so no realloc chain per test */
			t->log_len = p->cur_log.len;
			t->log = a_mem(p, p->cur_log.buf, t->log_len);
			strbuf_reset(&p->cur_log);
		}
		t->log_truncated = p->cur_log_trunc;
		p->cur_log_trunc = false;
		p->sum.count[t->verdict]++;
		p->sum.total++;
		if (p->ev.on_result)
			p->ev.on_result(p->ev.ctx, t);
		if (p->running && t->num == p->running) {
			p->running = 0;
			free(p->running_name);
			p->running_name = NULL;
		}
	}
}

/* ---- TAP lines ---- */

enum kind { K_TEXT, K_VERSION, K_PLAN, K_RESULT, K_BAIL, K_SUBTEST };

static enum kind classify(const char *s, size_t n)
{
	if (n < 2)
		return K_TEXT;
	switch (s[0]) {
	case 'o':
		return s[1] == 'k' && (n == 2 || s[2] == ' ' || s[2] == '\t') ? K_RESULT : K_TEXT;
	case 'n':
		return starts(s, n, "not ok") && (n == 6 || s[6] == ' ' || s[6] == '\t') ? K_RESULT
											 : K_TEXT;
	case '1':
		return s[1] == '.' && n > 3 && s[2] == '.' && is_digit(s[3]) ? K_PLAN : K_TEXT;
	case 'T':
		return starts(s, n, "TAP version ") ? K_VERSION : K_TEXT;
	case 'K':
		return starts(s, n, "KTAP version ") ? K_VERSION : K_TEXT;
	case 'B':
	case 'b':
		return starts_ci(s, n, "Bail out!") ? K_BAIL : K_TEXT;
	case '#':
		return starts(s, n, "# Subtest:") ? K_SUBTEST : K_TEXT;
	default:
		return K_TEXT;
	}
}

/* Directive keyword at s: length of the keyword, 0 when none. */
static size_t directive(const char *s, size_t n, enum verdict *v, bool ok)
{
	static const struct {
		const char *word;
		int kind; /* 0 skip, 1 todo, 2 xfail, 3 xpass, 4 timeout */
	} words[] = {{"skip", 0}, {"todo", 1}, {"xfail", 2}, {"xpass", 3}, {"timeout", 4}};

	for (size_t w = 0; w < ARRAY_SIZE(words); w++) {
		size_t l = strlen(words[w].word);

		if (n < l || strncasecmp(s, words[w].word, l))
			continue;
		/* "SKIPPED" counts as SKIP (Test::Harness matches /^skip/i), "XFAILED" does not */
		while (words[w].kind == 0 && l < n &&
		       ((s[l] >= 'a' && s[l] <= 'z') || (s[l] >= 'A' && s[l] <= 'Z')))
			l++;
		if (l < n && ((s[l] >= 'a' && s[l] <= 'z') || (s[l] >= 'A' && s[l] <= 'Z') ||
			      is_digit(s[l]) || s[l] == '_'))
			continue;
		switch (words[w].kind) {
		case 0:
			*v = VERDICT_SKIP;
			break;
		case 1: /* TAP: a TODO test that fails is expected, one that passes is news */
			*v = ok ? VERDICT_XPASS : VERDICT_XFAIL;
			break;
		case 2:
			*v = VERDICT_XFAIL;
			break;
		case 3:
			*v = VERDICT_XPASS;
			break;
		default:
			*v = VERDICT_TIMEOUT;
			break;
		}
		return l;
	}
	return 0;
}

/* A result's comment "time=12ms" (node-tap's; the init's plain pass, init/report.c): the
 * duration in seconds, -1 when the comment is something else. */
static double time_comment(const char *s)
{
	char *end;
	double d;

	if (strncmp(s, "time=", 5) || !is_digit(s[5]))
		return -1;
	d = decimal(s + 5, &end);
	return d >= 0 && !strcmp(end, "ms") ? d / 1000.0 : -1;
}

static char *unescape_desc(struct tap_parser *p, const char *s, size_t n)
{
	char *out = a_alloc(p, n + 1);
	size_t j = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '#' || s[i + 1] == '\\'))
			i++;
		out[j++] = s[i];
	}
	out[j] = '\0';
	return out;
}

static void handle_result(struct tap_parser *p, size_t li, const char *s, size_t n)
{
	bool ok = s[0] == 'o';
	size_t i = ok ? 2 : 6, dstart, dend, hash = SIZE_MAX;
	unsigned long num = 0;
	bool has_num;
	enum verdict v = ok ? VERDICT_PASS : VERDICT_FAIL;
	char *reason = NULL, *note = NULL, *skip_reason = NULL, *subname = NULL;
	struct level *l;
	struct tap_test *t, *subs;
	size_t nsubs;

	i = skip_sp(s, n, i);
	has_num = parse_uint(s, n, &i, &num);
	i = skip_sp(s, n, i);
	if (i < n && s[i] == '-' && (i + 1 == n || s[i + 1] == ' '))
		i = skip_sp(s, n, i + 1);
	dstart = i;
	/* The directive or comment starts at the first unescaped '#' that opens the rest of the
	 * line (kselftest.h: "ok 3 # SKIP msg") or follows a space ("name # SKIP"). */
	for (size_t j = i; j < n; j++) {
		if (s[j] == '\\') {
			j++;
			continue;
		}
		if (s[j] == '#' && (j == dstart || s[j - 1] == ' ' || s[j - 1] == '\t')) {
			hash = j;
			break;
		}
	}
	dend = hash == SIZE_MAX ? n : hash;
	if (hash != SIZE_MAX) {
		size_t k = skip_sp(s, n, hash + 1);
		size_t kw = directive(s + k, n - k, &v, ok);

		if (kw) {
			size_t r = k + kw;

			if (r < n && s[r] == ':')
				r++;
			reason = dup_trim(s + r, n - r);
		} else {
			/* not a directive, a comment: kselftest runner's "# exit=1" is the reason
			 */
			reason = dup_trim(s + k, n - k);
		}
	}
	dend = rtrim(s, dend);

	result_done(p);
	close_deeper(p, li, &subs, &nsubs, &skip_reason, &subname);
	l = &p->lv[li];
	if (!has_num)
		num = l->last_num + 1;
	else if (num <= l->last_num) {
		bool dup = false;

		/* look back a little only: a test printing "ok 1" a million times must not make
		 * this quadratic; further back, a repeat is called out of order */
		for (size_t k = l->n, seen = 0; k > l->doc_start && seen < 64; k--, seen++)
			if (l->tests[k - 1].num == num) {
				dup = true;
				break;
			}
		note = dup ? xasprintf("duplicate test number %lu", num)
			   : xasprintf("out of order test number %lu (expected %u)", num,
				       l->last_num + 1);
	} else if (num != l->last_num + 1) {
		note = xasprintf("out of order test number %lu (expected %u)", num,
				 l->last_num + 1);
	}
	if (num > l->last_num)
		l->last_num = (unsigned)num;
	l->doc_used = true;

	t = tests_push(&l->tests, &l->n, &l->alloc);
	t->num = (unsigned)num;
	t->name = dend > dstart ? unescape_desc(p, s + dstart, dend - dstart) : NULL;
	if (!t->name || !*t->name)
		t->name = a_str(p, subname ? subname : "");
	t->verdict = v;
	if (reason && (t->duration_s = time_comment(reason)) >= 0) {
		free(reason);
		reason = NULL;
	}
	t->reason = a_take(p, reason);
	if (t->reason && !strncmp(t->reason, "exit=", 5) && is_digit(t->reason[5]))
		t->exit_code = atoi(t->reason + 5); /* kselftest runner: "not ok 2 name # exit=1" */
	if (!t->reason && v == VERDICT_SKIP && skip_reason)
		t->reason = a_str(p, skip_reason);
	free(skip_reason);
	free(subname);
	set_subtests(p, t, subs, nsubs);

	if (li == 0) {
		struct strbuf tmp = p->cur_log;

		free(p->runner_name);
		p->runner_name = NULL;
		p->cur_log = p->pending_log;
		p->cur_log_trunc = p->pending_log_trunc;
		p->pending_log = tmp;
		strbuf_reset(&p->pending_log);
		p->pending_log_trunc = false;
	}
	free(l->next_name);
	l->next_name = NULL;
	p->await = true;
	p->in_yaml = false;
	p->yaml_level = li;
	p->yaml_idx = l->n - 1;
	p->yaml_note = note;
}

static void handle_plan(struct tap_parser *p, size_t li, const char *s, size_t n)
{
	struct level *l = &p->lv[li];
	size_t i = 3;
	unsigned long count = 0;

	parse_uint(s, n, &i, &count);
	i = skip_sp(s, n, i);
	if (i < n && s[i] != '#')
		return; /* "1..3 apples" is not a plan */
	if (l->plan >= 0 && l->n > l->doc_start)
		return; /* a second plan after results: the first one stands */
	l->plan = (long)count;
	l->doc_used = true;
	if (i < n) {
		size_t k = skip_sp(s, n, i + 1);
		enum verdict v;

		if (directive(s + k, n - k, &v, true) && v == VERDICT_SKIP) {
			size_t kw = directive(s + k, n - k, &v, true);

			free(l->plan_skip);
			l->plan_skip = dup_trim(s + k + kw, n - k - kw);
			if (!l->plan_skip)
				l->plan_skip = xstrdup("");
		}
	}
}

static void handle_struct(struct tap_parser *p, size_t li, enum kind k, const char *s, size_t n)
{
	struct level *l = &p->lv[li];

	switch (k) {
	case K_VERSION:
		if (li == 0)
			p->sum.saw_version = true;
		if (l->doc_used || l->n > l->doc_start)
			level_close_doc(p, li);
		break;
	case K_PLAN:
		handle_plan(p, li, s, n);
		break;
	case K_RESULT:
		handle_result(p, li, s, n);
		break;
	case K_BAIL:
		if (!p->sum.bailed_out) {
			p->sum.bailed_out = true;
			p->sum.bail_reason = dup_trim(s + 9, n - 9);
		}
		break;
	case K_SUBTEST:
		if (li > 0 && !l->subtest_name && !l->doc_used && l->n == l->doc_start) {
			l->subtest_name = dup_trim(s + 10, n - 10);
		} else {
			free(l->next_name);
			l->next_name = dup_trim(s + 10, n - 10);
		}
		break;
	case K_TEXT:
		break;
	}
}

/* Open a level below li whose lines start with prefix[0..plen). */
static bool open_level(struct tap_parser *p, size_t li, const char *prefix, size_t plen)
{
	char *pending_name = NULL;

	if (li + 1 >= MAX_DEPTH || plen > PREFIX_CAP)
		return false;
	result_done(p);
	if (p->depth > li + 1) {
		/* a sibling at another indentation: the old one ended without a result line */
		struct tap_test *kids;
		size_t nkids;
		char *name;

		close_deeper(p, li, &kids, &nkids, NULL, &name);
		if (nkids || name) {
			struct level *l = &p->lv[li];

			push_group(p, &l->tests, &l->n, &l->alloc, name, kids, nkids);
		}
	}
	/* TAP 14 puts "# Subtest: NAME" at the parent's indentation, before the block */
	pending_name = p->lv[li].next_name;
	p->lv[li].next_name = NULL;
	level_set(&p->lv[li + 1], prefix, plen);
	p->lv[li + 1].subtest_name = pending_name;
	p->depth = li + 2;
	return true;
}

/* A line of test output (prefix stripped), at indentation level determined here. */
static void tap_line(struct tap_parser *p, const char *s, size_t n, bool kernel)
{
	size_t li = p->depth - 1, c, ws;
	const char *content;
	size_t cn;
	enum kind k;

	/* the deepest level whose prefix this line carries */
	while (li > 0 && (n < p->lv[li].plen || memcmp(s, p->lv[li].prefix, p->lv[li].plen)))
		li--;
	c = p->lv[li].plen;
	if (li == 0 && c && (n < c || memcmp(s, p->lv[0].prefix, c))) {
		/* less indented than an indented top-level document: still level 0 */
		c = skip_sp(s, n, 0);
		k = classify(s + c, n - c);
		if (k != K_TEXT) {
			result_done(p);
			handle_struct(p, 0, k, s + c, n - c);
		}
		return;
	}
	content = s + c;
	cn = n - c;

	/* YAML block of the result just seen */
	if (p->await) {
		size_t base = p->lv[p->yaml_level].plen;
		bool at_level = li >= p->yaml_level && n >= base;
		size_t ind = at_level ? skip_sp(s, n, base) - base : 0;
		const char *r = at_level ? s + base + ind : s;
		size_t rn = at_level ? rtrim(r, n - base - ind) : 0;

		if (p->in_yaml) {
			if (!at_level || ind < p->yaml_indent) {
				if (!kernel || classify(r, rn) != K_TEXT)
					result_done(p);
				else
					return;
			} else {
				if (rn == 3 && !memcmp(r, "...", 3))
					result_done(p);
				else
					yaml_line(p, r, rn);
				return;
			}
		} else if (at_level && ind > 0 && rn == 3 && !memcmp(r, "---", 3) && n >= base &&
			   !memcmp(s, p->lv[p->yaml_level].prefix, base)) {
			p->in_yaml = true;
			p->yaml_indent = ind;
			return;
		} else if (!kernel || classify(r, rn) != K_TEXT) {
			result_done(p);
		}
	}

	ws = skip_sp(content, cn, 0);
	k = classify(content + ws, cn - ws);
	if (k != K_TEXT && ws > 0) {
		if (li == 0 && p->depth == 1 && !p->lv[0].doc_used && p->lv[0].n == 0 &&
		    !p->sum.saw_version && k == K_VERSION) {
			/* the whole document is indented: level 0 takes that prefix */
			size_t pl = c + ws > PREFIX_CAP ? PREFIX_CAP : c + ws;

			memcpy(p->lv[0].prefix, s, pl);
			p->lv[0].plen = pl;
		} else if (!open_level(p, li, s, c + ws)) {
			return;
		} else {
			li++;
		}
		handle_struct(p, li, k, content + ws, cn - ws);
		return;
	}
	if (k == K_TEXT && cn > ws + 2 && content[ws] == '#' && content[ws + 1] == ' ') {
		/* kselftest runner nesting, possibly itself indented (the runner run as one
		 * tapboot test): "    # TAP version 13" opens a level with prefix "    # " */
		enum kind k2 = classify(content + ws + 2, cn - ws - 2);

		if (k2 == K_VERSION && open_level(p, li, s, c + ws + 2))
			handle_struct(p, li + 1, k2, content + ws + 2, cn - ws - 2);
		return;
	}
	if (k != K_TEXT)
		handle_struct(p, li, k, content, cn);
}

/* ---- tapboot markers ---- */

/* Value of key= in a marker line (up to the next space), or NULL. */
static char *marker_value(const char *s, size_t n, const char *key)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i + kl <= n; i++) {
		if ((i == 0 || s[i - 1] == ' ') && !memcmp(s + i, key, kl)) {
			size_t e = i + kl;

			while (e < n && s[e] != ' ')
				e++;
			return xstrndup(s + i + kl, e - i - kl);
		}
	}
	return NULL;
}

static void handle_marker(struct tap_parser *p, const char *s, size_t n)
{
	if (starts(s, n, TAPBOOT_MARK_BEGIN)) {
		char *nonce = marker_value(s, n, "nonce=");
		char *tests = marker_value(s, n, "tests=");
		char *kernel = marker_value(s, n, "kernel=");

		p->sum.saw_begin = true;
		if (p->foreign && !p->nonce && nonce)
			p->nonce = xstrdup(nonce); /* tapboot parse of a run's console.log */
		if (tests)
			p->begin_tests = strtol(tests, NULL, 10);
		if (kernel && !p->sum.kernel) {
			p->sum.kernel = kernel;
			kernel = NULL;
		}
		if (p->ev.on_begin)
			p->ev.on_begin(p->ev.ctx, nonce ? nonce : "",
				       p->begin_tests > 0 ? (unsigned)p->begin_tests : 0);
		free(nonce);
		free(tests);
		free(kernel);
	} else if (starts(s, n, TAPBOOT_MARK_RUN)) {
		size_t i = strlen(TAPBOOT_MARK_RUN);
		unsigned long num = 0;

		if (!parse_uint(s, n, &i, &num))
			return;
		size_t e;

		i = skip_sp(s, n, i);
		e = rtrim(s, n);
		p->running = (unsigned)num;
		free(p->running_name);
		p->running_name = xstrndup(s + i, e > i ? e - i : 0);
		if (p->ev.on_run)
			p->ev.on_run(p->ev.ctx, p->running, p->running_name);
	} else if (starts(s, n, TAPBOOT_MARK_END)) {
		char *nonce = marker_value(s, n, "nonce=");
		bool match = p->nonce ? nonce && !strcmp(nonce, p->nonce) : true;

		free(nonce);
		if (!match)
			return; /* a test printing a fake end line cannot complete the run */
		p->saw_end = true;
		p->sum.complete = true; /* live, so that a runner can stop reading now */
		if (p->ev.on_end)
			p->ev.on_end(p->ev.ctx);
	}
}

/* ---- one line ---- */

/* structural false: a line that is only logged (a test's or the kernel's output in a sequenced
 * stream): it neither ends a YAML block nor makes a result, a plan or a marker. */
static void process_line(struct tap_parser *p, const char *s, size_t n, bool kernel,
			 bool structural)
{
	unsigned owner;

	/* a line that is not part of the YAML block ends the result before it, so that it is
	 * logged with the next test */
	if (structural && p->await && p->yaml_level == 0) {
		size_t ind = skip_sp(s, n, 0);
		bool yaml_ok = p->in_yaml ? ind >= p->yaml_indent && ind > 0
					  : ind > 0 && ind < n && rtrim(s, n) - ind == 3 &&
						    !memcmp(s + ind, "---", 3);

		if (!yaml_ok && (!kernel || classify(s + ind, n - ind) != K_TEXT))
			result_done(p);
	}
	if (structural && !kernel && n > 11 && s[0] == '#' && starts(s, n, TAPBOOT_MARK_RUN))
		handle_marker(p, s, n); /* before logging: the run line belongs to its test */
	if (p->await && p->yaml_level == 0) {
		struct tap_test *t = yaml_target(p);

		owner = t ? t->num : 0;
		log_add(&p->cur_log, &p->cur_log_trunc, p->log_cap, s, n);
	} else {
		owner = p->running;
		log_add(&p->pending_log, &p->pending_log_trunc, p->log_cap, s, n);
	}
	if (p->ev.on_line)
		p->ev.on_line(p->ev.ctx, owner, kernel, s, n);
	if (structural && !kernel && n > 12 && s[0] == '#' && starts(s, n, "# selftests: ")) {
		/* run_kselftest.sh names the test before running it: the name of a crash */
		free(p->runner_name);
		p->runner_name = xstrndup(s + 2, rtrim(s, n) - 2);
	}

	if (kernel || (n && s[0] != ' ' && s[0] != '#')) {
		/* old KUnit indents even the kernel's own lines with a tab */
		size_t k = kernel ? skip_sp(s, n, 0) : 0;

		if (!p->sum.crashed && is_crash_line(s + k, n - k)) {
			struct level *l0 = &p->lv[0];

			p->sum.crashed = true;
			p->sum.crash_line = xstrndup(s + k, rtrim(s, n) - k);
			/* after every planned test reported (KUnit under UML panics for want of a
			 * root file system once its tests are done), the crash cut nothing */
			p->crash_after_plan = p->depth == 1 && l0->plan >= 0 && !p->unmet &&
					      l0->n - l0->doc_start >= (size_t)l0->plan;
			if (p->ev.on_crash)
				p->ev.on_crash(p->ev.ctx, p->sum.crash_line);
		}
	}
	if (!structural)
		return;
	if (!kernel && n > 11 && s[0] == '#' && starts(s, n, TAPBOOT_MARK)) {
		if (!starts(s, n, TAPBOOT_MARK_RUN))
			handle_marker(p, s, n);
		return;
	}
	tap_line(p, s, n, kernel);
}

/* ---- sequencing: which lines are the init's ---- */

/* A YAML line's indent at the top level (the init's block): two spaces. */
static bool two_space(const char *s, size_t n)
{
	return n >= 2 && s[0] == ' ' && s[1] == ' ';
}

static bool nested_line(const char *s, size_t n)
{
	return n >= TAPBOOT_NEST_INDENT && !memcmp(s, "    ", TAPBOOT_NEST_INDENT);
}

/* Where an init line may start inside a console line that a test's unfinished output ran
 * into: the shapes the init writes at the left margin. */
static bool protocol_start(const char *s, size_t n)
{
	return starts(s, n, "ok ") || starts(s, n, "not ok ") || starts(s, n, "# ") ||
	       starts(s, n, "  ") || starts(s, n, "TAP version ") || starts(s, n, "1..") ||
	       starts(s, n, "Bail out!");
}

/* Is s (n bytes, unnested) an init line? Then *off is where it starts (a test's unfinished
 * line may precede it), *body its length without the tag, *seq the tag's number (0: none). */
static bool authentic(struct tap_parser *p, const char *s, size_t n, size_t *off, size_t *body,
		      uint64_t *seq)
{
	uint64_t tag;
	unsigned tries = 0;

	*off = 0;
	*seq = 0;
	if (!p->keyed) {
		/* tapboot parse of a console.log: the tag cannot be checked, but the init numbers
		 * its lines 1, 2, 3...: an old or far-off number is not its next line */
		if (line_tag_split(s, n, body, seq, &tag)) {
			/* a test's unfinished line may run into the init's: without the key,
			 * the last result or marker on the line is taken as the init's */
			for (size_t i = *body; i-- > 1;) {
				size_t at = i;

				if (starts(s + i, *body - i, "ok ") && i >= 4 &&
				    !memcmp(s + i - 4, "not ", 4))
					at = i - 4;
				else if (!starts(s + i, *body - i, "ok ") &&
					 !starts(s + i, *body - i, TAPBOOT_MARK))
					continue;
				if (at) {
					*off = at;
					*body -= at;
				}
				break;
			}
			return (*seq > p->last_seq && *seq <= p->last_seq + 4) ||
			       (*seq == 1 && starts(s + *off, *body, TAPBOOT_MARK_BEGIN));
		}
		*body = n;
		return !p->need_tag;
	}
	if (!line_tag_split(s, n, body, seq, &tag))
		return false;
	if (line_tag_check(p->key, s, n, body, seq))
		goto found;
	/* a bounded search: a 64 KiB line must not cost 64 Ki hashes. In a run of blanks (a
	 * test's unfinished line of 40 spaces: issue 41) only the place two blanks before its
	 * end can start an init line (a block's "  ..."), so blanks do not use up the tries. */
	for (size_t i = 1; i < n && tries < 32; i++) {
		if (s[i] == ' ' && !(i + 2 < n && s[i + 1] == ' ' && s[i + 2] != ' '))
			continue;
		if (!protocol_start(s + i, n - i))
			continue;
		tries++;
		if (line_tag_check(p->key, s + i, n - i, body, seq)) {
			*off = i;
			goto found;
		}
	}
	return false;
found:
	/* a replayed line (or one from another boot) repeats an old sequence number */
	return *seq > p->last_seq;
}

/* Does the init line s fit the run's sequence: a result only for the running test, once; a
 * run line only for the next test; the end only after the last planned result? */
static bool in_sequence(struct tap_parser *p, const char *s, size_t n, uint64_t seq)
{
	size_t i;
	unsigned long num;
	bool ok;

	if (starts(s, n, TAPBOOT_MARK_RUN)) {
		i = strlen(TAPBOOT_MARK_RUN);
		ok = parse_uint(s, n, &i, &num) && num == (unsigned long)p->last_run + 1 &&
		     (!p->running || p->last_result == p->running);
		if (ok)
			p->last_run = (unsigned)num;
		return ok;
	}
	/* (tests=0 with results after it is no init's begin line, but bench/parser_gen.c's
	 * synthetic console, which cannot know its count up front) */
	if (starts(s, n, TAPBOOT_MARK_END))
		return p->last_result == p->last_run &&
		       (p->begin_tests <= 0 || (long)p->last_result == p->begin_tests);
	if (starts(s, n, TAPBOOT_MARK_BEGIN)) {
		if (!p->sum.saw_begin)
			return true;
		/* console.log of a run with several VMs: each VM's stream follows the last one's
		 * and starts over. Only without the key (tapboot parse): a run's own parser reads
		 * one VM, whose init prints one begin line. */
		if (p->keyed || seq != 1)
			return false;
		p->last_seq = p->last_run = p->last_result = 0;
		p->running = 0;
		return true;
	}
	/* the init's YAML is a verdict's block only: a tagged "  ..." elsewhere is a forgery
	 * (without the key it could carry the next number) */
	if (two_space(s, n))
		return p->yaml_may;
	if (classify(s, n) == K_RESULT) {
		i = s[0] == 'o' ? 2 : 6;
		i = skip_sp(s, n, i);
		ok = parse_uint(s, n, &i, &num) && p->running && num == p->running &&
		     num > p->last_result;
		if (ok)
			p->last_result = (unsigned)num;
		return ok;
	}
	return true;
}

/* More lines than the init's block has (---, duration_s, exit or signal, reason, taint, ...)
 * are not its block. */
#define BLOCK_MAX_LINES 16

/* The held lines were not the init's block: a test's output, as any untagged line. */
static void block_drop(struct tap_parser *p)
{
	const char *s = p->block.buf, *end = s + p->block.len;

	if (!p->block_open)
		return;
	p->block_open = false;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		if (classify(s, n) != K_TEXT)
			p->rejected++;
		process_line(p, s, n, false, false);
		s += n + 1;
	}
	strbuf_reset(&p->block);
}

/* Is the block held, its "  ..." line included, the init's (the tag seq, tag on it), and the
 * one it wrote right after the verdict it would complete? Another verdict's block (that one
 * lost to a test's unfinished line) is not this one's, nor is a replayed one. */
static bool block_right(struct tap_parser *p, uint64_t seq, uint64_t tag)
{
	if (seq != p->block_seq || seq <= p->last_seq)
		return false;
	/* tapboot parse: the numbers only, as authentic() */
	return !p->keyed || line_tag_mac(p->key, seq, p->block.buf, p->block.len) == tag;
}

/* An unnested line while the init's block may be coming: true when it was taken (held, or the
 * block it ends handled). */
static bool block_line(struct tap_parser *p, const char *s, size_t n)
{
	size_t body;
	uint64_t seq, tag;
	bool tagged = line_tag_split(s, n, &body, &seq, &tag);

	if (n == 5 && !memcmp(s, "  ---", 5)) {
		/* a block starts (again: what was held before it was a test's) */
		block_drop(p);
		p->block_open = true;
		p->block_lines = 1;
		strbuf_add(&p->block, s, n);
		return true;
	}
	if (!p->block_open)
		return false; /* a test's line before the block: its output */
	if (tagged && body == 5 && !memcmp(s, "  ...", 5)) {
		const char *l, *end;

		strbuf_addch(&p->block, '\n');
		strbuf_add(&p->block, s, body);
		if (!block_right(p, seq, tag)) {
			p->block.len -= body + 1;
			p->block.buf[p->block.len] = '\0';
			block_drop(p);
			p->rejected++;
			process_line(p, s, n, false, false);
			return true;
		}
		p->last_seq = seq;
		p->block_open = p->block_want = false;
		for (l = p->block.buf, end = l + p->block.len; l < end;) {
			const char *nl = memchr(l, '\n', (size_t)(end - l));
			size_t ln = nl ? (size_t)(nl - l) : (size_t)(end - l);

			if (!nl)
				p->init_block = true; /* before "..." ends the result */
			process_line(p, l, ln, false, true);
			l += ln + 1;
		}
		p->init_block = false; /* "..." ended the result: for no later one */
		strbuf_reset(&p->block);
		return true;
	}
	if (!tagged && n > 2 && s[0] == ' ' && s[1] == ' ' && s[2] != ' ' &&
	    p->block_lines < BLOCK_MAX_LINES) {
		strbuf_addch(&p->block, '\n');
		strbuf_add(&p->block, s, n);
		p->block_lines++;
		return true;
	}
	block_drop(p);
	return false;
}

/* The init verdict just accepted, when it is a plain pass on one line, "ok N name # time=2ms",
 * with no block (init/report.c): the init writes that form only for exit 0 with no reason or
 * taint, and only a time comment gives a verdict its duration before a block. NULL otherwise. */
static struct tap_test *compact_pass(struct tap_parser *p)
{
	struct tap_test *t = yaml_target(p);

	return t && p->await && !p->yaml_level && t->verdict == VERDICT_PASS &&
			       t->duration_s >= 0 && !t->reason
		       ? t
		       : NULL;
}

static void sequenced_line(struct tap_parser *p, const char *s, size_t n, bool kernel)
{
	size_t off, body;
	uint64_t seq;
	struct tap_test *t;
	bool verdict;

	/* the kernel's lines (printk, /dev/kmsg, a KUnit module) are the running test's output;
	 * but a test's unfinished line that looked like a printk prefix can run into an init
	 * line, which then still carries its tag */
	if (kernel && !(p->keyed && authentic(p, s, n, &off, &body, &seq) && off)) {
		process_line(p, s, n, true, false);
		return;
	}
	if (kernel) {
		block_drop(p);
		process_line(p, s, off, true, false);
		s += off;
		n -= off;
		off = 0;
		goto checked;
	}
	if ((p->block_want || p->block_open) && block_line(p, s, n))
		return;
	/* a test's own output, nested by the init: its subtests while it runs; unless the init's
	 * tagged line follows the blanks of a test's unfinished line (the init cannot always end
	 * that line first: a test that printed 40 spaces made its verdict look nested) */
	if (nested_line(s, n) &&
	    !(memmem(s, n, LINE_TAG_MARK, strlen(LINE_TAG_MARK)) &&
	      authentic(p, s, n, &off, &body, &seq) && off && !nested_line(s + off, n - off))) {
		process_line(p, s, n, false, p->running && p->last_result != p->running);
		return;
	}
	if (!authentic(p, s, n, &off, &body, &seq)) {
		if (classify(s, n) != K_TEXT || starts(s, n, TAPBOOT_MARK))
			p->rejected++;
		process_line(p, s, n, false, false);
		return;
	}
	if (off)
		process_line(p, s, off, false, false); /* the test's unfinished line */
	s += off;
checked:
	if (!in_sequence(p, s, body, seq)) {
		p->rejected++;
		process_line(p, s, body, false, false);
		return;
	}
	if (seq)
		p->last_seq = seq;
	process_line(p, s, body, false, true);
	/* its block, tagged once when tags are in play (an untagged console's is plain TAP);
	 * any other init line (one of an old block tagged per line) ends the wait */
	verdict = classify(s, body) == K_RESULT;
	p->block_want = seq && verdict;
	p->yaml_may = verdict || two_space(s, body);
	p->block_seq = seq + 1;
	if (p->block_want && (t = compact_pass(p))) {
		/* exit 0, and complete now, as a block's "  ..." completes its verdict */
		t->exit_code = 0;
		p->block_want = false;
		result_done(p);
	}
}

/* Every line after splitting and printk-prefix stripping comes here. */
static void line_in(struct tap_parser *p, const char *s, size_t n, bool kernel)
{
	size_t body = n;
	uint64_t seq, tag;
	bool tagged;

	if (p->sequenced) {
		sequenced_line(p, s, n, kernel);
		return;
	}
	/* today's behaviour, for logs that are not a tapboot run's: tags (a console.log read
	 * without the key) are only taken off */
	tagged = !kernel && !nested_line(s, n) && line_tag_split(s, n, &body, &seq, &tag);
	if (p->mode == TAP_PARSE_AUTO && !kernel && starts(s, body, TAPBOOT_MARK_BEGIN) &&
	    !p->sum.saw_begin) {
		/* a tapboot console: sequenced from its begin line on */
		p->sequenced = true;
		p->need_tag = tagged;
		sequenced_line(p, s, n, kernel);
		return;
	}
	process_line(p, s, body, kernel, true);
}

/* Length of a printk prefix at s: "[    1.234567] ", "[    1.234567][  T1] ". 0 if none. */
static size_t printk_prefix(const char *s, size_t n)
{
	size_t i = 1, d;

	if (n < 10 || s[0] != '[')
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	d = i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == d || i >= n || s[i] != '.')
		return 0;
	d = ++i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i - d != 6 || i >= n || s[i] != ']')
		return 0;
	i++;
	if (i < n && s[i] == '[') {
		/* caller id: "[  T123]" (task) or "[    C0]" (CPU) */
		size_t j = i + 1;

		while (j < n && s[j] == ' ')
			j++;
		if (j < n && (s[j] == 'T' || s[j] == 'C')) {
			size_t k = ++j;

			while (j < n && is_digit(s[j]))
				j++;
			if (j > k && j < n && s[j] == ']')
				i = j + 1;
		}
	}
	if (i < n && s[i] == ' ')
		i++;
	return i;
}

/* The next printk prefix at or after from; n when none. */
static size_t find_prefix(const char *s, size_t n, size_t from, size_t *plen)
{
	while (from < n) {
		const char *b = memchr(s + from, '[', n - from);
		size_t at;

		if (!b)
			break;
		at = (size_t)(b - s);
		*plen = printk_prefix(s + at, n - at);
		if (*plen)
			return at;
		from = at + 1;
	}
	*plen = 0;
	return n;
}

static void user_line(struct tap_parser *p, const char *s, size_t n)
{
	if (p->frag.len) {
		strbuf_add(&p->frag, s, n > LINE_CAP ? LINE_CAP : n);
		line_in(p, p->frag.buf, p->frag.len, false);
		strbuf_reset(&p->frag);
		return;
	}
	line_in(p, s, n, false);
}

/* A complete raw line (no '\n', NULs already replaced). */
static void raw_line(struct tap_parser *p, const char *s, size_t n)
{
	size_t plen, at;

	while (n && s[n - 1] == '\r')
		n--;
	at = find_prefix(s, n, 0, &plen);
	if (at == n) {
		user_line(p, s, n);
		return;
	}
	if (at > 0) {
		/* a test line cut by a kernel record: keep its start for the next user line */
		if (p->frag.len + at <= LINE_CAP)
			strbuf_add(&p->frag, s, at);
	}
	while (at < n) {
		size_t start = at + plen, next, nplen;

		next = find_prefix(s, n, start, &nplen);
		line_in(p, s + start, next - start, true);
		at = next;
		plen = nplen;
	}
}

static void line_ready(struct tap_parser *p, const char *s, size_t n)
{
	if (memchr(s, '\0', n)) {
		if (s != p->lbuf)
			memcpy(p->lbuf, s, n);
		for (size_t i = 0; i < n; i++)
			if (!p->lbuf[i])
				p->lbuf[i] = ' ';
		s = p->lbuf;
	}
	raw_line(p, s, n);
}

void tap_parser_feed(struct tap_parser *p, const char *buf, size_t len)
{
	if (p->finished)
		return;
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		if (p->overflow) {
			/* the rest of an over-long line: logs only */
			size_t left = n;
			const char *q = buf;

			while (left) {
				size_t piece = left > LINE_CAP ? LINE_CAP : left;

				if (p->ev.on_line)
					p->ev.on_line(p->ev.ctx, p->running, p->overflow_kernel, q,
						      piece);
				q += piece;
				left -= piece;
			}
			if (nl)
				p->overflow = false;
		} else if (nl && p->llen == 0 && n <= LINE_CAP) {
			line_ready(p, buf, n); /* the common case: no copy */
		} else {
			size_t take = n;

			if (p->llen + take > LINE_CAP)
				take = LINE_CAP - p->llen;
			memcpy(p->lbuf + p->llen, buf, take);
			p->llen += take;
			if (take < n || (!nl && p->llen == LINE_CAP)) {
				/* over-long: parse what we have now, pass the rest through */
				size_t rest = n - take;

				p->overflow_kernel = printk_prefix(p->lbuf, p->llen) > 0;
				line_ready(p, p->lbuf, p->llen);
				p->llen = 0;
				p->overflow = !nl;
				if (rest && p->ev.on_line) {
					const char *q = buf + take;

					while (rest) {
						size_t piece = rest > LINE_CAP ? LINE_CAP : rest;

						p->ev.on_line(p->ev.ctx, p->running,
							      p->overflow_kernel, q, piece);
						q += piece;
						rest -= piece;
					}
				}
			} else if (nl) {
				line_ready(p, p->lbuf, p->llen);
				p->llen = 0;
			}
		}
		if (!nl)
			break;
		len -= n + 1;
		buf = nl + 1;
	}
}

/* ---- end of stream ---- */

void tap_parser_interrupted(struct tap_parser *p)
{
	p->interrupted = true;
}

void tap_parser_finish(struct tap_parser *p, const char *cut_reason)
{
	struct level *l0;
	struct tap_test *kids = NULL;
	size_t nkids = 0;
	char *kname = NULL;
	bool plan_met, plan_declared;

	if (p->finished)
		return;
	if (p->llen) {
		line_ready(p, p->lbuf, p->llen);
		p->llen = 0;
	}
	if (p->frag.len) {
		struct strbuf f = p->frag;

		strbuf_init(&p->frag);
		line_in(p, f.buf, f.len, false);
		strbuf_release(&f);
	}
	block_drop(p); /* its end never came: not the init's block */
	result_done(p);
	p->finished = true;
	p->cut_reason = cut_reason;
	close_deeper(p, 0, &kids, &nkids, NULL, &kname);
	l0 = &p->lv[0];

	{
		long plan = l0->plan >= 0 ? l0->plan : (l0->doc_start == 0 ? p->begin_tests : -1);
		size_t seen = l0->n - l0->doc_start;

		/* no plan at all: KTAP allows that; results without one count as met, unless a
		 * crash came (nothing says it came after the last test) */
		plan_declared = plan >= 0 || p->any_plan;
		plan_met = plan < 0 ? (l0->n > 0 || p->any_plan) && !p->unmet
				    : (size_t)plan <= seen && !p->unmet;
	}
	if (p->foreign && !p->sum.saw_begin)
		p->sum.complete =
			p->saw_end || (plan_met && (!p->sum.crashed || p->crash_after_plan));
	else
		p->sum.complete = p->saw_end;

	if (!p->sum.complete) {
		/* the test that was running when the stream ended */
		unsigned num = 0;
		const char *name = NULL;

		if (p->running) {
			num = p->running;
			name = p->running_name;
		} else if (!p->sum.bailed_out &&
			   (nkids || ((!plan_met || !plan_declared) && (l0->doc_used || l0->n) &&
				      (p->sum.crashed || cut_reason)))) {
			num = l0->last_num + 1;
			name = kname && *kname ? kname : p->runner_name;
		}
		if (num) {
			struct tap_test *t = tests_push(&l0->tests, &l0->n, &l0->alloc);

			t->num = num;
			t->name = name && *name ? a_str(p, name) :
						  synth_name(p, l0->doc_start == 0, num);
			/* stopped by tapboot's interrupt, not by the kernel */
			t->verdict = p->interrupted && !p->sum.crash_line ? VERDICT_INTERRUPTED
									  : VERDICT_CRASH;
			t->reason = a_str(
				p, p->sum.crash_line ? p->sum.crash_line
				   : cut_reason
					   ? cut_reason
					   : "console output ended while the test was running");
			set_subtests(p, t, kids, nkids);
			kids = NULL;
			nkids = 0;
			if (p->pending_log.len) {
				t->log = a_mem(p, p->pending_log.buf, p->pending_log.len);
				t->log_len = p->pending_log.len;
				t->log_truncated = p->pending_log_trunc;
				strbuf_reset(&p->pending_log);
			}
			if (num > l0->last_num)
				l0->last_num = num;
		}
	}
	if (nkids) {
		push_group(p, &l0->tests, &l0->n, &l0->alloc, kname, kids, nkids);
		kname = NULL;
	}
	free(kname);
	level_close_doc(p, 0);

	p->sum.planned =
		p->any_plan ? (int)(p->planned_sum > 0x7fffffff ? 0x7fffffff : p->planned_sum) : -1;
	p->sum.total = results_count(l0->tests, l0->n, p->sum.count);
	p->cut_reason = NULL; /* the caller's string */
}

const struct tap_test *tap_parser_tests(const struct tap_parser *p, size_t *n)
{
	*n = p->lv[0].n;
	return p->lv[0].tests;
}

const struct tap_summary *tap_parser_summary(const struct tap_parser *p)
{
	return &p->sum;
}
