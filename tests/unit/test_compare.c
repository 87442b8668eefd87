// SPDX-License-Identifier: GPL-2.0-only
/* test_compare.c: tapboot compare (regressions, fixes, skips, new, vanished; exit statuses) and
 * the JSON reader under it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands_results.h"
#include "error.h"
#include "harness.h"
#include "json_read.h"

/* Run cmd(argv) in a child with stdout and stderr captured; returns its exit status. */
static int run(int (*cmd)(int, char **), const char *const *args, char **out, char **err)
{
	char opath[512], epath[512];
	pid_t pid;
	int st, argc = 0;

	while (args[argc])
		argc++;
	snprintf(opath, sizeof(opath), "%s/stdout", test_tmpdir());
	snprintf(epath, sizeof(epath), "%s/stderr", test_tmpdir());
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen(opath, "w", stdout) || !freopen(epath, "w", stderr))
			_exit(99);
		st = cmd(argc, (char **)args);
		fflush(stdout);
		fflush(stderr);
		_exit(st);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	*out = test_read_file(opath, NULL);
	*err = test_read_file(epath, NULL);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static const char old_json[] =
	"{\"tapboot_version\": \"0.1.0\", \"complete\": true, \"tests\": [\n"
	" {\"name\": \"a\", \"result\": \"pass\"},\n"
	" {\"name\": \"b\", \"result\": \"fail\", \"reason\": \"exit 1\"},\n"
	" {\"name\": \"c\", \"result\": \"pass\"},\n"
	" {\"name\": \"d\", \"result\": \"skip\", \"reason\": \"no dev\"},\n"
	" {\"name\": \"e\", \"result\": \"pass\"},\n"
	" {\"name\": \"gone\", \"result\": \"pass\"},\n"
	" {\"name\": \"k\", \"result\": \"pass\", \"subtests\": [\n"
	"   {\"name\": \"k1\", \"result\": \"pass\"}, {\"name\": \"k2\", \"result\": \"pass\"}]},\n"
	" {\"name\": \"f\", \"result\": \"fail\"},\n"
	" {\"name\": \"dup\", \"result\": \"pass\"}, {\"name\": \"dup\", \"result\": \"pass\"}\n"
	"], \"summary\": {}}\n";

static const char new_json[] =
	"{\"tests\": [\n"
	" {\"name\": \"a\", \"result\": \"pass\"},\n"
	" {\"name\": \"b\", \"result\": \"pass\"},\n"
	" {\"name\": \"c\", \"result\": \"crash\", \"reason\": \"Kernel panic - not syncing\"},\n"
	" {\"name\": \"d\", \"result\": \"pass\"},\n"
	" {\"name\": \"e\", \"result\": \"skip\", \"reason\": \"needs root\"},\n"
	" {\"name\": \"fresh\", \"result\": \"fail\"},\n"
	" {\"name\": \"k\", \"result\": \"fail\", \"subtests\": [\n"
	"   {\"name\": \"k1\", \"result\": \"pass\"}, {\"name\": \"k2\", \"result\": "
	"\"missing\"}]},\n"
	" {\"name\": \"f\", \"result\": \"timeout\"},\n"
	" {\"name\": \"dup\", \"result\": \"pass\"}, {\"name\": \"dup\", \"result\": \"fail\"}\n"
	"]}\n";

