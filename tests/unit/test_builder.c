// SPDX-License-Identifier: GPL-2.0-only
/* test_builder.c: builder_build() end to end: archives read back with GNU cpio and bsdcpio,
 * list and manifest parsing and their errors, dynamic dependencies, busybox, modules,
 * compression, reproducibility and the segment cache. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builder.h"
#include "harness.h"
#include "run.h"

static char *tmp(const char *rel)
{
	/* a ring: callers keep a few results alive at once (input arrays) */
	static char bufs[256][512];
	static int i;
	char *b = bufs[i++ % 256];

	snprintf(b, sizeof(bufs[0]), "%s/%s", test_tmpdir(), rel);
	return b;
}

/* Run a shell command, return its stdout (caller frees); *status gets the exit status. */
static char *sh(const char *cmd, int *status)
{
	char *full, *buf = NULL;
	size_t n = 0, alloc = 0;
	FILE *fp;
	int st;

	if (asprintf(&full, "cd '%s' && export TZ=UTC LC_ALL=C && {\n%s\n}", test_tmpdir(), cmd) <
	    0)
		exit(1);
	fp = popen(full, "r");
	free(full);
	if (!fp)
		exit(1);
	for (;;) {
		if (n + 4097 > alloc) {
			alloc = (n + 4097) * 2;
			buf = realloc(buf, alloc);
		}
		size_t r = fread(buf + n, 1, 4096, fp);
		n += r;
		if (!r)
			break;
	}
	buf[n] = '\0';
	st = pclose(fp);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

/* Collapse runs of blanks, so GNU cpio's and bsdcpio's column widths compare equal. */
static char *squeeze(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (*r == ' ' && (w == s || w[-1] == ' ' || w[-1] == '\n'))
			continue;
		if (*r == '\n' && w > s && w[-1] == ' ')
			w--;
		*w++ = *r;
	}
	*w = '\0';
	return s;
}

static void check_listing(const char *img, const char *want)
{
	char *cmd, *got;

	if (asprintf(&cmd, "cpio -itv --quiet < '%s' 2>&1", img) < 0)
		exit(1);
	got = squeeze(sh(cmd, NULL));
	check_str(got, want);
	free(got);
	free(cmd);
	/* bsdcpio prints the same columns; its nlink column is wider. */
	if (asprintf(&cmd, "bsdcpio -itv < '%s' 2>/dev/null", img) < 0)
		exit(1);
	got = squeeze(sh(cmd, NULL));
	check_str(got, want);
	free(got);
	free(cmd);
}

/* Expected listings name sizes that depend on the toolchain: SSIZE (the static test program)
 * and BBSIZE (the host's busybox). Returns an owned string. */
static char *subst(const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	char num[32];

	strbuf_init(&sb);
	for (const char *s = want; *s;) {
		const char *tok = !strncmp(s, "SSIZE", 5)    ? "static"
				  : !strncmp(s, "BBSIZE", 6) ? "/bin/busybox"
							     : NULL;

		if (!tok) {
			strbuf_addch(&sb, *s++);
			continue;
		}
		snprintf(num, sizeof(num), "%lld",
			 stat(tok[0] == '/' ? tok : tmp(tok), &st) ? -1LL : (long long)st.st_size);
		strbuf_addstr(&sb, num);
		s += tok[0] == '/' ? 6 : 5;
	}
	return strbuf_detach(&sb);
}

#define check_str_subst(got, want)                                                                 \
	do {                                                                                       \
		char *w_ = subst(want);                                                            \
		check_str(got, w_);                                                                \
		free(w_);                                                                          \
	} while (0)

static bool exists(const char *p)
{
	struct stat st;

	return !lstat(p, &st);
}

struct build_call {
	struct builder_opts *o;
	const char *const *inputs;
	size_t n;
	const char *out;
	struct plan *plan;
};

static int do_build(void *arg)
{
	struct build_call *c = arg;

	return builder_build(c->o, c->inputs, c->n, c->out, c->plan);
}

/* Build, return the captured stderr (caller frees), *ret the result. */
static char *build(struct builder_opts *o, const char *const *inputs, size_t n, const char *out,
		   struct plan *plan, int *ret)
{
	struct build_call c = {o, inputs, n, out, plan};

	return test_capture_stderr(do_build, &c, ret);
}

static void opts_x86(struct builder_opts *o)
{
	builder_opts_init(o);
	o->init_path = tmp("init");
	o->target.arch = "x86_64";
	o->target.elf_machine = EM_X86_64;
	o->target.elf_class = 64;
	o->target.sysroot = "/";
	o->quiet = true;
	o->busybox = -1;
}

static char *plan_text(const struct plan *p)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb);
	plan_write(p, &sb);
	return strbuf_detach(&sb);
}

#define L(mode, n, size, name) mode " " #n " root root " #size " Jan 1 1970 " name "\n"

static void setup(void)
{
	int st;
	char *out;

	/* Any small file works as the init here; the real one is static and the boot tests'. */
	test_write_file("init", "#!init\n", 7, 0755);
	test_write_file("tree/a.sh", "#!/bin/sh\necho a\n", 17, 0755);
	test_write_file("tree/data/x.txt", "hello\n", 6, 0640);
	test_write_file("tree/sub/b.sh", "#!/bin/sh\nexit 0\n", 17, 0700);
	out = sh("ln -s ../data/x.txt tree/sub/link && chmod 0750 tree/sub && "
		 "gcc -O1 -o dyn -x c - <<'EOF'\nint main(void){return 0;}\nEOF\n"
		 "gcc -static -O1 -o static -x c - <<'EOF'\nint main(void){return 0;}\nEOF\n",
		 &st);
	check_int(st, ==, 0);
	free(out);
}

