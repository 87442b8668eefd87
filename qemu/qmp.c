// SPDX-License-Identifier: GPL-2.0-only
/* qmp.c: a minimal QMP client for snapshot boot. QEMU answers one JSON object per line; the
 * answers we need are told apart by their first key ("return", "error", "event"), and the one
 * value we read ("status") by a string search in that line. */
#include "qmp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "launch.h"

int qmp_init(struct qmp *q)
{
	int sv[2];

	memset(q, 0, sizeof(*q));
	q->fd = q->child_fd = -1;
	strbuf_init(&q->buf);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return error_errno("cannot create a socket pair for QEMU's monitor");
	q->fd = sv[0];
	q->child_fd = sv[1];
	return 0;
}

void qmp_argv(struct strlist *argv)
{
	char *chardev = xasprintf("socket,id=tapboot-qmp,fd=%d", QEMU_SPAWN_QMP_FD);

	strlist_push(argv, "-chardev");
	strlist_push(argv, chardev);
	strlist_push(argv, "-mon");
	strlist_push(argv, "chardev=tapboot-qmp,mode=control");
	free(chardev);
}

void qmp_spawned(struct qmp *q)
{
	if (q->child_fd >= 0)
		close(q->child_fd);
	q->child_fd = -1;
}

void qmp_release(struct qmp *q)
{
	qmp_spawned(q);
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	strbuf_release(&q->buf);
}

