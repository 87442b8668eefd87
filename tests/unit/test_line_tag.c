// SPDX-License-Identifier: GPL-2.0-only
/* test_line_tag.c: the init's line tags (SipHash-2-4, the tag's shape) and the parser's
 * sequencing of a tapboot console: forged, replayed and out-of-order lines, kernel TAP,
 * unfinished lines, and the FOREIGN and AUTO modes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "harness.h"
#include "line_tag.h"
#include "strbuf.h"
#include "tap_parser.h"

static const unsigned char key[LINE_TAG_KEY_LEN] = "0123456789abcdef";

static void t_siphash(void)
{
	unsigned char k[16], m[15];

	for (int i = 0; i < 16; i++)
		k[i] = (unsigned char)i;
	for (int i = 0; i < 15; i++)
		m[i] = (unsigned char)i;
	/* the SipHash paper's appendix A, and the reference implementation's vectors.h */
	check(line_tag_siphash(k, m, 15) == 0xa129ca6149be45e5ULL);
	check(line_tag_siphash(k, m, 0) == 0x726fdb47dd0e0e31ULL);
	check(line_tag_siphash(k, m, 8) == 0x93f5f5799a932462ULL);
}

static void t_shape(void)
{
	struct strbuf sb = STRBUF_INIT;
	size_t body;
	uint64_t seq, tag;

	strbuf_init(&sb);
	line_tag_append(&sb, key, 42, "ok 1 a", 6);
	check(!strncmp(sb.buf, "ok 1 a ~tb:42:", 14) && sb.len == 14 + LINE_TAG_DIGITS);
	check(line_tag_check(key, sb.buf, sb.len, &body, &seq));
	check_int(body, ==, 6);
	check_int(seq, ==, 42);
	/* another line, another number or another key: wrong */
	sb.buf[5] = 'b';
	check(!line_tag_check(key, sb.buf, sb.len, &body, &seq));
	sb.buf[5] = 'a';
	check(!line_tag_check((const unsigned char *)"fedcba9876543210", sb.buf, sb.len, &body,
			      &seq));
	check(!line_tag_split("ok 1 a", 6, &body, &seq, &tag));
	check(!line_tag_split("ok 1 a ~tb::0123456789abcdef", 28, &body, &seq, &tag));
	check(!line_tag_split("ok 1 a ~tb:1:0123456789ABCDEF", 29, &body, &seq, &tag));
	/* base64url, most significant digit first; and the 16 hex digits of old console.logs */
	check(line_tag_split("x ~tb:7:AEjRWeJq83v", 19, &body, &seq, &tag) && body == 1 &&
	      seq == 7 && tag == 0x0123456789abcdefULL);
	check(line_tag_split("x ~tb:7:P__________", 19, &body, &seq, &tag) && tag == ~0ULL);
	check(!line_tag_split("x ~tb:7:Q__________", 19, &body, &seq, &tag)); /* > 64 bits */
	check(!line_tag_split("x ~tb:7:AEjRWeJq8.v", 19, &body, &seq, &tag));
	check(line_tag_split("x ~tb:7:0123456789abcdef", 24, &body, &seq, &tag) && body == 1 &&
	      seq == 7 && tag == 0x0123456789abcdefULL);
	/* a block of lines has one tag */
	strbuf_reset(&sb);
	line_tag_append(&sb, key, 3, "  ---\n  exit: 1\n  ...", 22);
	check(line_tag_check(key, sb.buf, sb.len, &body, &seq) && body == 22 && seq == 3);
	strbuf_release(&sb);
}

/* A console: lines starting with '!' are the init's (tagged here), those starting with '='
 * the init's YAML block (one tag on its "  ..." line, over the '=' lines only, so that
 * lines between them are the test's or the kernel's), others are as given. */
