// SPDX-License-Identifier: GPL-2.0-only
/* test_lkp_report.c: lkp/'s report reader and matching: tapboot repro parse and match on reports
 * made from real runs of the crash-on-demand kernel (tests/fixtures/repro/, made by
 * make-fixtures.sh), the decoders, the job-script reader, the robot's fields, the JSON document
 * (a Latin-1 Subject stays valid JSON) and the bad reports' messages. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands_repro.h"
#include "error.h"
#include "harness.h"
#include "json_read.h"
#include "repro.h"

#ifndef TAPBOOT_SRCDIR
#define TAPBOOT_SRCDIR "."
#endif
#define FX TAPBOOT_SRCDIR "/tests/fixtures/repro/"

/* Run tapboot repro with args in a child; its exit status, stdout and stderr. */
static int run_repro(const char *const *args, char **out, char **err)
{
	char opath[512], epath[512];
	int st, argc = 0;
	pid_t pid;

	while (args[argc])
		argc++;
	snprintf(opath, sizeof(opath), "%s/stdout", test_tmpdir());
	snprintf(epath, sizeof(epath), "%s/stderr", test_tmpdir());
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen(opath, "w", stdout) || !freopen(epath, "w", stderr))
			_exit(99);
		error_set_prog("tapboot");
		st = cmd_repro(argc, (char **)args);
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


#define WARN_ID "WARNING:at_drivers/misc/lkdtm/bugs.c:#lkdtm_WARNING"
#define COMMIT "5a6d0d2b7c1e9f4a3b2c1d0e9f8a7b6c5d4e3f21"
#define MACHINE "qemu-system-x86_64 -enable-kvm -cpu SandyBridge -smp 2 -m 16G"
#define TREE "https://git.kernel.org/cgit/linux/kernel/git/next/linux-next.git"

/* The excerpt of the warning console, as make-fixtures.sh cut it: the WARNING line to the end
 * of the trace. */
static char *warning_excerpt(void)
{
	char *text, *a, *b;
	size_t n;
	if (repro_read_file(FX "warning-dmesg", &text, &n))
		return NULL;
	a = strstr(text, "] WARNING: CPU");
	b = a ? strstr(a, "---[ end trace") : NULL;
	if (!a || !b) {
		free(text);
		return NULL;
	}
	while (a > text && a[-1] != '\n')
		a--;
	char *r = xstrndup(a, strchr(b, '\n') + 1 - a);
	free(text);
	return r;
}

static void check_warning_common(const struct repro_report *r)
{
	check_str(r->kind, "runtime");
	check_str(r->headline, WARN_ID);
	check_str(r->commit, COMMIT);
	check_str(r->commit_subject, "lkdtm: provoke a warning on demand");
	check_str(r->tree, TREE);
	check_str(r->branch, "master");
	check_str(r->testcase, "boot");
	check(r->version == NULL);
	check_int(r->nparams, ==, 0);
	check_str(r->machine, MACHINE);
	check_str(r->arch, "x86_64");
	check_str(r->computed.title, "WARNING in lkdtm_WARNING");
	if (check_int(r->computed.nhits, ==, 2)) {
		check_str(r->computed.hits[0].id, WARN_ID);
		check_str(r->computed.hits[1].id, "RIP:lkdtm_WARNING");
	}
}

