/* SPDX-License-Identifier: GPL-2.0-only */
/* init.h: the guest init's parts (set-up, options, output filter, one test's run, kernel health,
 * report) and the context they share. Internal to init/; names start with init_ so they cannot
 * clash with the host tool's when the unit tests link both. */
#ifndef TAPBOOT_INIT_H
#define TAPBOOT_INIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "plan.h"
#include "strbuf.h"
#include "verdict.h"

/* Not in protocol.h (yet): the init's own knob for the per-test console cap. */
#define INIT_ARG_OUTPUT_MAX "tapboot.output_max="
/* Per-test cap on the bytes of test output copied to the console. A serial console is slow and
 * the host keeps console.log; 256 KiB is thousands of lines, more than any kselftest prints,
 * while a 10 MB flood is cut to a few seconds of console time. 0 = no cap. */
#define INIT_OUTPUT_MAX_DEFAULT (256u * 1024)
/* Longer lines are split: a line without a newline must not grow the init's memory. */
#define INIT_LINE_MAX 4096
/* Grace between SIGTERM and SIGKILL at a timeout (the "short grace"). */
#define INIT_GRACE_MS_DEFAULT 2000
/* Kernel log lines printed per test at most (a WARN storm must not flood the console). */
#define INIT_KMSG_LINES_MAX 200

/* What the kernel command line (or --cmdline on the host) asked for. */
struct init_options {
	char *nonce;		/* owned, "" when absent */
	struct strlist filters; /* tapboot.filter= globs, OR'ed */
	long timeout_s;		/* tapboot.timeout=, -1 when absent */
	bool disruptive;
	bool disruptive_elsewhere; /* tapboot.disruptive=elsewhere: leave them out, another VM runs them */
	bool privileged_elsewhere; /* tapboot.privileged=elsewhere: the same for privileged tests */
	unsigned shard_k, shard_n; /* shard_n == 0: no sharding */
	unsigned *only;		   /* tapboot.only= plan numbers (1-based), owned */
	size_t n_only;
	size_t output_max;
	/* Snapshot boot (protocol.h): tapboot.handoff=1 on the command line makes the init wait for
	 * a line of per-VM parameters; the key, seed and time are taken only from that line. */
	bool handoff;
	bool in_handoff; /* parsing the handoff line now */
	bool have_key, have_seed, have_time;
	/* tapboot.tests= (handoff line only): the tests image read as on a cold boot, the tests
	 * the saved state holds kept, or those replaced by the image's */
	enum { INIT_TESTS_DEFAULT, INIT_TESTS_KEEP, INIT_TESTS_LOAD } tests;
	unsigned char key[16];
	unsigned char seed[32];
	long long time_s;
	long time_ns;
	struct strlist warnings; /* bad parameters, printed as diagnostics; owned */
};

void init_options_init(struct init_options *o);
void init_options_release(struct init_options *o);
/* Parse a kernel command line (words separated by spaces, "double quotes" group). Unknown
 * words are ignored (they belong to the kernel); bad tapboot.* values become warnings. */
void init_options_parse(struct init_options *o, const char *cmdline);
/* The same for the host's handoff line, where tapboot.key=, .seed= and .time= are allowed. */
void init_options_parse_handoff(struct init_options *o, const char *line);
/* Indices into plan->tests of the tests to report, in plan order; caller frees. */
size_t *init_select(const struct plan *p, const struct init_options *o, size_t *n);

/* A test's output on its way to the console (TAP detection, sanitising, cap, skip reasons). */
struct init_output {
	struct strbuf *out; /* console text is appended here; not owned */
	struct strbuf line; /* the current partial line */
	bool tap;	    /* a "TAP version" or "KTAP version" line was seen */
	size_t max;	    /* cap on bytes shown, 0 = none */
	size_t total;	    /* bytes received */
	size_t shown;	    /* bytes shown */
	bool truncated;
	char *reason[3];   /* last reason for SKIP, XFAIL, XPASS (owned, may be NULL) */
	bool directive[3]; /* reason[] came from a TAP directive (it wins over a mention) */
};

