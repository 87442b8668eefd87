// SPDX-License-Identifier: GPL-2.0-only
/* options.c: the init's kernel command-line parameters and the test selection they make. */
#include "init.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "protocol.h"

void init_options_init(struct init_options *o)
{
	memset(o, 0, sizeof(*o));
	o->nonce = xstrdup("");
	strlist_init(&o->filters);
	strlist_init(&o->warnings);
	o->timeout_s = -1;
	o->output_max = INIT_OUTPUT_MAX_DEFAULT;
}

void init_options_release(struct init_options *o)
{
	free(o->nonce);
	free(o->only);
	strlist_release(&o->filters);
	strlist_release(&o->warnings);
	memset(o, 0, sizeof(*o));
}

static bool parse_ulong(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && !*end && *v <= max;
}

static void bad(struct init_options *o, const char *key, const char *value, const char *what)
{
	char *w = xasprintf("ignoring %s'%s': %s", key, value, what);

	strlist_push(&o->warnings, w);
	free(w);
}

/* n bytes from 2n hex digits, all of s. */
static bool parse_hex(const char *s, unsigned char *out, size_t n)
{
	if (strlen(s) != 2 * n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;

		for (int j = 0; j < 2; j++) {
			char ch = s[2 * i + (size_t)j];
			unsigned d = ch >= '0' && ch <= '9'   ? (unsigned)(ch - '0')
				     : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
							      : 16u;

			if (d == 16)
				return false;
			v = v * 16 + d;
		}
		out[i] = (unsigned char)v;
	}
	return true;
}

/* tapboot.key=, .seed= and .time=: only on the handoff line (the command line is readable by
 * every test in /proc/cmdline, the handoff line is not kept anywhere). */
static bool parse_handoff_word(struct init_options *o, const char *w)
{
	static const char *const keys[] = {TAPBOOT_ARG_KEY, TAPBOOT_ARG_SEED, TAPBOOT_ARG_TIME,
					   TAPBOOT_ARG_TESTS};
	const char *val = NULL, *key = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(keys) && !key; i++)
		if (!strncmp(w, keys[i], strlen(keys[i])))
			key = keys[i], val = w + strlen(keys[i]);
	if (!key)
		return false;
	if (!o->in_handoff) {
		bad(o, key, "...", "taken only from the host's handoff line");
	} else if (key == keys[0]) {
		o->have_key = parse_hex(val, o->key, sizeof(o->key));
		if (!o->have_key)
			bad(o, key, val, "expected 32 hex digits");
	} else if (key == keys[1]) {
		o->have_seed = parse_hex(val, o->seed, sizeof(o->seed));
		if (!o->have_seed)
			bad(o, key, val, "expected 64 hex digits");
	} else if (key == keys[3]) {
		o->tests = !strcmp(val, "keep")	  ? INIT_TESTS_KEEP
			   : !strcmp(val, "load") ? INIT_TESTS_LOAD
						  : INIT_TESTS_DEFAULT;
		if (o->tests == INIT_TESTS_DEFAULT)
			bad(o, key, val, "expected keep or load");
	} else {
		char *end;

		errno = 0;
		o->time_s = strtoll(val, &end, 10);
		o->time_ns = *end == '.' ? strtol(end + 1, &end, 10) : -1;
		o->have_time = !errno && !*end && o->time_s > 0 && o->time_ns >= 0 &&
			       o->time_ns < 1000000000;
		if (!o->have_time)
			bad(o, key, val, "expected SECONDS.NANOSECONDS");
	}
	return true;
}

