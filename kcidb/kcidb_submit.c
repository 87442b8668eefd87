/* cmd_kcidb.c: tapboot kcidb-submit: POST kcidb.json files to KCIDB's REST endpoint (kcidb-ng's
 * `POST /submit` with a bearer token), retrying what a retry can fix. */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "commands_lava.h"
#include "error.h"
#include "json_read.h"
#include "strbuf.h"

static const char submit_usage[] =
	"usage: tapboot kcidb-submit --url URL [--retries N] DIR|FILE...\n"
	"\n"
	"POST each results directory's kcidb.json (or FILE) to URL/submit, KCIDB's REST\n"
	"endpoint, with the token from $KCIDB_TOKEN as a bearer token.\n"
	"\n"
	"  --url URL       the KCIDB REST server (http://HOST[:PORT][/PATH])\n"
	"  --retries N     attempts after the first on a connection error or a 5xx answer\n"
	"                  (default 4; the wait doubles from 0.5 s)\n"
	"\n"
	"Exit status: 0 every file accepted; 2 bad usage or input, or the server refused the\n"
	"request (401/403: the token; another 4xx: the data); 3 the server could not be reached\n"
	"or answered 5xx after every retry.\n";

/* The network wait per read or write: KCIDB's REST daemon only spools the body. */
#define SUBMIT_IO_TIMEOUT_S 30

struct url {
	char *host, *port, *path; /* path without a trailing '/' ("" for the root) */
};

static void url_release(struct url *u)
{
	free(u->host);
	free(u->port);
	free(u->path);
}

static int url_parse(const char *s, struct url *u)
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
		url_release(u);
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

static char *read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;

	if (!fp) {
		error_errno("cannot open '%s'", path);
		return NULL;
	}
	strbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&sb, buf, n);
	if (ferror(fp)) {
		error_errno("cannot read '%s'", path);
		fclose(fp);
		strbuf_release(&sb);
		return NULL;
	}
	fclose(fp);
	*len = sb.len;
	return strbuf_detach(&sb);
}

enum attempt { ATTEMPT_OK, ATTEMPT_RETRY, ATTEMPT_REFUSED };

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

/* One POST. The answer's status line and body go to *status and *body. */
static enum attempt post_once(const struct url *u, const char *token, const char *data, size_t len,
			      int *status, struct strbuf *body, char **why)
{
	struct addrinfo hints = {0}, *ai = NULL, *a;
	struct timeval tv = {SUBMIT_IO_TIMEOUT_S, 0};
	struct strbuf req = STRBUF_INIT, resp = STRBUF_INIT;
	char buf[4096], *hdr_end;
	int fd = -1, rc, err = 0;
	enum attempt res = ATTEMPT_RETRY;

	*status = 0;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(u->host, u->port, &hints, &ai);
	if (rc) {
		*why = xasprintf("cannot resolve '%s': %s", u->host, gai_strerror(rc));
		return rc == EAI_AGAIN ? ATTEMPT_RETRY : ATTEMPT_REFUSED;
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
		return ATTEMPT_RETRY;
	}
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
		res = ATTEMPT_OK;
	else if (*status >= 500)
		*why = xasprintf("HTTP %d", *status);
	else
		res = ATTEMPT_REFUSED;
out:
	close(fd);
	strbuf_release(&req);
	strbuf_release(&resp);
	return res;
}

/* The first line of a server's answer, for messages. */
static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\r\n");

	if (n > 300)
		n = 300;
	return xstrndup(s, n);
}

