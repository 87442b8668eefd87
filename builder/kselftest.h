/* SPDX-License-Identifier: GPL-2.0-only */
/* kselftest.h: a kernel kselftest install tree -> a tapboot manifest (docs/DESIGN.md), selected
 * and named as tools/testing/selftests/run_kselftest.sh would, with its per-collection timeouts,
 * tapboot's list of disruptive tests flagged and collections whose config fragment the kernel
 * does not satisfy marked to be skipped.
 *
 * The install tree is what `make -C tools/testing/selftests install INSTALL_PATH=DIR` makes:
 * DIR/run_kselftest.sh, DIR/kselftest-list.txt ("collection:test" lines, test being the
 * program's basename), DIR/COLLECTION/TEST, and maybe DIR/COLLECTION/settings ("timeout=N").
 * The whole tree goes into the image at /kselftest (so run_kselftest.sh can run there too). */
#ifndef TAPBOOT_BUILDER_KSELFTEST_H
#define TAPBOOT_BUILDER_KSELFTEST_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

#define KSELFTEST_IMAGE_DIR "/kselftest"
#define KSELFTEST_LIST "kselftest-list.txt"
/* run_kselftest.sh's name for a test: "selftests: COLLECTION: TEST" (kselftest/runner.sh). */
#define KSELFTEST_RUNNER_PREFIX "selftests: "
#define KSELFTEST_MISSING_PREFIX "missing kernel options: "

struct kselftest_opts {
	const char *install_dir;     /* required */
	struct strlist targets;	     /* collections (--targets, like TARGETS=); empty: all */
	struct strlist skip_targets; /* collections left out (--skip-targets, SKIP_TARGETS=) */
	struct strlist tests; /* "collection:test" (-t, repeatable); added to targets' tests */
	const char *src_dir;  /* tools/testing/selftests (each collection's `config`), or NULL */
	const char *kernel_config; /* the kernel's .config, or NULL when unknown */
	/* The kernel's modules go into the image (and can be loaded there): only then does a
	 * kernel option built as a module (=m) satisfy a fragment. */
	bool modules;
	/* The list of known-disruptive tests (builder/kselftest-disruptive.txt format); NULL: the
	 * one tapboot ships (paths.h: builder/ or DATADIR/tapboot/). */
	const char *disruptive_list;
	const char *privileged_list; /* NULL: kselftest-privileged.txt, shipped */
	unsigned timeout; /* seconds for every test, overriding settings files; 0: not given */
};

void kselftest_opts_init(struct kselftest_opts *o);
void kselftest_opts_release(struct kselftest_opts *o);

/* A collection skipped for missing kernel options (for the runner to print). */
struct kselftest_skip {
	char *collection; /* owned */
	char *reason;	  /* owned: "missing kernel options: CONFIG_A, CONFIG_B" */
	size_t ntests;	  /* selected tests of this collection, all skipped */
};

struct kselftest_info {
	size_t ntests;			/* tests written */
	size_t ncollections;		/* collections with a test written */
	size_t ndisruptive;		/* tests flagged disruptive */
	size_t nconfig_skipped;		/* tests given a `skip` for missing options */
	struct kselftest_skip *skipped; /* owned array, in list order */
	size_t nskipped, skipped_alloc;
	/* Were config fragments compared with the kernel's config? When not, config_note (owned)
	 * says why, e.g. "kernel config unknown (no --config): config fragments not checked". */
	bool config_checked;
	char *config_note;
};

void kselftest_info_init(struct kselftest_info *info);
void kselftest_info_release(struct kselftest_info *info);
/* Lines for the runner to print on stderr, each ending in '\n':
 *   kselftest: 44 tests from 15 collections (0 disruptive)
 *   kselftest: sync (1 test) skipped: missing kernel options: CONFIG_SW_SYNC
 *   kselftest: kernel config unknown (--config): ...            (when not checked) */
void kselftest_info_describe(const struct kselftest_info *info, struct strbuf *out);

/* Write the manifest for o's selection to manifest_path (a temporary file in the same directory,
 * then renamed; a failure leaves nothing). Lines, for each selected test in list order:
 *   tree INSTALLDIR /kselftest                (once, INSTALLDIR absolute)
 *   test COLLECTION:TEST /kselftest/COLLECTION/TEST
 *       cwd /kselftest/COLLECTION
 *       timeout N                             (--timeout, else settings' timeout=, else 45)
 *       flag disruptive                       (listed in the disruptive list)
 *       config CONFIG_FOO                     (each =y/=m option of the collection's fragment)
 *       skip "missing kernel options: ..."    (kernel config known and options missing)
 * Returns 0, or -1 after a message naming the file (and line) at fault: unknown --targets or
 * -t names (naming kselftest-list.txt), a bad settings/config/list line, a listed test missing
 * from the tree. The caller exits 2. */
int kselftest_manifest(const struct kselftest_opts *o, const char *manifest_path,
		       struct kselftest_info *info);

/* Parse a collection's settings file (buf, len bytes; file names it in messages). Only
 * "timeout=N" is understood (decimal seconds, 0 = none); blank lines and '#' comments are
 * skipped; another KEY=VALUE is ignored with a warning (runner.sh would set an unused shell
 * variable); anything else is an error with file:line. Never evaluated. *timeout is set only
 * when the file has a timeout line. Returns 0 or -1. */
int kselftest_parse_settings(const char *buf, size_t len, const char *file, unsigned *timeout,
			     bool *has_timeout);

/* Names: tapboot's "proc:fd-001-lookup" <-> run_kselftest.sh's "selftests: proc: fd-001-lookup".
 * Both return a new string (caller frees), or NULL when name has not that shape. */
char *kselftest_name_to_runner(const char *name);
char *kselftest_name_from_runner(const char *runner_name);

#endif
