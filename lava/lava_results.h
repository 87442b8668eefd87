/* SPDX-License-Identifier: GPL-2.0-only */
/* lava_results.h: tapboot lava-results: one LAVA job's log (lava_run.h) back into a tapboot
 * results directory. tapboot's own parser judges the console LAVA recorded (nonce, end marker,
 * crash attribution, missing tests); LAVA's monitor verdicts are cross-checked against it. */
#ifndef TAPBOOT_LAVA_RESULTS_H
#define TAPBOOT_LAVA_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "lava_run.h"
#include "strlist.h"
#include "tap_parser.h"

struct lava_results_opts {
	const char *log;     /* the LAVA job log */
	const char *out;     /* -o DIR, NULL: a new directory under ./tapboot-out/ */
	bool force;	     /* write into a non-empty out */
	const char *job;     /* the job.yaml tapboot lava-job wrote, or NULL */
	const char *job_url; /* kcidb.json's log_url, NULL: file://LOG */
	const char *origin;  /* KCIDB's origin, NULL: tapboot */
};

/* Read o->log (and o->job), write the results directory, print the summary. The exit status:
 * tapboot run's (0, 1, 3; 3 also when LAVA's verdicts contradict tapboot's or the job never
 * reached the init), 2 after a message when the log is not a LAVA job log, is another job's,
 * or cannot be read (then no results directory is made). */
int lava_results(const struct lava_results_opts *o);

/* The planned tests' names from a job lava-job wrote (metadata tapboot.test.N: 'NAME'), in
 * order, into names, and its nonce (tapboot.nonce: 'HEX') into nonce (left as it is when the
 * job has none). -1 after a message naming the file (and line). */
int lava_job_names_read(const char *path, struct strlist *names, char nonce[33]);

/* Every LAVA verdict in l must be tapboot's for the same test among t[0..n): the number of
 * contradictions, each said in a message. */
unsigned lava_cross_check(const struct lava_run *l, const struct tap_test *t, size_t n);

#endif
