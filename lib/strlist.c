// SPDX-License-Identifier: GPL-2.0-only
/* strlist.c: a growable list of owned strings. */
#include "strlist.h"

#include <stdlib.h>

#include "error.h"

void strlist_init(struct strlist *l)
{
	l->v = NULL;
	l->n = l->alloc = 0;
}

void strlist_release(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	strlist_init(l);
}

void strlist_push(struct strlist *l, const char *s)
{
	xgrow(&l->v, &l->alloc, l->n + 2, sizeof(*l->v));
	l->v[l->n++] = xstrdup(s);
	l->v[l->n] = NULL;
}
