// SPDX-License-Identifier: GPL-2.0-only
/* kbuild_config.c: `tapboot kernel config`: a base config, what tapboot needs on the
 * architecture, the debug and the user's fragments, merged by the tree's merge_config.sh and
 * resolved by olddefconfig; then every option asked for is checked, since merge_config.sh only
 * warns when Kconfig drops one (an unmet dependency) and the kernel would boot without it. */
#include "kbuild.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "kbuild_run.h"
#include "kconfig.h"
#include "kconfig_check.h"

void kbuild_config_init(struct kbuild_config *c)
{
	memset(c, 0, sizeof(*c));
	strlist_init(&c->debug);
	strlist_init(&c->fragments);
}

void kbuild_config_release(struct kbuild_config *c)
{
	strlist_release(&c->debug);
	strlist_release(&c->fragments);
}

/* The usual debug options, by the name developers use for them. Each turns on what its
 * Kconfig entry depends on in a tinyconfig (DEBUG_KERNEL), so it sticks there too. */
static const struct debug_set {
	const char *name;
	const char *options;
} debug_sets[] = {
	/* both want SLUB (or SLAB); tinyconfig picks SLOB (6.1's kernel/configs/tiny.config) */
	{"kasan", "CONFIG_SLUB=y\n# CONFIG_SLOB is not set\nCONFIG_KASAN=y\nCONFIG_KASAN_GENERIC=y\n"},
	{"kfence", "CONFIG_SLUB=y\n# CONFIG_SLOB is not set\nCONFIG_KFENCE=y\n"},
	{"lockdep", "CONFIG_PROVE_LOCKING=y\nCONFIG_DEBUG_ATOMIC_SLEEP=y\n"},
	{"ubsan", "CONFIG_UBSAN=y\nCONFIG_UBSAN_BOUNDS=y\n"},
	{"kmemleak", "CONFIG_DEBUG_KMEMLEAK=y\n"},
	{"kcsan", "CONFIG_KCSAN=y\n"},
	{"slub", "CONFIG_SLUB=y\n# CONFIG_SLOB is not set\nCONFIG_SLUB_DEBUG=y\nCONFIG_SLUB_DEBUG_ON=y\n"},
	{"vm", "CONFIG_DEBUG_VM=y\n"},
	{"list", "CONFIG_DEBUG_LIST=y\n"},
	/* symbols for gdb (tapboot shell --gdb) and the tree's gdb scripts (lx-symbols) */
	{"info", "# CONFIG_DEBUG_INFO_NONE is not set\nCONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y\n"
		 "CONFIG_GDB_SCRIPTS=y\n"},
};

const char *kbuild_debug_names(void)
{
	return "kasan, kfence, lockdep, ubsan, kmemleak, kcsan, slub, vm, list, info";
}

int kbuild_debug_fragment(const char *name, struct strbuf *out)
{
	for (size_t i = 0; i < sizeof(debug_sets) / sizeof(debug_sets[0]); i++) {
		if (!strcmp(name, debug_sets[i].name)) {
			strbuf_addstr(out, "CONFIG_DEBUG_KERNEL=y\n");
			strbuf_addstr(out, debug_sets[i].options);
			return 0;
		}
	}
	return error("--debug: unknown name '%s' (known: %s)", name, kbuild_debug_names());
}

/* out/NAME with text, for merge_config.sh to read (kept: the build directory says what it was
 * made of). */
