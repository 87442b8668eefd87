// SPDX-License-Identifier: GPL-2.0-only
/* test_init.c: the init's parts called directly: output nesting and sanitising, options and
 * selection, kernel-log checks, verdicts and the exact verdict lines. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "init.h"
#include "plan.h"

/* Feed text in one go and return the console text (caller frees). */
static char *filter(const char *in, size_t len, size_t max, struct init_output *keep)
{
	struct strbuf out;
	struct init_output o;

	strbuf_init(&out);
	init_output_init(&o, &out, max);
	init_output_feed(&o, in, len);
	init_output_finish(&o);
	if (keep)
		*keep = o;
	else
		init_output_release(&o);
	return strbuf_detach(&out);
}

static void test_plain_lines(void)
{
	char *s = filter("hello\n\nworld\r\n", 14, 0, NULL);

	check_str(s, "    # hello\n    #\n    # world\n");
	free(s);
}

static void test_own_tap_nested(void)
{
	const char *in = "setup chatter\nTAP version 13\n1..2\nok 1 a\n  ---\n  x: 1\n  ...\n"
			 "not ok 2 b # TODO later\n# diag\nplain after\n";
	char *s = filter(in, strlen(in), 0, NULL);

	check_str(s, "    # setup chatter\n    TAP version 13\n    1..2\n    ok 1 a\n      ---\n"
		     "      x: 1\n      ...\n    not ok 2 b # TODO later\n    # diag\n"
		     "    # plain after\n");
	free(s);
}

static void test_ktap_detected(void)
{
	const char *in = "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: x\nok 1 x\n";
	char *s = filter(in, strlen(in), 0, NULL);

	check_str(s, "    KTAP version 1\n    1..1\n        KTAP version 1\n        # Subtest: x\n"
		     "    ok 1 x\n");
	free(s);
}

static void test_bad_utf8_no_newline(void)
{
	const char in[] = "a\xff"
			  "b\xc3\xa9"
			  "c\x1b[0m\xc2\x85\xed\xa0\x80"
			  "end";
	char *s = filter(in, sizeof(in) - 1, 0, NULL);

	check_str(s, "    # a\\xffb\xc3\xa9"
		     "c\\x1b[0m\\xc2\\x85\\xed\\xa0\\x80end\n"
		     "    # (no newline at end of output)\n");
	free(s);
}

static void test_long_line_split(void)
{
	size_t n = INIT_LINE_MAX * 2 + 10;
	char *in = malloc(n + 1), *s, *second;

	memset(in, 'a', n);
	/* a 2-byte character across the first cut must not be split */
	in[INIT_LINE_MAX - 1] = '\xc3';
	in[INIT_LINE_MAX] = '\xa9';
	in[n] = '\n';
	s = filter(in, n + 1, 0, NULL);
	second = strchr(s, '\n') + 1;
	check_int(strchr(s, '\n') - s, ==, 6 + INIT_LINE_MAX - 1);
	check(!strncmp(second,
		       "    # \xc3\xa9"
		       "aaa",
		       11));
	check_int(strlen(s), ==, 3 * 7 + n);
	free(in);
	free(s);
}

static void test_cap(void)
{
	struct strbuf in;
	char *s;

	strbuf_init(&in);
	for (int i = 0; i < 1000; i++)
		strbuf_addstr(&in, "0123456789\n");
	s = filter(in.buf, in.len, 100, NULL);
	check_str(s, "    # 0123456789\n    # 0123456789\n    # 0123456789\n    # 0123456789\n"
		     "    # 0123456789\n    # 0123456789\n    # 0123456789\n    # 0123456789\n"
		     "    # 0123456789\n"
		     "    # output truncated: showed 99 of 11000 bytes (tapboot.output_max=100)\n");
	free(s);
	strbuf_release(&in);
}

static void test_reasons(void)
{
	struct init_output o;
	const char *in = "checking\nSkipping: no device\nmore\n";
	char *s = filter(in, strlen(in), 0, &o);

	check_str(o.reason[INIT_REASON_SKIP], "Skipping: no device");
	check(o.reason[INIT_REASON_XFAIL] == NULL);
	init_output_release(&o);
	free(s);

	in = "TAP version 13\n1..0 # SKIP needs root\n# Totals: pass:0 skip:1 xfail:0\n";
	s = filter(in, strlen(in), 0, &o);
	check_str(o.reason[INIT_REASON_SKIP], "needs root");
	init_output_release(&o);
	free(s);

	in = "TAP version 13\nok 1 # SKIP first\nskip mentioned later\nok 2 # xfail known bug\n";
	s = filter(in, strlen(in), 0, &o);
	check_str(o.reason[INIT_REASON_SKIP], "first");
	check_str(o.reason[INIT_REASON_XFAIL], "known bug");
	init_output_release(&o);
	free(s);
}