static int submit_one(const struct url *u, const char *token, const char *arg, unsigned retries)
{
	struct stat st;
	char *path = !stat(arg, &st) && S_ISDIR(st.st_mode) ? xasprintf("%s/kcidb.json", arg)
							    : xstrdup(arg);
	struct json doc;
	size_t len = 0;
	char *data = read_file(path, &len);
	unsigned delay_ms = 500;
	int ret = EXIT_USAGE;

	if (!data)
		goto out;
	/* catch what is not JSON here, with the file's name: a server's 400 would not say */
	if (json_parse(&doc, data, len, path) < 0)
		goto out;
	if (!json_get(&doc, "version")) {
		json_release(&doc);
		error("'%s' is not a KCIDB report: it has no \"version\"", path);
		goto out;
	}
	json_release(&doc);
	for (unsigned attempt = 0;; attempt++) {
		struct strbuf body = STRBUF_INIT;
		char *why = NULL, *line;
		int status;
		enum attempt a;

		strbuf_init(&body);
		a = post_once(u, token, data, len, &status, &body, &why);
		line = first_line(body.buf ? body.buf : "");
		if (a == ATTEMPT_OK) {
			printf("submitted %s: HTTP %d %s\n", path, status, line);
			ret = EXIT_PASS;
		} else if (a == ATTEMPT_REFUSED && (status == 401 || status == 403)) {
			error("KCIDB refused the token from KCIDB_TOKEN (HTTP %d%s%s) for '%s'",
			      status, *line ? ": " : "", line, path);
			ret = EXIT_USAGE;
		} else if (a == ATTEMPT_REFUSED) {
			if (status)
				error("KCIDB rejected '%s' (HTTP %d%s%s)", path, status,
				      *line ? ": " : "", line);
			else
				error("cannot submit '%s': %s", path, why);
			ret = EXIT_USAGE;
		} else if (attempt >= retries) {
			error("cannot submit '%s': %s, %u attempt%s", path, why, attempt + 1,
			      attempt ? "s" : "");
			ret = EXIT_VM;
		} else {
			struct timespec ts = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L};

			warning("submitting '%s': %s; again in %u.%u s", path, why, delay_ms / 1000,
				(delay_ms % 1000) / 100);
			nanosleep(&ts, NULL);
			delay_ms *= 2;
			free(why);
			free(line);
			strbuf_release(&body);
			continue;
		}
		free(why);
		free(line);
		strbuf_release(&body);
		break;
	}
out:
	free(data);
	free(path);
	return ret;
}

int cmd_kcidb_submit(int argc, char **argv)
{
	enum { OPT_URL = 256, OPT_RETRIES };
	static const struct option longopts[] = {
		{"url", required_argument, NULL, OPT_URL},
		{"retries", required_argument, NULL, OPT_RETRIES},
		CLI_HELP_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	const char *url = NULL, *token = getenv("KCIDB_TOKEN");
	unsigned retries = 4;
	struct url u;
	int c, status = EXIT_PASS;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_URL:
			url = optarg;
			break;
		case OPT_RETRIES: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (!*optarg || *end || v > 20) {
				error("--retries wants a number from 0 to 20, got '%s'", optarg);
				return EXIT_USAGE;
			}
			retries = (unsigned)v;
			break;
		}
		default:
			return cli_usage_option(c, submit_usage, NULL);
		}
	}
	if (!url || optind >= argc) {
		error(!url ? "kcidb-submit needs --url"
			   : "kcidb-submit needs a results directory or file");
		fputs(submit_usage, stderr);
		return EXIT_USAGE;
	}
	if (!token || !*token) {
		error("KCIDB_TOKEN is not set: kcidb-submit sends it as the bearer token");
		return EXIT_USAGE;
	}
	if (strpbrk(token, "\r\n")) {
		error("KCIDB_TOKEN holds a line break");
		return EXIT_USAGE;
	}
	if (url_parse(url, &u) < 0)
		return EXIT_USAGE;
	/* every file is tried; the worst outcome decides (3 over 2 over 0) */
	for (int i = optind; i < argc; i++) {
		int st = submit_one(&u, token, argv[i], retries);

		if (st == EXIT_VM || (st == EXIT_USAGE && status == EXIT_PASS))
			status = st;
	}
	url_release(&u);
	return status;
}
