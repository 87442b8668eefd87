/* test_repro.c: tapboot repro parse and match on reports made from real runs of the
 * crash-on-demand kernel (tests/fixtures/repro/, made by make-fixtures.sh), the decoders, the
 * job-script reader and the bad reports' messages. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands_repro.h"
#include "error.h"
#include "harness.h"
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
		 "tapboot: " FX "bad-truncated.eml:BOUNDARY_LINE: the MIME multipart body ends without "
		 "its closing boundary '--tapboot-fixture-boundary--' (a truncated mail?)\n"},
		{FX "bad-base64.eml",
		 "tapboot: " FX "bad-base64.eml:BASE64_LINE: invalid base64 character in attachment "
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

int main(void)
{
	error_set_prog("test_repro");
	TEST(t_decoders, "base64, quoted-printable and xz decoders, their errors");
	TEST(t_cmdline, "the report's command line without lkp's bookkeeping");
	TEST(t_bad_reports, "bad reports: exit 2, the file and line named");
	return test_done();
}