static void t_robot_decoded(void)
{
	struct repro_report r;
	repro_report_init(&r);
	if (!check_int(repro_report_read(&r, FX "robot-warning.txt"), ==, 0))
		return;
	check_warning_common(&r);
	check(r.subject == NULL);
	check(r.message_id == NULL);
	check_str(r.config_name, "x86_64-tinyconfig-lkdtm");
	check_str(r.compiler, "gcc-12");
	check_str(r.closes, "https://lore.kernel.org/oe-lkp/202612041200.5a6d0d2b-oliver.sang@intel.com");
	check_str(r.parent, "0c3836482f");
	if (check_int(r.nrows, ==, 1)) {
		check_str(r.rows[0].id, WARN_ID);
		check_int(r.rows[0].parent, ==, 0);
		check_int(r.rows[0].commit, ==, 6);
	}
	check(r.cmdline == NULL);
	check_int(r.nneed, ==, 0);
	check_int(r.nfiles, ==, 0);
	check_int(r.njob, ==, 0);
	check(r.full_dmesg == NULL);
	/* decode_stacktrace.sh's lines and decodecode's blocks, kept as mailed */
	check(r.dmesg && !strncmp(r.dmesg, "[    7.681709] WARNING: CPU: 0 PID: 16 at drivers/misc/"
				  "lkdtm/bugs.c:85 lkdtm_WARNING (bugs.c:?) \n", 95));
	check(r.dmesg && strstr(r.dmesg, "\nCode starting with the faulting instruction\n"));
	check(r.dmesg && strstr(r.dmesg, "[    8.172672] ---[ end trace 0000000000000000 ]---\n"));
	{
		size_t lines = 0;
		for (const char *p = r.dmesg; p && *p; p++)
			lines += *p == '\n';
		check_int(lines, ==, 104);
	}
	repro_report_release(&r);
}

static void t_robot_raw_mbox(void)
{
	struct repro_report r;
	char *ex = warning_excerpt();
	repro_report_init(&r);
	if (!check_int(repro_report_read(&r, FX "robot-warning-raw.mbox"), ==, 0))
		return;
	check_warning_common(&r);
	check_str(r.subject, "[linux-next:master] [lkdtm]  5a6d0d2b7c: " WARN_ID);
	check_str(r.message_id, "<202612041200.5a6d0d2b-oliver.sang@intel.com>");
	check_str(r.config_name, "x86_64-tinyconfig-lkdtm");
	check_str(r.compiler, "gcc-12");
	check_str(r.parent, "0c3836482f");
	check_int(r.nrows, ==, 1);
	check(ex != NULL);
	check_str(r.dmesg, ex);
	check(r.full_dmesg == NULL);
	free(ex);
	repro_report_release(&r);
}

static void t_multipart(void)
{
	struct repro_report r;
	char *ex = warning_excerpt(), *plain;
	size_t pl;
	repro_report_init(&r);
	if (!check_int(repro_report_read(&r, FX "multipart.eml"), ==, 0))
		return;
	check_warning_common(&r);
	check_str(r.subject, "[lkdtm] 5a6d0d2b7c: " WARN_ID);
	check_str(r.message_id, "<202302011308.f53123d2-yujie.liu@intel.com>");
	/* the quoted-printable body's old format: compiler from "(built with gcc-11)", the Link */
	check_str(r.compiler, "gcc-11");
	check_str(r.closes, "https://lore.kernel.org/oe-lkp/202302011308.f53123d2-yujie.liu@intel.com");
	check_str(r.config_name, "x86_64-tinyconfig-lkdtm");
	check(r.parent == NULL);
	check_int(r.nrows, ==, 0);
	check_str(r.dmesg, ex);
	/* the base64 dmesg.xz attachment is the whole console */
	check_str(r.full_dmesg_name, "dmesg.xz");
	if (check_int(repro_read_file(FX "warning-dmesg", &plain, &pl), ==, 0)) {
		check_str(r.full_dmesg, plain);
		free(plain);
	}
	if (check_int(r.nfiles, ==, 3)) {
		check_str(r.files[0], "config-6.1.192");
		check_str(r.files[1], "job-script");
		check_str(r.files[2], "dmesg.xz");
	}
	check(r.config_text && strstr(r.config_text, "CONFIG_LKDTM=y\n") &&
	      strstr(r.config_text, "CONFIG_PROVE_LOCKING=y\n"));
	/* the job-script: parsed, never run */
	check_int(r.njob, ==, 17);
	check_str(repro_job_get(&r, "model"), "qemu-system-x86_64 -enable-kvm -cpu SandyBridge");
	check_str(repro_job_get(&r, "need_kconfig"), "{\"LKDTM\"=>\"y\"}");
	check_str(repro_job_get(&r, "LKP_SRC"), "/lkp/${user:-lkp}/src");
	if (check_int(r.nneed, ==, 1))
		check_str(r.need_kconfig[0], "CONFIG_LKDTM=y");
	check_str(r.cmdline_from, "job-script");
	check(r.cmdline && !strncmp(r.cmdline, "root=/dev/ram0 RESULT_ROOT=/result/boot/1/", 42));
	check(r.cmdline && strstr(r.cmdline, " vga=normal rw initcall_debug vmalloc=256M") &&
	      r.cmdline[strlen(r.cmdline) - 1] == 'M');
	char *run = repro_cmdline_for_run(r.cmdline);
	check_str(run, "nokaslr debug apic=debug sysrq_always_enabled rcupdate.rcu_cpu_stall_timeout=100 "
		       "net.ifnames=0 printk.devkmsg=on softlockup_panic=1 nmi_watchdog=panic oops=panic "
		       "ignore_loglevel initcall_debug vmalloc=256M");
	free(run);
	free(ex);
	repro_report_release(&r);
}