static void t_compare(void)
{
	const char *o = test_write_file("old/results.json", old_json, sizeof(old_json) - 1, 0);
	const char *n = test_write_file("new.json", new_json, sizeof(new_json) - 1, 0);
	char *odir = strdup(o), *out = NULL, *err = NULL;
	int st;

	*strrchr(odir, '/') = '\0';
	{
		const char *args[] = {"compare", odir, n, NULL};

		st = run(cmd_compare, args, &out, &err);
	}
	check_int(st, ==, 1);
	check_str(out,
		  "regression  c: pass -> crash (Kernel panic - not syncing)\n"
		  "regression  k: pass -> fail\n"
		  "regression  k :: k2: pass -> missing\n"
		  "regression  dup: pass -> fail\n"
		  "fixed       b: fail -> pass\n"
		  "skip        d: skip -> pass\n"
		  "skip        e: pass -> skip (needs root)\n"
		  "changed     f: fail -> timeout\n"
		  "new         fresh: fail\n"
		  "vanished    gone: pass\n"
		  "4 regressions, 1 fixed, 2 skip changes, 1 other changes, 1 new, 1 vanished\n"
		  "1 passing test vanished (--allow-vanished if that is expected)\n"
		  "1 new test fails (--allow-new-failures if that is expected)\n");
	check_str(err, "");
	free(out);
	free(err);

	/* the same run twice: nothing to say, exit 0 */
	{
		const char *args[] = {"compare", n, n, NULL};

		st = run(cmd_compare, args, &out, &err);
	}
	check_int(st, ==, 0);
	check_str(out,
		  "0 regressions, 0 fixed, 0 skip changes, 0 other changes, 0 new, 0 vanished\n");
	free(out);
	free(err);
	free(odir);
}

/* The merge gate: a passing test that vanished and a new test that fails are each exit 1 on
 * their own, 0 with the flag that allows them; a vanished failure or a new pass is not. */
static void t_compare_gate(void)
{
	static const char base[] = "{\"tests\": [{\"name\": \"a\", \"result\": \"pass\"},"
				   " {\"name\": \"b\", \"result\": \"pass\"},"
				   " {\"name\": \"bad\", \"result\": \"fail\"}]}";
	static const char gone[] = "{\"tests\": [{\"name\": \"a\", \"result\": \"pass\"}]}";
	static const char added[] = "{\"tests\": [{\"name\": \"a\", \"result\": \"pass\"},"
				    " {\"name\": \"b\", \"result\": \"pass\"},"
				    " {\"name\": \"bad\", \"result\": \"fail\"},"
				    " {\"name\": \"n1\", \"result\": \"pass\"},"
				    " {\"name\": \"n2\", \"result\": \"crash\"}]}";
	const char *b = test_write_file("gate-base.json", base, sizeof(base) - 1, 0);
	const char *g = test_write_file("gate-gone.json", gone, sizeof(gone) - 1, 0);
	const char *a = test_write_file("gate-added.json", added, sizeof(added) - 1, 0);
	char *out, *err;
	int st;

	{
		const char *args[] = {"compare", b, g, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 1);
		check_str(out, "vanished    b: pass\n"
			       "vanished    bad: fail\n"
			       "0 regressions, 0 fixed, 0 skip changes, 0 other changes, 0 new, "
			       "2 vanished\n"
			       "1 passing test vanished (--allow-vanished if that is expected)\n");
		free(out);
		free(err);
	}
	{
		const char *args[] = {"compare", "--allow-vanished", b, g, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 0);
		free(out);
		free(err);
	}
	{
		const char *args[] = {"compare", b, a, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 1);
		check_str(out, "new         n1: pass\n"
			       "new         n2: crash\n"
			       "0 regressions, 0 fixed, 0 skip changes, 0 other changes, 2 new, "
			       "0 vanished\n"
			       "1 new test fails (--allow-new-failures if that is expected)\n");
		free(out);
		free(err);
	}
	{
		const char *args[] = {"compare", b, a, "--allow-new-failures", NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 0);
		free(out);
		free(err);
	}
	{
		/* the new run lost a pass and added a failure: both flags are needed */
		const char *args[] = {"compare", "--allow-new-failures", a, g, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 1);
		free(out);
		free(err);
	}
	{
		const char *args[] = {"compare", "--allow-everything", b, a, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 2);
		check(strstr(err, "tapboot: compare: unknown option '--allow-everything'\n") == err);
		free(out);
		free(err);
	}
}

