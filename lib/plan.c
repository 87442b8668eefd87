// SPDX-License-Identifier: GPL-2.0-only
/* plan.c: writer and parser of the in-image test plan. */
#include "plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

void plan_init(struct plan *p)
{
	p->tests = NULL;
	p->n = p->alloc = 0;
	strlist_init(&p->modules);
}

static void plan_test_release(struct plan_test *t)
{
	free(t->name);
	free(t->path);
	free(t->cwd);
	free(t->skip_reason);
	strlist_release(&t->args);
	strlist_release(&t->env);
	strlist_release(&t->configs);
}

void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		plan_test_release(&p->tests[i]);
	free(p->tests);
	strlist_release(&p->modules);
	plan_init(p);
}

struct plan_test *plan_add(struct plan *p, const char *name, const char *path)
{
	struct plan_test *t;

	xgrow(&p->tests, &p->alloc, p->n + 1, sizeof(*p->tests));
	t = &p->tests[p->n++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->path = xstrdup(path);
	t->timeout_s = PLAN_DEFAULT_TIMEOUT;
	return t;
}

static const char *const flag_names[] = { "disruptive", "privileged" };

const char *plan_flag_name(unsigned flag)
{
	for (unsigned i = 0; i < ARRAY_SIZE(flag_names); i++)
		if (flag == 1u << i)
			return flag_names[i];
	return NULL;
}

int plan_flag_from_name(const char *name)
{
	for (unsigned i = 0; i < ARRAY_SIZE(flag_names); i++)
		if (!strcmp(flag_names[i], name))
			return (int)(1u << i);
	return -1;
}

static void put(struct strbuf *out, const char *key, const char *value)
{
	strbuf_addstr(out, key);
	strbuf_addch(out, ' ');
	for (const char *s = value; *s; s++) {
		if (*s == '\\')
			strbuf_addstr(out, "\\\\");
		else if (*s == '\n')
			strbuf_addstr(out, "\\n");
		else if (*s == '\t')
			strbuf_addstr(out, "\\t");
		else
			strbuf_addch(out, *s);
	}
	strbuf_addch(out, '\n');
}

void plan_write(const struct plan *p, struct strbuf *out)
{
	strbuf_addstr(out, "tapboot-plan 1\n");
	for (size_t i = 0; i < p->modules.n; i++)
		put(out, "module", p->modules.v[i]);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_test *t = &p->tests[i];

		put(out, "test", t->name);
		put(out, "path", t->path);
		if (t->cwd)
			put(out, "cwd", t->cwd);
		strbuf_addf(out, "timeout %u\n", t->timeout_s);
		for (size_t j = 0; j < t->args.n; j++)
			put(out, "arg", t->args.v[j]);
		for (size_t j = 0; j < t->env.n; j++)
			put(out, "env", t->env.v[j]);
		for (unsigned b = 0; b < 32; b++)
			if ((t->flags & (1u << b)) && plan_flag_name(1u << b))
				put(out, "flag", plan_flag_name(1u << b));
		for (size_t j = 0; j < t->configs.n; j++)
			put(out, "config", t->configs.v[j]);
		if (t->skip_reason)
			put(out, "skip", t->skip_reason);
		strbuf_addstr(out, "end\n");
	}
}

/* Undo put()'s escaping in place; -1 on a bad escape. */
static int unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		s++;
		if (*s == '\\')
			*w++ = '\\';
		else if (*s == 'n')
			*w++ = '\n';
		else if (*s == 't')
			*w++ = '\t';
		else
			return -1;
	}
	*w = '\0';
	return 0;
}

static int parse_line(struct plan *p, struct plan_test **cur, char *line, const char *file,
		      unsigned lineno)
{
	char *value = strchr(line, ' ');
	const char *key = line;

	if (!value)
		return error_at(file, lineno, "expected 'key value', got '%s'", line);
	*value++ = '\0';
	if (unescape(value) < 0)
		return error_at(file, lineno, "bad backslash escape in value of '%s'", key);

	if (!strcmp(key, "module")) {
		if (*cur)
			return error_at(file, lineno, "'module' inside a test (before 'end')");
		strlist_push(&p->modules, value);
		return 0;
	}
	if (!strcmp(key, "test")) {
		if (*cur)
			return error_at(file, lineno, "'test' before the previous test's 'end'");
		if (!*value)
			return error_at(file, lineno, "empty test name");
		*cur = plan_add(p, value, "");
		return 0;
	}
	if (!*cur)
		return error_at(file, lineno, "'%s' outside a test", key);
	if (!strcmp(key, "path")) {
		free((*cur)->path);
		(*cur)->path = xstrdup(value);
	} else if (!strcmp(key, "cwd")) {
		free((*cur)->cwd);
		(*cur)->cwd = xstrdup(value);
	} else if (!strcmp(key, "timeout")) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || end == value || *end || v > 86400 * 7)
			return error_at(file, lineno, "bad timeout '%s' (seconds, 0 for none)", value);
		(*cur)->timeout_s = (unsigned)v;
	} else if (!strcmp(key, "arg")) {
		strlist_push(&(*cur)->args, value);
	} else if (!strcmp(key, "env")) {
		if (!strchr(value, '='))
			return error_at(file, lineno, "env '%s' is not KEY=VALUE", value);
		strlist_push(&(*cur)->env, value);
	} else if (!strcmp(key, "flag")) {
		int f = plan_flag_from_name(value);

		if (f < 0)
			return error_at(file, lineno, "unknown flag '%s'", value);
		(*cur)->flags |= (unsigned)f;
	} else if (!strcmp(key, "config")) {
		strlist_push(&(*cur)->configs, value);
	} else if (!strcmp(key, "skip")) {
		free((*cur)->skip_reason);
		(*cur)->skip_reason = xstrdup(value);
	} else {
		return error_at(file, lineno, "unknown key '%s'", key);
	}
	return 0;
}

int plan_parse(struct plan *p, const char *buf, size_t len, const char *file)
{
	struct plan_test *cur = NULL;
	unsigned lineno = 0;
	size_t pos = 0;
	int ret = 0;

	while (pos < len && !ret) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		char *line = xstrndup(buf + pos, n);

		pos += n + (nl ? 1 : 0);
		lineno++;
		if (strlen(line) != n) {
			ret = error_at(file, lineno, "NUL byte in plan");
		} else if (lineno == 1) {
			if (strcmp(line, "tapboot-plan 1"))
				ret = error_at(file, lineno, "expected 'tapboot-plan 1', got '%s'", line);
		} else if (!*line || *line == '#') {
			/* blank lines and comments are allowed */
		} else if (!strcmp(line, "end")) {
			if (!cur)
				ret = error_at(file, lineno, "'end' without 'test'");
			else if (!*cur->path)
				ret = error_at(file, lineno, "test '%s' has no path", cur->name);
			cur = NULL;
		} else {
			ret = parse_line(p, &cur, line, file, lineno);
		}
		free(line);
	}
	if (!ret && lineno == 0)
		ret = error_at(file, 0, "empty plan");
	if (!ret && cur)
		ret = error_at(file, lineno, "test '%s' has no 'end'", cur->name);
	return ret;
}