static void t_materials_dir(void)
{
	struct repro_report r;
	repro_report_init(&r);
	if (!check_int(repro_report_read(&r, FX "exception-dir"), ==, 0))
		return;
	check_str(r.kind, "runtime");
	check(r.headline == NULL && r.commit == NULL && r.subject == NULL && r.closes == NULL);
	check_str(r.testcase, "boot");
	check_str(r.cmdline, "debug");
	check_str(r.cmdline_from, "job-script");
	check_str(r.arch, "x86_64");
	check_str(r.full_dmesg_name, "dmesg.xz");
	check_str(r.computed.title,
		  "BUG: unable to handle kernel NULL pointer dereference in lkdtm_EXCEPTION");
	if (check_int(r.computed.nhits, ==, 4)) {
		check_str(r.computed.hits[0].id, "BUG:kernel_NULL_pointer_dereference,address");
		check_str(r.computed.hits[1].id, "Oops:#[##]");
		check_str(r.computed.hits[2].id, "RIP:lkdtm_EXCEPTION");
		check_str(r.computed.hits[3].id, "Kernel_panic-not_syncing:Fatal_exception");
	}
	check(r.dmesg && !strncmp(r.dmesg, "[    1.772231] BUG: kernel NULL pointer dereference, "
				  "address: 0000000000000000\n", 78));
	if (check_int(r.nfiles, ==, 2)) {
		check_str(r.files[0], "dmesg.xz");
		check_str(r.files[1], "job-script");
	}
	repro_report_release(&r);
}

