// SPDX-License-Identifier: GPL-2.0-only
/* output.c: a test's output on its way to the console: lines, UTF-8, nesting, cap, reasons. */
#include "init.h"

#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* A reason longer than this is cut: it ends up on one TAP line. */
#define REASON_MAX 200

static const char *const reason_words[3] = {"SKIP", "XFAIL", "XPASS"};

void init_output_init(struct init_output *o, struct strbuf *out, size_t max)
{
	memset(o, 0, sizeof(*o));
	o->out = out;
	o->max = max;
	strbuf_init(&o->line);
}

void init_output_release(struct init_output *o)
{
	strbuf_release(&o->line);
	for (int i = 0; i < 3; i++)
		free(o->reason[i]);
	memset(o, 0, sizeof(*o));
}

/* Length of the valid UTF-8 sequence at s (Unicode 15 table 3-7), 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 1;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 2;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 3;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f; /* no surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f; /* nothing above U+10FFFF */
	if (n < need + 1 || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i <= need; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return need + 1;
}

void init_sanitize(struct strbuf *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(s + i, n - i);

		/* C0 and C1 controls would drive the host's terminal; tab is harmless. */
		if (k == 0 || (k == 1 && ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)) ||
		    (k == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)) {
			strbuf_addf(out, "\\x%02x", s[i]);
			i++;
			continue;
		}
		strbuf_add(out, s + i, k);
		i += k;
	}
}

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static bool starts_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n) && (s[n] == ' ' || s[n] == '\0' || s[n] == '\t');
}

static bool is_version_line(const char *t)
{
	return !strncmp(t, "TAP version ", 12) || !strncmp(t, "KTAP version ", 13);
}

/* In a test's TAP: result, plan, diagnostic, version, bail-out, and every indented line
 * (subtests, YAML blocks). */
static bool is_tap_line(const char *s)
{
	const char *t = skip_blank(s);

	if (t != s)
		return true;
	return starts_word(t, "ok") || starts_word(t, "not ok") ||
	       (!strncmp(t, "1..", 3) && t[3] >= '0' && t[3] <= '9') || *t == '#' ||
	       is_version_line(t) || !strncmp(t, "Bail out!", 9) || !strncmp(t, "pragma ", 7);
}

static void set_reason(struct init_output *o, int idx, const char *s, bool directive)
{
	size_t n;

	s = skip_blank(s);
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n)
		return;
	if (n > REASON_MAX) {
		n = REASON_MAX;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	free(o->reason[idx]);
	o->reason[idx] = xstrndup(s, n);
	o->directive[idx] = directive;
}

/* Remember why a test skipped (or xfailed): its TAP directive ("1..0 # SKIP why",
 * "ok 1 # SKIP why", kselftest.h's shapes), else the last line that mentions the word. */
static void note_reasons(struct init_output *o, const char *s)
{
	const char *t = skip_blank(s);
	bool result = starts_word(t, "ok") || starts_word(t, "not ok") || !strncmp(t, "1..", 3);

	/* kselftest's "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0" names them all. */
	if (strstr(s, "Totals:"))
		return;
	for (int i = 0; i < 3; i++) {
		const char *hash = result ? strchr(t, '#') : NULL;
		const char *hit;

		if (hash) {
			const char *d = skip_blank(hash + 1);
			size_t wl = strlen(reason_words[i]);

			if (!strncasecmp(d, reason_words[i], wl) &&
			    (d[wl] == ' ' || d[wl] == '\0' || d[wl] == '\t')) {
				set_reason(o, i, d + wl, true);
				continue;
			}
		}
		if (o->directive[i])
			continue;
		hit = strcasestr(s, reason_words[i]);
		/* "skip" inside "xskip"... is fine; XFAIL must not count as a mention of FAIL. */
		if (hit) {
			while (*t == '#')
				t = skip_blank(t + 1);
			set_reason(o, i, t, false);
		}
	}
}

