/* SPDX-License-Identifier: GPL-2.0-only */
/* fs.h: file-system helpers the host tool's parts share. */
#ifndef TAPBOOT_FS_H
#define TAPBOOT_FS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Create path and its missing parents (mode 0755), like mkdir -p. 0, or -1 with errno set
 * (the caller names the path in its message). */
int mkdir_p(const char *path);

/* Whether path holds nothing but "." and "..". One that cannot be opened (a results directory
 * not made yet) counts as empty: creating it, not this, is where a problem is reported. */
bool dir_is_empty(const char *path);

/* What kind of file st is, for a message: "a directory", "a FIFO", "a socket", ... */
const char *fs_kind_name(mode_t mode);
/* 0 when path is a regular file; otherwise -1 after a message naming it and what it is
 * (what: "kernel", "kernel config", "input"...; stat(2) only, so a FIFO never blocks here). */
int fs_check_regular(const char *path, const char *what);
/* open(2) of a file that must be regular, without blocking: O_NONBLOCK for the open (a FIFO
 * waits there for a writer, with every signal of tapboot's blocked: issue 41), fstat, then the
 * flag cleared. The fd, or -1 with errno set: EINVAL for a file that is not regular (EISDIR
 * for a directory). */
int open_regular(const char *path, int flags);

/* The whole of path (a regular file: open_regular) into *buf (NUL-terminated; its length, without
 * the NUL, in *len). -1 with errno set and *buf NULL when it cannot be opened or read (the caller
 * names the file). */
int read_file(const char *path, char **buf, size_t *len);

enum write_file_flags {
	/* failures are the caller's to report (a best-effort cache write): no message */
	WRITE_FILE_QUIET = 1u << 0,
	/* other processes may write the same file at once (a cache shared by concurrent runs):
	 * the temporary file is PATH.PID, not PATH.tmp */
	WRITE_FILE_SHARED = 1u << 1,
};

/* Write path all at once or not at all: fn writes the content to a temporary file beside it
 * (PATH.tmp; returns 0 or -1), which is flushed (and fsync'd unless WRITE_FILE_SHARED), given
 * mode (when not 0) and renamed over path.
 * On any failure the temporary file is removed, a message names it (unless WRITE_FILE_QUIET)
 * and -1 is returned: no reader ever sees a half-written file. */
int write_file_atomic(const char *path, unsigned flags, mode_t mode,
		      int (*fn)(FILE *fp, const void *ctx), const void *ctx);
/* write_file_atomic of the n bytes at s. */
int write_string_atomic(const char *path, unsigned flags, mode_t mode, const char *s, size_t n);
/* write_file_atomic of a copy of the file from (which a message names when it cannot be read;
 * mode 0: the temporary file's default mode). */
int copy_file_atomic(const char *from, const char *to, mode_t mode);

#endif
