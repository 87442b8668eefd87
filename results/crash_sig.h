/* crash_sig.h: a kernel crash's signature (title, identifying ids, log excerpt), as issue 14's
 * 0-day helper computes it and the KCIDB writer reports it. */
#ifndef TAPBOOT_CRASH_SIG_H
#define TAPBOOT_CRASH_SIG_H

#include <stddef.h>

struct crash_sig {
	char *title;
	char **ids;
	size_t nids;
	char *excerpt;
};

#endif