static void parse_word(struct init_options *o, const char *w)
{
	unsigned long v, k;
	const char *val;

	if (parse_handoff_word(o, w))
		return;
	if (!strcmp(w, TAPBOOT_ARG_HANDOFF)) {
		o->handoff = true;
	} else if (!strncmp(w, TAPBOOT_ARG_NONCE, strlen(TAPBOOT_ARG_NONCE))) {
		free(o->nonce);
		o->nonce = xstrdup(w + strlen(TAPBOOT_ARG_NONCE));
	} else if (!strncmp(w, TAPBOOT_ARG_FILTER, strlen(TAPBOOT_ARG_FILTER))) {
		strlist_push(&o->filters, w + strlen(TAPBOOT_ARG_FILTER));
	} else if (!strncmp(w, TAPBOOT_ARG_TIMEOUT, strlen(TAPBOOT_ARG_TIMEOUT))) {
		val = w + strlen(TAPBOOT_ARG_TIMEOUT);
		if (parse_ulong(val, 86400 * 7, &v))
			o->timeout_s = (long)v;
		else
			bad(o, TAPBOOT_ARG_TIMEOUT, val, "not a number of seconds");
	} else if (!strncmp(w, TAPBOOT_ARG_DISRUPTIVE, strlen(TAPBOOT_ARG_DISRUPTIVE))) {
		val = w + strlen(TAPBOOT_ARG_DISRUPTIVE);
		if (!strcmp(val, "1") || !strcmp(val, "0"))
			o->disruptive = *val == '1';
		else if (!strcmp(val, "elsewhere"))
			o->disruptive_elsewhere = true;
		else
			bad(o, TAPBOOT_ARG_DISRUPTIVE, val, "expected 0, 1 or elsewhere");
	} else if (!strncmp(w, TAPBOOT_ARG_PRIVILEGED, strlen(TAPBOOT_ARG_PRIVILEGED))) {
		val = w + strlen(TAPBOOT_ARG_PRIVILEGED);
		if (!strcmp(val, "elsewhere"))
			o->privileged_elsewhere = true;
		else
			bad(o, TAPBOOT_ARG_PRIVILEGED, val, "expected elsewhere");
	} else if (!strncmp(w, TAPBOOT_ARG_SHARD, strlen(TAPBOOT_ARG_SHARD))) {
		char *copy = xstrdup(w + strlen(TAPBOOT_ARG_SHARD));
		char *slash = strchr(copy, '/');

		if (slash)
			*slash = '\0';
		if (slash && parse_ulong(copy, 1u << 20, &k) &&
		    parse_ulong(slash + 1, 1u << 20, &v) && v > 0 && k < v) {
			o->shard_k = (unsigned)k;
			o->shard_n = (unsigned)v;
		} else {
			bad(o, TAPBOOT_ARG_SHARD, w + strlen(TAPBOOT_ARG_SHARD),
			    "expected K/N with 0 <= K < N");
		}
		free(copy);
	} else if (!strncmp(w, TAPBOOT_ARG_ONLY, strlen(TAPBOOT_ARG_ONLY))) {
		/* N, or a list of numbers and ranges (1,4,7-9): the host's balanced shards */
		char *copy, *save = NULL;
		bool ok = true;

		val = w + strlen(TAPBOOT_ARG_ONLY);
		copy = xstrdup(val);
		for (char *item = strtok_r(copy, ",", &save); ok && item;
		     item = strtok_r(NULL, ",", &save)) {
			char *dash = strchr(item, '-');
			unsigned long lo, hi;

			if (dash)
				*dash = '\0';
			ok = parse_ulong(item, 1u << 24, &lo) && lo > 0;
			hi = lo;
			if (ok && dash)
				ok = parse_ulong(dash + 1, 1u << 24, &hi) && hi >= lo && hi - lo < 1u << 16;
			for (unsigned long n = lo; ok && n <= hi; n++) {
				o->only = xrealloc(o->only, (o->n_only + 1) * sizeof(*o->only));
				o->only[o->n_only++] = (unsigned)n;
			}
		}
		if (!ok || !*val)
			bad(o, TAPBOOT_ARG_ONLY, val, "expected test numbers from 1 (N, N,M or N-M)");
		free(copy);
	} else if (!strncmp(w, INIT_ARG_OUTPUT_MAX, strlen(INIT_ARG_OUTPUT_MAX))) {
		val = w + strlen(INIT_ARG_OUTPUT_MAX);
		if (parse_ulong(val, (unsigned long)-1 >> 1, &v))
			o->output_max = v;
		else
			bad(o, INIT_ARG_OUTPUT_MAX, val, "not a number of bytes");
	}
}

void init_options_parse(struct init_options *o, const char *cmdline)
{
	struct strbuf word;
	const char *s = cmdline;

	strbuf_init(&word);
	while (*s) {
		bool quoted = false;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		strbuf_reset(&word);
		/* The kernel's next_arg(): double quotes group and are dropped. */
		for (; *s && (quoted || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
			if (*s == '"')
				quoted = !quoted;
			else
				strbuf_addch(&word, *s);
		}
		parse_word(o, word.buf);
	}
	strbuf_release(&word);
}

void init_options_parse_handoff(struct init_options *o, const char *line)
{
	o->in_handoff = true;
	init_options_parse(o, line);
	o->in_handoff = false;
}

static bool wanted(const struct plan *p, size_t i, const struct init_options *o)
{
	bool ok;

	if (o->n_only) {
		ok = false;
		for (size_t j = 0; j < o->n_only; j++)
			if (o->only[j] == i + 1)
				ok = true;
		if (!ok)
			return false;
	}
	if (!o->filters.n)
		return true;
	for (size_t j = 0; j < o->filters.n; j++)
		if (!fnmatch(o->filters.v[j], p->tests[i].name, 0))
			return true;
	return false;
}

size_t *init_select(const struct plan *p, const struct init_options *o, size_t *n)
{
	size_t *sel = xcalloc(p->n ? p->n : 1, sizeof(*sel));
	size_t kept = 0, seen = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (!wanted(p, i, o))
			continue;
		/* the host runs each of these in a VM of its own */
		if (o->disruptive_elsewhere && (p->tests[i].flags & PLAN_FLAG_DISRUPTIVE))
			continue;
		/* a disruptive one goes where the disruptive ones go (or is reported skipped) */
		if (o->privileged_elsewhere && (p->tests[i].flags & PLAN_FLAG_PRIVILEGED) &&
		    !(p->tests[i].flags & PLAN_FLAG_DISRUPTIVE))
			continue;
		/* Shards count over the filtered list, so K/N splits what would have run. */
		if (!o->shard_n || seen % o->shard_n == o->shard_k)
			sel[kept++] = i;
		seen++;
	}
	*n = kept;
	return sel;
}
