// SPDX-License-Identifier: GPL-2.0-only
/* debian.c: Debian's packaged kernels: the debian:ARCH[:RELEASE] spec, fetching with
 * scripts/fetch-kernel.sh into the cache, and listing what the cache holds. */
#include "debian.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch_config.h"
#include "cache.h"
#include "error.h"
#include "proc.h"
#include "paths.h"

bool kernel_debian_is_spec(const char *spec)
{
	return !strncmp(spec, KERNEL_DEBIAN_PREFIX, strlen(KERNEL_DEBIAN_PREFIX));
}

int kernel_debian_spec_parse(const char *spec, const char *want_arch, char **arch,
			     const char **release)
{
	const char *a = spec + strlen(KERNEL_DEBIAN_PREFIX);
	const char *colon = strchr(a, ':');

	*arch = colon ? xstrndup(a, (size_t)(colon - a)) : xstrdup(a);
	*release = colon ? colon + 1 : NULL;
	if (!**arch)
		error("--kernel %s names no architecture (debian:ARCH or debian:ARCH:RELEASE)",
		      spec);
	else if (want_arch && strcmp(want_arch, *arch))
		error("--kernel %s is for %s, but --arch says %s", spec, *arch, want_arch);
	else
		return 0;
	free(*arch);
	*arch = NULL;
	return -1;
}

bool kernel_debian_release_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

char *kernel_debian_codename(FILE *fp)
{
	char line[256], *rel = NULL;

	while (fp && !rel && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "VERSION_CODENAME=", 17) && line[17] != '\n')
			rel = xstrndup(line + 17, strcspn(line + 17, "\"\n"));
	return rel ? rel : xstrdup("unknown");
}

/* The machine's Debian release (VERSION_CODENAME), "unknown" when /etc/os-release lacks it. */
static char *host_release(void)
{
	FILE *fp = fopen("/etc/os-release", "r");
	char *rel = kernel_debian_codename(fp);

	if (fp)
		fclose(fp);
	return rel;
}

/* The arch's config must name a Debian kernel package: EXIT_PASS, or EXIT_USAGE after a
 * message. */
static int check_arch(const char *arch)
{
	struct arch_config cfg;
	int ret = EXIT_PASS;

	arch_config_init(&cfg);
	if (arch_config_load(&cfg, arch_config_dir(), arch) < 0) {
		ret = EXIT_USAGE;
	} else if (!cfg.debian_kernel || !*cfg.debian_kernel) {
		error("Debian ships no kernel for %s (%s has no debian_kernel): build one and pass "
		      "--kernel",
		      arch, cfg.path);
		ret = EXIT_USAGE;
	}
	arch_config_release(&cfg);
	return ret;
}

/* Run script ARCH RELEASE with its standard output into out and its wait status in *wstatus.
 * -1 after a message when it cannot be started or waited for. */
static int run_script(const char *script, const char *arch, const char *release, struct strbuf *out,
		      int *wstatus)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		return error_errno("cannot create a pipe");
	fflush(stdout);
	pid = proc_fork();
	if (pid < 0) {
		error_errno("cannot fork");
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		/* the script reads the same configs as this process, wherever they are */
		setenv("TAPBOOT_CONFIGS", arch_config_dir(), 1);
		close(pfd[0]);
		dup2(pfd[1], 1);
		close(pfd[1]);
		execl(script, script, arch, release ? release : "", (char *)NULL);
		fprintf(stderr, "%s: cannot run '%s': %s\n", error_prog(), script, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		char buf[4096];
		ssize_t n = read(pfd[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf_add(out, buf, (size_t)n);
	}
	close(pfd[0]);
	while (waitpid(pid, wstatus, 0) < 0)
		if (errno != EINTR)
			return error_errno("cannot wait for '%s'", script);
	return 0;
}

int kernel_debian_fetch_result(struct strbuf *out, int wstatus, const char *arch,
			       const char *release, const char *script)
{
	while (out->len && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = '\0';
	if (WIFEXITED(wstatus) && !WEXITSTATUS(wstatus) && out->len && !strchr(out->buf, '\n') &&
	    !access(out->buf, R_OK))
		return EXIT_PASS;
	error("cannot fetch Debian's kernel for %s%s%s: '%s %s%s%s' failed (%s %d)", arch,
	      release ? " from " : "", release ? release : "", script, arch, release ? " " : "",
	      release ? release : "", WIFEXITED(wstatus) ? "status" : "signal",
	      WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
	return WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 2 ? EXIT_USAGE : EXIT_VM;
}

char *kernel_debian_fetch(const char *arch, const char *release, int *status)
{
	char *script, *path = NULL;
	struct strbuf out = STRBUF_INIT;
	int wstatus;

	*status = EXIT_USAGE;
	if (release && !kernel_debian_release_ok(release)) {
		error("'%s' is no Debian release name (bookworm, trixie, ...)", release);
		return NULL;
	}
	if (check_arch(arch) != EXIT_PASS)
		return NULL;
	script = tapboot_script_path("fetch-kernel.sh");
	if (access(script, X_OK)) {
		error_errno("cannot run '%s'", script);
		free(script);
		return NULL;
	}
	*status = EXIT_VM;
	if (run_script(script, arch, release, &out, &wstatus) == 0) {
		*status = kernel_debian_fetch_result(&out, wstatus, arch, release, script);
		if (*status == EXIT_PASS)
			path = strbuf_detach(&out);
	}
	strbuf_release(&out);
	free(script);
	return path;
}

char *kernel_debian_resolve(const char *spec, const char *want_arch, char **arch_out)
{
	const char *release;
	char *arch, *path;
	int st;

	if (kernel_debian_spec_parse(spec, want_arch, &arch, &release) < 0)
		return NULL;
	path = kernel_debian_fetch(arch, release, &st);
	if (path)
		*arch_out = arch;
	else
		free(arch);
	return path;
}

void kernel_debian_list_line(FILE *fp, const char *dir, const char *image, const char *host_release)
{
	const char *dash = strchr(dir, '-');
	const char *base = strrchr(image, '/') ? strrchr(image, '/') + 1 : image;

	fprintf(fp, "%-8.*s  %-9s  %-24s  %s\n", dash ? (int)(dash - dir) : (int)strlen(dir), dir,
		dash ? dash + 1 : host_release, strchr(base, '-') ? strchr(base, '-') + 1 : base,
		image);
}

int kernel_debian_list(FILE *fp)
{
	char *cache = cache_dir(), *top = xasprintf("%s/kernels", cache), *rel = host_release();
	struct dirent **names = NULL;
	int n = scandir(top, &names, NULL, alphasort), shown = 0;

	for (int i = 0; i < n; i++) {
		const char *d = names[i]->d_name;
		char *file = xasprintf("%s/%s/image", top, d), line[4096];
		FILE *in = d[0] == '.' ? NULL : fopen(file, "r");

		if (in && fgets(line, sizeof(line), in)) {
			line[strcspn(line, "\n")] = '\0';
			if (!access(line, R_OK)) {
				kernel_debian_list_line(fp, d, line, rel);
				shown++;
			}
		}
		if (in)
			fclose(in);
		free(file);
		free(names[i]);
	}
	free(names);
	if (!shown)
		note("no kernels in %s (tapboot kernel fetch ARCH)", top);
	free(rel);
	free(top);
	free(cache);
	return shown;
}