static char *console(const char *const *lines, bool tag)
{
	struct strbuf sb = STRBUF_INIT, blk = STRBUF_INIT;
	uint64_t seq = 0;

	strbuf_init(&sb);
	strbuf_init(&blk);
	for (size_t i = 0; lines[i]; i++) {
		const char *l = lines[i];

		if (l[0] == '=') {
			if (blk.len)
				strbuf_addch(&blk, '\n');
			strbuf_addstr(&blk, l + 1);
		}
		if (l[0] == '!' && tag) {
			line_tag_append(&sb, key, ++seq, l + 1, strlen(l + 1));
		} else if (l[0] == '=' && !strcmp(l, "=  ...") && tag) {
			struct strbuf t = STRBUF_INIT;

			strbuf_init(&t);
			line_tag_append(&t, key, ++seq, blk.buf, blk.len);
			strbuf_addstr(&sb, l + 1);
			strbuf_addstr(&sb, t.buf + blk.len);
			strbuf_release(&t);
			strbuf_reset(&blk);
		} else {
			strbuf_addstr(&sb, l + (l[0] == '!' || l[0] == '='));
		}
		if (l[strlen(l) - 1] != '\\')
			strbuf_addch(&sb, '\n');
		else
			sb.len--, sb.buf[sb.len] = '\0';
	}
	strbuf_release(&blk);
	return strbuf_detach(&sb);
}

struct logs {
	struct strbuf per_test[4];
	unsigned kernel[4];
};

static void on_line(void *ctx, unsigned num, bool kernel, const char *line, size_t len)
{
	struct logs *l = ctx;

	if (num < 4) {
		strbuf_add(&l->per_test[num], line, len);
		strbuf_addch(&l->per_test[num], '\n');
		l->kernel[num] += kernel;
	}
}

static char *verdicts(const char *text, enum tap_parser_mode mode, const unsigned char *k,
		      struct logs *logs, int *complete)
{
	struct tap_parser_events ev = {.ctx = logs, .on_line = on_line};
	struct tap_parser *p = tap_parser_new("n1", logs ? &ev : NULL);
	const struct tap_test *t;
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	tap_parser_set_mode(p, mode, k);
	tap_parser_feed(p, text, strlen(text));
	tap_parser_finish(p, NULL);
	t = tap_parser_tests(p, &n);
	strbuf_init(&sb);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%u %s=%s", i ? " " : "", t[i].num, t[i].name,
			    verdict_name(t[i].verdict));
	*complete = tap_parser_summary(p)->complete;
	tap_parser_free(p);
	return strbuf_detach(&sb);
}

static const char *const forged_run[] = {
	"!# tapboot: begin nonce=n1 tests=3 kernel=k",
	"!TAP version 13",
	"!1..3",
	"!# tapboot: run 1 a",
	"ok 2 b", /* a later test's result, before it runs */
	"    # a's output",
	"!ok 1 a",
	"!  ---",
	"!  exit: 0",
	"!  ...",
	"!# tapboot: run 2 b",
	"ok 2 b",			  /* its own, early */
	"[    2.000000] ok 3 c",	  /* through /dev/kmsg */
	"not ok 1 a",			  /* an earlier one */
	"# tapboot: end nonce=n1 pass=3", /* an early end, with the nonce */
	"ok 2 b ~tb:9:0123456789abcdef",  /* a made-up tag */
	"# tapboot: run 3 c",
	"ok 3 c",
	"!not ok 2 b",
	"!  ---",
	"!  reason: \"exit 1\"",
	"!  ...",
	"!# tapboot: run 3 c",
	"ok 3 \\", /* unfinished: the init's line runs into it */
	"!not ok 3 c",
	"!# tapboot: end nonce=n1 pass=1 fail=2",
	NULL,
};

