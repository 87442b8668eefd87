// SPDX-License-Identifier: GPL-2.0-only
/* busybox.c: which busybox goes into the image, and the applets linked to it. */
#include "pack.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "elfinfo.h"
#include "error.h"
#include "proc.h"
#include "strbuf.h"

static bool elf_for(const char *path, const struct builder_target *t)
{
	return !access(path, R_OK) && builder_elf_matches(path, t);
}

/* opts->busybox_path, else the host's /bin/busybox (Debian's busybox-static) when it is built
 * for the target, else the copy scripts/fetch-busybox.sh keeps in the cache, else what the
 * caller's fetch_busybox brings (the builder runs no scripts of its own). */
static char *find_busybox(const struct builder_opts *o)
{
	char *top, *cached, *got;

	if (o->busybox_path) {
		if (access(o->busybox_path, R_OK)) {
			error_errno("cannot read busybox '%s'", o->busybox_path);
			return NULL;
		}
		return xstrdup(o->busybox_path);
	}
	if (elf_for("/bin/busybox", &o->target))
		return xstrdup("/bin/busybox");
	if (!o->target.arch) {
		error("no busybox for this architecture: pass its path");
		return NULL;
	}
	top = cache_dir();
	cached = xasprintf("%s/busybox/%s/bin/busybox", top, o->target.arch);
	free(top);
	if (elf_for(cached, &o->target))
		return cached;
	if (!o->fetch_busybox) {
		error("no busybox for %s at hand (none in '%s'): pass its path", o->target.arch,
		      cached);
		free(cached);
		return NULL;
	}
	free(cached);
	got = o->fetch_busybox(o->target.arch);
	if (got && !elf_for(got, &o->target)) {
		error("'%s' is no busybox for %s", got, o->target.arch);
		free(got);
		got = NULL;
	}
	return got;
}

/* Applets of Debian 12's busybox-static when no busybox can run here to say: the shells and
 * the tools kselftest's scripts use. */
static const char *const fallback_applets[] = {
	"bin/sh",	  "bin/ash",	      "bin/cat",	  "bin/chmod",
	"bin/cp",	  "bin/date",	      "bin/dd",		  "bin/dmesg",
	"bin/echo",	  "bin/false",	      "bin/grep",	  "bin/kill",
	"bin/ln",	  "bin/ls",	      "bin/mkdir",	  "bin/mknod",
	"bin/mount",	  "bin/mv",	      "bin/ps",		  "bin/pwd",
	"bin/rm",	  "bin/rmdir",	      "bin/sed",	  "bin/sleep",
	"bin/sync",	  "bin/true",	      "bin/umount",	  "bin/uname",
	"sbin/insmod",	  "sbin/lsmod",	      "sbin/modprobe",	  "sbin/rmmod",
	"sbin/sysctl",	  "sbin/ip",	      "usr/bin/[",	  "usr/bin/[[",
	"usr/bin/awk",	  "usr/bin/basename", "usr/bin/cmp",	  "usr/bin/cut",
	"usr/bin/diff",	  "usr/bin/dirname",  "usr/bin/env",	  "usr/bin/expr",
	"usr/bin/find",	  "usr/bin/head",     "usr/bin/id",	  "usr/bin/od",
	"usr/bin/printf", "usr/bin/readlink", "usr/bin/realpath", "usr/bin/seq",
	"usr/bin/sort",	  "usr/bin/stat",     "usr/bin/tail",	  "usr/bin/tee",
	"usr/bin/test",	  "usr/bin/timeout",  "usr/bin/touch",	  "usr/bin/tr",
	"usr/bin/uniq",	  "usr/bin/wc",	      "usr/bin/which",	  "usr/bin/xargs",
	"usr/bin/yes",
};

/* The applet paths in list (separated by sep) into out. */
static void applets_from(char *list, int sep, struct strlist *out)
{
	char *p = list;

	while (p && *p) {
		char *end = strchr(p, sep);

		if (end)
			*end = '\0';
		/* linuxrc (the old initrd entry point) is no applet link we want */
		if (strchr(p, '/') && strcmp(p, "bin/busybox"))
			strlist_push(out, p);
		p = end ? end + 1 : NULL;
	}
}

