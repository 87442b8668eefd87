/* SPDX-License-Identifier: GPL-2.0-only */
/* series.h: tapboot series BASE..HEAD --build SRC TEST...: each commit built and tested in
 * turn, the first that broke each test that passed at BASE named. */
#ifndef TAPBOOT_SERIES_H
#define TAPBOOT_SERIES_H

#include "strlist.h"

struct series_opts {
	const char *range;     /* BASE..HEAD */
	const char *src;       /* the tree, a git repository */
	const char *build_dir; /* -O: the build directory (NULL: run --build's default) */
	const char *out;       /* -o: the results (NULL: a new directory) */
	struct strlist pass;   /* run's options and the tests, as given */
};

/* The whole series; the exit status: 0 nothing broke, 1 a commit broke the build or a test
 * that passed at BASE (named on stdout and in OUT/series.json), 2 bad input or a base that
 * does not build, 130 interrupted. */
int series_run(const struct series_opts *o);

#endif