static void t_forgery(void)
{
	char *text = console(forged_run, true), *v;
	struct logs logs;
	int complete;

	memset(&logs, 0, sizeof(logs));
	for (int i = 0; i < 4; i++)
		strbuf_init(&logs.per_test[i]);
	v = verdicts(text, TAP_PARSE_TAPBOOT, key, &logs, &complete);
	check_str(v, "1 a=pass 2 b=fail 3 c=fail");
	check_int(complete, ==, 1);
	/* every forged line is in the log of the test that was running */
	check(strstr(logs.per_test[1].buf, "\nok 2 b\n") != NULL);
	check(strstr(logs.per_test[2].buf, "ok 2 b\nok 3 c\nnot ok 1 a\n# tapboot: end nonce=n1 "
					   "pass=3\nok 2 b ~tb:9:0123456789abcdef\n# tapboot: "
					   "run 3 c\nok 3 c\n") != NULL);
	check_int(logs.kernel[2], ==, 1);
	check(strstr(logs.per_test[3].buf, "ok 3 \n") != NULL);
	free(v);

	/* the same console parsed as a foreign log: the forgeries win (today's behaviour) */
	v = verdicts(text, TAP_PARSE_FOREIGN, NULL, NULL, &complete);
	check(strstr(v, "2 b=pass") != NULL);
	free(v);
	/* tapboot parse without the key (AUTO): the tag's shape and numbers still tell */
	v = verdicts(text, TAP_PARSE_AUTO, NULL, NULL, &complete);
	check_str(v, "1 a=pass 2 b=fail 3 c=fail");
	free(v);
	/* with another key nothing is the init's: no result, not complete */
	v = verdicts(text, TAP_PARSE_TAPBOOT, (const unsigned char *)"fedcba9876543210", NULL,
		     &complete);
	check_str(v, "");
	check_int(complete, ==, 0);
	free(v);
	for (int i = 0; i < 4; i++)
		strbuf_release(&logs.per_test[i]);
	free(text);
}

/* A replayed init line (its tag and number were right once) is not taken twice, and the end
 * line counts only after the last planned result. */
static void t_replay_and_end(void)
{
	static const char *const lines[] = {
		"!# tapboot: begin nonce=n1 tests=2 kernel=k",
		"!TAP version 13",
		"!1..2",
		"!# tapboot: run 1 a",
		"!not ok 1 a",
		"!# tapboot: end nonce=n1 pass=0 fail=1",
		NULL,
	};
	char *text = console(lines, true), *v, *dup;
	const char *run1 = strstr(text, "# tapboot: run 1 a");
	int complete;

	v = verdicts(text, TAP_PARSE_TAPBOOT, key, NULL, &complete);
	check_str(v, "1 a=fail 2 test 2=missing");
	check_int(complete, ==, 0); /* a right tag, but test 2 never reported */
	free(v);
	/* replay "run 1" and "not ok 1" after the result: nothing changes */
	dup = xasprintf("%.*s%s", (int)(strstr(text, "# tapboot: end") - text), text, run1);
	v = verdicts(dup, TAP_PARSE_TAPBOOT, key, NULL, &complete);
	check_str(v, "1 a=fail 2 test 2=missing");
	free(v);
	free(dup);
	free(text);
}

/* Kernel TAP (a KUnit module loaded by a test) is that test's output in a tapboot console,
 * results in a foreign log. */
static void t_kernel_tap(void)
{
	static const char *const lines[] = {
		"!# tapboot: begin nonce=n1 tests=1 kernel=k",
		"!TAP version 13",
		"!1..1",
		"!# tapboot: run 1 kunit_load",
		"[    3.000000] KTAP version 1",
		"[    3.000001] 1..1",
		"[    3.000002] ok 1 example",
		"!ok 1 kunit_load",
		"!# tapboot: end nonce=n1 pass=1",
		NULL,
	};
	char *text = console(lines, true), *v;
	struct logs logs;
	int complete;

	memset(&logs, 0, sizeof(logs));
	for (int i = 0; i < 4; i++)
		strbuf_init(&logs.per_test[i]);
	v = verdicts(text, TAP_PARSE_TAPBOOT, key, &logs, &complete);
	check_str(v, "1 kunit_load=pass");
	check_int(logs.kernel[1], ==, 3);
	check(strstr(logs.per_test[1].buf, "KTAP version 1\n1..1\nok 1 example\n") != NULL);
	free(v);
	for (int i = 0; i < 4; i++)
		strbuf_release(&logs.per_test[i]);
	free(text);
	/* a robot's dmesg of a KUnit run: results from kernel lines, as before */
	v = verdicts("[    3.000000] KTAP version 1\n[    3.000001] 1..2\n"
		     "[    3.000002] ok 1 a\n[    3.000003] not ok 2 b\n",
		     TAP_PARSE_AUTO, NULL, NULL, &complete);
	check_str(v, "1 a=pass 2 b=fail");
	free(v);
}