enum { INIT_REASON_SKIP, INIT_REASON_XFAIL, INIT_REASON_XPASS };

void init_output_init(struct init_output *o, struct strbuf *out, size_t max);
void init_output_release(struct init_output *o);
void init_output_feed(struct init_output *o, const char *buf, size_t len);
/* Flush a last line without newline and add the truncation note. */
void init_output_finish(struct init_output *o);
/* Append s (n bytes) to out with invalid UTF-8 and control bytes (except tab) as \xNN. */
void init_sanitize(struct strbuf *out, const char *s, size_t n);

/* Kernel health: taint and /dev/kmsg around one test. */
struct init_kernel {
	int kmsg_fd;		/* -1: not checked */
	const char *taint_path; /* NULL: not checked */
	bool taint_open;	/* taint_fd is taint_path, open */
	int taint_fd;
	unsigned long taint_before, taint_after;
	bool taint_known;
	/* The last test's end read the taint (taint_after) and /dev/kmsg to its end: the next
	 * test starts from there, without another pread or seek (tests run back to back; what
	 * happens between two tests is the next one's). */
	bool after_known, kmsg_at_end;
};

struct init_health {
	unsigned long new_taint; /* bits set during the test */
	unsigned long bad_taint; /* of those, the ones that fail a test */
	unsigned long taint_after;
	char *first_bad; /* first kernel line that looks like a WARN/BUG/Oops; owned */
	unsigned lines;	 /* kernel lines printed */
};

void init_kernel_begin(struct init_kernel *k);
/* Read the records logged since begin, print them (level <= warning) as diagnostics at depth 1
 * into out, and compare the taint. */
void init_kernel_end(struct init_kernel *k, struct strbuf *out, struct init_health *h);
void init_health_release(struct init_health *h);
/* Handle kmsg text (records "prio,seq,ts,flags;msg", continuation lines start with a space). */
void init_kmsg_parse(const char *buf, size_t len, struct strbuf *out, struct init_health *h);
bool init_kernel_line_is_bad(const char *msg);
/* "W" for 512; letters as in the kernel's taint_flags table; into buf of at least 32 bytes. */
const char *init_taint_letters(unsigned long taint, char *buf, size_t size);

/* The run of one test. */
struct init_result {
	enum verdict verdict;
	bool exited;
	int exit_code;
	int signo; /* when killed by a signal */
	bool timed_out;
	unsigned timeout_s;
	double duration_s;
	int exec_errno;	     /* the child could not start (reason says what failed) */
	bool abandoned;	     /* SIGKILL did not end it (uninterruptible sleep) */
	char *reason;	     /* owned */
	unsigned long taint; /* taint after the test, when it changed */
};

struct init_ctx {
	bool pid1;
	const char *root; /* prefix of image paths; "" in the guest */
	int sigfd;
	unsigned grace_ms;
	bool in_test; /* nest the init's own diagnostics under the running test */
	struct init_kernel kernel;
	struct init_options opt;
	FILE *console;
	struct strbuf out; /* pending console text */
	unsigned counts[VERDICT_COUNT];
	/* the run's secret (TAPBOOT_KEY_PATH); without one the lines go out untagged */
	bool keyed;
	unsigned char key[16];
	uint64_t tag_seq; /* of the last tagged line */
	/* snapshot boot: the plan's modules were loaded before the ready point; what that said */
	bool modules_loaded;
	struct strbuf module_diag;
	struct strbuf tagged; /* init_flush's scratch */
	/* The tests' output pipe, kept from test to test (init_run_test): its read end
	 * (non-blocking), and its write end, or -1 when it is the init's own fds 1 and 2 (PID 1:
	 * a test inherits its stdin, stdout and stderr as they are). */
	int out_read, out_write;
};

/* Read the run's secret from path and unlink it; false when there is none (a line on out says
 * why when the file exists but is bad). */
bool init_read_key(struct init_ctx *c, const char *path, bool remove);

/* ---- privilege.c: the key out of a root test's reach ---- */

/* PID 1, before any test: the init not dumpable; the kernel's usermode helpers without the
 * capabilities the tests lose (but CAP_SYS_MODULE). Diagnostics appended to diag. */
