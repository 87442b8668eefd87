// SPDX-License-Identifier: GPL-2.0-only
/* error.c: messages in one shape ("prog: problem 'subject': errno text") and dying allocators. */
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set once by main(); a static so every helper can report without a context argument. */
static const char *prog = "tapboot";

static FILE *stream;

/* Set once by the init (PID 1 must not exit); NULL elsewhere. */
static void (*die_hook)(int status, const char *msg);

void error_set_prog(const char *p)
{
	prog = p;
}

void error_set_stream(FILE *f)
{
	stream = f;
}

const char *error_prog(void)
{
	return prog;
}

void error_set_die_hook(void (*hook)(int status, const char *msg))
{
	die_hook = hook;
}

/* The message (with errno's text after it when errnum) into msg, then "prog: KIND msg" out. No
 * allocation: it also reports that memory ran out. */
static void vformat(char *msg, size_t size, const char *fmt, va_list ap, int errnum)
{
	int n = vsnprintf(msg, size, fmt, ap);

	if (errnum && n >= 0 && (size_t)n < size)
		snprintf(msg + n, size - (size_t)n, ": %s", strerror(errnum));
}

static void put(const char *kind, const char *msg)
{
	FILE *f = stream ? stream : stderr;

	fprintf(f, "%s: %s%s\n", prog, kind, msg);
	fflush(f);
}

static void vreport(const char *kind, const char *fmt, va_list ap, int errnum)
{
	char msg[4096];

	vformat(msg, sizeof(msg), fmt, ap, errnum);
	put(kind, msg);
}

__attribute__((noreturn)) static void die_end(int status, const char *msg)
{
	if (die_hook)
		die_hook(status, msg);
	exit(status);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, saved);
	va_end(ap);
	errno = saved;
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
}

void warning_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, saved);
	va_end(ap);
	errno = saved;
}

int error_at(const char *file, unsigned line, const char *fmt, ...)
{
	char where[4096 + 32];
	va_list ap;

	if (line)
		snprintf(where, sizeof(where), "%s:%u: ", file, line);
	else
		snprintf(where, sizeof(where), "%s: ", file);
	va_start(ap, fmt);
	vreport(where, fmt, ap, 0);
	va_end(ap);
	return -1;
}

void die(int status, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	vformat(msg, sizeof(msg), fmt, ap, 0);
	va_end(ap);
	put("", msg);
	die_end(status, msg);
}

void die_errno(int status, const char *fmt, ...)
{
	int saved = errno;
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	vformat(msg, sizeof(msg), fmt, ap, saved);
	va_end(ap);
	put("", msg);
	die_end(status, msg);
}

static void *check_alloc(void *p)
{
	if (!p) {
		/* stderr as before, whatever stream messages go to: the hook reports it there */
		fprintf(stderr, "%s: out of memory\n", prog);
		die_end(EXIT_VM, "out of memory");
	}
	return p;
}

void *xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
	return check_alloc(realloc(p, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

char *xstrndup(const char *s, size_t n)
{
	return check_alloc(strndup(s, n));
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	return check_alloc(s);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void xgrow(void *pp, size_t *alloc, size_t need, size_t elem)
{
	void **p = pp;
	size_t n = *alloc;

	if (need <= n)
		return;
	n = n ? n : 8;
	while (n < need)
		n *= 2;
	*p = xrealloc(*p, n * elem);
	*alloc = n;
}