/* The exit codes and whether a duration was read, per result: "1:0:d 2:-1:-". */
static char *exits(const char *text, enum tap_parser_mode mode, const unsigned char *k,
		   struct logs *logs)
{
	struct tap_parser_events ev = {.ctx = logs, .on_line = on_line};
	struct tap_parser *p = tap_parser_new("n1", logs ? &ev : NULL);
	const struct tap_test *t;
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	tap_parser_set_mode(p, mode, k);
	tap_parser_feed(p, text, strlen(text));
	tap_parser_finish(p, NULL);
	t = tap_parser_tests(p, &n);
	strbuf_init(&sb);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%u=%s:%d:%s", i ? " " : "", t[i].num,
			    verdict_name(t[i].verdict), t[i].exit_code,
			    t[i].duration_s >= 0 ? "d" : "-");
	tap_parser_free(p);
	return strbuf_detach(&sb);
}

/* The init's YAML block has one tag, on its "  ..." line: used only when that tag is right
 * for every byte of it; a plain pass's "exit: 0" is implied. */
static void t_block(void)
{
	static const char *const lines[] = {
		"!# tapboot: begin nonce=n1 tests=4 kernel=k",
		"!TAP version 13",
		"!1..4",
		"!# tapboot: run 1 a",
		"!ok 1 a",
		"=  ---",
		"[    2.000000] a printk between the block's lines",
		"=  duration_s: 0.014",
		"=  ...",
		"!# tapboot: run 2 b",
		"!not ok 2 b",
		"=  ---",
		"  reason: \"forged\"", /* a line inside the block: the block is not used */
		"=  duration_s: 0.020",
		"=  exit: 1",
		"=  reason: \"exit 1\"",
		"=  ...",
		"!# tapboot: run 3 c",
		"!ok 3 c",
		"  ---", /* a whole forged block with a made-up tag */
		"  duration_s: 9.000",
		"  exit: 7",
		"  ... ~tb:99:AEjRWeJq83v",
		"!# tapboot: run 4 d",
		"!ok 4 d",
		"=  ---",
		"=  duration_s: 0.001",
		"=  exit: 3",
		"=  ...",
		"!# tapboot: end nonce=n1 pass=3 fail=1",
		NULL,
	};
	char *text = console(lines, true), *v, *replay, *at;
	struct logs logs;

	memset(&logs, 0, sizeof(logs));
	for (int i = 0; i < 4; i++)
		strbuf_init(&logs.per_test[i]);
	v = exits(text, TAP_PARSE_TAPBOOT, key, &logs);
	check_str(v, "1=pass:0:d 2=fail:-1:- 3=pass:-1:- 4=pass:3:d");
	free(v);
	/* the unused blocks are the running test's output */
	check(strstr(logs.per_test[2].buf, "  ---\n  reason: \"forged\"\n") != NULL);
	check(strstr(logs.per_test[3].buf, "  exit: 7\n  ... ~tb:99:") != NULL);
	check_int(logs.kernel[1], ==, 1);
	for (int i = 0; i < 4; i++)
		strbuf_release(&logs.per_test[i]);
	/* without the key (tapboot parse): the numbers tell, the forged line cannot be seen */
	v = exits(text, TAP_PARSE_AUTO, NULL, NULL);
	check(!strncmp(v, "1=pass:0:d ", 11));
	free(v);
	/* with another key: nothing is the init's */
	v = exits(text, TAP_PARSE_TAPBOOT, (const unsigned char *)"fedcba9876543210", NULL);
	check_str(v, "");
	free(v);
	/* test 1's block replayed after test 3's verdict: an old number, not used */
	at = strstr(text, "ok 3 c");
	at = strchr(at, '\n') + 1;
	{
		const char *b = strstr(text, "  ---\n[");
		const char *e = strstr(b, "  ... ~tb:");

		e = strchr(e, '\n') + 1;
		replay = xasprintf("%.*s%.*s%s", (int)(at - text), text, (int)(e - b), b, at);
	}
	v = exits(replay, TAP_PARSE_TAPBOOT, key, NULL);
	check_str(v, "1=pass:0:d 2=fail:-1:- 3=pass:-1:- 4=pass:3:d");
	free(v);
	free(replay);
	/* a test's unfinished lines swallow test 1's "  ---" and the run line of test 2: test 2's
	 * block (right tag, but not the number after test 1's verdict) does not complete test 1 */
	{
		static const char *const lost[] = {
			"!# tapboot: begin nonce=n1 tests=2 kernel=k",
			"!TAP version 13",
			"!1..2",
			"!# tapboot: run 1 a",
			"!ok 1 a",
			"    x\\",
			"=  ---",
			"=  duration_s: 0.014",
			"=  ...",
			"    y\\",
			"!# tapboot: run 2 b",
			"!not ok 2 b",
			"=  ---",
			"=  duration_s: 0.020",
			"=  exit: 1",
			"=  reason: \"exit 1\"",
			"=  ...",
			"!# tapboot: end nonce=n1 pass=1 fail=1",
			NULL,
		};
		char *t2 = console(lost, true);

		v = exits(t2, TAP_PARSE_TAPBOOT, key, NULL);
		check(!strncmp(v, "1=pass:-1:- ", 12));
		free(v);
		v = exits(t2, TAP_PARSE_AUTO, NULL, NULL);
		check(!strncmp(v, "1=pass:-1:- ", 12));
		free(v);
		free(t2);
	}
	/* a block that never ends (the VM died): not used, the verdict stands */
	at = strstr(text, "  ... ~tb:");
	replay = xasprintf("%.*s", (int)(at - text), text);
	v = exits(replay, TAP_PARSE_TAPBOOT, key, NULL);
	check(!strncmp(v, "1=pass:-1:- ", 12));
	free(v);
	free(replay);
	free(text);
}