/* The next whole line from QEMU (caller frees), NULL after *err on EOF or timeout. */
static char *read_line(struct qmp *q, double until, char **err)
{
	for (;;) {
		char *nl = q->buf.len ? memchr(q->buf.buf, '\n', q->buf.len) : NULL;
		char chunk[4096];
		struct pollfd pfd = {.fd = q->fd, .events = POLLIN};
		double left = until - now_s();
		ssize_t n;

		if (nl) {
			size_t len = (size_t)(nl - q->buf.buf);
			char *line = xstrndup(q->buf.buf, len);

			memmove(q->buf.buf, nl + 1, q->buf.len - len - 1);
			q->buf.len -= len + 1;
			q->buf.buf[q->buf.len] = '\0';
			return line;
		}
		if (left <= 0) {
			*err = xstrdup("QEMU's monitor did not answer in time");
			return NULL;
		}
		if (poll(&pfd, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR) {
			*err = xasprintf("poll: %s", strerror(errno));
			return NULL;
		}
		if (!pfd.revents)
			continue;
		n = read(q->fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			*err = xstrdup("QEMU closed its monitor (it exited)");
			return NULL;
		}
		strbuf_add(&q->buf, chunk, (size_t)n);
	}
}

static int send_all(struct qmp *q, const char *s, char **err)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = send(q->fd, s, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			*err = xasprintf("cannot write to QEMU's monitor: %s", strerror(errno));
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The value of "desc" in an error answer, or the line. */
static char *error_desc(const char *line)
{
	const char *d = strstr(line, "\"desc\": \"");
	const char *end;

	if (!d)
		return xstrdup(line);
	d += strlen("\"desc\": \"");
	end = strchr(d, '"');
	return end ? xstrndup(d, (size_t)(end - d)) : xstrdup(d);
}

/* The command with fd attached (SCM_RIGHTS), for getfd. */
static int send_with_fd(struct qmp *q, const char *s, int fd, char **err)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = (void *)s, .iov_len = strlen(s)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	ssize_t w;

	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do
		w = sendmsg(q->fd, &msg, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w < (ssize_t)iov.iov_len) {
		*err = xasprintf("cannot pass a file to QEMU's monitor: %s",
				 w < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

static int exchange_fd(struct qmp *q, const char *json, int fd, double until, char **reply,
		       char **err)
{
	char *cmd = xasprintf("%s\n", json);
	int ret = fd >= 0 ? send_with_fd(q, cmd, fd, err) : send_all(q, cmd, err);

	free(cmd);
	while (ret == 0) {
		char *line = read_line(q, until, err);

		if (!line)
			return -1;
		if (!strncmp(line, "{\"return\"", 9)) {
			if (reply)
				*reply = line;
			else
				free(line);
			return 0;
		}
		if (!strncmp(line, "{\"error\"", 8)) {
			*err = error_desc(line);
			free(line);
			return -1;
		}
		free(line); /* an event, or the greeting */
	}
	return ret;
}

static int exchange(struct qmp *q, const char *json, double until, char **reply, char **err)
{
	return exchange_fd(q, json, -1, until, reply, err);
}

int qmp_command(struct qmp *q, const char *json, double timeout_s, char **reply, char **err)
{
	double until = now_s() + timeout_s;

	*err = NULL;
	if (!q->ready) {
		char *greeting = read_line(q, until, err);

		if (!greeting)
			return -1;
		free(greeting);
		if (exchange(q, "{\"execute\": \"qmp_capabilities\"}", until, NULL, err) < 0)
			return -1;
		q->ready = true;
	}
	return exchange(q, json, until, reply, err);
}

/* "status": "X" in a query answer: X (caller frees), or NULL. */
static char *status_of(const char *reply)
{
	const char *s = strstr(reply, "\"status\": \"");
	const char *end;

	if (!s)
		return NULL;
	s += strlen("\"status\": \"");
	end = strchr(s, '"');
	return end ? xstrndup(s, (size_t)(end - s)) : NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Poll query (a command whose answer has "status") until the status is not one of busy;
 * the last status (caller frees), or NULL after *err. */
static char *poll_status(struct qmp *q, const char *query, const char *const *busy, double until,
			 char **err)
{
	for (;;) {
		char *reply = NULL, *st;
		bool waiting = false;

		if (qmp_command(q, query, until - now_s(), &reply, err) < 0)
			return NULL;
		st = status_of(reply);
		free(reply);
		for (size_t i = 0; st && busy[i]; i++)
			if (!strcmp(st, busy[i]))
				waiting = true;
		if (!waiting && st)
			return st;
		free(st);
		if (now_s() >= until) {
			*err = xstrdup("QEMU did not finish in time");
			return NULL;
		}
		sleep_ms(5);
	}
}

/* QEMU 7.2 has no -global for it: a capability, set on both sides before the migration. */
#define IGNORE_SHARED                                                                              \
	"{\"execute\": \"migrate-set-capabilities\", \"arguments\": {\"capabilities\": "           \
	"[{\"capability\": \"x-ignore-shared\", \"state\": true}]}}"

int qmp_save(struct qmp *q, const char *path, double timeout_s, char **err)
{
	static const char *const busy[] = {"setup", "active", "device", "pre-switchover",
					   "wait-unplug", NULL};
	double until = now_s() + timeout_s;
	const char *cmd = "{\"execute\": \"migrate\", \"arguments\": {\"uri\": "
			  "\"fd:tapboot-save\"}}";
	char *st;
	int ret, fd;

	/* QEMU writes the file we opened (getfd passes it over the monitor): no shell, no
	 * pipe between */
	if (qmp_command(q, "{\"execute\": \"query-status\"}", timeout_s, NULL, err) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		*err = xasprintf("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	ret = exchange_fd(q,
			  "{\"execute\": \"getfd\", \"arguments\": {\"fdname\": "
			  "\"tapboot-save\"}}",
			  fd, until, NULL, err);
	close(fd);
	if (ret < 0)
		return -1;
	/* QEMU 7.2 limits migration to 32 MiB/s by default: a 50 MB state took 1.5 s to write. */
	ret = qmp_command(q,
			  "{\"execute\": \"migrate-set-parameters\", \"arguments\": "
			  "{\"max-bandwidth\": 1099511627776}}",
			  timeout_s, NULL, err);
	if (ret == 0)
		ret = qmp_command(q, IGNORE_SHARED, until - now_s(), NULL, err);
	if (ret == 0)
		ret = qmp_command(q, "{\"execute\": \"stop\"}", until - now_s(), NULL, err);
	if (ret == 0)
		ret = qmp_command(q, cmd, until - now_s(), NULL, err);
	if (ret < 0)
		return -1;
	st = poll_status(q, "{\"execute\": \"query-migrate\"}", busy, until, err);
	if (!st)
		return -1;
	if (strcmp(st, "completed")) {
		char *reply = NULL, *e2 = NULL;

		/* query-migrate's "error-desc" says why, when QEMU knows */
		if (qmp_command(q, "{\"execute\": \"query-migrate\"}", 5, &reply, &e2) == 0 &&
		    strstr(reply, "\"error-desc\": \"")) {
			const char *d = strstr(reply, "\"error-desc\": \"") + 15;
			const char *end = strchr(d, '"');

			*err = xasprintf("QEMU said: %.*s", end ? (int)(end - d) : (int)strlen(d),
					 d);
		} else {
			*err = xasprintf("the migration ended with status '%s'", st);
		}
		free(reply);
		free(e2);
		free(st);
		return -1;
	}
	free(st);
	return 0;
}

int qmp_incoming(struct qmp *q, int fd_num, double timeout_s, char **err)
{
	double until = now_s() + timeout_s;
	char *cmd;
	int ret;

	if (qmp_command(q, IGNORE_SHARED, timeout_s, NULL, err) < 0)
		return -1;
	cmd = xasprintf("{\"execute\": \"migrate-incoming\", \"arguments\": {\"uri\": "
			"\"fd:%d\"}}",
			fd_num);
	ret = qmp_command(q, cmd, until - now_s(), NULL, err);
	free(cmd);
	return ret;
}

int qmp_wait_loaded(struct qmp *q, double timeout_s, char **err)
{
	static const char *const busy[] = {"inmigrate", NULL};
	char *st = poll_status(q, "{\"execute\": \"query-status\"}", busy, now_s() + timeout_s,
			       err);

	if (!st)
		return -1;
	if (strcmp(st, "paused")) {
		*err = xasprintf("after loading, the VM is '%s', not paused", st);
		free(st);
		return -1;
	}
	free(st);
	return 0;
}

int qmp_cont(struct qmp *q, double timeout_s, char **err)
{
	return qmp_command(q, "{\"execute\": \"cont\"}", timeout_s, NULL, err);
}
