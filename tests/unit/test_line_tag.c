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
	check(!strncmp(sb.buf, "ok 1 a ~tb:42:", 14) && sb.len == 14 + 16);
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
	check(line_tag_split("x ~tb:7:0123456789abcdef", 24, &body, &seq, &tag) && body == 1 &&
	      seq == 7 && tag == 0x0123456789abcdefULL);
	strbuf_release(&sb);
}

/* A console: lines starting with '!' are the init's (tagged here), others are as given. */
static char *console(const char *const *lines, bool tag)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t seq = 0;

	strbuf_init(&sb);
	for (size_t i = 0; lines[i]; i++) {
		if (lines[i][0] == '!' && tag)
			line_tag_append(&sb, key, ++seq, lines[i] + 1, strlen(lines[i] + 1));
		else
			strbuf_addstr(&sb, lines[i] + (lines[i][0] == '!'));
		if (lines[i][strlen(lines[i]) - 1] != '\\')
			strbuf_addch(&sb, '\n');
		else
			sb.len--, sb.buf[sb.len] = '\0';
	}
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

int main(void)
{
	error_set_prog("tapboot");
	TEST(t_siphash, "SipHash-2-4 test vectors");
	TEST(t_shape, "tag shape: append, split, check; wrong line, key or shape fails");
	TEST(t_forgery, "forged results, markers, tags, kmsg and unfinished lines make no result");
	TEST(t_replay_and_end, "replayed init lines; the end line only after the last result");
	TEST(t_kernel_tap, "kernel TAP is the running test's output; foreign dmesg keeps results");
	return test_done();
}