static void test_options(void)
{
	struct init_options o;

	init_options_init(&o);
	init_options_parse(&o, "console=ttyS0 tapboot.nonce=c0ffee tapboot.filter=a* "
			       "\"tapboot.filter=b c\" tapboot.timeout=7 tapboot.disruptive=1 "
			       "tapboot.shard=1/3 tapboot.only=2 tapboot.only=5 "
			       "tapboot.output_max=1000 quiet\n");
	check_str(o.nonce, "c0ffee");
	check_int(o.filters.n, ==, 2);
	check_str(o.filters.v[1], "b c");
	check_int(o.timeout_s, ==, 7);
	check(o.disruptive);
	check_int(o.shard_k, ==, 1);
	check_int(o.shard_n, ==, 3);
	check_int(o.n_only, ==, 2);
	check_int(o.only[1], ==, 5);
	check_int(o.output_max, ==, 1000);
	check_int(o.warnings.n, ==, 0);
	init_options_release(&o);

	init_options_init(&o);
	init_options_parse(&o, "tapboot.timeout=x tapboot.shard=3/3 tapboot.only=0 "
			       "tapboot.disruptive=yes");
	check_int(o.timeout_s, ==, -1);
	check_int(o.shard_n, ==, 0);
	check_int(o.warnings.n, ==, 4);
	check_str(o.warnings.v[0], "ignoring tapboot.timeout='x': not a number of seconds");
	check_str(o.warnings.v[1], "ignoring tapboot.shard='3/3': expected K/N with 0 <= K < N");
	init_options_release(&o);
}

static char *selected(const char *cmdline)
{
	static const char *const names[] = {"net_a", "net_b", "mm_a", "mm_b", "fs_a"};
	struct init_options o;
	struct strbuf sb;
	struct plan p;
	size_t n, *sel;

	plan_init(&p);
	for (size_t i = 0; i < 5; i++)
		plan_add(&p, names[i], "/tests/x");
	p.tests[1].flags |= PLAN_FLAG_DISRUPTIVE; /* net_b */
	init_options_init(&o);
	init_options_parse(&o, cmdline);
	sel = init_select(&p, &o, &n);
	strbuf_init(&sb);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", p.tests[sel[i]].name);
	free(sel);
	init_options_release(&o);
	plan_release(&p);
	return strbuf_detach(&sb);
}

static void test_select(void)
{
	char *s;

	s = selected("");
	check_str(s, "net_a,net_b,mm_a,mm_b,fs_a");
	free(s);
	/* a disruptive test that runs in a VM of its own is left out, before sharding */
	s = selected("tapboot.disruptive=elsewhere");
	check_str(s, "net_a,mm_a,mm_b,fs_a");
	free(s);
	s = selected("tapboot.disruptive=elsewhere tapboot.shard=1/2");
	check_str(s, "mm_a,fs_a");
	free(s);
	/* the host's balanced shards: lists and ranges of plan numbers */
	s = selected("tapboot.only=1,3-4");
	check_str(s, "net_a,mm_a,mm_b");
	free(s);
	s = selected("tapboot.only=5 tapboot.only=2-2");
	check_str(s, "net_b,fs_a");
	free(s);
	s = selected("tapboot.filter=net_* tapboot.filter=fs_?");
	check_str(s, "net_a,net_b,fs_a");
	free(s);
	s = selected("tapboot.filter=*_a tapboot.shard=1/2");
	check_str(s, "mm_a");
	free(s);
	s = selected("tapboot.shard=0/2");
	check_str(s, "net_a,mm_a,fs_a");
	free(s);
	s = selected("tapboot.only=4 tapboot.only=1");
	check_str(s, "net_a,mm_b");
	free(s);
	s = selected("tapboot.only=4 tapboot.filter=net*");
	check_str(s, "");
	free(s);
}

