// SPDX-License-Identifier: GPL-2.0-only
/* test_kselftest.c: kselftest install tree -> manifest (builder/kselftest.c): settings, selection,
 * disruptive flags, config-fragment skips, names, and the manifest's exact bytes. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builder.h"
#include "harness.h"
#include "kselftest.h"

#define FIX TAPBOOT_SRCDIR "/tests/fixtures/kselftest"

/* check_int() evaluates its arguments twice; a call with effects goes through this once. */
#define check_ok(expr)                                                                             \
	do {                                                                                       \
		int r_ = (expr);                                                                   \
		check_int_impl(__FILE__, __LINE__, r_ == 0, #expr " == 0", r_, 0);                 \
	} while (0)

/* ---- helpers ---- */

struct settings_arg {
	const char *text;
	unsigned timeout;
	bool has;
};

static int do_settings(void *v)
{
	struct settings_arg *a = v;

	return kselftest_parse_settings(a->text, strlen(a->text), "dir/settings", &a->timeout,
					&a->has);
}

/* Run fn, expect ret and exactly want on stderr (want NULL: anything). */
static void expect_stderr(int (*fn)(void *), void *arg, int want_ret, const char *want)
{
	int ret = 0;
	char *err = test_capture_stderr(fn, arg, &ret);

	check_int(ret, ==, want_ret);
	if (want)
		check_str(err, want);
	free(err);
}

struct man_arg {
	struct kselftest_opts o;
	struct kselftest_info info;
	const char *out;
};

static int do_manifest(void *v)
{
	struct man_arg *a = v;

	return kselftest_manifest(&a->o, a->out, &a->info);
}

static void man_init(struct man_arg *a, const char *install)
{
	static unsigned n;
	char rel[32];

	kselftest_opts_init(&a->o);
	kselftest_info_init(&a->info);
	a->o.install_dir = install;
	a->o.disruptive_list = FIX "/disruptive.txt";
	snprintf(rel, sizeof(rel), "m%u.manifest", n++);
	a->out = test_write_file(rel, "", 0, 0);
	remove(a->out);
}

static void man_release(struct man_arg *a)
{
	kselftest_opts_release(&a->o);
	kselftest_info_release(&a->info);
}

static char *slurp(const char *path)
{
	size_t len;

	return test_read_file(path, &len);
}

/* The test names in a manifest, one per line. */
static char *manifest_names(const char *path)
{
	char *m = slurp(path), *p;
	size_t cap = 1, len = 0;
	char *out = malloc(cap);

	out[0] = 0;
	for (p = m; p && *p;) {
		char *nl = strchr(p, '\n');

		if (!strncmp(p, "test ", 5)) {
			char *sp = strchr(p + 5, ' ');
			size_t n = (size_t)(sp - (p + 5));

			out = realloc(out, cap += n + 1);
			memcpy(out + len, p + 5, n);
			len += n;
			out[len++] = '\n';
			out[len] = 0;
		}
		p = nl ? nl + 1 : NULL;
	}
	free(m);
	return out;
}

static const char *put(const char *rel, const char *text, unsigned mode)
{
	return test_write_file(rel, text, strlen(text), mode);
}

/* ---- settings ---- */

static void test_settings(void)
{
	struct settings_arg a = {"# comment\n\ntimeout=300\n", 0, false};

	check_ok(do_settings(&a));
	check(a.has);
	check_int(a.timeout, ==, 300);

	a = (struct settings_arg){"timeout=0\r\n", 7, false};
	check_ok(do_settings(&a));
	check(a.has);
	check_int(a.timeout, ==, 0);

	a = (struct settings_arg){"# only a comment\n", 7, false};
	check_ok(do_settings(&a));
	check(!a.has);
	check_int(a.timeout, ==, 7);

	a = (struct settings_arg){"# x\ntimeout=$(reboot)\n", 0, false};
	expect_stderr(do_settings, &a, -1,
		      "tapboot: dir/settings:2: timeout '$(reboot)' is not a number of seconds\n");
	a = (struct settings_arg){"timeout = 45\n", 0, false};
	expect_stderr(do_settings, &a, -1,
		      "tapboot: dir/settings:1: expected 'KEY=VALUE' (e.g. 'timeout=45'), not "
		      "'timeout = 45'\n");
	a = (struct settings_arg){"\n\nrm -rf /\n", 0, false};
	expect_stderr(do_settings, &a, -1,
		      "tapboot: dir/settings:3: expected 'KEY=VALUE' (e.g. 'timeout=45'), not "
		      "'rm -rf /'\n");
	a = (struct settings_arg){"timeout=\n", 0, false};
	expect_stderr(do_settings, &a, -1,
		      "tapboot: dir/settings:1: timeout '' is not a number of seconds\n");
	a = (struct settings_arg){"cmd_args=-v\ntimeout=5\n", 0, false};
	expect_stderr(do_settings, &a, 0,
		      "tapboot: warning: dir/settings:1: unknown setting 'cmd_args' ignored\n");
	check_int(a.timeout, ==, 5);
}

/* ---- the whole manifest, byte for byte ---- */

static void test_manifest_exact(void)
{
	struct man_arg a;
	char *install = realpath(FIX "/install", NULL);
	char *want = slurp(FIX "/expected.manifest"), *got;
	struct strbuf exp = STRBUF_INIT;
	struct stat st;

	man_init(&a, FIX "/install");
	a.o.src_dir = FIX "/src";
	a.o.kernel_config = FIX "/kernel.config";
	expect_stderr(do_manifest, &a, 0, "");
	for (char *p = want; p && *p;) {
		char *at = strstr(p, "@INSTALL@");

		if (!at) {
			strbuf_addstr(&exp, p);
			break;
		}
		strbuf_add(&exp, p, (size_t)(at - p));
		strbuf_addstr(&exp, install);
		p = at + strlen("@INSTALL@");
	}
	got = slurp(a.out);
	check_str(got, exp.buf);
	check_int(stat(a.out, &st), ==, 0);
	check_int(st.st_mode & 0777, ==, 0644);
	check_int(a.info.ntests, ==, 5);
	check_int(a.info.ncollections, ==, 3);
	check_int(a.info.ndisruptive, ==, 2);
	check_int(a.info.nconfig_skipped, ==, 2);
	check(a.info.config_checked);
	check(a.info.config_note == NULL);
	check_int(a.info.nskipped, ==, 1);
	if (a.info.nskipped == 1) {
		check_str(a.info.skipped[0].collection, "beta");
		check_int(a.info.skipped[0].ntests, ==, 2);
		check_str(a.info.skipped[0].reason,
			  "missing kernel options: CONFIG_BETA, CONFIG_BETA_MOD (=m, no modules in "
			  "the image)");
	}
	strbuf_reset(&exp);
	kselftest_info_describe(&a.info, &exp);
	check_str(exp.buf,
		  "kselftest: 5 tests from 3 collections (2 disruptive)\n"
		  "kselftest: beta (2 tests) skipped: missing kernel options: CONFIG_BETA, "
		  "CONFIG_BETA_MOD (=m, no modules in the image)\n");
	free(got);
	free(want);
	free(install);
	strbuf_release(&exp);
	man_release(&a);
}

/* ---- config fragments ---- */

static void test_config_skips(void)
{
	struct man_arg a;
	char *m;

	/* With the kernel's modules in the image, =m satisfies; CONFIG_BETA is still off. */
	man_init(&a, FIX "/install");
	a.o.src_dir = FIX "/src";
	a.o.kernel_config = FIX "/kernel.config";
	a.o.modules = true;
	check_ok(kselftest_manifest(&a.o, a.out, &a.info));
	m = slurp(a.out);
	check(m && strstr(m, "    skip \"missing kernel options: CONFIG_BETA\"\n"));
	check(m && !strstr(m, "CONFIG_BETA_MOD (=m"));
	free(m);
	man_release(&a);

	/* Kernel config unknown: the options are still named, nothing is skipped, info says so. */
	man_init(&a, FIX "/install");
	a.o.src_dir = FIX "/src";
	check_ok(kselftest_manifest(&a.o, a.out, &a.info));
	m = slurp(a.out);
	check(m && !strstr(m, "skip"));
	check(m && strstr(m, "    config CONFIG_BETA_MOD\n"));
	check(!a.info.config_checked);
	check_int(a.info.nconfig_skipped, ==, 0);
	check_str(a.info.config_note, "kernel config unknown (--config): config fragments not "
				      "checked, no tests skipped for missing options");
	{
		struct strbuf d = STRBUF_INIT;

		kselftest_info_describe(&a.info, &d);
		check_str(d.buf,
			  "kselftest: 5 tests from 3 collections (2 disruptive)\n"
			  "kselftest: kernel config unknown (--config): config fragments not "
			  "checked, no tests skipped for missing options\n");
		strbuf_release(&d);
	}
	free(m);
	man_release(&a);

	/* No source directory: no config lines at all. */
	man_init(&a, FIX "/install");
	a.o.kernel_config = FIX "/kernel.config";
	check_ok(kselftest_manifest(&a.o, a.out, &a.info));
	m = slurp(a.out);
	check(m && !strstr(m, "config"));
	check_str(a.info.config_note, "no kselftest source (--kselftest-src): config fragments not "
				      "checked");
	free(m);
	man_release(&a);

	/* A bad fragment line names file and line; nothing is written. */
	put("badsrc/alpha/config", "# x\nCONFIG_ALPHA=y\nFOO\n", 0);
	man_init(&a, FIX "/install");
	{
		char *src = malloc(strlen(test_tmpdir()) + 16);
		char *err, *want;
		int ret = 0;
		struct stat st;

		sprintf(src, "%s/badsrc", test_tmpdir());
		a.o.src_dir = src;
		a.o.kernel_config = FIX "/kernel.config";
		err = test_capture_stderr(do_manifest, &a, &ret);
		want = malloc(strlen(src) + 100);
		sprintf(want,
			"tapboot: %s/alpha/config:3: expected 'CONFIG_NAME=VALUE', not 'FOO'\n",
			src);
		check_int(ret, ==, -1);
		check_str(err, want);
		check_int(stat(a.out, &st), ==, -1);
		free(err);
		free(want);
		free(src);
	}
	man_release(&a);
}

/* ---- selection ---- */

static void test_selection(void)
{
	struct man_arg a;
	char *names, *err, *want;
	int ret;

	man_init(&a, FIX "/install");
	strlist_push(&a.o.targets, "gamma");
	strlist_push(&a.o.targets, "alpha");
	check_ok(kselftest_manifest(&a.o, a.out, &a.info));
	names = manifest_names(a.out);
	/* List order, not the order of --targets. */
	check_str(names, "alpha:alpha_test\nalpha:alpha.sh\ngamma:gamma_test\n");
	free(names);
	man_release(&a);

	/* -t adds to --targets (run_kselftest.sh's -c and -t). */
	man_init(&a, FIX "/install");
	strlist_push(&a.o.targets, "gamma");
	strlist_push(&a.o.tests, "beta:needs-opts");
	check_ok(kselftest_manifest(&a.o, a.out, &a.info));
	names = manifest_names(a.out);
	check_str(names, "beta:needs-opts\ngamma:gamma_test\n");
	free(names);
	man_release(&a);

	/* --skip-targets removes whole collections, even ones named by -t. */
	man_init(&a, FIX "/install");
	strlist_push(&a.o.skip_targets, "beta");
	strlist_push(&a.o.skip_targets, "alpha");
	check_ok(kselftest_manifest(&a.o, a.out, &a.info));
	names = manifest_names(a.out);
	check_str(names, "gamma:gamma_test\n");
	check_int(a.info.ntests, ==, 1);
	free(names);
	man_release(&a);

	/* An unknown skip target is a warning. */
	man_init(&a, FIX "/install");
	strlist_push(&a.o.skip_targets, "nosuch");
	err = test_capture_stderr(do_manifest, &a, &ret);
	check_int(ret, ==, 0);
	want = xasprintf("tapboot: warning: skipped collection 'nosuch' is not in '%s/install/"
			 "kselftest-list.txt'\n",
			 FIX);
	check_str(err, want);
	free(err);
	free(want);
	man_release(&a);

	/* Unknown --targets and -t names: each named with the list file; nothing written. */
	man_init(&a, FIX "/install");
	strlist_push(&a.o.targets, "alpha");
	strlist_push(&a.o.targets, "delta");
	strlist_push(&a.o.tests, "beta:nosuch");
	strlist_push(&a.o.tests, "beta");
	err = test_capture_stderr(do_manifest, &a, &ret);
	check_int(ret, ==, -1);
	want = xasprintf("tapboot: no collection 'delta' in '%s/install/kselftest-list.txt'\n"
			 "tapboot: no test 'beta:nosuch' in '%s/install/kselftest-list.txt'\n"
			 "tapboot: test 'beta' is not COLLECTION:TEST\n",
			 FIX, FIX);
	check_str(err, want);
	check(access(a.out, F_OK) != 0);
	free(err);
	free(want);
	man_release(&a);

	/* Everything skipped. */
	man_init(&a, FIX "/install");
	strlist_push(&a.o.targets, "alpha");
	strlist_push(&a.o.skip_targets, "alpha");
	err = test_capture_stderr(do_manifest, &a, &ret);
	check_int(ret, ==, -1);
	want = xasprintf(
		"tapboot: no tests selected from '%s/install/kselftest-list.txt' (all left "
		"out by --skip-targets)\n",
		FIX);
	check_str(err, want);
	free(err);
	free(want);
	man_release(&a);
}

/* ---- timeouts, disruptive list, tree errors ---- */

static void test_timeout_override(void)
{
	struct man_arg a;
	char *m;

	man_init(&a, FIX "/install");
	a.o.timeout = 7;
	check_ok(kselftest_manifest(&a.o, a.out, &a.info));
	m = slurp(a.out);
	check(m && !strstr(m, "timeout 0\n") && !strstr(m, "timeout 120\n") &&
	      !strstr(m, "timeout 45\n"));
	check(m && strstr(m, "gamma_test\n    cwd /kselftest/gamma\n    timeout 7\n"));
	free(m);
	man_release(&a);
}

static void test_disruptive(void)
{
	struct man_arg a;
	char *m, *err, *want;
	const char *bad;
	int ret;

	/* The list tapboot ships parses and flags a known disruptive test. */
	put("dis/kselftest-list.txt",
	    "breakpoints:breakpoint_test\nbreakpoints:step_after_suspend_test\n"
	    "cpu-hotplug:cpu-on-off-test.sh\n",
	    0);
	put("dis/breakpoints/breakpoint_test", "x", 0755);
	put("dis/breakpoints/step_after_suspend_test", "x", 0755);
	put("dis/cpu-hotplug/cpu-on-off-test.sh", "x", 0755);
	{
		char *dir = xasprintf("%s/dis", test_tmpdir());

		man_init(&a, dir);
		a.o.disruptive_list = NULL;
		check_ok(kselftest_manifest(&a.o, a.out, &a.info));
		m = slurp(a.out);
		want = xasprintf("breakpoint_test\n    cwd /kselftest/breakpoints\n    timeout 45\n"
				 "    flag privileged\n"
				 "#origin %s/kselftest-list.txt:2\n"
				 "test breakpoints:step_after_suspend_test",
				 dir);
		check(m && strstr(m, want));
		free(want);
		/* breakpoints is in the shipped kselftest-privileged.txt too (ptrace) */
		check(m && strstr(m, "step_after_suspend_test\n    cwd /kselftest/breakpoints\n"
				     "    timeout 45\n    flag disruptive\n    flag privileged\n"));
		check(m && strstr(m, "cpu-on-off-test.sh\n    cwd /kselftest/cpu-hotplug\n"
				     "    timeout 45\n    flag disruptive\n"));
		check_int(a.info.ndisruptive, ==, 2);
		free(m);
		man_release(&a);
		free(dir);
	}

	/* A bad line in a disruptive list. */
	bad = put("bad-disruptive.txt", "# c\nfoo bar\n", 0);
	man_init(&a, FIX "/install");
	a.o.disruptive_list = bad;
	err = test_capture_stderr(do_manifest, &a, &ret);
	check_int(ret, ==, -1);
	want = xasprintf(
		"tapboot: %s:2: expected 'COLLECTION' or 'COLLECTION:TEST', not 'foo bar'\n", bad);
	check_str(err, want);
	free(err);
	free(want);
	man_release(&a);
}

static void test_tree_errors(void)
{
	struct man_arg a;
	char *err, *want, *dir;
	int ret;

	/* A listed test missing from the tree (its collection did not build). */
	put("t1/kselftest-list.txt", "a:one\na:two\n", 0);
	put("t1/a/one", "x", 0755);
	dir = xasprintf("%s/t1", test_tmpdir());
	man_init(&a, dir);
	err = test_capture_stderr(do_manifest, &a, &ret);
	check_int(ret, ==, -1);
	want = xasprintf(
		"tapboot: %s/kselftest-list.txt:2: test 'a:two' is listed but '%s/a/two' is "
		"not a file (did the collection build?)\n",
		dir, dir);
	check_str(err, want);
	free(err);
	free(want);
	free(dir);
	man_release(&a);

	/* A bad list line, a bad settings line. */
	put("t2/kselftest-list.txt", "a:one\n\nnocolon\n", 0);
	dir = xasprintf("%s/t2", test_tmpdir());
	man_init(&a, dir);
	err = test_capture_stderr(do_manifest, &a, &ret);
	check_int(ret, ==, -1);
	want = xasprintf("tapboot: %s/kselftest-list.txt:3: expected 'COLLECTION:TEST', not "
			 "'nocolon'\n",
			 dir);
	check_str(err, want);
	free(err);
	free(want);
	free(dir);
	man_release(&a);

	put("t3/kselftest-list.txt", "a:one\n", 0);
	put("t3/a/one", "x", 0755);
	put("t3/a/settings", "timeout=1m\n", 0);
	dir = xasprintf("%s/t3", test_tmpdir());
	man_init(&a, dir);
	err = test_capture_stderr(do_manifest, &a, &ret);
	check_int(ret, ==, -1);
	want = xasprintf("tapboot: %s/a/settings:1: timeout '1m' is not a number of seconds\n",
			 dir);
	check_str(err, want);
	free(err);
	free(want);
	free(dir);
	man_release(&a);

	/* No install tree at all. */
	man_init(&a, "/nonexistent/kselftest");
	expect_stderr(do_manifest, &a, -1,
		      "tapboot: cannot read kselftest install directory '/nonexistent/kselftest': "
		      "No such file or directory\n");
	man_release(&a);
}

/* A value with blanks, quotes and '#' is quoted the way builder/inputs.c splits words. */
static void test_quoting(void)
{
	struct man_arg a;
	char *m, *dir;

	put("q/kselftest-list.txt", "c:t\n", 0);
	put("q/c/t", "x", 0755);
	put("qsrc/c/config", "CONFIG_Q=y\n", 0);
	put("q.config", "# CONFIG_Q is not set\n", 0);
	dir = xasprintf("%s/q", test_tmpdir());
	man_init(&a, dir);
	{
		char *src = xasprintf("%s/qsrc", test_tmpdir());
		char *kc = xasprintf("%s/q.config", test_tmpdir());

		a.o.src_dir = src;
		a.o.kernel_config = kc;
		check_ok(kselftest_manifest(&a.o, a.out, &a.info));
		m = slurp(a.out);
		check(m && strstr(m, "    config CONFIG_Q\n    skip \"missing kernel options: "
				     "CONFIG_Q\"\n"));
		free(m);
		free(src);
		free(kc);
	}
	free(dir);
	man_release(&a);
}

/* ---- the builder reads what kselftest_manifest writes ---- */

struct build_arg {
	struct builder_opts *o;
	const char *manifest, *out;
	struct plan *plan;
};

static int do_build(void *v)
{
	struct build_arg *b = v;
	const char *in[] = {b->manifest};

	return builder_build(b->o, in, 1, b->out, b->plan);
}

static void test_builder_roundtrip(void)
{
	struct man_arg a;
	struct builder_opts bo;
	struct plan p;
	struct build_arg b;
	struct strbuf sb = STRBUF_INIT;
	char *err, *out = xasprintf("%s/ks.cpio", test_tmpdir());
	int ret = 0;

	man_init(&a, FIX "/install");
	a.o.src_dir = FIX "/src";
	a.o.kernel_config = FIX "/kernel.config";
	check_ok(kselftest_manifest(&a.o, a.out, &a.info));
	builder_opts_init(&bo);
	bo.init_path = put("ks-init", "#!init\n", 0755);
	bo.target.arch = "x86_64";
	bo.target.elf_machine = EM_X86_64;
	bo.target.elf_class = 64;
	bo.target.sysroot = "/";
	bo.quiet = true;
	bo.busybox = -1;
	plan_init(&p);
	b = (struct build_arg){&bo, a.out, out, &p};
	err = test_capture_stderr(do_build, &b, &ret);
	check_int(ret, ==, 0);
	if (ret)
		printf("# stderr: %s", err);
	plan_write(&p, &sb);
	check_str(sb.buf,
		  "tapboot-plan 1\n"
		  "test alpha:alpha_test\npath /kselftest/alpha/alpha_test\ncwd /kselftest/alpha\n"
		  "timeout 0\nconfig CONFIG_ALPHA\nend\n"
		  "test alpha:alpha.sh\npath /kselftest/alpha/alpha.sh\ncwd /kselftest/alpha\n"
		  "timeout 0\nconfig CONFIG_ALPHA\nend\n"
		  "test beta:beta_test\npath /kselftest/beta/beta_test\ncwd /kselftest/beta\n"
		  "timeout 120\nflag disruptive\nconfig CONFIG_BETA\nconfig CONFIG_BETA_MOD\n"
		  "config CONFIG_BETA_BUILTIN\nskip missing kernel options: CONFIG_BETA, "
		  "CONFIG_BETA_MOD (=m, no modules in the image)\nend\n"
		  "test beta:needs-opts\npath /kselftest/beta/needs-opts\ncwd /kselftest/beta\n"
		  "timeout 120\nconfig CONFIG_BETA\nconfig CONFIG_BETA_MOD\n"
		  "config CONFIG_BETA_BUILTIN\nskip missing kernel options: CONFIG_BETA, "
		  "CONFIG_BETA_MOD (=m, no modules in the image)\nend\n"
		  "test gamma:gamma_test\npath /kselftest/gamma/gamma_test\ncwd /kselftest/gamma\n"
		  "timeout 45\nflag disruptive\nend\n");
	strbuf_release(&sb);
	free(err);
	free(out);
	plan_release(&p);
	builder_opts_release(&bo);
	man_release(&a);
}

/* ---- names ---- */

static void test_name_mapping(void)
{
	char *s;

	s = kselftest_name_to_runner("proc:fd-001-lookup");
	check_str(s, "selftests: proc: fd-001-lookup");
	free(s);
	s = kselftest_name_to_runner("net/forwarding:router.sh");
	check_str(s, "selftests: net/forwarding: router.sh");
	free(s);
	s = kselftest_name_from_runner("selftests: proc: fd-001-lookup");
	check_str(s, "proc:fd-001-lookup");
	free(s);
	s = kselftest_name_from_runner("selftests: net/forwarding: router.sh");
	check_str(s, "net/forwarding:router.sh");
	free(s);
	check(kselftest_name_to_runner("proc") == NULL);
	check(kselftest_name_to_runner(":x") == NULL);
	check(kselftest_name_to_runner("x:") == NULL);
	check(kselftest_name_from_runner("proc: fd-001-lookup") == NULL);
	check(kselftest_name_from_runner("selftests: proc") == NULL);
	check(kselftest_name_from_runner("selftests: proc: a b") == NULL);
	/* Round trip. */
	s = kselftest_name_to_runner("timens:clock_nanosleep");
	{
		char *back = kselftest_name_from_runner(s);

		check_str(back, "timens:clock_nanosleep");
		free(back);
	}
	free(s);
}

int main(void)
{
	TEST(test_settings, "settings files: timeout=, 0, comments, bad lines with file:line");
	TEST(test_manifest_exact, "manifest for the fixture tree, byte for byte");
	TEST(test_config_skips, "config fragments: =m, unknown kernel config, no source, bad line");
	TEST(test_selection, "selection: --targets, -t, --skip-targets, unknown names");
	TEST(test_timeout_override, "--timeout overrides settings and the default");
	TEST(test_disruptive, "the shipped disruptive list flags tests; a bad list line");
	TEST(test_tree_errors, "missing test, bad list line, bad settings, no tree");
	TEST(test_quoting, "values with blanks are quoted");
	TEST(test_builder_roundtrip, "the builder reads the manifest into the expected plan");
	TEST(test_name_mapping, "name mapping with run_kselftest.sh");
	return test_done();
}