void init_privilege_setup(struct strbuf *diag);
/* In a test's child before exec (a test not flagged privileged): those capabilities out of
 * its bounding set. Only system calls (the child shares the init's memory). */
void init_drop_privileges(void);

/* Create the signalfd for all signals (which are blocked); -1 on failure. */
int init_signals_block(void);
/* Restore what init_signals_block() changed, in a child before exec. */
void init_signals_reset(void);
/* Log a signal taken by the init (not SIGCHLD) as a diagnostic. */
void init_signal_note(struct init_ctx *c, int signo, int pid);
const char *init_signal_name(int signo, char *buf, size_t size);

/* Close the tests' output pipe (init_run_test makes a new one when it next needs it). */
void init_tests_stdio_close(struct init_ctx *c);

/* Write ctx->out to the console and empty it. */
void init_flush(struct init_ctx *c);
/* "Bail out! why" on the console now (tagged once the key is read): the end of a run that
 * cannot go on. The caller powers off (PID 1) or returns. */
void init_bail_out(struct init_ctx *c, const char *why);
/* PID 1's die hook (error_set_die_hook): die() and a failed allocation bail out on c's
 * console and power off instead of exiting (an exiting PID 1 panics the kernel). In any other
 * process (a test's child before its exec) it returns, and the process exits as before. */
void init_set_die_hook(struct init_ctx *c);

/* Run test t (number num) and fill r; nothing here is fatal. */
void init_run_test(struct init_ctx *c, const struct plan_test *t, unsigned num,
		   struct init_result *r);
void init_result_release(struct init_result *r);
/* Decide the verdict from the exit status, output and kernel health. */
void init_decide(struct init_result *r, const struct init_output *o, const struct init_health *h);
/* The verdict line and YAML block. */
/* tagged: the lines will carry tags (a plain pass's block then leaves out "exit: 0", which
 * the host's parser implies for a block it verified; an untagged console keeps it). */
void init_report(struct strbuf *sb, unsigned num, const char *name, const struct init_result *r,
		 bool tagged);

/* The test's main process: the test ends when it exits. */
struct init_child {
	pid_t pid;
	bool done;
	int status;
	bool none_left; /* the last reap found no child at all (ECHILD) */
};

/* Reap every exited child, noting the main one's status in ch (may be NULL). */
void init_reap(struct init_child *ch);
/* Kill what is left of a test: its session, and any process re-parented to the init (orphans
 * of the test, including ones that left its session with setsid). Reaps as it goes. */
void init_sweep(struct init_child *ch);

/* The whole run: header, tests, summary. Returns the number of failures. */
unsigned init_run_plan(struct init_ctx *c, const struct plan *p);

/* Load the plan's modules (and their dependencies, from modules.dep) under root; problems are
 * diagnostics in out. */
void init_load_modules(const struct strlist *modules, const char *root, struct strbuf *out);

/* Snapshot boot's ready point (handoff.c): print TAPBOOT_READY_LINE on fd out, read one line
 * from fd in with echo off (a terminal's settings restored after), parse it into c->opt, then
 * apply it: the key, fresh randomness for the kernel's RNG, the wall clock. 0, or -1 with a
 * reason in *why (owned). */
int init_handoff(struct init_ctx *c, int in, int out, char **why);

/* Snapshot boot's tests image (tests_image.c): unpack the newc archive in buf (len bytes, zero
 * padding after its trailer) under root: regular files, directories, symlinks, hard links;
 * every size is checked against len. The number of entries, or -1 with the reason in diag. */
int init_tests_unpack(const unsigned char *buf, size_t len, const char *root, struct strbuf *diag);
/* After the handoff: when the host gave the VM a tests image (an ivshmem device), unpack it
 * under c->root; problems become diagnostics in c->out. */
void init_tests_image(struct init_ctx *c);

/* PID 1 set-up: mounts and console. Returns 0 or -1 with a reason in *why (owned). */
int init_setup_pid1(char **why, struct strbuf *diag);
__attribute__((noreturn)) void init_power_off(void);

#endif
