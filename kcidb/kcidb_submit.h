/* SPDX-License-Identifier: GPL-2.0-only */
/* kcidb_submit.h: tapboot kcidb-submit's submitter: kcidb.json files POSTed to KCIDB's REST
 * endpoint (kcidb_http.h), retrying what a retry can fix, and the exit status they make. */
#ifndef TAPBOOT_KCIDB_SUBMIT_H
#define TAPBOOT_KCIDB_SUBMIT_H

#include <stddef.h>

#include "kcidb_http.h"

#define KCIDB_RETRIES_DEFAULT 4
#define KCIDB_RETRIES_MAX 20

struct kcidb_submitter {
	struct kcidb_url url;
	const char *token; /* the bearer token ($KCIDB_TOKEN) */
	unsigned retries;  /* attempts after the first on a KCIDB_ATTEMPT_RETRY */
	unsigned delay_ms; /* the first wait before a retry; it doubles (500) */
};

/* s for url and token ($KCIDB_TOKEN, may be NULL) with retries. -1 after a message when the
 * token is unset, empty or holds a line break, or url is not one kcidb_url_parse takes. */
int kcidb_submitter_init(struct kcidb_submitter *s, const char *url, const char *token,
			 unsigned retries);
void kcidb_submitter_release(struct kcidb_submitter *s);

/* Submit one results directory's kcidb.json (or the file arg), checked as JSON with a
 * "version" first. The exit status: EXIT_PASS accepted (said on stdout), EXIT_USAGE bad input
 * or refused (401/403: the token; another 4xx: the data), EXIT_VM no server or 5xx after every
 * retry; each failure after a message. */
int kcidb_submit_one(const struct kcidb_submitter *s, const char *arg);
/* Every one of args tried; the worst outcome decides (EXIT_VM over EXIT_USAGE over
 * EXIT_PASS). */
int kcidb_submit_all(const struct kcidb_submitter *s, char *const *args, size_t n);

#endif
