// SPDX-License-Identifier: GPL-2.0-only
/* test_kcidb_submit.c: the KCIDB submitter (kcidb/) against a loopback HTTP server forked by the
 * test (127.0.0.1, a free port, scripted answers; it needs no KCIDB schema): the request it
 * sends, retries with a doubling wait, a refused token or report, no server, bad input, and
 * the exit statuses. */
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "harness.h"
#include "kcidb_submit.h"
#include "strbuf.h"

#define TOKEN "s3cret"
#define REPORT "{\"version\": {\"major\": 5, \"minor\": 3}, \"tests\": []}\n"

/* One scripted answer; status 0: close the connection without one. */
struct reply {
	int status;
	const char *body;
};

struct server {
	pid_t pid;
	int port;
	char *log; /* each request: its request line, Authorization, Host and body, "\n" after */
};

static int listen_loopback(int *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		printf("Bail out! cannot listen on 127.0.0.1\n");
		exit(1);
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

static const char *header(const char *req, const char *name, size_t *n)
{
	const char *p = strcasestr(req, name);

	if (!p)
		return NULL;
	p += strlen(name);
	*n = strcspn(p, "\r\n");
	return p;
}

/* Read one request from fd; append it to log. */
static void take_request(int fd, FILE *log)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096], *end = NULL;
	size_t want = 0, n;
	ssize_t r;
	const char *v;

	strbuf_init(&sb);
	while ((!end || sb.len < (size_t)(end + 4 - sb.buf) + want) &&
	       (r = read(fd, buf, sizeof(buf))) > 0) {
		strbuf_add(&sb, buf, (size_t)r);
		if (!end && (end = strstr(sb.buf, "\r\n\r\n"))) {
			v = header(sb.buf, "\r\nContent-Length: ", &n);
			want = v ? strtoul(v, NULL, 10) : 0;
		}
	}
	if (!end)
		return;
	fprintf(log, "%.*s\n", (int)strcspn(sb.buf, "\r\n"), sb.buf);
	v = header(sb.buf, "\r\nAuthorization: ", &n);
	fprintf(log, "Authorization: %.*s\n", v ? (int)n : 0, v ? v : "");
	v = header(sb.buf, "\r\nHost: ", &n);
	fprintf(log, "Host: %.*s\n", v ? (int)n : 0, v ? v : "");
	fprintf(log, "%s\n", end + 4);
	fflush(log);
}

/* A server answering n connections as r says, then exiting. */
static void serve(struct server *s, const struct reply *r, size_t n)
{
	int lfd = listen_loopback(&s->port);

	s->log = xasprintf("%s/requests-%d.log", test_tmpdir(), s->port);
	fflush(stdout);
	fflush(stderr);
	s->pid = fork();
	if (s->pid < 0) {
		printf("Bail out! fork\n");
		exit(1);
	}
	if (s->pid == 0) {
		FILE *log = fopen(s->log, "w");

		for (size_t i = 0; i < n && log; i++) {
			int fd = accept(lfd, NULL, NULL);
			char *ans;

			if (fd < 0)
				break;
			take_request(fd, log);
			if (r[i].status) {
				ans = xasprintf(
					"HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
					"Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
					r[i].status, strlen(r[i].body), r[i].body);
				if (write(fd, ans, strlen(ans)) < 0)
					break;
				free(ans);
			}
			close(fd);
		}
		_exit(0);
	}
	close(lfd);
}

/* The requests the server took (caller frees); waits for it to end. */
static char *server_done(struct server *s)
{
	char *log;

	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
	log = test_read_file(s->log, NULL);
	free(s->log);
	return log ? log : xstrdup("");
}

static int count_requests(const char *log)
{
	int n = 0;

	for (const char *p = log; (p = strstr(p, "POST /submit HTTP/1.1\n")); p++)
		n++;
	return n;
}

/* A port nothing listens on: one that was bound and closed again. */
static int dead_port(void)
{
	int port, fd = listen_loopback(&port);

	close(fd);
	return port;
}

struct call {
	const struct kcidb_submitter *s;
	char *const *args;
	size_t n;
	char *out; /* what it printed on stdout */
};

static int call_submit(void *arg)
{
	struct call *c = arg;
	char *path = xasprintf("%s/stdout", test_tmpdir());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), saved, ret;

	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	close(fd);
	ret = kcidb_submit_all(c->s, c->args, c->n);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	c->out = test_read_file(path, NULL);
	free(path);
	return ret;
}

