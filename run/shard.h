/* SPDX-License-Identifier: GPL-2.0-only */
/* shard.h: which VMs run which tests (run/shard.c): pure functions over the plan, the options
 * and the durations of earlier runs, so tests/unit/test_shard.c checks them without QEMU. */
#ifndef TAPBOOT_SHARD_H
#define TAPBOOT_SHARD_H

#include <stddef.h>

#include "vm.h"
#include "strlist.h"
#include "tap_parser.h"

/* Test durations seen in earlier runs, per architecture ($XDG_CACHE_HOME/tapboot/durations-ARCH,
 * "seconds<TAB>name" lines): the shards of -j are balanced with them. */
struct durations {
	struct strlist names;
	double *secs;
	size_t alloc;
};

/* The durations file of arch; caller frees. */
char *durations_path(const char *arch);
/* Read path into d (initialised here; a missing or unreadable file is an empty history,
 * malformed lines are skipped). */
void durations_load(struct durations *d, const char *path);
double *durations_find(const struct durations *d, const char *name);
void durations_release(struct durations *d);
/* Remember a run's durations (tests that ran to a verdict: not crash, not missing) in path,
 * keeping the other tests' entries; best effort, atomic. */
void durations_save(const char *path, const struct tap_test *tests, size_t n);

/* The plan indices that survive --filter, as the init selects them (fnmatch on the name).
 * Caller frees; *n is their number. */
size_t *shard_filter(const struct run *r, size_t *n);
/* r->vms from r->plan, r->o and r->jobs: r->jobs VMs split the tests the way the init's
 * tapboot.shard=K/N does; with --disruptive every disruptive test gets a VM of its own
 * (tapboot.only=N tapboot.disruptive=1) and the shards leave it out
 * (tapboot.disruptive=elsewhere). With durations d (may be NULL) known for at least half the
 * tests, the shards are balanced instead: longest first onto the least loaded shard (LPT),
 * tests never seen counting as the mean of the known ones, each shard's list given as
 * tapboot.only=; unless a list would not fit the kernel's command line. */
void shard_plan_vms(struct run *r, const struct durations *d);

#endif
