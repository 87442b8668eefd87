/* SPDX-License-Identifier: GPL-2.0-only */
/* error.h: error reporting and allocation wrappers shared by the host tool and the guest init. */
#ifndef TAPBOOT_ERROR_H
#define TAPBOOT_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Exit codes are the interface (README "Exit status"). */
enum {
	EXIT_PASS = 0,
	EXIT_TESTS_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_VM = 3,
	/* run --build --bisect: a kernel that does not configure or build (git bisect run's
	 * "this commit cannot be tested") */
	EXIT_BISECT_SKIP = 125,
	EXIT_INTERRUPTED = 130,
};

#define FMT_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* The word before the colon in every message ("tapboot", "tapboot-init"); a static so the
 * helpers need no context argument, set once in main(). */
void error_set_prog(const char *prog);
/* Where messages go (default: stderr); the guest's init points them at its console once its
 * standard error is the tests' output pipe. */
void error_set_stream(FILE *stream);
const char *error_prog(void);

/* Print "prog: message" to stderr and return -1, so library code can `return error(...)`. */
int error(const char *fmt, ...) FMT_PRINTF(1, 2);
/* The same with ": strerror(errno)" appended; errno is preserved. */
int error_errno(const char *fmt, ...) FMT_PRINTF(1, 2);
void warning(const char *fmt, ...) FMT_PRINTF(1, 2);
/* Progress and information, "prog: message" on the same stream: every line that starts with
 * the program's name goes through note(), error() or warning(). */
void note(const char *fmt, ...) FMT_PRINTF(1, 2);
void warning_errno(const char *fmt, ...) FMT_PRINTF(1, 2);
/* Bad input: "prog: FILE:LINE: message"; returns -1. line 0 omits the line. */
int error_at(const char *file, unsigned line, const char *fmt, ...) FMT_PRINTF(3, 4);

/* Only main() and the x-wrappers end the process. */
__attribute__((noreturn)) void die(int status, const char *fmt, ...) FMT_PRINTF(2, 3);
__attribute__((noreturn)) void die_errno(int status, const char *fmt, ...) FMT_PRINTF(2, 3);
/* What die(), die_errno() and the x-wrappers' allocation failures do after printing their
 * message, instead of exit(status): hook gets the status and the message (without the "prog: "
 * before it; "out of memory" for an allocation). The guest's init sets one that reports on its
 * console and powers off, since an exiting PID 1 panics the kernel. A hook should not return;
 * if it does, the process exits with status. NULL: exit(status) again. */
void error_set_die_hook(void (*hook)(int status, const char *msg));

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) FMT_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);

/* Grow *p (holding *alloc elements of elem bytes) to hold at least need elements. */
void xgrow(void *pp, size_t *alloc, size_t need, size_t elem);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
