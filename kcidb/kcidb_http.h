/* SPDX-License-Identifier: GPL-2.0-only */
/* kcidb_http.h: the submitter's HTTP client: one POST of a JSON body to KCIDB's REST endpoint
 * (URL/submit, a bearer token) over plain HTTP/1.1, and whether a retry could help. */
#ifndef TAPBOOT_KCIDB_HTTP_H
#define TAPBOOT_KCIDB_HTTP_H

#include <stddef.h>

#include "strbuf.h"

/* The network wait per read or write: KCIDB's REST daemon only spools the body. */
#define KCIDB_IO_TIMEOUT_S 30

struct kcidb_url {
	char *host, *port, *path; /* path without a trailing '/' or "/submit" ("" for the root) */
};

/* http://HOST[:PORT][/PATH] into u (port 80 when none; a PATH ending in /submit names the
 * endpoint itself). -1 after a message saying what --url lacks (https is refused: no TLS). */
int kcidb_url_parse(const char *s, struct kcidb_url *u);
void kcidb_url_release(struct kcidb_url *u);

enum kcidb_attempt {
	KCIDB_ATTEMPT_OK,      /* a 2xx answer */
	KCIDB_ATTEMPT_RETRY,   /* no connection, no answer or a 5xx: a retry may help */
	KCIDB_ATTEMPT_REFUSED, /* a 4xx (or another non-2xx below 500), or a host that is not */
};

/* One POST of data (len bytes) to u's /submit with token as the bearer token. The answer's
 * status in *status (0: none) and its body appended to body; *why (caller frees) says what
 * went wrong for RETRY and for a REFUSED without an answer. */
enum kcidb_attempt kcidb_http_post(const struct kcidb_url *u, const char *token, const char *data,
				   size_t len, int *status, struct strbuf *body, char **why);

#endif