static void t_match(void)
{
	struct repro_report r;
	struct repro_match m;
	char *w, *x;
	size_t wl, xl;
	const char *clean = "[    1.0] Run /init as init process\nok 1 - nothing\n";

	repro_report_init(&r);
	if (!check_int(repro_report_read(&r, FX "robot-warning.txt"), ==, 0) ||
	    !check_int(repro_read_file(FX "warning-dmesg", &w, &wl), ==, 0) ||
	    !check_int(repro_read_file(FX "exception-dmesg", &x, &xl), ==, 0))
		return;
	repro_match_console(&r, w, wl, &m);
	check_int(m.verdict, ==, REPRO_REPRODUCED);
	if (check_int(m.nlines, ==, 1)) {
		check_str(m.scan.hits[m.lines[0]].id, WARN_ID);
		check_int(m.scan.hits[m.lines[0]].line, ==, 133);
	}
	repro_match_release(&m);
	repro_match_console(&r, x, xl, &m);
	check_int(m.verdict, ==, REPRO_OTHER);
	check_int(m.nlines, ==, 4);
	repro_match_release(&m);
	repro_match_console(&r, clean, strlen(clean), &m);
	check_int(m.verdict, ==, REPRO_CLEAN);
	check_int(m.nlines, ==, 0);
	repro_match_release(&m);
	/* lkp versions spell the Oops id with and without its flags */
	check(repro_id_equal("Oops", "Oops:#[##]"));
	check(repro_id_equal("Oops:#[##]PREEMPT_SMP", "Oops"));
	check(!repro_id_equal("Oops", "Oops_x"));
	free(w);
	free(x);
	repro_report_release(&r);

	/* the command: exit 1 and the line */
	const char *args[] = {"repro", "match", FX "robot-warning.txt", FX "warning-dmesg", NULL};
	char *out, *err;
	check_int(run_repro(args, &out, &err), ==, 1);
	check(out && !strncmp(out, "reproduced: " WARN_ID "\n  title: WARNING in lkdtm_WARNING\n  " FX
				   "warning-dmesg:133: [", 60 + sizeof(FX)));
	check_str(err, "");
	free(out);
	free(err);
}

static void t_decoders(void)
{
	char *out;
	size_t n, bad = 99;
	const char *msg = NULL;

	check_int(repro_base64_decode("aGVs\nbG8=\n", 10, &out, &n, &bad, &msg), ==, 0);
	check_int(n, ==, 5);
	check_mem(out, "hello", 5);
	free(out);
	check_int(repro_base64_decode("aGVs\nbG!8\n", 10, &out, &n, &bad, &msg), ==, -1);
	check_int(bad, ==, 1);
	check_str(msg, "invalid base64 character");
	check_int(repro_base64_decode("aGVsb", 5, &out, &n, &bad, &msg), ==, -1);
	check_str(msg, "base64 data ends in the middle of a byte (truncated)");

	repro_qp_decode("a=3Db=\nc=20\n", 12, &out, &n);
	check_int(n, ==, 6);
	check_mem(out, "a=bc \n", 6);
	free(out);

	/* the fixture's dmesg.xz is the exception console, xz'd */
	char *xz, *plain;
	size_t xl, pl;
	if (check_int(repro_read_file(FX "exception-dir/dmesg.xz", &xz, &xl), ==, 0) &&
	    check_int(repro_read_file(FX "exception-dmesg", &plain, &pl), ==, 0)) {
		check_int(repro_xz_decode(xz, xl, &out, &n, &msg), ==, 0);
		check_int(n, ==, pl);
		check(n == pl && !memcmp(out, plain, n));
		free(out);
		check_int(repro_xz_decode(xz, xl / 2, &out, &n, &msg), ==, -1);
		check_str(msg, "xz data is truncated");
		free(xz);
		free(plain);
	}
}

static void t_cmdline(void)
{
	char *c = repro_cmdline_for_run(
		"root=/dev/ram0 RESULT_ROOT=/result/boot/1 BOOT_IMAGE=/pkg/vmlinuz job=/lkp/x.yaml "
		"user=lkp ARCH=x86_64 max_uptime=600 LKP_SERVER=s nokaslr selinux=0 debug "
		"apic=debug ip=::::vm:eth0:dhcp console=ttyS0,115200 earlyprintk=ttyS0 "
		"oops=panic panic=-1 softlockup_panic=1 rw page_owner=on");
	check_str(c, "nokaslr debug apic=debug oops=panic softlockup_panic=1 page_owner=on");
	free(c);
}

