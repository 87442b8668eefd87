// SPDX-License-Identifier: GPL-2.0-only
/* machine_line.c: a test machine's QEMU options written as one line of text. */
#include "machine_line.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

/* The value of opt in line, or NULL. */
static char *option_value(const char *line, const char *opt)
{
	const char *p = line;
	size_t n = strlen(opt);

	while (p && (p = strstr(p, opt))) {
		if ((p == line || p[-1] == ' ') && p[n] == ' ') {
			const char *v = p + n + 1;

			return xstrndup(v, strcspn(v, " "));
		}
		p += n;
	}
	return NULL;
}

void machine_line_parse(const char *line, struct machine_line *m)
{
	m->smp = option_value(line, "-smp");
	m->memory = option_value(line, "-m");
	m->cpu = option_value(line, "-cpu");
}

void machine_line_release(struct machine_line *m)
{
	free(m->smp);
	free(m->memory);
	free(m->cpu);
	m->smp = m->memory = m->cpu = NULL;
}

char *machine_line_format(const char *model, const char *smp, const char *memory)
{
	return xasprintf("%s%s%s%s%s", model, smp ? " -smp " : "", smp ? smp : "",
			 memory ? " -m " : "", memory ? memory : "");
}