/* kcidb_submit_all of the args with s; *status its result, *out its stdout; returns stderr. */
static char *submit(const struct kcidb_submitter *s, const char *const *args, size_t n, int *status,
		    char **out)
{
	struct call c = {s, (char *const *)args, n, NULL};
	char *err = test_capture_stderr(call_submit, &c, status);

	*out = c.out;
	return err;
}

static void submitter(struct kcidb_submitter *s, int port, const char *path, unsigned retries)
{
	char *url = xasprintf("http://127.0.0.1:%d%s", port, path);

	if (kcidb_submitter_init(s, url, TOKEN, retries) < 0) {
		printf("Bail out! kcidb_submitter_init %s\n", url);
		exit(1);
	}
	s->delay_ms = 100;
	free(url);
}

struct url_call {
	const char *url;
	struct kcidb_url u;
};

static int call_url(void *arg)
{
	struct url_call *c = arg;

	return kcidb_url_parse(c->url, &c->u);
}

static void t_url(void)
{
	static const char *const good[][4] = {
		{"http://kcidb.example.org", "kcidb.example.org", "80", ""},
		{"http://h:8080/", "h", "8080", ""},
		{"http://h:1/api/v1/", "h", "1", "/api/v1"},
		{"http://h/api/submit", "h", "80", "/api"},
		{"http://h/submit/", "h", "80", ""},
	};
	static const char *const bad[][2] = {
		{"https://h/",
		 "tapboot: --url 'https://h/': https is not supported (tapboot speaks "
		 "plain HTTP; put a TLS proxy such as stunnel or an SSH tunnel in front "
		 "of KCIDB)\n"},
		{"ftp://h/", "tapboot: --url wants http://HOST[:PORT][/PATH], got 'ftp://h/'\n"},
		{"http:///x", "tapboot: --url 'http:///x' has no host\n"},
		{"http://:80", "tapboot: --url 'http://:80' has no host\n"},
		{"http://h:/", "tapboot: --url 'http://h:/': bad port\n"},
		{"http://h:8o/", "tapboot: --url 'http://h:8o/': bad port\n"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct kcidb_url u;

		if (check_int(kcidb_url_parse(good[i][0], &u), ==, 0)) {
			check_str(u.host, good[i][1]);
			check_str(u.port, good[i][2]);
			check_str(u.path, good[i][3]);
		}
		kcidb_url_release(&u);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct url_call c = {bad[i][0], {NULL, NULL, NULL}};
		int ret;
		char *err = test_capture_stderr(call_url, &c, &ret);

		check_int(ret, ==, -1);
		check_str(err, bad[i][1]);
		check(c.u.host == NULL && c.u.port == NULL && c.u.path == NULL);
		free(err);
	}
}

struct init_call {
	const char *url, *token;
	struct kcidb_submitter s;
};

static int call_init(void *arg)
{
	struct init_call *c = arg;

	return kcidb_submitter_init(&c->s, c->url, c->token, 4);
}

static void t_init(void)
{
	static const char *const bad[][3] = {
		{"http://h/", NULL,
		 "tapboot: KCIDB_TOKEN is not set: kcidb-submit sends it as the bearer token\n"},
		{"http://h/", "",
		 "tapboot: KCIDB_TOKEN is not set: kcidb-submit sends it as the bearer token\n"},
		{"http://h/", "a\r\nX-Evil: 1", "tapboot: KCIDB_TOKEN holds a line break\n"},
		{"http://h:x/", "t", "tapboot: --url 'http://h:x/': bad port\n"},
	};
	struct init_call c;
	int ret;
	char *err;

	memset(&c, 0, sizeof(c));
	c.url = "http://h:81/k/";
	c.token = "t";
	err = test_capture_stderr(call_init, &c, &ret);

	check_int(ret, ==, 0);
	check_str(err, "");
	check_str(c.s.url.port, "81");
	check_str(c.s.url.path, "/k");
	check_int(c.s.retries, ==, 4);
	check_int(c.s.delay_ms, ==, 500);
	kcidb_submitter_release(&c.s);
	free(err);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		c.url = bad[i][0];
		c.token = bad[i][1];
		err = test_capture_stderr(call_init, &c, &ret);
		check_int(ret, ==, -1);
		check_str(err, bad[i][2]);
		kcidb_submitter_release(&c.s); /* a refused submitter releases all the same */
		free(err);
	}
}