static void t_bad_reports(void)
{
	static const struct {
		const char *file, *err;
	} cases[] = {
		{FX "bad-truncated.eml",
		 "tapboot: " FX "bad-truncated.eml:99: the MIME multipart body ends without "
		 "its closing boundary '--tapboot-fixture-boundary--' (a truncated mail?)\n"},
		{FX "bad-base64.eml",
		 "tapboot: " FX "bad-base64.eml:180: invalid base64 character in attachment "
		 "'dmesg.xz'\n"},
		{FX "bad-not-a-report.txt",
		 "tapboot: " FX "bad-not-a-report.txt:1: not a kernel test robot report (no commit: "
		 "line, signature table, job-script or kernel problem in a dmesg)\n"},
		{FX "bad-job",
		 "tapboot: " FX "bad-job/job-script:5: unterminated single quote in the value of "
		 "'kernel_cmdline'\n"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = {"repro", "parse", cases[i].file, NULL};
		char *out, *err;
		check_int(run_repro(args, &out, &err), ==, 2);
		check_str(out, "");
		check_str(err, cases[i].err);
		free(out);
		free(err);
	}
}

/* A mail whose Subject holds one Latin-1 byte (0xe9, "é" in ISO-8859-1, as an unencoded header
 * from an old client): tapboot repro parse exits 0 with valid JSON, the byte as U+FFFD. */
static void t_latin1_subject(void)
{
	static const char mail[] = "From: robot@example.org\n"
				   "Subject: [linux-next:master] caf\xe9  5a6d0d2b7c: " WARN_ID "\n"
				   "Message-ID: <latin1@example.org>\n"
				   "\n"
				   "commit: " COMMIT " (\"lkdtm: \xe9t\xe9\")\n"
				   "| " WARN_ID " | 0 | 6 |\n";
	const char *path = test_write_file("latin1.eml", mail, sizeof(mail) - 1, 0);
	const char *args[] = {"repro", "parse", path, NULL};
	struct json doc;
	char *out, *err;

	check_int(run_repro(args, &out, &err), ==, 0);
	check_str(err, "");
	/* the escape, not the byte: the document is ASCII where the report was not UTF-8 */
	check(out && strstr(out, "\"subject\": \"[linux-next:master] caf\\ufffd  5a6d0d2b7c: "));
	check(out && !strchr(out, '\xe9'));
	if (check_int(json_parse(&doc, out ? out : "", out ? strlen(out) : 0, "stdout"), ==, 0)) {
		check_str(json_get_str(&doc, "subject"),
			  "[linux-next:master] caf\xef\xbf\xbd  5a6d0d2b7c: " WARN_ID);
		check_str(json_get_str(&doc, "commit_subject"), "lkdtm: \xef\xbf\xbdt\xef\xbf\xbd");
		check_str(json_get_str(&doc, "commit"), COMMIT);
		check_str(json_get_str(&doc, "headline"), WARN_ID);
		check_str(json_get_str(&doc, "message_id"), "<latin1@example.org>");
		json_release(&doc);
	}
	free(out);
	free(err);
}

/* The job-script's shell words: quotes spanning lines, escapes in double quotes, a bare
 * backslash, ';' ending a word; job.yaml only fills what the job-script did not say; the
 * fields derived from them (testcase, machine, arch, command line, need_kconfig). */
static void t_job_script_words(void)
{
	static const char job[] = "#!/bin/sh\n"
				  "export_top_env()\n"
				  "{\n"
				  "\texport testcase='boot'\n"
				  "\texport model='qemu-system-aarch64 -enable-kvm'\n"
				  "\texport nr_cpu=4\n"
				  "\texport memory=8G\n"
				  "\texport kconfig=arm64-defconfig\n"
				  "\texport bootloader_append='root=/dev/ram0\n"
				  "debug'\n"
				  "\texport kernel_cmdline=\"a=\\\"b c\\\" d\\$e\"; export x=1\n"
				  "\texport need_kconfig=\\{\\\"KASAN\\\"\\=\\>\\\"y\\\"\\,\\ \\\"CONFIG_UBSAN\\\"\\}\n"
				  "\texportnot=1\n"
				  "}\n";
	static const char yaml[] = "testcase: ignored\nrootfs: debian-12\n  indented: no\n";
	const char *dir = test_write_file("jobdir/job-script", job, sizeof(job) - 1, 0);
	struct repro_report r;
	char *d = xstrndup(dir, strrchr(dir, '/') - dir);

	test_write_file("jobdir/job.yaml", yaml, sizeof(yaml) - 1, 0);
	repro_report_init(&r);
	if (check_int(repro_report_read(&r, d), ==, 0)) {
		/* x=1 follows a ";" on the value's line: the rest of that line is not read */
		check_int(r.njob, ==, 9);
		check_str(repro_job_get(&r, "kernel_cmdline"), "a=\"b c\" d$e");
		check_str(repro_job_get(&r, "x"), NULL);
		check_str(repro_job_get(&r, "testcase"), "boot");
		check_str(repro_job_get(&r, "rootfs"), "debian-12");
		check_str(repro_job_get(&r, "indented"), NULL);
		check_str(r.testcase, "boot");
		check_str(r.machine, "qemu-system-aarch64 -enable-kvm -smp 4 -m 8G");
		check_str(r.arch, "arm64");
		check_str(r.config_name, "arm64-defconfig");
		check_str(r.cmdline, "root=/dev/ram0 debug a=\"b c\" d$e");
		check_str(r.cmdline_from, "job-script");
		if (check_int(r.nneed, ==, 2)) {
			check_str(r.need_kconfig[0], "CONFIG_KASAN=y");
			check_str(r.need_kconfig[1], "CONFIG_UBSAN");
		}
		if (check_int(r.nfiles, ==, 2)) {
			check_str(r.files[0], "job-script");
			check_str(r.files[1], "job.yaml");
		}
	}
	repro_report_release(&r);
	free(d);
}

/* The robot's text fields one by one: a build report's kind, the test parameters, a folded
 * header, the tree on the line after commit:, the signature table's empty cells. */
static void t_text_fields(void)
{
	static const char mail[] = "Subject: [tree:b] [mm]  0123456abc: BUG:KASAN:slab-out-of-bounds\n"
				   "Content-Type: text/plain; charset=us-ascii\n"
				   "X-Long: one\n"
				   "\ttwo\n"
				   "\n"
				   "Hello,\n"
				   "kernel test robot noticed the following build warnings:\n"
				   "commit: 0123456abcdef (\"mm: a \"quoted\" change\")\n"
				   "https://git.example.org/tree.git  for-next\n"
				   "in testcase: stress-ng\n"
				   "version: stress-ng-x86_64-0.15\n"
				   "with following parameters:\n"
				   "\tnr_threads: 10%\n"
				   "\ttestcase: mmap\n"
				   "config: x86_64-rhel-8.3 (https://download.01.org/x)\n"
				   "compiler: gcc-12\n"
				   "test machine: 4 threads 1 sockets Intel(R) Xeon(R) with 16G memory\n"
				   "| id | parent | commit |\n"
				   "|    | 89abcde | 0123456abc |\n"
				   "| BUG:KASAN:slab-out-of-bounds | | 5 |\n"
				   "| boot_successes | 6 | x |\n";
	const char *path = test_write_file("fields.eml", mail, sizeof(mail) - 1, 0);
	struct repro_report r;
	const char **ids;

	repro_report_init(&r);
	if (!check_int(repro_report_read(&r, path), ==, 0))
		return;
	/* "in testcase:" after the build line makes it a runtime report again */
	check_str(r.kind, "runtime");
	check_str(r.headline, "BUG:KASAN:slab-out-of-bounds");
	check_str(r.commit, "0123456abcdef");
	check_str(r.commit_subject, "mm: a \"quoted\" change");
	check_str(r.tree, "https://git.example.org/tree.git");
	check_str(r.branch, "for-next");
	check_str(r.testcase, "stress-ng");
	check_str(r.version, "stress-ng-x86_64-0.15");
	if (check_int(r.nparams, ==, 2)) {
		check_str(r.params[0].key, "nr_threads");
		check_str(r.params[0].value, "10%");
		check_str(r.params[1].key, "testcase");
		check_str(r.params[1].value, "mmap");
	}
	check_str(r.config_name, "x86_64-rhel-8.3");
	check_str(r.arch, "x86_64");
	check_str(r.compiler, "gcc-12");
	check_str(r.machine, "4 threads 1 sockets Intel(R) Xeon(R) with 16G memory");
	check_str(r.parent, "89abcde");
	if (check_int(r.nrows, ==, 3)) {
		check_str(r.rows[0].id, "id");
		check_int(r.rows[1].parent, ==, -1);
		check_int(r.rows[1].commit, ==, 5);
		check_int(r.rows[2].commit, ==, -1);
	}
	/* the table's rows with runs on the commit, but not lkp's boot counters */
	if (check_int(repro_report_target_ids(&r, &ids), ==, 2)) {
		check_str(ids[0], "id");
		check_str(ids[1], "BUG:KASAN:slab-out-of-bounds");
	}
	free(ids);
	repro_report_release(&r);
}

/* tapboot repro match's lines and exit statuses, from the functions the command calls. */
static void t_match_print(void)
{
	static const char console[] = "[    1.0] Run /init as init process\n"
				      "[    2.0] WARNING: CPU: 0 PID: 16 at drivers/misc/lkdtm/bugs.c:85 "
				      "lkdtm_WARNING+0x1f/0x30\n";
	struct repro_report r;
	struct repro_match m;
	char *text;
	size_t len;

	check_int(repro_verdict_status(REPRO_CLEAN), ==, 0);
	check_int(repro_verdict_status(REPRO_REPRODUCED), ==, 1);
	check_int(repro_verdict_status(REPRO_OTHER), ==, 3);
	check_str(repro_verdict_name(REPRO_OTHER), "other");
	repro_report_init(&r);
	if (!check_int(repro_report_read(&r, FX "robot-warning.txt"), ==, 0))
		return;
	repro_match_console(&r, console, sizeof(console) - 1, &m);
	char *p = xasprintf("%s/match.out", test_tmpdir());
	FILE *fp = fopen(p, "w");
	if (!check(fp != NULL))
		return;
	repro_match_print(fp, "c.log", &m);
	fclose(fp);
	text = test_read_file(p, &len);
	check_str(text, "reproduced: " WARN_ID "\n"
			"  title: WARNING in lkdtm_WARNING\n"
			"  c.log:2: [    2.0] WARNING: CPU: 0 PID: 16 at drivers/misc/lkdtm/bugs.c:85 "
			"lkdtm_WARNING+0x1f/0x30\n"
			"    id: " WARN_ID "\n");
	free(text);
	free(p);
	repro_match_release(&m);
	repro_report_release(&r);
}

int main(void)
{
	error_set_prog("test_lkp_report");
	TEST(t_robot_decoded, "robot format, decoded excerpt: every field");
	TEST(t_robot_raw_mbox, "robot format as an mbox message, raw excerpt: every field");
	TEST(t_multipart, "multipart: quoted-printable body, config, job-script, base64 dmesg.xz");
	TEST(t_materials_dir, "a materials directory: dmesg.xz and job-script");
	TEST(t_match, "repro match: reproduced, other, clean; the command's output");
	TEST(t_decoders, "base64, quoted-printable and xz decoders, their errors");
	TEST(t_cmdline, "the report's command line without lkp's bookkeeping");
	TEST(t_bad_reports, "bad reports: exit 2, the file and line named");
	TEST(t_latin1_subject, "a Latin-1 byte in the Subject: exit 0, valid JSON, U+FFFD");
	TEST(t_job_script_words, "job-script shell words, job.yaml, the fields derived from them");
	TEST(t_text_fields, "the robot's text fields, parameters, tree line, table cells");
	TEST(t_match_print, "repro match's lines and exit statuses");
	return test_done();
}
