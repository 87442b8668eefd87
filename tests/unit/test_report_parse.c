// SPDX-License-Identifier: GPL-2.0-only
/* test_report_parse.c: tapboot parse: formats, exit statuses, skip policy, usage errors. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands_results.h"
#include "error.h"
#include "harness.h"
#include "text.h"

#ifndef TAPBOOT_SRCDIR
#define TAPBOOT_SRCDIR "."
#endif

/* Run cmd(argv) in a child, stdin from in_path (or /dev/null), stdout and stderr captured. */
static int run_in(int (*cmd)(int, char **), const char *const *args, const char *in_path,
		  char **out, char **err)
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
		int fd = open(in_path ? in_path : "/dev/null", O_RDONLY);

		if (fd < 0 || dup2(fd, 0) < 0 || !freopen(opath, "w", stdout) ||
		    !freopen(epath, "w", stderr))
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

static int run(const char *const *args, char **out, char **err)
{
	return run_in(cmd_parse, args, NULL, out, err);
}

static char fx[5][512];

static void t_fixture_statuses(void)
{
	static const char *const names[] = {"kselftest-runner.log", "kunit-ktap.log",
					    "tapboot-interleaved.log", "tapboot-panic.log",
					    "kunit-oops-cut.log"};
	static const int want[] = {1, 1, 1, 3, 3};

	for (size_t i = 0; i < 5; i++) {
		const char *args[] = {"parse", fx[i], NULL};
		char *out, *err;
		int st;

		snprintf(fx[i], sizeof(fx[i]), "%s/tests/fixtures/tap/%s", TAPBOOT_SRCDIR,
			 names[i]);
		st = run(args, &out, &err);
		if (!check_int(st, ==, want[i]))
			printf("# %s\n", names[i]);
		check_str(err, "");
		free(out);
		free(err);
	}
}

static void t_summary_output(void)
{
	const char *args[] = {"parse", fx[3], NULL};
	char *out, *err;
	int st = run(args, &out, &err);

	check_int(st, ==, 3);
	check_str(out,
		  "pass       0.004s  sysrq/ok\n"
		  "crash           -  sysrq/crash  Kernel panic - not syncing: sysrq triggered "
		  "crash\n"
		  "missing         -  test 3       not run: the kernel crashed\n"
		  "missing         -  test 4       not run: the kernel crashed\n"
		  "4 tests: 1 pass, 0 fail, 0 skip, 1 crash, 2 missing\n"
		  "incomplete: kernel crash: Kernel panic - not syncing: sysrq triggered crash\n");
	free(out);
	free(err);
}

/* A real boot's console (x86_64) where a test (tests/guest/blanks.c) left 40 blanks before
 * the init's verdict line, twice: that line looked nested, the test crashed and the rest were
 * missing (issue 41). */
static void t_blanks_console(void)
{
	char path[512];
	const char *args[] = {"parse", path, NULL};
	char *out, *err;
	int st;

	snprintf(path, sizeof(path), "%s/tests/fixtures/tap/tapboot-blanks.log", TAPBOOT_SRCDIR);
	st = run(args, &out, &err);
	check_int(st, ==, 1);
	check_str(out, "pass       0.026s  a-pass\n"
		       "pass       0.019s  b-blanks\n"
		       "fail       0.013s  c-fail    exit 1\n"
		       "pass       0.011s  d-blanks\n"
		       "pass       0.019s  e-pass\n"
		       "5 tests: 4 pass, 1 fail, 0 skip\n");
	check_str(err, "");
	free(out);
	free(err);
}

