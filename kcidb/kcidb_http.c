// SPDX-License-Identifier: GPL-2.0-only
/* kcidb_http.c: the submitter's HTTP client: one POST to KCIDB's REST endpoint over plain
 * HTTP/1.1 (Connection: close, so the answer ends where the connection does). */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "error.h"
#include "kcidb_http.h"

void kcidb_url_release(struct kcidb_url *u)
{
	free(u->host);
	free(u->port);
	free(u->path);
	memset(u, 0, sizeof(*u));
}

int kcidb_url_parse(const char *s, struct kcidb_url *u)
{
	const char *h, *slash, *colon;
	size_t n;

	memset(u, 0, sizeof(*u));
	if (!strncmp(s, "https://", 8))
		return error("--url '%s': https is not supported (tapboot speaks plain HTTP; put a "
			     "TLS proxy such as stunnel or an SSH tunnel in front of KCIDB)",
			     s);
	if (strncmp(s, "http://", 7))
		return error("--url wants http://HOST[:PORT][/PATH], got '%s'", s);
	h = s + 7;
	slash = strchr(h, '/');
	n = slash ? (size_t)(slash - h) : strlen(h);
	colon = memchr(h, ':', n);
	if (!n || colon == h)
		return error("--url '%s' has no host", s);
	u->host = xstrndup(h, colon ? (size_t)(colon - h) : n);
	u->port = colon ? xstrndup(colon + 1, n - (size_t)(colon + 1 - h)) : xstrdup("80");
	if (!*u->port || strspn(u->port, "0123456789") != strlen(u->port)) {
		kcidb_url_release(u);
		return error("--url '%s': bad port", s);
	}
	u->path = xstrdup(slash ? slash : "");
	n = strlen(u->path);
	while (n && u->path[n - 1] == '/')
		u->path[--n] = '\0';
	/* --url may name the endpoint itself */
	if (n >= 7 && !strcmp(u->path + n - 7, "/submit"))
		u->path[n - 7] = '\0';
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A socket connected to u's host and port (the I/O timeout set), or -1 with *why (and *res:
 * a name that does not resolve is not retried, unless the resolver asked for it). */
static int connect_to(const struct kcidb_url *u, enum kcidb_attempt *res, char **why)
{
	struct addrinfo hints = {0}, *ai = NULL, *a;
	struct timeval tv = {KCIDB_IO_TIMEOUT_S, 0};
	int fd = -1, rc, err = 0;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(u->host, u->port, &hints, &ai);
	if (rc) {
		*why = xasprintf("cannot resolve '%s': %s", u->host, gai_strerror(rc));
		*res = rc == EAI_AGAIN ? KCIDB_ATTEMPT_RETRY : KCIDB_ATTEMPT_REFUSED;
		return -1;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		*why = xasprintf("cannot connect to %s:%s: %s", u->host, u->port, strerror(err));
		*res = KCIDB_ATTEMPT_RETRY;
	}
	return fd;
}

enum kcidb_attempt kcidb_http_post(const struct kcidb_url *u, const char *token, const char *data,
				   size_t len, int *status, struct strbuf *body, char **why)
{
	struct strbuf req = STRBUF_INIT, resp = STRBUF_INIT;
	char buf[4096], *hdr_end;
	enum kcidb_attempt res = KCIDB_ATTEMPT_RETRY;
	int fd;

	*status = 0;
	fd = connect_to(u, &res, why);
	if (fd < 0)
		return res;
	strbuf_init(&req);
	strbuf_init(&resp);
	strbuf_addf(&req,
		    "POST %s/submit HTTP/1.1\r\nHost: %s:%s\r\nAuthorization: Bearer %s\r\n"
		    "Content-Type: application/json\r\nContent-Length: %zu\r\n"
		    "User-Agent: tapboot/" TAPBOOT_VERSION "\r\nConnection: close\r\n\r\n",
		    u->path, u->host, u->port, token, len);
	if (write_all(fd, req.buf, req.len) < 0 || write_all(fd, data, len) < 0) {
		*why = xasprintf("cannot send to %s:%s: %s", u->host, u->port, strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*why = xasprintf("no answer from %s:%s: %s", u->host, u->port,
					 strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		strbuf_add(&resp, buf, (size_t)n);
	}
	if (sscanf(resp.buf ? resp.buf : "", "HTTP/%*d.%*d %d", status) != 1) {
		*why = xasprintf("%s:%s closed the connection without an HTTP answer", u->host,
				 u->port);
		goto out;
	}
	hdr_end = strstr(resp.buf, "\r\n\r\n");
	strbuf_addstr(body, hdr_end ? hdr_end + 4 : "");
	if (*status >= 200 && *status < 300)
		res = KCIDB_ATTEMPT_OK;
	else if (*status >= 500)
		*why = xasprintf("HTTP %d", *status);
	else
		res = KCIDB_ATTEMPT_REFUSED;
out:
	close(fd);
	strbuf_release(&req);
	strbuf_release(&resp);
	return res;
}