/* Does the line mention a reason word? Checked before the costly part once nothing more is
 * shown: a 10 MB flood is then only scanned (it is about 1 s under TCG instead of 3). */
static bool mentions_reason(const char *s, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i++) {
		char c = s[i] | 0x20;

		if ((c == 's' && !strncasecmp(s + i, "skip", 4)) ||
		    (c == 'x' && i + 5 <= n &&
		     (!strncasecmp(s + i, "xfail", 5) || !strncasecmp(s + i, "xpass", 5))))
			return true;
	}
	return false;
}

static void emit_line(struct init_output *o, const char *raw, size_t n)
{
	struct strbuf text;

	if (n && raw[n - 1] == '\r')
		n--;
	if (o->truncated && !mentions_reason(raw, n))
		return;
	strbuf_init(&text);
	init_sanitize(&text, raw, n);
	if (is_version_line(skip_blank(text.buf)))
		o->tap = true;
	note_reasons(o, text.buf);
	if (!o->truncated && o->max && o->shown + n + 1 > o->max)
		o->truncated = true;
	if (!o->truncated) {
		o->shown += n + 1;
		strbuf_addf(o->out, "%*s", TAPBOOT_NEST_INDENT, "");
		if (o->tap && text.len && is_tap_line(text.buf)) {
			strbuf_add(o->out, text.buf, text.len);
		} else {
			strbuf_addch(o->out, '#');
			if (text.len) {
				strbuf_addch(o->out, ' ');
				strbuf_add(o->out, text.buf, text.len);
			}
		}
		strbuf_addch(o->out, '\n');
	}
	strbuf_release(&text);
}

/* Cut a full line where a UTF-8 sequence does not straddle the cut. */
static size_t split_point(const struct strbuf *l)
{
	const unsigned char *b = (const unsigned char *)l->buf;
	size_t i = l->len - 1;

	while (i > 0 && l->len - i < 4 && (b[i] & 0xc0) == 0x80)
		i--;
	if (b[i] >= 0xc2 && b[i] <= 0xf4) {
		size_t want = b[i] >= 0xf0 ? 4 : b[i] >= 0xe0 ? 3 : 2;

		if (l->len - i < want)
			return i ? i : l->len;
	}
	return l->len;
}

void init_output_feed(struct init_output *o, const char *buf, size_t len)
{
	o->total += len;
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t take = nl ? (size_t)(nl - buf) : len;
		size_t room = INIT_LINE_MAX - o->line.len;

		if (take > room) {
			size_t cut;

			strbuf_add(&o->line, buf, room);
			buf += room;
			len -= room;
			cut = split_point(&o->line);
			emit_line(o, o->line.buf, cut);
			memmove(o->line.buf, o->line.buf + cut, o->line.len - cut);
			o->line.len -= cut;
			o->line.buf[o->line.len] = '\0';
			continue;
		}
		if (nl && !o->line.len) {
			/* the whole line is in buf: no copy */
			emit_line(o, buf, take);
		} else {
			strbuf_add(&o->line, buf, take);
			if (nl) {
				emit_line(o, o->line.buf, o->line.len);
				strbuf_reset(&o->line);
			}
		}
		buf += take + (nl ? 1 : 0);
		len -= take + (nl ? 1 : 0);
	}
}

void init_output_finish(struct init_output *o)
{
	if (o->line.len) {
		emit_line(o, o->line.buf, o->line.len);
		strbuf_reset(&o->line);
		if (!o->truncated)
			strbuf_addf(o->out, "%*s# (no newline at end of output)\n",
				    TAPBOOT_NEST_INDENT, "");
	}
	if (o->truncated)
		strbuf_addf(o->out, "%*s# output truncated: showed %zu of %zu bytes (%s%zu)\n",
			    TAPBOOT_NEST_INDENT, "", o->shown, o->total, INIT_ARG_OUTPUT_MAX,
			    o->max);
}
