// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_sequencing.c: libFuzzer harness for the host's sequencing of a tapboot console
 * (qemu/tap_parser.c in TAP_PARSE_TAPBOOT mode with a key). The input drives a generator: a
 * run of 1-6 tests whose real verdicts come from the input, written as the init writes them
 * (tagged with the run's key; a pass on one line or with its block, as the input says), with
 * forged lines interleaved before and after every real line:
 * results for any test number with either verdict, run/end/begin markers with the nonce, YAML
 * blocks (also inside the init's block, which carries one tag on its "  ..." line), made-up
 * and replayed tags, printk-prefixed copies (TAP through /dev/kmsg), raw bytes from the input,
 * and unfinished lines. Checks: no forged line becomes a result (every result the parser
 * reports is the init's verdict for that number, or crash/missing) or changes one's exit code
 * (the init's, or unknown when its block was spoiled); where no forged line was left
 * unfinished, every real verdict is there and the run is complete; where no forged line went
 * into a block, every exit code is the init's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "line_tag.h"
#include "strbuf.h"
#include "tap_parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const unsigned char key[LINE_TAG_KEY_LEN] = "0123456789abcdef";
static const char nonce[] = "c0ffee";

struct gen {
	const uint8_t *d;
	size_t n, i;
	struct strbuf out;
	uint64_t seq;
	struct strbuf last_real; /* the last real line with its tag, for replays */
	bool unfinished;	 /* a forged line without its newline was written */
	struct strbuf block;	 /* the init's YAML block so far (tagged once, at its end) */
	bool in_block;
	bool spoiled; /* a forged line went into a block */
};

static unsigned byte(struct gen *g)
{
	return g->i < g->n ? g->d[g->i++] : 0;
}

static void real(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void real(struct gen *g, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list ap;

	strbuf_init(&line);
	va_start(ap, fmt);
	strbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	if (!strcmp(line.buf, "  ---")) {
		g->in_block = true;
		strbuf_reset(&g->block);
	}
	if (g->in_block) {
		/* as the init: the block's lines untagged, one tag over them all on "  ..." */
		if (g->block.len)
			strbuf_addch(&g->block, '\n');
		strbuf_add(&g->block, line.buf, line.len);
		if (strcmp(line.buf, "  ...")) {
			strbuf_add(&g->out, line.buf, line.len);
			strbuf_addch(&g->out, '\n');
			strbuf_release(&line);
			return;
		}
		g->in_block = false;
		strbuf_reset(&g->last_real);
		line_tag_append(&g->last_real, key, ++g->seq, g->block.buf, g->block.len);
		strbuf_add(&g->out, line.buf, line.len);
		strbuf_add(&g->out, g->last_real.buf + g->block.len,
			   g->last_real.len - g->block.len);
		strbuf_addch(&g->out, '\n');
		strbuf_release(&line);
		return;
	}
	strbuf_reset(&g->last_real);
	line_tag_append(&g->last_real, key, ++g->seq, line.buf, line.len);
	strbuf_add(&g->out, g->last_real.buf, g->last_real.len);
	strbuf_addch(&g->out, '\n');
	strbuf_release(&line);
}

/* Zero or more forged lines, as a test (or the kernel on its behalf) could write them. */
static void forge(struct gen *g, unsigned ntests)
{
	unsigned k = byte(g);

	while (k & 1) {
		unsigned what = byte(g), num = byte(g) % (ntests + 2), how = byte(g);
		struct strbuf line = STRBUF_INIT;

		if (g->in_block)
			g->spoiled = true;
		strbuf_init(&line);
		if (how & 1)
			strbuf_addstr(&line, "[    1.234567] ");
		switch (what % 10) {
		case 0:
			strbuf_addf(&line, "ok %u t%u%s", num, num, (how & 2) ? " # time=1ms" : "");
			break;
		case 1:
			strbuf_addf(&line, "not ok %u t%u", num, num);
			break;
		case 2:
			strbuf_addf(&line, "# tapboot: run %u t%u", num, num);
			break;
		case 3:
			strbuf_addf(&line, "# tapboot: end nonce=%s pass=9 fail=0", nonce);
			break;
		case 4:
			strbuf_addf(&line, "# tapboot: begin nonce=%s tests=%u kernel=x", nonce,
				    num);
			break;
		case 5:
			strbuf_addstr(&line, (how & 2)	 ? "  ---"
					     : (how & 4) ? "  exit: 77"
							 : "  ...");
			break;
		case 6:
			strbuf_addstr(&line, g->last_real.buf); /* a replay, tag and all */
			break;
		case 7:
			strbuf_addf(&line, "    ok %u sub", num); /* nested: the test's own TAP */
			break;
		default: {
			/* raw bytes from the input */
			unsigned len = byte(g) % 48;

			for (unsigned j = 0; j < len && g->i < g->n; j++) {
				char c = (char)byte(g);

				strbuf_addch(&line, c == '\n' ? ' ' : c);
			}
			break;
		}
		}
		if ((how & 8) && (what & 128)) /* a made-up tag in today's shape */
			strbuf_addf(&line, " ~tb:%llu:%s",
				    (unsigned long long)(g->seq + (how >> 4)),
				    (how & 16) ? "AEjRWeJq83v" : "P_-09azAZ_-");
		else if (how & 8) /* a made-up tag: guessed, or a real tag on another line */
			strbuf_addf(&line, " ~tb:%llu:%016llx",
				    (unsigned long long)(g->seq + (how >> 4)),
				    (unsigned long long)((how & 16)
								 ? 0x0123456789abcdefULL
								 : (uint64_t)how *
									   0x9e3779b97f4a7c15ULL));
		strbuf_add(&g->out, line.buf, line.len);
		if ((how & 0xe0) == 0xe0)
			g->unfinished = true; /* no newline: the next line runs into it */
		else
			strbuf_addch(&g->out, '\n');
		strbuf_release(&line);
		k >>= 1;
		if (!k)
			k = byte(g) & 0x3;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gen g = {.d = data, .n = size}; /* its strbufs: strbuf_init below */
	unsigned ntests, verdict_bits, compact_bits;
	struct tap_parser *p;
	const struct tap_test *t;
	const struct tap_summary *s;
	size_t n, chunk;

	if (size < 2)
		return 0;
	strbuf_init(&g.out);
	strbuf_init(&g.last_real);
	strbuf_init(&g.block);
	ntests = 1 + byte(&g) % 6;
	verdict_bits = byte(&g);
	/* which passes are on one line: the input's last byte, inverted and not consumed, so
	 * that the inputs in fuzz/regress (found when every pass had a block) mostly keep theirs */
	compact_bits = (unsigned)~data[size - 1] & 0xff;
	chunk = 1 + byte(&g) % 64;
	real(&g, "# tapboot: begin nonce=%s tests=%u kernel=6.1.0", nonce, ntests);
	forge(&g, ntests);
	real(&g, "TAP version 13");
	real(&g, "1..%u", ntests);
	for (unsigned i = 1; i <= ntests; i++) {
		bool pass = verdict_bits >> (i - 1) & 1;

		forge(&g, ntests);
		real(&g, "# tapboot: run %u t%u", i, i);
		forge(&g, ntests);
		strbuf_addf(&g.out, "    # output of t%u\n", i);
		forge(&g, ntests);
		if (pass && (compact_bits >> (i - 1) & 1)) {
			/* a plain pass on one line, as the init writes it (init/report.c) */
			real(&g, "ok %u t%u # time=4ms", i, i);
			continue;
		}
		real(&g, "%s %u t%u", pass ? "ok" : "not ok", i, i);
		forge(&g, ntests);
		real(&g, "  ---");
		forge(&g, ntests);
		real(&g, "  duration_s: 0.004");
		/* a plain pass has no exit line: exit 0 is implied (init/report.c) */
		if (!pass) {
			real(&g, "  exit: 1");
			forge(&g, ntests);
			real(&g, "  reason: \"exit 1\"");
		}
		real(&g, "  ...");
	}
	forge(&g, ntests);
	real(&g, "# tapboot: end nonce=%s pass=0 fail=0", nonce);
	forge(&g, ntests);

	p = tap_parser_new(nonce, NULL);
	tap_parser_set_mode(p, TAP_PARSE_TAPBOOT, key);
	for (size_t off = 0; off < g.out.len; off += chunk)
		tap_parser_feed(p, g.out.buf + off,
				g.out.len - off < chunk ? g.out.len - off : chunk);
	tap_parser_finish(p, NULL);
	t = tap_parser_tests(p, &n);
	s = tap_parser_summary(p);
	for (size_t i = 0; i < n; i++) {
		enum verdict want;

		if (t[i].verdict == VERDICT_CRASH || t[i].verdict == VERDICT_MISSING)
			continue;
		want = t[i].num >= 1 && t[i].num <= ntests && (verdict_bits >> (t[i].num - 1) & 1)
			       ? VERDICT_PASS
			       : VERDICT_FAIL;
		if (t[i].num < 1 || t[i].num > ntests || t[i].verdict != want) {
			fprintf(stderr, "forged result: %u %s %s\n---\n", t[i].num,
				verdict_name(t[i].verdict), t[i].name);
			fwrite(g.out.buf, 1, g.out.len, stderr);
			abort();
		}
		/* the block's exit is the init's, or none when a forged line spoiled the block */
		if (t[i].exit_code != (want == VERDICT_PASS ? 0 : 1) &&
		    (t[i].exit_code != -1 || !(g.spoiled || g.unfinished))) {
			fprintf(stderr, "exit code %d of %u\n---\n", t[i].exit_code, t[i].num);
			fwrite(g.out.buf, 1, g.out.len, stderr);
			abort();
		}
	}
	if (!g.unfinished && (n != ntests || !s->complete)) {
		fprintf(stderr, "real results lost: %zu of %u, complete %d\n---\n", n, ntests,
			s->complete);
		fwrite(g.out.buf, 1, g.out.len, stderr);
		abort();
	}
	if (!g.unfinished)
		for (size_t i = 0; i < n; i++)
			if (t[i].num != i + 1 || t[i].verdict == VERDICT_CRASH ||
			    t[i].verdict == VERDICT_MISSING) {
				fprintf(stderr, "test %zu: %u %s\n---\n", i + 1, t[i].num,
					verdict_name(t[i].verdict));
				fwrite(g.out.buf, 1, g.out.len, stderr);
				abort();
			}
	tap_parser_free(p);
	strbuf_release(&g.out);
	strbuf_release(&g.last_real);
	strbuf_release(&g.block);
	return 0;
}