static void t_accepted(void)
{
	static const struct reply r[] = {{200, "{\"id\": \"1\"}"},
					 {201, "{\"id\": \"2\"}\r\nmore"}};
	struct kcidb_submitter s;
	struct server srv;
	const char *file = test_write_file("r1/kcidb.json", REPORT, strlen(REPORT), 0);
	char *dir = xstrndup(file, strlen(file) - strlen("/kcidb.json"));
	const char *args[] = {dir, file};
	char *err, *out, *log, *want;
	int status;

	serve(&srv, r, ARRAY_SIZE(r));
	submitter(&s, srv.port, "/base/", 4);
	err = submit(&s, args, 2, &status, &out);
	log = server_done(&srv);
	check_int(status, ==, EXIT_PASS);
	check_str(err, "");
	/* a directory is its kcidb.json; the answer's first line is said */
	want = xasprintf("submitted %s: HTTP 200 {\"id\": \"1\"}\nsubmitted %s: HTTP 201 {\"id\": "
			 "\"2\"}\n",
			 file, file);
	check_str(out, want);
	free(want);
	want = xasprintf("POST /base/submit HTTP/1.1\nAuthorization: Bearer " TOKEN
			 "\nHost: 127.0.0.1:%d\n" REPORT "\n"
			 "POST /base/submit HTTP/1.1\nAuthorization: Bearer " TOKEN
			 "\nHost: 127.0.0.1:%d\n" REPORT "\n",
			 srv.port, srv.port);
	check_str(log, want);
	free(want);
	free(log);
	free(out);
	free(err);
	free(dir);
	kcidb_submitter_release(&s);
}

static void t_retries(void)
{
	static const struct reply r[] = {{500, "{}"}, {0, NULL}, {200, "{\"id\": \"1\"}"}};
	static const struct reply r2[] = {{503, "{}"}, {502, "{}"}};
	struct kcidb_submitter s;
	struct server srv;
	const char *file = test_write_file("retry.json", REPORT, strlen(REPORT), 0);
	char *err, *out, *log, *want;
	int status;

	/* a 5xx and an answerless close are retried, the wait doubling */
	serve(&srv, r, ARRAY_SIZE(r));
	submitter(&s, srv.port, "", 4);
	err = submit(&s, &file, 1, &status, &out);
	log = server_done(&srv);
	check_int(status, ==, EXIT_PASS);
	want = xasprintf("tapboot: warning: submitting '%s': HTTP 500; again in 0.1 s\n"
			 "tapboot: warning: submitting '%s': 127.0.0.1:%d closed the connection "
			 "without an HTTP answer; again in 0.2 s\n",
			 file, file, srv.port);
	check_str(err, want);
	free(want);
	want = xasprintf("submitted %s: HTTP 200 {\"id\": \"1\"}\n", file);
	check_str(out, want);
	free(want);
	check(strstr(log, "POST /submit HTTP/1.1\n") == log);
	free(log);
	free(out);
	free(err);
	kcidb_submitter_release(&s);

	/* every retry spent: 3 */
	serve(&srv, r2, ARRAY_SIZE(r2));
	submitter(&s, srv.port, "", 1);
	err = submit(&s, &file, 1, &status, &out);
	log = server_done(&srv);
	check_int(status, ==, EXIT_VM);
	want = xasprintf("tapboot: warning: submitting '%s': HTTP 503; again in 0.1 s\n"
			 "tapboot: cannot submit '%s': HTTP 502, 2 attempts\n",
			 file, file);
	check_str(err, want);
	check_str(out, "");
	free(want);
	free(log);
	free(out);
	free(err);
	kcidb_submitter_release(&s);
}