static void t_compare_bad_input(void)
{
	const char *bad = test_write_file("bad.json", "{\"tests\": [1,]}", 15, 0);
	const char *nolist = test_write_file("nolist.json", "{\"x\": 1}", 8, 0);
	const char *verdict = test_write_file(
		"verdict.json", "{\"tests\": [{\"name\": \"a\", \"result\": \"meh\"}]}", 43, 0);
	char *out, *err, want[1024];
	int st;

	{
		const char *args[] = {"compare", bad, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 2);
		check_str(err,
			  "tapboot: compare wants two arguments: OLD NEW (results directories or "
			  "JSON files)\nusage: tapboot compare [--allow-vanished] "
			  "[--allow-new-failures] OLD NEW\n");
		free(out);
		free(err);
	}
	{
		const char *args[] = {"compare", bad, bad, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 2);
		snprintf(want, sizeof(want), "tapboot: %s:1: bad JSON: trailing comma\n", bad);
		check_str(err, want);
		free(out);
		free(err);
	}
	{
		const char *args[] = {"compare", nolist, nolist, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 2);
		snprintf(want, sizeof(want), "tapboot: '%s': \"tests\" is not an array\n", nolist);
		check_str(err, want);
		free(out);
		free(err);
	}
	{
		const char *args[] = {"compare", verdict, verdict, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 2);
		snprintf(want, sizeof(want), "tapboot: '%s': unknown result 'meh' of test 'a'\n",
			 verdict);
		check_str(err, want);
		free(out);
		free(err);
	}
	{
		const char *args[] = {"compare", "/nonexistent/old", verdict, NULL};

		st = run(cmd_compare, args, &out, &err);
		check_int(st, ==, 2);
		check_str(err,
			  "tapboot: cannot open '/nonexistent/old': No such file or directory\n");
		free(out);
		free(err);
	}
}

static int parse_str(const char *s, struct json *j)
{
	return json_parse(j, s, strlen(s), "t.json");
}

static void t_json_reader(void)
{
	struct json j;
	int ret;

	ret = parse_str(
		" {\"a\": [1, -2.5e3, true, false, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\\\"\","
		" \"e\": {}, \"z\": []} ",
		&j);
	if (check_int(ret, ==, 0)) {
		const struct json *a = json_get(&j, "a");

		check_int(a->type, ==, JSON_ARRAY);
		check_int(a->n, ==, 5);
		check(a->items[1].num == -2500.0);
		check(a->items[2].b);
		check_int(a->items[4].type, ==, JSON_NULL);
		check_str(json_get_str(&j, "s"), "x\xc3\xa9\xf0\x9f\x98\x80\n\"");
		check_int(json_get(&j, "e")->n, ==, 0);
		check(json_get(&j, "missing") == NULL);
		json_release(&j);
	}
	{
		static const char *const bad[] = {
			"",	"{",	      "[1 2]", "{\"a\" 1}", "\"\x01\"", "01",	"1.",
			"[1,]", "{\"a\":1,}", "tru",   "\"\\x\"",   "[] []",	"\"abc"};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			char *e = NULL;
			struct json k;

			(void)e;
			fflush(stderr);
			ret = parse_str(bad[i], &k);
			if (!check_int(ret, ==, -1))
				printf("# accepted: '%s'\n", bad[i]);
		}
	}
	{
		/* deep nesting is refused, not a stack overflow */
		char *deep = malloc(100001);

		memset(deep, '[', 100000);
		deep[100000] = '\0';
		ret = parse_str(deep, &j);
		check_int(ret, ==, -1);
		free(deep);
	}
}

int main(void)
{
	error_set_prog("tapboot");
	TEST(t_compare, "compare: regressions, fixes, skips, new, vanished, subtests, duplicates");
	TEST(t_compare_gate, "compare as a merge gate: vanished passes and new failures exit 1 unless allowed");
	TEST(t_compare_bad_input, "compare: usage and bad input exit 2 with a message");
	TEST(t_json_reader, "JSON reader: values, escapes, surrogates, errors, depth");
	return test_done();
}
