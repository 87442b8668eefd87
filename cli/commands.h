/* commands.h: the subcommands of tapboot and what they share. */
#ifndef TAPBOOT_COMMANDS_H
#define TAPBOOT_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "arch_config.h"
#include "builder.h"

int cmd_run(int argc, char **argv);
int cmd_build(int argc, char **argv);
/* tapboot kernel fetch ARCH [--release R] | list (cli/cmd_kernel.c) */
int cmd_kernel(int argc, char **argv);

/* --kernel debian:ARCH[:RELEASE]: Debian's packaged kernel, fetched into the cache. */
#define CLI_KERNEL_DEBIAN "debian:"
/* Fetch (or find cached) Debian's kernel for arch from release (NULL: the machine's apt
 * sources) with the fetch-kernel.sh helper, which says on stderr what it downloads. Returns the
 * image's path (caller frees), or NULL after a message with *status 2 (bad arch or release) or
 * 3 (the download failed). */
char *cli_kernel_fetch(const char *arch, const char *release, int *status);
/* spec is "debian:ARCH[:RELEASE]"; want_arch (--arch, may be NULL) must agree. The image's
 * path and *arch_out (both for the caller to free), or NULL after a message. */
char *cli_kernel_spec(const char *spec, const char *want_arch, char **arch_out);

/* The static init for arch: $TAPBOOT_INIT_DIR's, else the build tree's or the installed one
 * (paths.h). Caller frees. NULL after a message saying which package or make target gives it. */
char *cli_find_init(const char *arch);
/* Fill o->target from cfg, o->init_path for its arch; -1 after a message. */
int cli_builder_target(struct builder_opts *o, const struct arch_config *cfg, const char *sysroot);
/* $XDG_CACHE_HOME/tapboot (or ~/.cache/tapboot), created; caller frees. */
char *cli_cache_dir(void);
/* A value derived from a file (its hash, a program's version), cached in the cache directory
 * as PREFIX-<real path with / as _>: valid while the file's real path, device, inode, size,
 * mtime and ctime are unchanged (ctime moves on every write and cannot be set back). get: true
 * with the value in out; put: best effort. */
bool cli_stat_cache_get(const char *prefix, const char *file, char *out, size_t n);
/* The prefixes in use (cli_cache_prune knows their entries by them). */
#define CLI_STAT_CACHE_SHA256 "sha256"
#define CLI_STAT_CACHE_QEMU_VERSION "qemu-version"
void cli_stat_cache_put(const char *prefix, const char *file, const char *value);
/* Cache upkeep, after every run and build: the segment and vmlinux caches are cut, least
 * recently used first, to $TAPBOOT_CACHE_MB (default 2048) MiB, never removing what was used in
 * the last day; stat-cache entries whose file is gone or changed and temporary files older
 * than an hour go. Entries are marked used by their mtime. */
void cli_cache_prune(void);
/* --compress NAME into *out; -1 after a message naming the choices. */
int cli_parse_compress(const char *name, enum builder_compress *out);
/* Parse a whole number of seconds ("45", "0"); -1 when bad. */
int cli_parse_seconds(const char *s, unsigned *out);

#endif