static void t_refused(void)
{
	static const struct reply r[] = {{401, "{\"error\": \"invalid token\"}"},
					 {403, ""},
					 {400, "{\"error\": \"schema v5.3: tests/0/path\"}\r\nx"},
					 {404, "{\"error\": \"no such endpoint\"}"}};
	static const char *const want_fmt[][2] = {
		{"tapboot: KCIDB refused the token from KCIDB_TOKEN (HTTP 401: {\"error\": "
		 "\"invalid "
		 "token\"}) for '",
		 "'\n"},
		{"tapboot: KCIDB refused the token from KCIDB_TOKEN (HTTP 403) for '", "'\n"},
		{"tapboot: KCIDB rejected '",
		 "' (HTTP 400: {\"error\": \"schema v5.3: tests/0/path\"})\n"},
		{"tapboot: KCIDB rejected '", "' (HTTP 404: {\"error\": \"no such endpoint\"})\n"},
	};
	struct kcidb_submitter s;
	struct server srv;
	const char *file = test_write_file("refused.json", REPORT, strlen(REPORT), 0);
	const char *args[] = {file, file, file, file};
	struct strbuf want;
	char *err, *out, *log;
	int status;

	/* refusals are not retried (one request each), and each file is tried */
	serve(&srv, r, ARRAY_SIZE(r));
	submitter(&s, srv.port, "", 4);
	err = submit(&s, args, ARRAY_SIZE(args), &status, &out);
	log = server_done(&srv);
	check_int(status, ==, EXIT_USAGE);
	strbuf_init(&want);
	for (size_t i = 0; i < ARRAY_SIZE(want_fmt); i++)
		strbuf_addf(&want, "%s%s%s", want_fmt[i][0], file, want_fmt[i][1]);
	check_str(err, want.buf);
	check_str(out, "");
	strbuf_release(&want);
	check_int(count_requests(log), ==, 4);
	free(log);
	free(out);
	free(err);
	kcidb_submitter_release(&s);
}

static void t_no_server(void)
{
	struct kcidb_submitter s;
	const char *file = test_write_file("none.json", REPORT, strlen(REPORT), 0);
	int port = dead_port(), status;
	char *err, *out, *want;

	submitter(&s, port, "", 0);
	err = submit(&s, &file, 1, &status, &out);
	check_int(status, ==, EXIT_VM);
	want = xasprintf("tapboot: cannot submit '%s': cannot connect to 127.0.0.1:%d: Connection "
			 "refused, 1 attempt\n",
			 file, port);
	check_str(err, want);
	free(want);
	free(out);
	free(err);
	kcidb_submitter_release(&s);
}

static void t_bad_input(void)
{
	struct kcidb_submitter s;
	const char *notjson = test_write_file("trunc.json", "{\"version\": {", 13, 0);
	const char *noversion = test_write_file("nov.json", "{\"tests\": []}", 13, 0);
	const char *good = test_write_file("good.json", REPORT, strlen(REPORT), 0);
	char *missing = xasprintf("%s/no-such-dir", test_tmpdir()), *err, *out, *want;
	int port = dead_port(), status;
	const char *args[] = {missing, noversion};
	const char *worst[] = {missing, good, noversion};

	/* nothing is sent for a file that is not a KCIDB report: no server needed */
	submitter(&s, port, "", 0);
	err = submit(&s, args, 2, &status, &out);
	check_int(status, ==, EXIT_USAGE);
	want = xasprintf("tapboot: cannot open '%s': No such file or directory\n"
			 "tapboot: '%s' is not a KCIDB report: it has no \"version\"\n",
			 missing, noversion);
	check_str(err, want);
	free(want);
	free(out);
	free(err);
	err = submit(&s, &notjson, 1, &status, &out);
	check_int(status, ==, EXIT_USAGE);
	want = xasprintf("tapboot: %s:1: ", notjson);
	check(!strncmp(err, want, strlen(want)));
	free(want);
	free(out);
	free(err);
	/* the worst outcome decides: 3 (no server for good) over 2 */
	err = submit(&s, worst, 3, &status, &out);
	check_int(status, ==, EXIT_VM);
	free(out);
	free(err);
	free(missing);
	kcidb_submitter_release(&s);
}

int main(void)
{
	error_set_prog("tapboot");
	signal(SIGPIPE, SIG_IGN);
	TEST(t_url, "--url: host, port, path; https and bad URLs refused with a message");
	TEST(t_init, "the submitter: KCIDB_TOKEN unset, empty, with a line break");
	TEST(t_accepted, "accepted: the request (path, token, host, body); 0, said on stdout");
	TEST(t_retries, "5xx and a closed connection retried, the wait doubling; 3 when spent");
	TEST(t_refused, "401/403: the token; other 4xx: the data; 2, never retried");
	TEST(t_no_server, "no server: 3, the connection error said");
	TEST(t_bad_input, "not a report: 2 before any request; the worst outcome decides");
	return test_done();
}