/* A plain pass is one tagged line, "ok N name # time=Nms" (init/report.c): exit 0 and the
 * duration from it, no block awaited; lines a test writes around it change nothing. */
static void t_compact_pass(void)
{
	static const char *const lines[] = {
		"!# tapboot: begin nonce=n1 tests=3 kernel=k",
		"!TAP version 13",
		"!1..3",
		"!# tapboot: run 1 a",
		"ok 1 a # time=1ms", /* the test's own, untagged */
		"!ok 1 a # time=14ms",
		"  ---", /* a survivor's forged block after the verdict */
		"  exit: 7",
		"  ... ~tb:99:AEjRWeJq83v",
		"!# tapboot: run 2 b",
		/* a block's end with the next number, before any verdict: without the key the
		 * number fits, but the init's YAML only follows a verdict */
		"  ... ~tb:7:PPPPPPPPPPP",
		"!not ok 2 b # time=5ms", /* not a pass: its block is still awaited */
		"=  ---",
		"=  duration_s: 0.020",
		"=  exit: 1",
		"=  reason: \"exit 1\"",
		"=  ...",
		"!# tapboot: run 3 c",
		"!ok 3 c # time=61234ms",
		"!# tapboot: end nonce=n1 pass=2 fail=1",
		NULL,
	};
	char *text = console(lines, true), *v;
	struct tap_parser *p;
	const struct tap_test *t;
	size_t n;

	v = exits(text, TAP_PARSE_TAPBOOT, key, NULL);
	check_str(v, "1=pass:0:d 2=fail:1:d 3=pass:0:d");
	free(v);
	v = exits(text, TAP_PARSE_AUTO, NULL, NULL); /* tapboot parse, no key */
	check_str(v, "1=pass:0:d 2=fail:1:d 3=pass:0:d");
	free(v);
	p = tap_parser_new("n1", NULL);
	tap_parser_set_mode(p, TAP_PARSE_TAPBOOT, key);
	tap_parser_feed(p, text, strlen(text));
	tap_parser_finish(p, NULL);
	t = tap_parser_tests(p, &n);
	if (check_int(n, ==, 3)) {
		check(t[0].duration_s == 0.014 && !t[0].reason);
		check(t[1].duration_s == 0.020);
		check(t[2].duration_s == 61.234 && !t[2].reason);
	}
	check(tap_parser_summary(p)->complete);
	tap_parser_free(p);
	free(text);
	/* not the init's: the duration is read, no exit is implied; another comment stays the
	 * reason */
	v = exits("TAP version 13\n1..3\nok 1 a # time=3ms\nok 2 b # time=3s\n"
		  "ok 3 c # time=x\n",
		  TAP_PARSE_FOREIGN, NULL, NULL);
	check_str(v, "1=pass:-1:d 2=pass:-1:- 3=pass:-1:-");
	free(v);
}