static void t_formats(void)
{
	char *out, *err;
	int st;

	{
		const char *args[] = {"parse", "--format", "json", fx[2], NULL};

		st = run(args, &out, &err);
		check_int(st, ==, 1);
		check(out && strstr(out, "\"kernel_release\": \"6.1.0-57-amd64\",\n"
					 "  \"accel\": null,\n  \"complete\": true,\n"));
		check(out &&
		      strstr(out, "\"summary\": {\"pass\": 1, \"fail\": 1, \"skip\": 1, "
				  "\"xfail\": 0, \"xpass\": 0, \"timeout\": 0, \"crash\": 0, "
				  "\"missing\": 0, \"interrupted\": 0, \"total\": 3}"));
		free(out);
		free(err);
	}
	{
		const char *args[] = {"parse", "--format=tap", fx[2], NULL};

		st = run(args, &out, &err);
		check_int(st, ==, 1);
		check(out && !strncmp(out, "TAP version 13\n1..3\nok 1 proc/fd-001-lookup\n", 43));
		free(out);
		free(err);
	}
	{
		const char *args[] = {"parse", "--format", "junit", fx[0], NULL};

		st = run(args, &out, &err);
		check_int(st, ==, 1);
		check(out && strstr(out, "<testsuite name=\"proc\" tests=\"3\" failures=\"1\" "
					 "errors=\"1\" skipped=\"0\""));
		check(out && strstr(out, "classname=\"kselftest.timers\""));
		free(out);
		free(err);
	}
	{
		const char *args[] = {"parse", "--format", "kcidb", "--suite",
				      "kunit", fx[1],	   NULL};

		st = run(args, &out, &err);
		check_int(st, ==, 1);
		check(out &&
		      strstr(out,
			     "\"path\": \"kunit.example.example_params_test.example_value_3\", "
			     "\"status\": \"SKIP\""));
		free(out);
		free(err);
	}
}

static void t_stdin_and_nonce(void)
{
	char *out, *err;
	int st;

	{
		const char *args[] = {"parse", "-", NULL};

		st = run_in(cmd_parse, args, fx[2], &out, &err);
		check_int(st, ==, 1);
		check(out && strstr(out, "3 tests: 1 pass, 1 fail, 1 skip\n"));
		free(out);
		free(err);
	}
	{
		/* the wrong nonce: the run did not complete */
		const char *args[] = {"parse", "--nonce", "feedface", fx[2], NULL};

		st = run(args, &out, &err);
		check_int(st, ==, 3);
		check(out && strstr(out, "incomplete: no tapboot end line with the run's nonce\n"));
		free(out);
		free(err);
	}
}

static void t_results_dir(void)
{
	static const char log[] = "TAP version 13\n1..1\nok 1 a\n";
	const char *f = test_write_file("run1/console.log", log, sizeof(log) - 1, 0);
	char *dir = strdup(f), *out, *err;
	int st;

	*strrchr(dir, '/') = '\0';
	{
		const char *args[] = {"parse", dir, NULL};

		st = run(args, &out, &err);
	}
	check_int(st, ==, 0);
	check_str(out, "pass            -  a\n1 tests: 1 pass, 0 fail, 0 skip\n");
	free(out);
	free(err);
	free(dir);
}

static void t_skip_policy(void)
{
	static const char log[] = "TAP version 13\n1..2\nok 1 a\nok 2 b # SKIP no device\n";
	const char *f = test_write_file("skip.tap", log, sizeof(log) - 1, 0);
	const char *list = test_write_file("expect", "b\n", 2, 0);
	const char *other = test_write_file("expect2", "c\n", 2, 0);
	char *out, *err;
	int st;

	{
		const char *args[] = {"parse", f, NULL};

		st = run(args, &out, &err);
		check_int(st, ==, 0);
		check_str(out, "pass            -  a\nskip            -  b     no device\n"
			       "2 tests: 1 pass, 0 fail, 1 skip\n");
		free(out);
		free(err);
	}
	{
		const char *args[] = {"parse", "--skip=fail", f, NULL};

		st = run(args, &out, &err);
		check_int(st, ==, 1);
		check(out && strstr(out, "skip not allowed: b: no device\n"));
		free(out);
		free(err);
	}
	{
		const char *args[] = {"parse", "--skip=fail", "--expect-skip", list, f, NULL};

		st = run(args, &out, &err);
		check_int(st, ==, 0);
		free(out);
		free(err);
	}
	{
		const char *args[] = {"parse", "--expect-skip", other, f, NULL};

		st = run(args, &out, &err);
		check_int(st, ==, 1);
		free(out);
		free(err);
	}
}

