/* SPDX-License-Identifier: GPL-2.0-only */
/* kconfig_check.h: the kernel options tapboot's init and a run need, checked in the kernel's
 * config before anything boots; and, for a guest that died before the init, its last kernel
 * lines and the option most likely missing. */
#ifndef TAPBOOT_KCONFIG_CHECK_H
#define TAPBOOT_KCONFIG_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "arch_config.h"
#include "strbuf.h"
#include "strlist.h"

/* What this run asks of the kernel beyond what every run needs. */
struct kconfig_needs {
	const struct arch_config *cfg; /* the console and its driver options (kconfig_console) */
	const char *compress;	       /* the initramfs compression's name; NULL or "none": none */
	bool scripts;		       /* a #! test is in the image: CONFIG_BINFMT_SCRIPT */
	bool modules;		       /* --module: the init loads modules */
};

/* The options missing from a config, as "CONFIG_X\tSTATE\tWHY" lines in missing ("is not set",
 * "=m", or "is absent" when the file does not mention it). Returns how many are missing. The
 * config is .config text (len bytes). */
size_t kconfig_check_text(const char *buf, size_t len, const struct kconfig_needs *n,
			  struct strbuf *missing);
/* The same needs as a config fragment ("CONFIG_X=y" lines, what a need depends on first), for
 * `tapboot kernel config`. */
void kconfig_check_fragment(const struct kconfig_needs *n, struct strbuf *out);
/* The check before a run boots. config NULL: skipped, with a note on stderr unless quiet;
 * returns 0. A missing option: an error naming the config, every missing option with why
 * tapboot needs it, and the fragment to add; returns -1 (bad input: exit 2). An unreadable
 * config: an error, -1. */
int kconfig_check_run(const char *config, const struct kconfig_needs *n, bool quiet);
/* Is every option of opts built in (=y) in the config file? false when the file cannot be
 * read. */
bool kconfig_all_y(const char *config, const struct strlist *opts);
/* Does any of paths (files, or directories searched for executables) start with "#!"? */
bool kconfig_inputs_have_script(const char *const *paths, size_t n);
/* A guest that never reached tapboot's init: console is everything it printed. Appends to out
 * the last kernel lines and the likely missing options (checked against config when it is
 * not NULL), one message of several lines ending in a newline; nothing when the init began. */
void kconfig_check_diagnose(const char *console, size_t len, const char *config,
			    const struct kconfig_needs *n, struct strbuf *out);
/* The same, from a results directory's console.log, printed on stderr. */
void kconfig_check_postmortem(const char *results_dir, const char *config,
			      const struct kconfig_needs *n);

#endif