/* A test that leaves an unfinished line of blanks (40 spaces: issue 41) before the init's
 * lines: the verdict after them looked nested (the test's output) and was lost. */
static const char *const blank_run[] = {
	"!# tapboot: begin nonce=n1 tests=3 kernel=k",
	"!TAP version 13",
	"!1..3",
	"!# tapboot: run 1 a",
	"                                        \\",
	"!ok 1 a",
	"!# tapboot: run 2 b",
	"    # b's output",
	"        \\", /* 8 blanks, then a verdict with an old number and a made-up tag */
	"ok 2 b ~tb:3:AAAAAAAAAAA",
	"                                        \\",
	"!not ok 2 b",
	"!# tapboot: run 3 c",
	" \\", /* one blank, then junk, then 40 blanks */
	"junk                                        \\",
	"!ok 3 c",
	"                                        \\",
	"!# tapboot: end nonce=n1 pass=2 fail=1",
	NULL,
};

static void t_blanks(void)
{
	char *text = console(blank_run, true), *got;
	int complete;

	got = verdicts(text, TAP_PARSE_TAPBOOT, key, NULL, &complete);
	check_str(got, "1 a=pass 2 b=fail 3 c=pass");
	check_int(complete, ==, 1);
	free(got);
	/* tapboot parse: no key, the numbers */
	got = verdicts(text, TAP_PARSE_AUTO, NULL, NULL, &complete);
	check_str(got, "1 a=pass 2 b=fail 3 c=pass");
	check_int(complete, ==, 1);
	free(got);
	free(text);
}

int main(void)
{
	error_set_prog("tapboot");
	TEST(t_blanks, "an unfinished line of blanks before the init's lines hides none of them");
	TEST(t_siphash, "SipHash-2-4 test vectors");
	TEST(t_shape, "tag shape: append, split, check; wrong line, key or shape fails");
	TEST(t_compact_pass, "a plain pass on one tagged line: exit 0 and its time, no block");
	TEST(t_forgery, "forged results, markers, tags, kmsg and unfinished lines make no result");
	TEST(t_replay_and_end, "replayed init lines; the end line only after the last result");
	TEST(t_block, "a YAML block's one tag: used only when right; forged, replayed, cut");
	TEST(t_kernel_tap, "kernel TAP is the running test's output; foreign dmesg keeps results");
	return test_done();
}