/* The applet links: `busybox --list-full` of the busybox itself when it runs here, else of
 * the host's /bin/busybox. A foreign busybox cannot run on the host (no binfmt emulation is
 * assumed), and Debian builds busybox-static with one configuration for every architecture,
 * so the host's list (same Debian release) names the foreign binary's applets; without any
 * busybox here, a shipped list of common applets. The list is kept in the stat cache while
 * that busybox is unchanged: running it was 9-10 ms of a 40 ms build of the bench's
 * kselftest tree. */
static void busybox_applets(const char *bb, const struct builder_target *t, struct strlist *out)
{
	const char *runner = NULL;
	struct strbuf sb = STRBUF_INIT;
	char cached[8192];

	if (builder_runs_here(t) && !access(bb, X_OK))
		runner = bb;
	else if (!access("/bin/busybox", X_OK))
		runner = "/bin/busybox";
	if (runner && stat_cache_get(STAT_CACHE_APPLETS, runner, cached, sizeof(cached)) &&
	    strlen(cached) < sizeof(cached) - 1) {
		applets_from(cached, ' ', out);
		if (out->n)
			return;
	}
	strbuf_init(&sb);
	if (runner) {
		const char *argv[] = {runner, "--list-full", NULL};

		if (proc_capture(argv, &sb, true) == 0) {
			applets_from(sb.buf, '\n', out);
			strbuf_reset(&sb);
			for (size_t i = 0; i < out->n; i++)
				strbuf_addf(&sb, "%s%s", i ? " " : "", out->v[i]);
			if (out->n && !strpbrk(sb.buf, "\n\r") && sb.len < sizeof(cached) - 1)
				stat_cache_put(STAT_CACHE_APPLETS, runner, sb.buf);
		}
	}
	strbuf_release(&sb);
	if (!out->n)
		for (unsigned i = 0; i < ARRAY_SIZE(fallback_applets); i++)
			strlist_push(out, fallback_applets[i]);
}

int builder_pack_busybox(struct image *img, const struct builder_opts *o,
			 const struct strlist *interps)
{
	struct strlist applets;
	char *bb = find_busybox(o);
	int ret = 0;

	if (!bb)
		return -1;
	if (!elf_for(bb, &o->target)) {
		error("busybox '%s' is not a %u-bit %s program", bb, o->target.elf_class,
		      elfinfo_machine_name(o->target.elf_machine));
		free(bb);
		return -1;
	}
	if (!image_has(img, "bin/busybox") && !image_add_file(img, "bin/busybox", bb, 0755, bb)) {
		free(bb);
		return -1;
	}
	strlist_init(&applets);
	busybox_applets(bb, &o->target, &applets);
	for (size_t i = 0; i < applets.n && !ret; i++) {
		const char *a = applets.v[i];
		struct strbuf target = STRBUF_INIT;
		char *norm = image_path_normalise(a, bb);

		if (!norm) {
			ret = -1;
			break;
		}
		/* a relative target from the link's directory: bin/ -> busybox,
		 * usr/sbin/ -> ../../bin/busybox */
		strbuf_init(&target);
		for (const char *s = strchr(norm, '/'); s; s = strchr(s + 1, '/'))
			strbuf_addstr(&target, "../");
		strbuf_addstr(&target, "bin/busybox");
		if (!strncmp(norm, "bin/", 4) && !strchr(norm + 4, '/')) {
			strbuf_reset(&target);
			strbuf_addstr(&target, "busybox");
		}
		/* What the inputs pack wins over an applet link. */
		if (!image_has(img, norm) && !image_add_symlink(img, norm, target.buf, bb))
			ret = -1;
		strbuf_release(&target);
		free(norm);
	}
	/* Debian's busybox has no bash applet, but kselftest's #!/bin/bash scripts mostly run
	 * under its ash: point a missing bash there rather than fail the exec. */
	for (size_t i = 0; i < interps->n && !ret; i++) {
		const char *ip = interps->v[i];
		char *norm;

		if (strcmp(ip, "/bin/bash") && strcmp(ip, "/usr/bin/bash"))
			continue;
		norm = image_path_normalise(ip, bb);
		if (norm && !image_has(img, norm)) {
			if (!o->quiet)
				warning("no %s in the image: it runs the #! scripts as busybox ash",
					ip);
			if (!image_add_symlink(img, norm,
					       !strcmp(norm, "bin/bash") ? "busybox"
									 : "../../bin/busybox",
					       bb))
				ret = -1;
		}
		free(norm);
	}
	strlist_release(&applets);
	free(bb);
	return ret;
}