static void test_tree(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("tree")};
	char *err, *pt;
	int ret;

	opts_x86(&o);
	plan_init(&p);
	err = build(&o, in, 1, tmp("tree.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	check_listing(
		tmp("tree.cpio"),
		L("-rwxr-xr-x", 1, 7, "init") L("drwxr-xr-x", 2, 0, "tapboot") L(
			"-rw-r--r--", 1, 133, "tapboot/plan") L("drwxr-xr-x", 2, 0, "tests")
			L("-rwxr-xr-x", 1, 17, "tests/a.sh") L("drwxr-xr-x", 2, 0, "tests/data")
				L("-rw-r-----", 1, 6, "tests/data/x.txt") L("drwxr-x---", 2, 0,
									    "tests/sub")
					L("-rwx------", 1, 17,
					  "tests/sub/b.sh") "lrwxrwxrwx 1 root root 13 Jan 1 1970 "
							    "tests/sub/link -> ../data/x.txt\n");
	pt = plan_text(&p);
	check_str(pt, "tapboot-plan 1\n"
		      "test a.sh\npath /tests/a.sh\ncwd /tests\ntimeout 45\nend\n"
		      "test sub/b.sh\npath /tests/sub/b.sh\ncwd /tests/sub\ntimeout 45\nend\n");
	/* the plan inside the image is the one handed back */
	{
		char *img = sh("cpio -i --quiet --to-stdout tapboot/plan < tree.cpio", NULL);

		check_str(img, pt);
		free(img);
	}
	free(pt);
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

static void test_lone_exec_and_timeout(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("static")};
	char *err, *list;
	int ret;

	opts_x86(&o);
	o.default_timeout = 7;
	plan_init(&p);
	err = build(&o, in, 1, tmp("one.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	check_int(p.n, ==, 1);
	check_str(p.tests[0].name, "static");
	check_str(p.tests[0].path, "/tests/static");
	check_str(p.tests[0].cwd, "/tests");
	check_int(p.tests[0].timeout_s, ==, 7);
	/* static: no interpreter, no libraries */
	list = sh("cpio -it --quiet < one.cpio", NULL);
	check_str(list, "init\ntapboot\ntapboot/plan\ntests\ntests/static\n");
	free(list);
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

static void test_gen_init_cpio_list(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("list.txt")};
	char *err, *out, *l;
	int ret;

	test_write_file("blob", "0123456789", 10, 0644);
	/* the kernel's default list plus every other kind; relative locations are relative to
	 * the working directory, as in usr/gen_init_cpio */
	if (asprintf(&l,
		     "# a comment\n"
		     "dir /dev 0755 0 0\n"
		     "nod /dev/console 0600 0 0 c 5 1\n"
		     "nod /dev/sda 0660 0 6 b 8 0\n"
		     "dir /root 0700 0 0\n"
		     "\n"
		     "file /data/blob %s/blob 0644 4242 4343 /data/hard1 data/hard2\n"
		     "file /tests/t1 ${TB_TEST_DIR}/static 0755 0 0\n"
		     "slink /bin/sh busybox 0777 0 0\n"
		     "pipe /run/fifo 0644 0 0\n"
		     "sock /run/sock 0600 0 0\n"
		     "file /init %s/blob 0755 0 0\n",
		     test_tmpdir(), test_tmpdir()) < 0)
		exit(1);
	test_write_file("list.txt", l, strlen(l), 0644);
	free(l);
	setenv("TB_TEST_DIR", test_tmpdir(), 1);
	opts_x86(&o);
	plan_init(&p);
	err = build(&o, in, 1, tmp("list.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	if (asprintf(&l,
		     "tapboot: warning: %s:12: the list's /init is replaced by tapboot's init\n",
		     tmp("list.txt")) < 0)
		exit(1);
	check_str(err, l);
	free(l);
	out = squeeze(sh("cpio -itvn --quiet < list.cpio", NULL));
	check_str_subst(out, "drwxr-xr-x 2 0 0 0 Jan 1 1970 bin\n"
			     "lrwxrwxrwx 1 0 0 7 Jan 1 1970 bin/sh -> busybox\n"
			     "drwxr-xr-x 2 0 0 0 Jan 1 1970 data\n"
			     "-rw-r--r-- 3 4242 4343 0 Jan 1 1970 data/blob\n"
			     "-rw-r--r-- 3 4242 4343 0 Jan 1 1970 data/hard1\n"
			     "-rw-r--r-- 3 4242 4343 10 Jan 1 1970 data/hard2\n"
			     "drwxr-xr-x 2 0 0 0 Jan 1 1970 dev\n"
			     "crw------- 1 0 0 5, 1 Jan 1 1970 dev/console\n"
			     "brw-rw---- 1 0 6 8, 0 Jan 1 1970 dev/sda\n"
			     "-rwxr-xr-x 1 0 0 7 Jan 1 1970 init\n"
			     "drwx------ 2 0 0 0 Jan 1 1970 root\n"
			     "drwxr-xr-x 2 0 0 0 Jan 1 1970 run\n"
			     "prw-r--r-- 1 0 0 0 Jan 1 1970 run/fifo\n"
			     "srw------- 1 0 0 0 Jan 1 1970 run/sock\n"
			     "drwxr-xr-x 2 0 0 0 Jan 1 1970 tapboot\n"
			     "-rw-r--r-- 1 0 0 64 Jan 1 1970 tapboot/plan\n"
			     "drwxr-xr-x 2 0 0 0 Jan 1 1970 tests\n"
			     "-rwxr-xr-x 1 0 0 SSIZE Jan 1 1970 tests/t1\n");
	free(out);
	check_int(p.n, ==, 1);
	check_str(p.tests[0].name, "t1");
	/* the hard links extract as one file with the data */
	out = sh("mkdir x && cd x && cpio -id --quiet < ../list.cpio 2>/dev/null; "
		 "cat data/blob data/hard1; echo; stat -c %h:%i data/blob | cut -d: -f1; "
		 "[ $(stat -c %i data/blob) = $(stat -c %i data/hard2) ] && echo same",
		 NULL);
	check_str(out, "01234567890123456789\n3\nsame\n");
	free(out);
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

/* A list line that must fail: the message names file:line, nothing is written. */
static void check_list_error(const char *line, const char *want)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("bad.list")};
	char *err, *msg, *body;
	int ret;

	if (asprintf(&body, "dir /ok 0755 0 0\n%s\n", line) < 0)
		exit(1);
	test_write_file("bad.list", body, strlen(body), 0644);
	free(body);
	opts_x86(&o);
	plan_init(&p);
	unlink(tmp("bad.cpio"));
	err = build(&o, in, 1, tmp("bad.cpio"), &p, &ret);
	check_int(ret, ==, -1);
	if (asprintf(&msg, "tapboot: %s:2: %s\n", tmp("bad.list"), want) < 0)
		exit(1);
	if (!check_str(err, msg))
		printf("# line: %s\n", line);
	check(!exists(tmp("bad.cpio")));
	check_int(p.n, ==, 0);
	free(msg);
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

static void test_list_errors(void)
{
	char *m;

	check_list_error("fil /a b 0644 0 0",
			 "unknown type 'fil' (expected file, dir, nod, slink, pipe or sock; a file "
			 "without execute permission is read as a gen_init_cpio list: chmod +x it "
			 "if it is a test)");
	check_list_error("file /a", "expected 'file <name> <location> <mode> <uid> <gid> "
				    "[<hard links>]'");
	check_list_error("dir /a 0755 0", "expected 'dir <name> <mode> <uid> <gid>'");
	check_list_error("dir /a 0755 0 0 extra", "expected 'dir <name> <mode> <uid> <gid>'");
	check_list_error("dir /a 0798 0 0",
			 "'0798' is not an octal mode (expected 'dir <name> <mode> <uid> <gid>')");
	check_list_error("pipe /a 0644 root 0", "bad uid or gid 'root 0' (expected 'pipe <name> "
						"<mode> <uid> <gid>')");
	check_list_error("nod /dev/x 0600 0 0 x 1 2",
			 "device type 'x' is not 'c' or 'b' (expected 'nod <name> <mode> <uid> "
			 "<gid> <dev_type> <maj> <min>')");
	check_list_error("nod /dev/x 0600 0 0 c one 2",
			 "bad device number 'one 2' (expected 'nod <name> <mode> <uid> <gid> "
			 "<dev_type> <maj> <min>')");
	check_list_error("slink /a/../../etc x 0777 0 0",
			 "'/a/../../etc' has a '..' component (image paths must stay inside the "
			 "root)");
	check_list_error("dir / 0755 0 0", "'/' does not name anything below the image root");
	check_list_error("file /x ${TB_UNSET_VAR_X}/f 0644 0 0",
			 "environment variable 'TB_UNSET_VAR_X' is not set");
	if (asprintf(&m, "cannot read '%s': No such file or directory", tmp("nonexistent")) < 0)
		exit(1);
	{
		char *line;

		if (asprintf(&line, "file /x %s 0644 0 0", tmp("nonexistent")) < 0)
			exit(1);
		check_list_error(line, m);
		free(line);
	}
	free(m);
	/* a name given twice: both lines named */
	{
		struct builder_opts o;
		struct plan p;
		const char *in[] = {tmp("dup.list")};
		char *err, *want;
		int ret;

		test_write_file("dup.list", "dir /ok 0755 0 0\nslink /ok x 0777 0 0\n", 38, 0644);
		opts_x86(&o);
		plan_init(&p);
		err = build(&o, in, 1, tmp("bad.cpio"), &p, &ret);
		check_int(ret, ==, -1);
		if (asprintf(&want, "tapboot: duplicate name '/ok': from %s:1 and from %s:2\n",
			     tmp("dup.list"), tmp("dup.list")) < 0)
			exit(1);
		check_str(err, want);
		check(!exists(tmp("bad.cpio")));
		free(want);
		free(err);
		plan_release(&p);
		builder_opts_release(&o);
	}
}

static void test_bad_inputs(void)
{
	struct builder_opts o;
	struct plan p;
	char *err, *want;
	int ret, st;

	opts_x86(&o);
	plan_init(&p);
	/* a missing input */
	{
		const char *in[] = {tmp("missing")};

		err = build(&o, in, 1, tmp("bad.cpio"), &p, &ret);
		check_int(ret, ==, -1);
		if (asprintf(&want, "tapboot: cannot read input '%s': No such file or directory\n",
			     tmp("missing")) < 0)
			exit(1);
		check_str(err, want);
		check(!exists(tmp("bad.cpio")));
		free(want);
		free(err);
	}
	/* two inputs giving the same name */
	{
		const char *in[] = {tmp("static"), tmp("dup/static")};

		free(sh("mkdir -p dup && cp static dup/static", NULL));
		err = build(&o, in, 2, tmp("bad.cpio"), &p, &ret);
		check_int(ret, ==, -1);
		if (asprintf(&want, "tapboot: %s: a test named 'static' already exists\n",
			     tmp("dup/static")) < 0)
			exit(1);
		check_str(err, want);
		check(!exists(tmp("bad.cpio")));
		free(want);
		free(err);
	}
	/* a file that newc cannot hold (sparse: costs no disk) */
	{
		const char *in[] = {tmp("big")};

		free(sh("mkdir -p big && truncate -s 4G big/huge.bin", &st));
		err = build(&o, in, 1, tmp("bad.cpio"), &p, &ret);
		check_int(ret, ==, -1);
		if (asprintf(&want,
			     "tapboot: '%s/huge.bin' is 4 GiB or larger (4294967296 "
			     "bytes): newc cpio cannot hold it\n",
			     tmp("big")) < 0)
			exit(1);
		check_str(err, want);
		check(!exists(tmp("bad.cpio")));
		free(want);
		free(err);
		free(sh("rm -rf big", NULL));
	}
	/* a test for another architecture */
	{
		const char *in[] = {tmp("arm64-static")};

		free(sh("aarch64-linux-gnu-gcc -static -o arm64-static -x c - "
			"<<'EOF'\nint main(void){return 0;}\nEOF\n",
			&st));
		check_int(st, ==, 0);
		err = build(&o, in, 1, tmp("bad.cpio"), &p, &ret);
		check_int(ret, ==, -1);
		if (asprintf(&want, "tapboot: '%s' is built for arm64, the kernel is x86_64\n",
			     tmp("arm64-static")) < 0)
			exit(1);
		check_str(err, want);
		check(!exists(tmp("bad.cpio")));
		free(want);
		free(err);
	}
	/* a 32-bit test for a 64-bit kernel of the same family is refused with both classes */
	{
		const char *in[] = {tmp("i386-static")};

		free(sh("i686-linux-gnu-gcc -static -o i386-static -x c - "
			"<<'EOF'\nint main(void){return 0;}\nEOF\n",
			&st));
		check_int(st, ==, 0);
		err = build(&o, in, 1, tmp("bad.cpio"), &p, &ret);
		check_int(ret, ==, -1);
		if (asprintf(&want, "tapboot: '%s' is built for i386, the kernel is x86_64\n",
			     tmp("i386-static")) < 0)
			exit(1);
		check_str(err, want);
		free(want);
		free(err);
	}
	/* an init for another architecture */
	{
		const char *in[] = {tmp("static")};

		o.init_path = tmp("arm64-static");
		err = build(&o, in, 1, tmp("bad.cpio"), &p, &ret);
		o.init_path = tmp("init");
		check_int(ret, ==, -1);
		if (asprintf(&want,
			     "tapboot: the init '%s' is built for arm64 (64-bit), the kernel is "
			     "x86_64 (64-bit)\n",
			     tmp("arm64-static")) < 0)
			exit(1);
		check_str(err, want);
		check(!exists(tmp("bad.cpio")));
		free(want);
		free(err);
	}
	/* an unwritable output directory leaves nothing and says why */
	{
		const char *in[] = {tmp("static")};

		err = build(&o, in, 1, tmp("no/such/dir/out.cpio"), &p, &ret);
		check_int(ret, ==, -1);
		if (asprintf(&want, "tapboot: cannot create '%s': No such file or directory\n",
			     tmp("no/such/dir/out.cpio")) < 0)
			exit(1);
		check_str(err, want);
		free(want);
		free(err);
	}
	plan_release(&p);
	builder_opts_release(&o);
}

static void test_manifest(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("m/manifest")};
	const char *text = "tapboot-manifest 1\n"
			   "# comment\n"
			   "tree payload /opt/payload\n"
			   "file payload/cfg \"/etc/my cfg\" 0600\n"
			   "test one ../static\n"
			   "    timeout 90\n"
			   "    arg -v\n"
			   "    arg \"two words\"\n"
			   "    env FOO=bar\\tbaz\n"
			   "    flag disruptive\n"
			   "    config CONFIG_BPF\n"
			   "test two /opt/payload/run.sh\n"
			   "\tcwd /opt\n"
			   "module dummy\n";
	char *err, *pt, *list;
	int ret;

	test_write_file("m/manifest", text, strlen(text), 0644);
	test_write_file("m/payload/run.sh", "#!/bin/sh\n", 10, 0755);
	test_write_file("m/payload/cfg", "k=v\n", 4, 0644);
	opts_x86(&o);
	strlist_push(&o.load_modules, "loop");
	plan_init(&p);
	err = build(&o, in, 1, tmp("m.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	pt = plan_text(&p);
	check_str(pt, "tapboot-plan 1\nmodule loop\nmodule dummy\n"
		      "test one\npath /tests/one\ncwd /tests\ntimeout 90\narg -v\narg two words\n"
		      "env FOO=bar\\tbaz\nflag disruptive\nconfig CONFIG_BPF\nend\n"
		      "test two\npath /opt/payload/run.sh\ncwd /opt\ntimeout 45\nend\n");
	list = squeeze(sh("cpio -itv --quiet < m.cpio | grep -v -e tapboot -e ' init$'", NULL));
	check_str_subst(list,
			L("drwxr-xr-x", 2, 0, "etc") L("-rw-------", 1, 4, "etc/my cfg")
				L("drwxr-xr-x", 2, 0, "opt") L("drwxr-xr-x", 2, 0, "opt/payload")
					L("-rw-r--r--", 1, 4, "opt/payload/cfg")
						L("-rwxr-xr-x", 1, 10, "opt/payload/run.sh") L(
							"drwxr-xr-x", 2, 0, "tests")
							L("-rwxr-xr-x", 1, SSIZE, "tests/one"));
	free(list);
	free(pt);
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

/* The manifest "tapboot-manifest 1\n" + body[0..len) fails to build with message msg (whole). */
static void check_manifest_fails(const char *body, size_t len, const char *msg)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("bad.manifest")};
	char *err, *full = malloc(len + 32);
	int ret;

	if (!full)
		exit(1);
	memcpy(full, "tapboot-manifest 1\n", 19);
	memcpy(full + 19, body, len);
	test_write_file("bad.manifest", full, len + 19, 0644);
	free(full);
	opts_x86(&o);
	plan_init(&p);
	unlink(tmp("bad.cpio"));
	err = build(&o, in, 1, tmp("bad.cpio"), &p, &ret);
	check_int(ret, ==, -1);
	if (!check_str(err, msg))
		printf("# body: %s\n", body);
	check(!exists(tmp("bad.cpio")));
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

static void check_manifest_error(const char *body, unsigned line, const char *want)
{
	char *msg;

	if (asprintf(&msg, "tapboot: %s:%u: %s\n", tmp("bad.manifest"), line, want) < 0)
		exit(1);
	check_manifest_fails(body, strlen(body), msg);
	free(msg);
}

static void test_manifest_errors(void)
{
	check_manifest_error("frobnicate x\n", 2,
			     "unknown keyword 'frobnicate' (expected tree, file, test or module)");
	check_manifest_error("  timeout 3\n", 2, "indented line 'timeout' without a test above it");
	check_manifest_error("test a static\n  timeout soon\n", 3,
			     "timeout 'soon' is not a number of seconds");
	check_manifest_error("test a static\n  flag fast\n", 3,
			     "unknown flag 'fast' (known: disruptive, privileged)");
	check_manifest_error("test a static\n  env NOEQUALS\n", 3,
			     "env 'NOEQUALS' is not KEY=VALUE");
	check_manifest_error("test a static\n  colour red\n", 3,
			     "unknown test attribute 'colour' (expected timeout, cwd, arg, env, "
			     "flag, config or skip)");
	check_manifest_error("file \"unterminated\n", 2, "unterminated double quote");
	check_manifest_error("test a\n", 2, "expected 'test NAME PATH'");
	check_manifest_error(
		"test a /tests/nothing\n", 2,
		"test program '/tests/nothing' is not a file in the image (pack it with "
		"a tree or file line)");
	check_manifest_error("test ../a static\n", 2,
			     "'../a' has a '..' component (image paths must stay inside the root)");
	check_manifest_error("test a static\ntest a static\n", 3,
			     "a test named 'a' already exists");
	/* names that cannot cross a console line (issue 41) */
	check_manifest_error(
		"test \"a\\tb\" static\n", 2,
		"test name 'a\\x09b' has a control character (a name is one field of a "
		"console line: rename the test)");
	check_manifest_error(
		"test \"x ~tb:1\" static\n", 2,
		"test name 'x ~tb:1' holds the line tag's marker ' ~tb:' (a name is one "
		"field of a console line: rename the test)");
	check_manifest_error(
		"test \"- x\" static\n", 2,
		"test name '- x' starts with TAP's separator '- ' (a name is one field "
		"of a console line: rename the test)");
	/* a NUL byte: at a line's start it ended the manifest silently */
	{
		static const char nul0[] = "test a static\n\0test b static\n";
		static const char nul1[] = "test a sta\0tic\n";
		char *msg;

		if (asprintf(&msg, "tapboot: %s:3: NUL byte in a manifest line\n",
			     tmp("bad.manifest")) < 0)
			exit(1);
		check_manifest_fails(nul0, sizeof(nul0) - 1, msg);
		free(msg);
		if (asprintf(&msg, "tapboot: %s:2: NUL byte in a manifest line\n",
			     tmp("bad.manifest")) < 0)
			exit(1);
		check_manifest_fails(nul1, sizeof(nul1) - 1, msg);
		free(msg);
	}
	/* #origin: the lines after it are reported as that file's line (--kselftest's list) */
	check_manifest_fails("#origin /ks/kselftest-list.txt:7\ntest a static\n    timeout x\n", 61,
			     "tapboot: /ks/kselftest-list.txt:7: timeout 'x' is not a number of "
			     "seconds\n");
}

static void test_dynamic_host(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("dyn")};
	char *err, *list, *cmp;
	int ret, st;

	opts_x86(&o);
	plan_init(&p);
	err = build(&o, in, 1, tmp("dyn.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	list = sh("cpio -it --quiet < dyn.cpio", NULL);
	check_str(list, "init\nlib\nlib/x86_64-linux-gnu\nlib/x86_64-linux-gnu/libc.so.6\nlib64\n"
			"lib64/ld-linux-x86-64.so.2\ntapboot\ntapboot/plan\ntests\ntests/dyn\n");
	free(list);
	/* the real files under the needed names (the host's are symlinks or merged-/usr paths) */
	cmp = sh("mkdir dx && cd dx && cpio -id --quiet < ../dyn.cpio && "
		 "cmp lib64/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2 && "
		 "cmp lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libc.so.6 && echo same",
		 &st);
	check_str(cmp, "same\n");
	free(cmp);
	free(err);
	plan_release(&p);

	/* a library in the test's own directory (kselftest's rseq: -rpath=./) */
	cmp = sh("mkdir -p own && cd own && "
		 "printf 'int f(void){return 3;}\\n' > f.c && gcc -shared -fPIC -o libf.so f.c && "
		 "printf 'int f(void); int main(void){return f()-3;}\\n' > m.c && "
		 "gcc -o t m.c -L. -lf -Wl,-rpath=./ && rm f.c m.c && echo ok",
		 &st);
	check_str(cmp, "ok\n");
	free(cmp);
	{
		const char *in2[] = {tmp("own")};

		plan_init(&p);
		err = build(&o, in2, 1, tmp("own.cpio"), &p, &ret);
		check_int(ret, ==, 0);
		check_str(err, "");
		/* libf.so is packed once (from the tree) and is not a test */
		list = sh("cpio -it --quiet < own.cpio | grep -v -e '^lib' -e '^init'", NULL);
		check_str(list, "tapboot\ntapboot/plan\ntests\ntests/libf.so\ntests/t\n");
		free(list);
		check_int(p.n, ==, 1);
		check_str(p.n ? p.tests[0].name : "", "t");
		free(err);
		plan_release(&p);
	}
	{
		const char *in3[] = {tmp("own/t")};

		plan_init(&p);
		err = build(&o, in3, 1, tmp("own1.cpio"), &p, &ret);
		check_int(ret, ==, 0);
		check_str(err, "");
		/* a lone test: its library goes beside it */
		list = sh("cpio -it --quiet < own1.cpio | grep tests/", NULL);
		check_str(list, "tests/libf.so\ntests/t\n");
		free(list);
		free(err);
		plan_release(&p);
	}
	builder_opts_release(&o);
}

static void test_dynamic_arm64(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("arm64-dyn")};
	char *err, *list, *cmp;
	int ret, st;

	free(sh("aarch64-linux-gnu-gcc -o arm64-dyn -x c - -lm <<'EOF'\n#include <math.h>\n"
		"int main(int c, char **v){(void)v; return (int)sqrt((double)c);}\nEOF\n",
		&st));
	check_int(st, ==, 0);
	builder_opts_init(&o);
	o.init_path = tmp("init");
	o.target.arch = "arm64";
	o.target.elf_machine = EM_AARCH64;
	o.target.elf_class = 64;
	o.target.sysroot = NULL; /* Debian's cross sysroot by default */
	o.quiet = true;
	o.busybox = -1;
	plan_init(&p);
	err = build(&o, in, 1, tmp("arm64.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	list = sh("cpio -it --quiet < arm64.cpio", NULL);
	check_str(list, "init\nlib\nlib/ld-linux-aarch64.so.1\nlib/libc.so.6\nlib/libm.so.6\n"
			"tapboot\ntapboot/plan\ntests\ntests/arm64-dyn\n");
	free(list);
	cmp = sh("mkdir ax && cd ax && cpio -id --quiet < ../arm64.cpio && "
		 "cmp lib/libm.so.6 /usr/aarch64-linux-gnu/lib/libm.so.6 && echo same",
		 &st);
	check_str(cmp, "same\n");
	free(cmp);
	free(err);
	plan_release(&p);
	/* a sysroot without the libraries names what is missing */
	o.target.sysroot = tmp("emptyroot");
	mkdir(tmp("emptyroot"), 0755);
	plan_init(&p);
	err = build(&o, in, 1, tmp("arm64b.cpio"), &p, &ret);
	check_int(ret, ==, -1);
	{
		char *want;

		if (asprintf(&want,
			     "tapboot: '%s' needs the interpreter '/lib/ld-linux-aarch64.so.1', "
			     "which is not in the sysroot '%s'\n",
			     tmp("arm64-dyn"), tmp("emptyroot")) < 0)
			exit(1);
		check_str(err, want);
		free(want);
	}
	check(!exists(tmp("arm64b.cpio")));
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

static void test_busybox(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("tree")};
	char *err, *out;
	int ret;

	/* auto: a #! test and no shell packed -> busybox with its links */
	opts_x86(&o);
	o.busybox = 0;
	plan_init(&p);
	err = build(&o, in, 1, tmp("bb.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	out = squeeze(sh("cpio -itv --quiet < bb.cpio | grep -E ' (bin/sh|bin/busybox|usr/bin/awk|"
			 "sbin/modprobe)( |$)'",
			 NULL));
	check_str_subst(out,
			"-rwxr-xr-x 1 root root BBSIZE Jan 1 1970 bin/busybox\n"
			"lrwxrwxrwx 1 root root 7 Jan 1 1970 bin/sh -> busybox\n"
			"lrwxrwxrwx 1 root root 14 Jan 1 1970 sbin/modprobe -> ../bin/busybox\n"
			"lrwxrwxrwx 1 root root 17 Jan 1 1970 usr/bin/awk -> ../../bin/busybox\n");
	free(out);
	free(err);
	plan_release(&p);
	/* a #!/bin/bash test without bash: bash runs as busybox ash */
	{
		const char *in3[] = {tmp("bash.sh")};

		test_write_file("bash.sh", "#!/bin/bash\necho b\n", 19, 0755);
		plan_init(&p);
		free(build(&o, in3, 1, tmp("bash.cpio"), &p, &ret));
		check_int(ret, ==, 0);
		out = sh("cpio -itv --quiet < bash.cpio | grep -c ' bin/bash -> busybox$'", NULL);
		check_str(out, "1\n");
		free(out);
		plan_release(&p);
	}
	/* never */
	o.busybox = -1;
	plan_init(&p);
	err = build(&o, in, 1, tmp("bb.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	out = sh("cpio -it --quiet < bb.cpio | grep -c busybox", NULL);
	check_str(out, "0\n");
	free(out);
	free(err);
	plan_release(&p);
	/* auto with a shell from the inputs: no busybox */
	{
		const char *in2[] = {tmp("tree"), tmp("sh.list")};

		test_write_file("sh.list", "slink /bin/sh /bin/dash 0777 0 0\n", 33, 0644);
		o.busybox = 0;
		plan_init(&p);
		err = build(&o, in2, 2, tmp("bb.cpio"), &p, &ret);
		check_int(ret, ==, 0);
		out = sh("cpio -it --quiet < bb.cpio | grep -c busybox", NULL);
		check_str(out, "0\n");
		free(out);
		free(err);
		plan_release(&p);
	}
	/* an explicit busybox of the wrong architecture */
	o.busybox = 1;
	o.busybox_path = tmp("arm64-static");
	plan_init(&p);
	err = build(&o, in, 1, tmp("bb2.cpio"), &p, &ret);
	check_int(ret, ==, -1);
	{
		char *want;

		if (asprintf(&want, "tapboot: busybox '%s' is not a 64-bit x86_64 program\n",
			     tmp("arm64-static")) < 0)
			exit(1);
		check_str(err, want);
		free(want);
	}
	check(!exists(tmp("bb2.cpio")));
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

/* The applet list is the busybox's own (--list-full), kept in the stat cache while that
 * busybox is unchanged: a second build reads it from there. */
static void test_busybox_applet_cache(void)
{
	const char *in[] = {tmp("tree")};
	/* the stat cache's entry for the host's busybox, relative to the test's directory */
#define APPLETS_ENTRY "cache/tapboot/busybox-applets-_usr_bin_busybox"
	struct builder_opts o;
	struct plan p;
	char *err, *out, *cache = xstrdup(tmp("cache"));
	int ret;

	setenv("XDG_CACHE_HOME", cache, 1);
	opts_x86(&o);
	o.busybox = 0;
	plan_init(&p);
	free(build(&o, in, 1, tmp("bb.cpio"), &p, &ret));
	check_int(ret, ==, 0);
	plan_release(&p);
	/* one line with the file's identity, one with the applets */
	out = sh("sed -n 2p " APPLETS_ENTRY " | tr ' ' '\\n' | "
		 "grep -cxE 'bin/sh|usr/bin/awk|sbin/modprobe'",
		 NULL);
	check_str(out, "3\n");
	free(out);
	/* what the cache says is what the next build links */
	out = sh("sed -i '2s|.*|bin/sh usr/bin/only-from-the-cache|' " APPLETS_ENTRY, NULL);
	free(out);
	plan_init(&p);
	err = build(&o, in, 1, tmp("bb.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	out = sh("cpio -it --quiet < bb.cpio | grep -cE '^(usr/bin/only-from-the-cache|usr/bin/awk)$'",
		 NULL);
	check_str(out, "1\n");
	free(out);
	free(err);
	plan_release(&p);
	/* busybox changed (here: the entry's identity line no longer matches): run it again */
	out = sh("sed -i '1s|^|x|' " APPLETS_ENTRY, NULL);
	free(out);
	plan_init(&p);
	free(build(&o, in, 1, tmp("bb.cpio"), &p, &ret));
	check_int(ret, ==, 0);
	out = sh("cpio -it --quiet < bb.cpio | grep -cE '^(usr/bin/only-from-the-cache|usr/bin/awk)$'",
		 NULL);
	check_str(out, "1\n");
	free(out);
	out = sh("cpio -it --quiet < bb.cpio | grep -cx usr/bin/awk", NULL);
	check_str(out, "1\n");
	free(out);
	plan_release(&p);
	builder_opts_release(&o);
	check(exists(tmp(APPLETS_ENTRY)));
#undef APPLETS_ENTRY
	unsetenv("XDG_CACHE_HOME");
	free(cache);
}

static void test_modules(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("static")};
	const char *dep = "kernel/drivers/a-mod.ko: kernel/lib/b.ko kernel/lib/c.ko\n"
			  "kernel/lib/b.ko: kernel/lib/c.ko\n"
			  "kernel/lib/c.ko:\n"
			  "kernel/other/z.ko:\n";
	char *err, *out, *pt;
	int ret;

	test_write_file("mods/lib/modules/6.1.0-test/modules.dep", dep, strlen(dep), 0644);
	test_write_file("mods/lib/modules/6.1.0-test/kernel/drivers/a-mod.ko", "A", 1, 0644);
	test_write_file("mods/lib/modules/6.1.0-test/kernel/lib/b.ko", "B", 1, 0644);
	test_write_file("mods/lib/modules/6.1.0-test/kernel/lib/c.ko", "C", 1, 0644);
	test_write_file("mods/lib/modules/6.1.0-test/kernel/other/z.ko", "Z", 1, 0644);
	opts_x86(&o);
	o.modules_dir = tmp("mods/lib/modules/6.1.0-test");
	strlist_push(&o.load_modules, "a_mod");
	plan_init(&p);
	err = build(&o, in, 1, tmp("mod.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	out = sh("cpio -it --quiet < mod.cpio | grep '^lib/modules'", NULL);
	check_str(out, "lib/modules\nlib/modules/6.1.0-test\nlib/modules/6.1.0-test/kernel\n"
		       "lib/modules/6.1.0-test/kernel/drivers\n"
		       "lib/modules/6.1.0-test/kernel/drivers/a-mod.ko\n"
		       "lib/modules/6.1.0-test/kernel/lib\nlib/modules/6.1.0-test/kernel/lib/b.ko\n"
		       "lib/modules/6.1.0-test/kernel/lib/c.ko\n"
		       "lib/modules/6.1.0-test/modules.dep\n");
	free(out);
	/* dependencies first, in modprobe's order */
	pt = plan_text(&p);
	check(!strncmp(pt, "tapboot-plan 1\nmodule c\nmodule b\nmodule a_mod\ntest static\n", 56));
	free(pt);
	free(err);
	plan_release(&p);
	/* no module requested: the whole tree */
	strlist_release(&o.load_modules);
	plan_init(&p);
	err = build(&o, in, 1, tmp("mod.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	out = sh("cpio -it --quiet < mod.cpio | grep -c '\\.ko$'", NULL);
	check_str(out, "4\n");
	free(out);
	check_int(p.modules.n, ==, 0);
	free(err);
	plan_release(&p);
	/* an INSTALL_MOD_PATH root, and a module built into the kernel */
	test_write_file("mods/lib/modules/6.1.0-test/modules.builtin", "kernel/fs/ext4/ext4.ko\n",
			23, 0644);
	o.modules_dir = tmp("mods");
	strlist_push(&o.load_modules, "ext4");
	strlist_push(&o.load_modules, "z");
	plan_init(&p);
	err = build(&o, in, 1, tmp("mod.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	check_int(p.modules.n, ==, 1);
	check_str(p.modules.n ? p.modules.v[0] : "", "z");
	out = sh("cpio -it --quiet < mod.cpio | grep '\\.ko$'", NULL);
	check_str(out, "lib/modules/6.1.0-test/kernel/other/z.ko\n");
	free(out);
	free(err);
	plan_release(&p);
	strlist_release(&o.load_modules);
	o.modules_dir = tmp("mods/lib/modules/6.1.0-test");
	/* an unknown module */
	strlist_push(&o.load_modules, "nosuch");
	plan_init(&p);
	err = build(&o, in, 1, tmp("mod2.cpio"), &p, &ret);
	check_int(ret, ==, -1);
	{
		char *want;

		if (asprintf(&want, "tapboot: module 'nosuch' is not in '%s/modules.dep'\n",
			     tmp("mods/lib/modules/6.1.0-test")) < 0)
			exit(1);
		check_str(err, want);
		free(want);
	}
	check(!exists(tmp("mod2.cpio")));
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

/* Build twice (touching the inputs in between) and compare the bytes; then check with the
 * compressor's own tool. */
static void check_compress(enum builder_compress c, const char *verify, const char *want)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("tree"), tmp("dyn")};
	char *err, *a, *b, *out, *cmd;
	size_t la, lb;
	int ret, st;

	opts_x86(&o);
	o.compress = c;
	plan_init(&p);
	err = build(&o, in, 2, tmp("c1.img"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	free(err);
	plan_release(&p);
	free(sh("sleep 0.01; touch tree/a.sh dyn", NULL));
	plan_init(&p);
	err = build(&o, in, 2, tmp("c2.img"), &p, &ret);
	check_int(ret, ==, 0);
	free(err);
	plan_release(&p);
	a = test_read_file(tmp("c1.img"), &la);
	b = test_read_file(tmp("c2.img"), &lb);
	check(a && b);
	check_int(la, ==, lb);
	if (a && b && la == lb && !check_mem(a, b, la))
		printf("# compression %s not reproducible\n", builder_compress_name(c));
	free(a);
	free(b);
	if (verify) {
		if (asprintf(&cmd, "%s", verify) < 0)
			exit(1);
		out = sh(cmd, &st);
		check_int(st, ==, 0);
		check_str(out, want);
		free(out);
		free(cmd);
	}
	builder_opts_release(&o);
}

static void test_compression(void)
{
	check_compress(BUILDER_COMPRESS_NONE, "cpio -it --quiet < c1.img | wc -l", "16\n");
	/* gzip: no timestamp in the header (bytes 4-7) */
	check_compress(BUILDER_COMPRESS_GZIP,
		       "gzip -t c1.img && od -An -tx1 -j4 -N4 c1.img && "
		       "gzip -dc c1.img | cpio -it --quiet | wc -l",
		       " 00 00 00 00\n16\n");
	check_compress(BUILDER_COMPRESS_XZ,
		       "xz -t c1.img && xz -lvv c1.img | grep -c 'CRC32' && "
		       "xz -dc c1.img | cpio -it --quiet | wc -l",
		       "3\n16\n");
	check_compress(BUILDER_COMPRESS_ZSTD,
		       "zstd -q -t c1.img && zstd -dc c1.img | cpio -it --quiet | wc -l", "16\n");
	/* lz4: the legacy format's magic 0x184C2102, little-endian */
	check_compress(BUILDER_COMPRESS_LZ4,
		       "lz4 -q -t c1.img && od -An -tx1 -N4 c1.img && "
		       "lz4 -dc c1.img | cpio -it --quiet | wc -l",
		       " 02 21 4c 18\n16\n");
	check_int(builder_compress_from_name("zstd"), ==, BUILDER_COMPRESS_ZSTD);
	check_int(builder_compress_from_name("bzip2"), ==, -1);
	check_str(builder_compress_name(BUILDER_COMPRESS_LZ4), "lz4");
}

static void test_source_date_epoch(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("static")};
	char *err, *out;
	int ret;

	opts_x86(&o);
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
	plan_init(&p);
	err = build(&o, in, 1, tmp("sde.cpio"), &p, &ret);
	unsetenv("SOURCE_DATE_EPOCH");
	check_int(ret, ==, 0);
	out = sh("cpio -itv --quiet < sde.cpio | grep -c 'Nov 14  2023'", NULL);
	check_str(out, "5\n");
	free(out);
	free(err);
	plan_release(&p);
	setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
	plan_init(&p);
	err = build(&o, in, 1, tmp("sde2.cpio"), &p, &ret);
	unsetenv("SOURCE_DATE_EPOCH");
	check_int(ret, ==, -1);
	check_str(err, "tapboot: SOURCE_DATE_EPOCH 'yesterday' is not a number of seconds (newc "
		       "holds 32 bits)\n");
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

static void test_config_warning(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("static")};
	char *err, *want;
	int ret;

	test_write_file("kconfig", "CONFIG_RD_GZIP=y\n# CONFIG_RD_ZSTD is not set\n", 45, 0644);
	opts_x86(&o);
	o.kernel_config = tmp("kconfig");
	o.compress = BUILDER_COMPRESS_ZSTD;
	plan_init(&p);
	err = build(&o, in, 1, tmp("w.img"), &p, &ret);
	check_int(ret, ==, 0);
	if (asprintf(&want,
		     "tapboot: warning: the kernel config '%s' lacks CONFIG_RD_ZSTD=y: this kernel "
		     "cannot unpack a zstd initramfs\n",
		     tmp("kconfig")) < 0)
		exit(1);
	check_str(err, want);
	free(want);
	free(err);
	plan_release(&p);
	o.compress = BUILDER_COMPRESS_GZIP;
	plan_init(&p);
	err = build(&o, in, 1, tmp("w.img"), &p, &ret);
	check_str(err, "");
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

/* Split a concatenation of newc archives at each TRAILER!!! and list every part. */
static char *list_segments(const char *img)
{
	char *cmd, *out;

	if (asprintf(&cmd,
		     "python3 - '%s' <<'EOF'\n"
		     "import sys, subprocess\n"
		     "d = open(sys.argv[1], 'rb').read(); i = 0; parts = []\n"
		     "while i < len(d):\n"
		     "    start = i\n"
		     "    while True:\n"
		     "        h = d[i:i+110]; assert h[:6] == b'070701', (i, h[:6])\n"
		     "        ns = int(h[94:102], 16); fs = int(h[54:62], 16)\n"
		     "        name = d[i+110:i+110+ns-1]\n"
		     "        i = (i + 110 + ns + 3) & ~3; i = (i + fs + 3) & ~3\n"
		     "        if name == b'TRAILER!!!': break\n"
		     "    parts.append(d[start:i])\n"
		     "for p in parts:\n"
		     "    r = subprocess.run(['cpio', '-it', '--quiet'], input=p, "
		     "capture_output=True)\n"
		     "    print('--', r.stdout.decode().replace('\\n', ' ').strip())\n"
		     "EOF",
		     img) < 0)
		exit(1);
	out = sh(cmd, NULL);
	free(cmd);
	return out;
}

static void test_segment_cache(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("tree"), tmp("static")};
	char *err, *out, *a, *b;
	size_t la, lb;
	int ret;

	opts_x86(&o);
	o.cache_dir = tmp("cache/segments");
	o.compress = BUILDER_COMPRESS_GZIP;
	plan_init(&p);
	err = build(&o, in, 2, tmp("s1.img"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	free(err);
	plan_release(&p);
	free(sh("gzip -dc < s1.img > s1.cpio", NULL));
	out = list_segments(tmp("s1.cpio"));
	/* base, the tree's top level, one per top-level directory, the lone test, the plan */
	check_str(out, "-- init\n"
		       "-- tests tests/a.sh\n"
		       "-- tests tests/data tests/data/x.txt\n"
		       "-- tests tests/sub tests/sub/b.sh tests/sub/link\n"
		       "-- tests tests/static\n"
		       "-- tapboot tapboot/plan\n");
	free(out);
	out = sh("ls cache/segments | wc -l", NULL);
	check_str(out, "6\n");
	free(out);
	/* unchanged: every segment from the cache (each marked used: mtime now, for the cache's
	 * least-recently-used upkeep), the same bytes */
	free(sh("touch -d '2000-01-01' cache/segments/*.cpio", NULL));
	o.quiet = false;
	plan_init(&p);
	err = build(&o, in, 2, tmp("s2.img"), &p, &ret);
	check_int(ret, ==, 0);
	if (asprintf(&out, "tapboot: built '%s': 14 entries, 3 tests, 6 segments (6 cached)\n",
		     tmp("s2.img")) < 0)
		exit(1);
	check_str(err, out);
	free(out);
	free(err);
	plan_release(&p);
	out = sh("find cache/segments -name '*.cpio' ! -newermt '2001-01-01' | wc -l", NULL);
	check_str(out, "0\n");
	free(out);
	a = test_read_file(tmp("s1.img"), &la);
	b = test_read_file(tmp("s2.img"), &lb);
	check(a && b && la == lb && !memcmp(a, b, la));
	free(b);
	/* one test changed: only its segment is packed again */
	free(sh("sleep 0.01; printf '#!/bin/sh\\necho A\\n' > tree/a.sh", NULL));
	plan_init(&p);
	err = build(&o, in, 2, tmp("s3.img"), &p, &ret);
	check_int(ret, ==, 0);
	if (asprintf(&out, "tapboot: built '%s': 14 entries, 3 tests, 6 segments (5 cached)\n",
		     tmp("s3.img")) < 0)
		exit(1);
	check_str(err, out);
	free(out);
	free(err);
	plan_release(&p);
	out = sh("ls cache/segments | wc -l", NULL);
	check_str(out, "7\n");
	free(out);
	b = test_read_file(tmp("s3.img"), &lb);
	check_int(la, ==, lb);
	check(a && b && memcmp(a, b, la < lb ? la : lb));
	free(a);
	free(b);
	/* segments compressed one by one: a concatenation the tools (and the kernel) accept */
	o.compress = BUILDER_COMPRESS_ZSTD;
	o.quiet = true;
	plan_init(&p);
	err = build(&o, in, 2, tmp("sz.img"), &p, &ret);
	check_int(ret, ==, 0);
	free(err);
	plan_release(&p);
	out = sh("zstd -q -t sz.img && zstd -dc sz.img > sz.cpio && echo ok", NULL);
	check_str(out, "ok\n");
	free(out);
	out = list_segments(tmp("sz.cpio"));
	check(!strncmp(out, "-- init\n-- tests tests/a.sh\n", 28));
	free(out);
	/* restore the fixture */
	free(sh("printf '#!/bin/sh\\necho a\\n' > tree/a.sh", NULL));
	builder_opts_release(&o);
}

static void test_kselftest_tree(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("ks")};
	char *err, *pt, *want;
	int ret;

	test_write_file("ks/kselftest-list.txt", "size:get_size\nrtc:rtctest\n", 26, 0644);
	test_write_file("ks/run_kselftest.sh", "#!/bin/sh\n", 10, 0755);
	test_write_file("ks/kselftest/runner.sh", "#!/bin/sh\n", 10, 0755);
	test_write_file("ks/rtc/rtctest", "#!/bin/sh\n", 10, 0755);
	test_write_file("ks/rtc/settings", "timeout=210\n", 12, 0644);
	test_write_file("ks/size/get_size", "#!/bin/sh\n", 10, 0755);
	test_write_file("ks/size/helper", "#!/bin/sh\n", 10, 0755);
	opts_x86(&o);
	plan_init(&p);
	err = build(&o, in, 1, tmp("ks.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	/* only the listed tests, in the list's order, with the collection's timeout */
	pt = plan_text(&p);
	check_str(pt,
		  "tapboot-plan 1\n"
		  "test size:get_size\npath /tests/size/get_size\ncwd /tests/size\ntimeout 45\n"
		  "end\n"
		  "test rtc:rtctest\npath /tests/rtc/rtctest\ncwd /tests/rtc\ntimeout 210\nend\n");
	free(pt);
	free(err);
	plan_release(&p);
	/* a listed test that is not there */
	test_write_file("ks/kselftest-list.txt", "size:get_size\nrtc:gone\n", 23, 0644);
	plan_init(&p);
	err = build(&o, in, 1, tmp("ks2.cpio"), &p, &ret);
	check_int(ret, ==, -1);
	if (asprintf(&want, "tapboot: %s:2: test 'rtc:gone' is not a file in '%s'\n",
		     tmp("ks/kselftest-list.txt"), tmp("ks")) < 0)
		exit(1);
	check_str(err, want);
	check(!exists(tmp("ks2.cpio")));
	free(want);
	free(err);
	plan_release(&p);
	/* a settings line that is not KEY=VALUE: an error with file:line, as under --kselftest */
	test_write_file("ks/kselftest-list.txt", "size:get_size\nrtc:rtctest\n", 26, 0644);
	test_write_file("ks/rtc/settings", "timeout 210\n", 12, 0644);
	plan_init(&p);
	err = build(&o, in, 1, tmp("ks3.cpio"), &p, &ret);
	check_int(ret, ==, -1);
	check(err && strstr(err, "rtc/settings:1: "));
	check(!exists(tmp("ks3.cpio")));
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

/* A foreign busybox: Debian's busybox-static for arm64 (scripts/fetch-busybox.sh, cached;
 * fetched here, through the fetcher tapboot run and tapboot build give the builder, when the
 * cache has none: a fresh machine's make check), its applet links from the host's busybox. */
static void test_busybox_arm64(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("tree/a.sh")};
	char *err, *out;
	int ret;

	builder_opts_init(&o);
	o.init_path = tmp("init");
	o.target.arch = "arm64";
	o.target.elf_machine = EM_AARCH64;
	o.target.elf_class = 64;
	o.quiet = true;
	o.busybox = 0;
	o.fetch_busybox = run_fetch_busybox;
	plan_init(&p);
	err = build(&o, in, 1, tmp("bb64.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	if (ret)
		printf("# needs network access to Debian's archive once: %s", err);
	out = sh(
		"mkdir bb64 && cd bb64 && cpio -id --quiet < ../bb64.cpio && "
		"od -An -tx1 -j18 -N2 bin/busybox && readlink bin/sh usr/bin/awk && "
		"cmp bin/busybox ${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/busybox/arm64/bin/busybox "
		"&& echo same",
		NULL);
	/* e_machine 183 = EM_AARCH64 */
	check_str(out, " b7 00\nbusybox\n../../bin/busybox\nsame\n");
	free(out);
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

/* The kernel's own usr/default_cpio_list (6.1), unchanged. */
static void test_kernel_default_list(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {TAPBOOT_SRCDIR "/tests/fixtures/builder/default_cpio_list"};
	char *err, *out;
	int ret;

	opts_x86(&o);
	plan_init(&p);
	err = build(&o, in, 1, tmp("default.cpio"), &p, &ret);
	check_int(ret, ==, 0);
	check_str(err, "");
	out = squeeze(
		sh("cpio -itv --quiet < default.cpio | grep -v -e tapboot -e ' init$'", NULL));
	check_str(out,
		  L("drwxr-xr-x", 2, 0,
		    "dev") "crw------- 1 root root 5, 1 Jan 1 1970 dev/console\n" L("drwx------", 2,
										    0, "root"));
	free(out);
	check_int(p.n, ==, 0);
	free(err);
	plan_release(&p);
	builder_opts_release(&o);
}

/* Snapshot boot's tests apart: everything under tests/ in a second uncompressed archive, the
 * rest (init, plan, libraries) in the image; uncompressed and compressed through the cache. */
static void test_tests_apart(void)
{
	struct builder_opts o;
	struct plan p;
	const char *in[] = {tmp("static"), tmp("tree")};
	char *err, *list;
	int ret;

	for (int z = 0; z < 2; z++) {
		opts_x86(&o);
		o.tests_out = tmp("apart.tests.cpio");
		if (z) {
			o.compress = BUILDER_COMPRESS_GZIP;
			o.cache_dir = tmp("apart-cache");
		}
		plan_init(&p);
		err = build(&o, in, 2, tmp("apart.cpio"), &p, &ret);
		check_int(ret, ==, 0);
		check_str(err, "");
		check_int(p.n, ==, 3);
		free(sh("zcat -f apart.cpio > apart.raw", NULL));
		list = list_segments(tmp("apart.raw"));
		/* compressed: the base and the plan segments (the tests segment is not in it) */
		check_str(list, z ? "-- init\n-- tapboot tapboot/plan\n"
				  : "-- init tapboot tapboot/plan\n");
		free(list);
		list = sh("cpio -it --quiet < apart.tests.cpio", NULL);
		check_str(list, "tests\ntests/a.sh\ntests/data\ntests/data/x.txt\ntests/static\n"
				"tests/sub\ntests/sub/b.sh\ntests/sub/link\n");
		free(list);
		free(err);
		plan_release(&p);
		builder_opts_release(&o);
	}
}

int main(void)
{
	setup();
	TEST(test_tree, "a directory: tree, modes, symlinks, tests and plan (cpio and bsdcpio)");
	TEST(test_tests_apart, "tests apart: tests/ in a second archive, the rest in the image");
	TEST(test_lone_exec_and_timeout, "a lone static executable and the default timeout");
	TEST(test_gen_init_cpio_list, "gen_init_cpio list: every kind, owners, hard links");
	TEST(test_list_errors, "gen_init_cpio list errors name file:line, leave no output");
	TEST(test_bad_inputs, "bad inputs: missing, duplicate, 4 GiB, wrong ELF machine");
	TEST(test_manifest, "tapboot manifest: tree, file, test attributes, modules");
	TEST(test_manifest_errors, "manifest errors name file:line");
	TEST(test_dynamic_host, "dynamic host test: interpreter and libraries, own-dir library");
	TEST(test_dynamic_arm64, "dynamic arm64 test from Debian's cross sysroot");
	TEST(test_busybox, "busybox: auto, never, shell from inputs, wrong architecture");
	TEST(test_busybox_applet_cache, "busybox's applet list: from the stat cache while it is unchanged");
	TEST(test_modules, "modules: requested ones with modules.dep dependencies, whole tree");
	TEST(test_compression, "compression: reproducible, each verified by its own tool");
	TEST(test_source_date_epoch, "SOURCE_DATE_EPOCH sets every mtime");
	TEST(test_config_warning, "a kernel config without CONFIG_RD_* warns");
	TEST(test_segment_cache, "segment cache: reuse, one changed test re-packs one segment");
	TEST(test_kernel_default_list, "the kernel's usr/default_cpio_list works unchanged");
	TEST(test_kselftest_tree, "kselftest install tree: kselftest-list.txt and settings");
	TEST(test_busybox_arm64, "busybox for arm64 fetched from Debian, links from the host's");
	return test_done();
}