static void test_kmsg(void)
{
	const char *log = "6,100,5,-;info line\n"
			  "4,101,6,-;WARNING: CPU: 0 PID: 1 at lib/foo.c:10 foo+0x1/0x2\n"
			  " SUBSYSTEM=x\n"
			  "12,102,7,-;WARNING: from userspace\n"
			  "4,103,8,c;Call Trace:\n"
			  "1,104,9,-;BUG: kernel NULL pointer dereference\n";
	struct init_health h;
	struct strbuf out;
	char letters[32];

	memset(&h, 0, sizeof(h));
	strbuf_init(&out);
	init_kmsg_parse(log, strlen(log), &out, &h);
	check_str(out.buf, "    # kernel: WARNING: CPU: 0 PID: 1 at lib/foo.c:10 foo+0x1/0x2\n"
			   "    # kernel: Call Trace:\n"
			   "    # kernel: BUG: kernel NULL pointer dereference\n");
	check_str(h.first_bad, "WARNING: CPU: 0 PID: 1 at lib/foo.c:10 foo+0x1/0x2");
	check_int(h.lines, ==, 3);
	check(!init_kernel_line_is_bad("random: crng init done"));
	check(init_kernel_line_is_bad("general protection fault, probably for non-canonical"));
	check_str(init_taint_letters(512, letters, sizeof(letters)), "W");
	check_str(init_taint_letters(1 | 4096 | 8192, letters, sizeof(letters)), "POE");
	init_health_release(&h);
	strbuf_release(&out);
}

static char *report_as(struct init_result *r, const struct init_output *o,
		       const struct init_health *h, bool tagged)
{
	struct strbuf sb;

	init_decide(r, o, h);
	strbuf_init(&sb);
	init_report(&sb, 3, "grp:name #1", r, tagged);
	init_result_release(r);
	return strbuf_detach(&sb);
}

static char *report(struct init_result *r, const struct init_output *o, const struct init_health *h)
{
	return report_as(r, o, h, true);
}

/* Tests run back to back: a test starts from the /dev/kmsg position and the taint its
 * predecessor ended with, so what the kernel logs or taints between two tests is the next
 * one's, not lost. */
static void test_kernel_between_tests(void)
{
	static const char before[] = "4,1,1,-;WARNING: before the first test\n";
	const char *kmsg = test_write_file("kmsg", before, strlen(before), 0644);
	const char *taint = test_write_file("tainted", "0\n", 2, 0644);
	struct init_kernel k = {.kmsg_fd = open(kmsg, O_RDONLY | O_NONBLOCK), .taint_path = taint};
	struct init_health h;
	struct strbuf out;
	FILE *f;

	strbuf_init(&out);
	check(k.kmsg_fd >= 0);
	init_kernel_begin(&k);
	init_kernel_end(&k, &out, &h);
	check(!h.first_bad && !h.new_taint && !out.len); /* the log before the first test */
	init_health_release(&h);
	check(k.kmsg_at_end && k.after_known);
	f = fopen(kmsg, "a");
	check(f != NULL);
	fputs("4,2,2,-;WARNING: between two tests\n", f);
	fclose(f);
	test_write_file("tainted", "512\n", 4, 0644);
	init_kernel_begin(&k);
	init_kernel_end(&k, &out, &h);
	check(h.first_bad && !strcmp(h.first_bad, "WARNING: between two tests"));
	check(h.new_taint == 512 && h.bad_taint == 512);
	check(strstr(out.buf, "taint changed from 0 to 512") != NULL);
	init_health_release(&h);
	close(k.kmsg_fd);
	if (k.taint_open)
		close(k.taint_fd);
	strbuf_release(&out);
}