static char *write_fragment(const char *out, const char *name, const struct strbuf *text)
{
	char *path = xasprintf("%s/%s", out, name);

	if (write_string_atomic(path, 0, 0644, text->buf ? text->buf : "", text->len) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

/* What tapboot needs of the kernel on this architecture: the kconfig check's list, the
 * architecture's fragment (configs/kernel/ARCH.config: console, power-off, the entry tapboot
 * boots), and with the tests image device the options it needs. */
static int needs_fragment(const struct kbuild *kb, const struct kbuild_config *c,
			  struct strbuf *out)
{
	struct kconfig_needs n = {
		.cfg = kb->cfg, .compress = "gzip", .scripts = true, .modules = c->modules,
	};
	char *arch_frag = xasprintf("%s/kernel/%s.config", c->configs_dir, kb->cfg->arch);
	char *buf;
	size_t len;

	strbuf_addf(out, "# tapboot.config: what tapboot's init and a run need on %s\n",
		    kb->cfg->arch);
	kconfig_check_fragment(&n, out);
	if (!c->minimal)
		for (size_t i = 0; i < kb->cfg->snapshot_tests_kconfig.n; i++)
			strbuf_addf(out, "%s=y\n", kb->cfg->snapshot_tests_kconfig.v[i]);
	if (read_file(arch_frag, &buf, &len) < 0) {
		free(arch_frag);
		return -1;
	}
	strbuf_addf(out, "# from %s\n", arch_frag);
	strbuf_add(out, buf, len);
	free(buf);
	free(arch_frag);
	return 0;
}

/* The base: a make target of the tree ("tinyconfig", "defconfig", "allnoconfig", ...), or a
 * config file copied into place. */
static int write_base(const struct kbuild *kb, const char *base)
{
	char *dst = xasprintf("%s/.config", kb->out);
	int ret;

	if (strchr(base, '/') || !strstr(base, "config") || access(base, F_OK) == 0) {
		struct stat st;

		if (stat(base, &st) < 0 || !S_ISREG(st.st_mode)) {
			ret = error("--base '%s': neither a config file nor a *config target of the "
				    "tree (tinyconfig, defconfig, ...)",
				    base);
		} else {
			ret = copy_file_atomic(base, dst, 0644);
		}
	} else {
		const char *targets[] = {base, NULL};

		ret = kbuild_make(kb, targets, "configure");
	}
	free(dst);
	return ret;
}

/* One option a fragment asked for, checked against the final config: an error line naming
 * it and why it did not stick. Returns 1 when it did not. */
static int check_option(const struct kbuild *kb, const struct kconfig *final, const char *text,
			size_t len, const struct kconfig_opt *want, const char *frag,
			struct strbuf *errs)
{
	const char *got = kconfig_value(final, want->name);
	bool off = !strcmp(want->value, "n");

	if (off ? (!got || !strcmp(got, "n")) : (got && !strcmp(got, want->value)))
		return 0;
	/* an =m that a built-in option selected is there, and more so */
	if (!strcmp(want->value, "m") && got && !strcmp(got, "y"))
		return 0;
	strbuf_addf(errs, "  %s=%s (from %s) is %s in the result: ", want->name, want->value, frag,
		    !got ? "absent" : !strcmp(got, "n") ? "not set" : got);
	if (off)
		strbuf_addstr(errs, "something selects it");
	else
		kbuild_explain(kb->src, text, len, want->name, errs);
	strbuf_addch(errs, '\n');
	return 1;
}

/* Every option of every fragment as olddefconfig left it. -1 after a message. */
static int check_fragments(const struct kbuild *kb, const struct strlist *frags)
{
	char *cfg_path = xasprintf("%s/.config", kb->out);
	struct kconfig final = KCONFIG_INIT;
	struct strbuf errs;
	char *text = NULL;
	size_t len, bad = 0;
	int ret = -1;

	strbuf_init(&errs);
	if (read_file(cfg_path, &text, &len) < 0 ||
	    kconfig_parse(text, len, NULL, &final) < 0)
		goto out;
	for (size_t i = 0; i < frags->n; i++) {
		struct kconfig want = KCONFIG_INIT;

		if (kconfig_read(frags->v[i], &want) < 0) {
			kconfig_release(&want);
			goto out;
		}
		for (size_t j = 0; j < want.n; j++)
			bad += check_option(kb, &final, text, len, &want.v[j], frags->v[i], &errs);
		kconfig_release(&want);
	}
	if (bad) {
		error("%zu option%s did not stick in '%s' (unmet dependencies; the kernel would "
		      "lack %s):\n%s",
		      bad, bad == 1 ? "" : "s", cfg_path, bad == 1 ? "it" : "them", errs.buf);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&errs);
	kconfig_release(&final);
	free(text);
	free(cfg_path);
	return ret;
}

/* The fragments in merge order: tapboot's needs, the debug sets, the user's. */
static int gather_fragments(const struct kbuild *kb, const struct kbuild_config *c,
			    struct strlist *frags)
{
	struct strbuf sb;
	char *path;

	strbuf_init(&sb);
	if (needs_fragment(kb, c, &sb) < 0 || !(path = write_fragment(kb->out, "tapboot.config", &sb)))
		goto fail;
	strlist_push(frags, path);
	free(path);
	if (c->debug.n) {
		strbuf_reset(&sb);
		for (size_t i = 0; i < c->debug.n; i++)
			if (kbuild_debug_fragment(c->debug.v[i], &sb) < 0)
				goto fail;
		if (!(path = write_fragment(kb->out, "tapboot-debug.config", &sb)))
			goto fail;
		strlist_push(frags, path);
		free(path);
	}
	for (size_t i = 0; i < c->fragments.n; i++) {
		struct kconfig k = KCONFIG_INIT;
		int r = kconfig_read(c->fragments.v[i], &k); /* names a bad line by file and line */

		kconfig_release(&k);
		if (r < 0)
			goto fail;
		strlist_push(frags, c->fragments.v[i]);
	}
	strbuf_release(&sb);
	return 0;
fail:
	strbuf_release(&sb);
	return -1;
}

int kbuild_configure(const struct kbuild *kb, const struct kbuild_config *c)
{
	struct strlist frags, argv;
	char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", kb->src);
	char *cfg_path = xasprintf("%s/.config", kb->out);
	const char *olddef[] = {"olddefconfig", NULL};
	int ret = -1;

	strlist_init(&frags);
	strlist_init(&argv);
	if (kbuild_check_tree(kb) < 0 || gather_fragments(kb, c, &frags) < 0 ||
	    write_base(kb, c->base ? c->base : "tinyconfig") < 0)
		goto out;
	strlist_push(&argv, merge);
	strlist_push(&argv, "-m");
	strlist_push(&argv, "-O");
	strlist_push(&argv, kb->out);
	strlist_push(&argv, cfg_path);
	for (size_t i = 0; i < frags.n; i++)
		strlist_push(&argv, frags.v[i]);
	if (kbuild_run_logged(kb, &argv, "merge fragments") < 0 ||
	    kbuild_make(kb, olddef, "resolve the config") < 0)
		goto out;
	ret = check_fragments(kb, &frags);
out:
	strlist_release(&argv);
	strlist_release(&frags);
	free(cfg_path);
	free(merge);
	return ret;
}
