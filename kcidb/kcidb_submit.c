// SPDX-License-Identifier: GPL-2.0-only
/* kcidb_submit.c: tapboot kcidb-submit's submitter: POST kcidb.json files to KCIDB's REST
 * endpoint (kcidb-ng's `POST /submit` with a bearer token), retrying what a retry can fix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "error.h"
#include "fs.h"
#include "json_read.h"
#include "kcidb_submit.h"

int kcidb_submitter_init(struct kcidb_submitter *s, const char *url, const char *token,
			 unsigned retries)
{
	memset(s, 0, sizeof(*s));
	s->token = token;
	s->retries = retries;
	s->delay_ms = 500;
	if (!token || !*token)
		return error("KCIDB_TOKEN is not set: kcidb-submit sends it as the bearer token");
	if (strpbrk(token, "\r\n"))
		return error("KCIDB_TOKEN holds a line break");
	return kcidb_url_parse(url, &s->url);
}

void kcidb_submitter_release(struct kcidb_submitter *s)
{
	kcidb_url_release(&s->url);
}

/* The first line of a server's answer, for messages. */
static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\r\n");

	if (n > 300)
		n = 300;
	return xstrndup(s, n);
}

/* path's bytes, if they are JSON with a "version" (what is not JSON is caught here, with the
 * file's name: a server's 400 would not say). NULL after a message. */
static char *read_report(const char *path, size_t *len)
{
	struct json doc;
	char *data;

	if (read_file(path, &data, len) < 0) {
		error_errno("cannot open '%s'", path);
		return NULL;
	}
	if (json_parse(&doc, data, *len, path) < 0) {
		free(data);
		return NULL;
	}
	if (!json_get(&doc, "version")) {
		json_release(&doc);
		error("'%s' is not a KCIDB report: it has no \"version\"", path);
		free(data);
		return NULL;
	}
	json_release(&doc);
	return data;
}

/* What one attempt's outcome means: an exit status, or -1 for "wait and try again". */
static int judge_attempt(const struct kcidb_submitter *s, const char *path, unsigned attempt,
			 enum kcidb_attempt a, int status, const char *line, const char *why)
{
	if (a == KCIDB_ATTEMPT_OK) {
		printf("submitted %s: HTTP %d %s\n", path, status, line);
		return EXIT_PASS;
	}
	if (a == KCIDB_ATTEMPT_REFUSED && (status == 401 || status == 403)) {
		error("KCIDB refused the token from KCIDB_TOKEN (HTTP %d%s%s) for '%s'", status,
		      *line ? ": " : "", line, path);
		return EXIT_USAGE;
	}
	if (a == KCIDB_ATTEMPT_REFUSED) {
		if (status)
			error("KCIDB rejected '%s' (HTTP %d%s%s)", path, status, *line ? ": " : "",
			      line);
		else
			error("cannot submit '%s': %s", path, why);
		return EXIT_USAGE;
	}
	if (attempt >= s->retries) {
		error("cannot submit '%s': %s, %u attempt%s", path, why, attempt + 1,
		      attempt ? "s" : "");
		return EXIT_VM;
	}
	return -1;
}

int kcidb_submit_one(const struct kcidb_submitter *s, const char *arg)
{
	struct stat st;
	char *path = !stat(arg, &st) && S_ISDIR(st.st_mode) ? xasprintf("%s/kcidb.json", arg)
							    : xstrdup(arg);
	size_t len = 0;
	char *data = read_report(path, &len);
	unsigned delay_ms = s->delay_ms;
	int ret = EXIT_USAGE;

	for (unsigned attempt = 0; data; attempt++) {
		struct strbuf body = STRBUF_INIT;
		char *why = NULL, *line;
		int status;
		enum kcidb_attempt a;

		strbuf_init(&body);
		a = kcidb_http_post(&s->url, s->token, data, len, &status, &body, &why);
		line = first_line(body.buf ? body.buf : "");
		ret = judge_attempt(s, path, attempt, a, status, line, why);
		if (ret < 0) {
			struct timespec ts = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L};

			warning("submitting '%s': %s; again in %u.%u s", path, why, delay_ms / 1000,
				(delay_ms % 1000) / 100);
			nanosleep(&ts, NULL);
			delay_ms *= 2;
		}
		free(why);
		free(line);
		strbuf_release(&body);
		if (ret >= 0)
			break;
	}
	free(data);
	free(path);
	return ret;
}

int kcidb_submit_all(const struct kcidb_submitter *s, char *const *args, size_t n)
{
	int status = EXIT_PASS;

	for (size_t i = 0; i < n; i++) {
		int st = kcidb_submit_one(s, args[i]);

		if (st == EXIT_VM || (st == EXIT_USAGE && status == EXIT_PASS))
			status = st;
	}
	return status;
}