static void test_verdicts(void)
{
	struct init_result r;
	struct init_health h;
	char *s, buf[32];

	memset(&r, 0, sizeof(r));
	r.exited = true;
	r.duration_s = 0.0125;
	s = report(&r, NULL, NULL);
	/* a plain pass: one line, the duration in a comment, exit 0 implied (the host's parser
	 * reads it so), no block */
	check_str(s, "ok 3 grp:name \\#1 # time=13ms\n");
	free(s);
	memset(&r, 0, sizeof(r));
	r.exited = true;
	r.duration_s = 61.2344;
	s = report(&r, NULL, NULL);
	check_str(s, "ok 3 grp:name \\#1 # time=61234ms\n");
	free(s);
	/* untagged (no key: plain TAP for any reader), it is written out */
	memset(&r, 0, sizeof(r));
	r.exited = true;
	r.duration_s = 0.0125;
	s = report_as(&r, NULL, NULL, false);
	check_str(s, "ok 3 grp:name \\#1\n  ---\n  duration_s: 0.013\n  exit: 0\n  ...\n");
	free(s);

	memset(&r, 0, sizeof(r));
	r.exited = true;
	r.exit_code = 3;
	s = report(&r, NULL, NULL);
	check_str(s, "not ok 3 grp:name \\#1 # XPASS exit 3\n  ---\n  duration_s: 0.000\n"
		     "  exit: 3\n  reason: \"exit 3\"\n  ...\n");
	free(s);

	memset(&r, 0, sizeof(r));
	r.exited = true;
	r.exit_code = 127;
	s = report(&r, NULL, NULL);
	check_str(s, "not ok 3 grp:name \\#1\n  ---\n  duration_s: 0.000\n  exit: 127\n"
		     "  reason: \"exit 127\"\n  ...\n");
	free(s);

	memset(&r, 0, sizeof(r));
	r.signo = SIGSEGV;
	r.duration_s = 1.5;
	s = report(&r, NULL, NULL);
	check_str(s, "not ok 3 grp:name \\#1\n  ---\n  duration_s: 1.500\n  signal: \"SIGSEGV\"\n"
		     "  reason: \"killed by SIGSEGV\"\n  ...\n");
	free(s);

	memset(&r, 0, sizeof(r));
	r.timed_out = true;
	r.timeout_s = 45;
	r.signo = SIGTERM;
	r.duration_s = 45.002;
	s = report(&r, NULL, NULL);
	check_str(s, "not ok 3 grp:name \\#1 # TIMEOUT timeout after 45 s\n  ---\n"
		     "  duration_s: 45.002\n  signal: \"SIGTERM\"\n"
		     "  reason: \"timeout after 45 s\"\n  ...\n");
	free(s);

	/* passed, but the kernel warned: fail, first line as reason, taint recorded */
	memset(&r, 0, sizeof(r));
	memset(&h, 0, sizeof(h));
	r.exited = true;
	h.first_bad = (char *)"WARNING: CPU: 1 PID: 7 at x.c:1 f";
	h.new_taint = h.bad_taint = 512;
	h.taint_after = 512 | 4096;
	s = report(&r, NULL, &h);
	check_str(s, "not ok 3 grp:name \\#1\n  ---\n  duration_s: 0.000\n  exit: 0\n"
		     "  reason: \"kernel warning: WARNING: CPU: 1 PID: 7 at x.c:1 f\"\n"
		     "  taint: 4608\n  ...\n");
	free(s);

	memset(&r, 0, sizeof(r));
	memset(&h, 0, sizeof(h));
	r.exited = true;
	h.new_taint = h.bad_taint = h.taint_after = 512;
	s = report(&r, NULL, &h);
	check(strstr(s, "  reason: \"kernel tainted: W (512)\"\n") != NULL);
	free(s);

	/* a module taint alone (O, E, N) does not fail a test */
	memset(&r, 0, sizeof(r));
	memset(&h, 0, sizeof(h));
	r.exited = true;
	h.new_taint = h.taint_after = 4096;
	s = report(&r, NULL, &h);
	check(!strncmp(s, "ok 3 ", 5));
	/* not a plain pass: the exit is written out */
	check(strstr(s, "  exit: 0\n  taint: 4096\n") != NULL);
	free(s);

	check_str(init_signal_name(SIGKILL, buf, sizeof(buf)), "SIGKILL");
	check_str(init_signal_name(SIGRTMIN + 2, buf, sizeof(buf)), "SIGRTMIN+2");
	check_str(init_signal_name(200, buf, sizeof(buf)), "signal 200");
}

int main(void)
{
	TEST(test_plain_lines, "plain output becomes nested diagnostics");
	TEST(test_own_tap_nested, "a test's own TAP is nested verbatim");
	TEST(test_ktap_detected, "KTAP is recognised like TAP");
	TEST(test_bad_utf8_no_newline, "bad UTF-8 and controls escaped, last line kept");
	TEST(test_long_line_split, "long lines are split on a character boundary");
	TEST(test_cap, "output beyond the cap is counted, not shown");
	TEST(test_reasons, "skip and xfail reasons from directives and mentions");
	TEST(test_options, "kernel command-line options");
	TEST(test_select, "filter, shard and only select tests");
	TEST(test_kmsg, "kernel log records at warning level and kernel reports");
	TEST(test_kernel_between_tests,
	     "the kernel's log and taint between two tests: the next one's");
	TEST(test_verdicts, "verdict lines and YAML blocks");
	return test_done();
}
