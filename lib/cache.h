/* SPDX-License-Identifier: GPL-2.0-only */
/* cache.h: tapboot's cache directory and what lives in it: the stat-keyed value cache (a
 * file's sha256, QEMU's version) and the upkeep that keeps the caches bounded. The builder's
 * segment cache and the unpacked-kernel cache live in its subdirectories. */
#ifndef TAPBOOT_CACHE_H
#define TAPBOOT_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* $XDG_CACHE_HOME/tapboot (or ~/.cache/tapboot), created; caller frees. */
char *cache_dir(void);
/* A value derived from a file (its hash, a program's version), cached in the cache directory
 * as PREFIX-<real path with / as _>: valid while the file's real path, device, inode, size,
 * mtime and ctime are unchanged (ctime moves on every write and cannot be set back). get: true
 * with the value in out; put: best effort. */
bool stat_cache_get(const char *prefix, const char *file, char *out, size_t n);
/* The prefixes in use (cache_prune knows their entries by them). */
#define STAT_CACHE_SHA256 "sha256"
#define STAT_CACHE_QEMU_VERSION "qemu-version"
#define STAT_CACHE_SNAPSHOT_OK "snapshot-ok" /* a snapshot state summed whole (run/snapshot.c) */
#define STAT_CACHE_APPLETS "busybox-applets" /* `busybox --list-full`, space-separated */
void stat_cache_put(const char *prefix, const char *file, const char *value);
/* Cache upkeep, after every run and build: the segment, vmlinux and snapshot caches are cut, least
 * recently used first, to $TAPBOOT_CACHE_MB (default 2048) MiB, never removing what was used in
 * the last day; stat-cache entries whose file is gone or changed (or whose name is not their
 * key's: a killed writer's temporary, after an hour) and temporary files older than an hour
 * go. Entries are marked used by their mtime. */
void cache_prune(void);
/* cache_prune() when it is due: at most once in CACHE_UPKEEP_S seconds (a stamp file's time),
 * or every time when $TAPBOOT_CACHE_MB or $TAPBOOT_SNAPSHOTS is set (someone sizing the cache
 * sees the effect at once). Scanning segments/ and snapshots/ after every run cost a warm
 * snapshot run 50-65 ms of its 0.35-0.45 s here. When it is not due, the stat-cache entries
 * alone are checked (one read, realpath and stat each). */
#define CACHE_UPKEEP_S 300
void cache_upkeep(void);
#endif
