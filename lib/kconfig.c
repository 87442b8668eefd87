// SPDX-License-Identifier: GPL-2.0-only
/* kconfig.c: reading a kernel .config or a config fragment into name/value pairs. */
#include "kconfig.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "text.h"

const char *const kconfig_rd_compressions[] = {"gzip", "xz", "zstd", "lz4", NULL};

static const char *const rd_options[] = {"CONFIG_RD_GZIP", "CONFIG_RD_XZ", "CONFIG_RD_ZSTD",
					 "CONFIG_RD_LZ4"};

const char *kconfig_rd_option(const char *compression)
{
	for (size_t i = 0; compression && i < ARRAY_SIZE(rd_options); i++)
		if (!strcmp(kconfig_rd_compressions[i], compression))
			return rd_options[i];
	return NULL;
}

/* A string value ("..." with \" and \\ escaped, as the kernel's confdata.c writes it) without
 * its quotes; anything else as it is. */
static char *unquote(const char *v, size_t n)
{
	char *out, *o;

	if (n < 2 || v[0] != '"' || v[n - 1] != '"')
		return xstrndup(v, n);
	out = o = xmalloc(n);
	for (size_t i = 1; i + 1 < n; i++) {
		if (v[i] == '\\' && i + 2 < n)
			i++;
		*o++ = v[i];
	}
	*o = '\0';
	return out;
}

static void push(struct kconfig *kc, const char *name, size_t nlen, char *value)
{
	xgrow(&kc->v, &kc->alloc, kc->n + 1, sizeof(*kc->v));
	kc->v[kc->n].name = xstrndup(name, nlen);
	kc->v[kc->n].value = value;
	kc->n++;
}

static int by_name_cmp(const void *a, const void *b, void *ctx)
{
	const struct kconfig *kc = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(kc->v[i].name, kc->v[j].name);

	return c ? c : (i < j ? -1 : i > j);
}

static void build_index(struct kconfig *kc)
{
	free(kc->by_name);
	kc->by_name = xcalloc(kc->n + 1, sizeof(*kc->by_name));
	for (size_t i = 0; i < kc->n; i++)
		kc->by_name[i] = i;
	qsort_r(kc->by_name, kc->n, sizeof(*kc->by_name), by_name_cmp, kc);
}

int kconfig_parse(const char *text, size_t len, const char *name_for_errors, struct kconfig *kc)
{
	static const char tail[] = " is not set";
	const size_t tl = sizeof(tail) - 1;
	struct line_iter it = {text, text + len, 0};
	const char *s;
	size_t n;
	int ret = 0;

	while (ret == 0 && line_iter_next(&it, &s, &n)) {
		const char *eq;

		if (!n)
			continue;
		if (*s == '#') {
			if (n > 2 + 7 + tl && !memcmp(s, "# CONFIG_", 9) &&
			    !memcmp(s + n - tl, tail, tl) && text_is_ident(s + 2, n - 2 - tl))
				push(kc, s + 2, n - 2 - tl, xstrdup("n"));
			continue;
		}
		eq = memchr(s, '=', n);
		if (eq && eq - s > 7 && !memcmp(s, "CONFIG_", 7) && text_is_ident(s, (size_t)(eq - s)))
			push(kc, s, (size_t)(eq - s), unquote(eq + 1, n - (size_t)(eq + 1 - s)));
		else if (name_for_errors)
			ret = error_at(name_for_errors, it.no,
				       "expected 'CONFIG_NAME=VALUE', not '%.*s'", (int)n, s);
	}
	build_index(kc);
	return ret;
}

int kconfig_read(const char *path, struct kconfig *kc)
{
	char *text;
	size_t len;
	int ret;

	if (read_file(path, &text, &len) < 0)
		return error_errno("cannot read kernel config '%s'", path);
	ret = kconfig_parse(text, len, path, kc);
	free(text);
	return ret;
}

const char *kconfig_value(const struct kconfig *kc, const char *opt)
{
	char *name = strncmp(opt, "CONFIG_", 7) ? xasprintf("CONFIG_%s", opt) : NULL;
	const char *want = name ? name : opt, *found = NULL;
	size_t lo = 0, hi = kc->n;

	/* the first of equal names: the lowest index, which the index sorts first */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(kc->v[kc->by_name[mid]].name, want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < kc->n && !strcmp(kc->v[kc->by_name[lo]].name, want))
		found = kc->v[kc->by_name[lo]].value;
	free(name);
	return found;
}

const char *kconfig_get(const struct kconfig *kc, const char *opt)
{
	const char *v = kconfig_value(kc, opt);

	return v && strcmp(v, "n") ? v : NULL;
}

bool kconfig_is_y(const struct kconfig *kc, const char *opt)
{
	const char *v = kconfig_value(kc, opt);

	return v && !strcmp(v, "y");
}

void kconfig_release(struct kconfig *kc)
{
	for (size_t i = 0; i < kc->n; i++) {
		free(kc->v[i].name);
		free(kc->v[i].value);
	}
	free(kc->v);
	free(kc->by_name);
	memset(kc, 0, sizeof(*kc));
}