static void t_usage_errors(void)
{
	static const struct {
		const char *args[5];
		const char *err_start;
	} cases[] = {
		{{"parse", "--format", "yaml", NULL},
		 "tapboot: --format wants summary, tap, json, junit or kcidb, got 'yaml'\n"},
		{{"parse", "--skip=maybe", NULL},
		 "tapboot: --skip wants ok or fail, got 'maybe'\n"},
		{{"parse", "a", "b", NULL},
		 "tapboot: parse takes one FILE (or - for standard input), got 2\n"},
		{{"parse", "/nonexistent/console.log", NULL},
		 "tapboot: cannot open '/nonexistent/console.log': No such file or directory\n"},
		{{"parse", "--expect-skip", "/nonexistent/list", NULL},
		 "tapboot: cannot open '/nonexistent/list': No such file or directory\n"},
		{{"parse", "--bogus", NULL}, "parse: unrecognized option '--bogus'\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;
		int st = run(cases[i].args, &out, &err);

		check_int(st, ==, 2);
		if (!check(err && !strncmp(err, cases[i].err_start, strlen(cases[i].err_start))))
			printf("# got: %s\n", err ? err : "(null)");
		free(out);
		free(err);
	}
	{
		const char *args[] = {"parse", "--help", NULL};
		char *out, *err;
		int st = run(args, &out, &err);

		check_int(st, ==, 0);
		check(out && !strncmp(out, "usage: tapboot parse [options] [FILE|DIR|-]\n", 44));
		free(out);
		free(err);
	}
}

/* Random bytes are bad input (2), not a run that did not complete (3); a kernel's console that
 * never reached any TAP is text and stays 3. (issue 40: random bytes exited 3) */
static void t_binary_input(void)
{
	char bin[512], txt[512], want[700];
	unsigned char data[4096];
	uint32_t x = 12345;
	FILE *fp;
	char *out, *err;
	const char *args[] = {"parse", bin, NULL}, *targs[] = {"parse", txt, NULL};
	int st;

	snprintf(bin, sizeof(bin), "%s/random.bin", test_tmpdir());
	snprintf(txt, sizeof(txt), "%s/no-tap.log", test_tmpdir());
	for (size_t i = 0; i < sizeof(data); i++) {
		x = x * 1103515245u + 12345u; /* a fixed sequence: the same bytes every run */
		data[i] = (unsigned char)(x >> 16);
	}
	fp = fopen(bin, "wb");
	check(fp && fwrite(data, 1, sizeof(data), fp) == sizeof(data) && !fclose(fp));
	st = run(args, &out, &err);
	check_int(st, ==, 2);
	snprintf(want, sizeof(want),
		 "tapboot: '%s' is not a console log or TAP stream: %zu of its 4096 bytes are not "
		 "text, and it holds no TAP line\n",
		 bin, text_binary_bytes((const char *)data, sizeof(data)));
	check_str(err, want);
	check(text_binary_bytes((const char *)data, sizeof(data)) > 4096 / 10);
	free(out);
	free(err);

	fp = fopen(txt, "w");
	check(fp && fputs("[    0.000000] Linux version 6.1.0\r\n[    1.2] Kernel panic? no, a hang\r\n",
			  fp) >= 0 && !fclose(fp));
	st = run(targs, &out, &err);
	check_int(st, ==, 3);
	free(out);
	free(err);
	check_int(text_binary_bytes("ok 1 x\r\n\t\033[0m caf\xc3\xa9", 19), ==, 0);
	check_int(text_binary_bytes("a\0b\x01\x7f\xff", 6), ==, 4);
}

int main(void)
{
	error_set_prog("tapboot");
	TEST(t_fixture_statuses, "exit status of each fixture console (1 failed, 3 incomplete)");
	TEST(t_summary_output, "summary of a panic-cut console");
	TEST(t_blanks_console,
	     "a console with 40 blanks before the init's verdicts: every verdict");
	TEST(t_formats, "--format json, tap, junit, kcidb; --suite");
	TEST(t_stdin_and_nonce, "standard input; --nonce");
	TEST(t_results_dir, "a results directory: its console.log");
	TEST(t_skip_policy, "--skip=ok (default), --skip=fail, --expect-skip");
	TEST(t_usage_errors, "bad usage and unreadable input exit 2 with a message");
	TEST(t_binary_input, "binary data is bad input (exit 2); a console without TAP is 3");
	return test_done();
}
