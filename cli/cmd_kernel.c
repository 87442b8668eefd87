/* cmd_kernel.c: tapboot kernel fetch|list: Debian's packaged kernels in the cache, and the
 * debian:ARCH[:RELEASE] spelling of --kernel. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch_config.h"
#include "commands.h"
#include "error.h"
#include "paths.h"
#include "proc.h"
#include "strbuf.h"

static const char kernel_usage[] =
	"usage: tapboot kernel fetch ARCH [--release RELEASE]\n"
	"       tapboot kernel list\n"
	"\n"
	"  fetch ARCH           download Debian's packaged kernel for ARCH (its image, config\n"
	"                       and modules) into the cache, unless it is there, and print the\n"
	"                       image's path; no root needed (apt's state is kept in the cache)\n"
	"  --release RELEASE    a Debian release (bookworm, trixie, ...; default: this\n"
	"                       machine's apt sources)\n"
	"  list                 the cached kernels: ARCH, RELEASE, VERSION, IMAGE\n"
	"\n"
	"tapboot run --kernel debian:ARCH[:RELEASE] fetches the same way when needed.\n"
	"Exit status: 0 done, 2 bad usage or an unknown architecture, 3 the download failed.\n";

/* The machine's Debian release (VERSION_CODENAME), "unknown" when /etc/os-release lacks it. */
static char *host_release(void)
{
	FILE *fp = fopen("/etc/os-release", "r");
	char line[256], *rel = NULL;

	while (fp && !rel && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "VERSION_CODENAME=", 17) && line[17] != '\n')
			rel = xstrndup(line + 17, strcspn(line + 17, "\"\n"));
	if (fp)
		fclose(fp);
	return rel ? rel : xstrdup("unknown");
}

static bool release_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

char *cli_kernel_fetch(const char *arch, const char *release, int *status)
{
	struct arch_config cfg;
	char *script, *path = NULL;
	struct strbuf out = STRBUF_INIT;
	int pfd[2], st;
	pid_t pid;

	*status = EXIT_USAGE;
	if (release && !release_name_ok(release)) {
		error("'%s' is no Debian release name (bookworm, trixie, ...)", release);
		return NULL;
	}
	arch_config_init(&cfg);
	if (arch_config_load(&cfg, arch_config_dir(), arch) < 0) {
		arch_config_release(&cfg);
		return NULL;
	}
	if (!cfg.debian_kernel || !*cfg.debian_kernel) {
		error("Debian ships no kernel for %s (%s has no debian_kernel): build one and pass "
		      "--kernel",
		      arch, cfg.path);
		arch_config_release(&cfg);
		return NULL;
	}
	arch_config_release(&cfg);
	script = tapboot_script_path("fetch-kernel.sh");
	if (access(script, X_OK)) {
		error_errno("cannot run '%s'", script);
		free(script);
		return NULL;
	}
	*status = EXIT_VM;
	if (pipe(pfd)) {
		error_errno("cannot create a pipe");
		free(script);
		return NULL;
	}
	fflush(stdout);
	pid = proc_fork();
	if (pid < 0) {
		error_errno("cannot fork");
		close(pfd[0]);
		close(pfd[1]);
		free(script);
		return NULL;
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
		strbuf_add(&out, buf, (size_t)n);
	}
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			error_errno("cannot wait for '%s'", script);
			goto out;
		}
	while (out.len && out.buf[out.len - 1] == '\n')
		out.buf[--out.len] = '\0';
	if (!WIFEXITED(st) || WEXITSTATUS(st) || !out.len || strchr(out.buf, '\n') ||
	    access(out.buf, R_OK)) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
			*status = EXIT_USAGE;
		error("cannot fetch Debian's kernel for %s%s%s: '%s %s%s%s' failed (%s %d)", arch,
		      release ? " from " : "", release ? release : "", script, arch,
		      release ? " " : "", release ? release : "",
		      WIFEXITED(st) ? "status" : "signal",
		      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		goto out;
	}
	path = strbuf_detach(&out);
	*status = EXIT_PASS;
out:
	strbuf_release(&out);
	free(script);
	return path;
}

char *cli_kernel_spec(const char *spec, const char *want_arch, char **arch_out)
{
	const char *a = spec + strlen(CLI_KERNEL_DEBIAN);
	const char *colon = strchr(a, ':');
	char *arch = colon ? xstrndup(a, (size_t)(colon - a)) : xstrdup(a);
	char *path = NULL;
	int st;

	if (!*arch) {
		error("--kernel %s names no architecture (debian:ARCH or debian:ARCH:RELEASE)", spec);
	} else if (want_arch && strcmp(want_arch, arch)) {
		error("--kernel %s is for %s, but --arch says %s", spec, arch, want_arch);
	} else {
		path = cli_kernel_fetch(arch, colon ? colon + 1 : NULL, &st);
	}
	if (path)
		*arch_out = arch;
	else
		free(arch);
	return path;
}

static int kernel_fetch(int argc, char **argv)
{
	enum { OPT_RELEASE = 256 };
	static const struct option longopts[] = {
		{ "release", required_argument, NULL, OPT_RELEASE },
		CLI_HELP_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	const char *release = NULL;
	char *path;
	int c, status;

	optind = 0; /* GNU getopt: a full re-initialisation */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_RELEASE:
			release = optarg;
			break;
		default:
			return cli_usage_option(c, kernel_usage, "kernel");
		}
	}
	if (argc - optind != 1) {
		error("kernel fetch wants one architecture (try 'tapboot kernel --help')");
		return EXIT_USAGE;
	}
	path = cli_kernel_fetch(argv[optind], release, &status);
	if (path)
		printf("%s\n", path);
	free(path);
	return status;
}

/* Each kernels/DIR/image the fetch script left: DIR is ARCH or ARCH-RELEASE. */
static int kernel_list(void)
{
	char *cache = cache_dir(), *top = xasprintf("%s/kernels", cache), *rel = host_release();
	struct dirent **names = NULL;
	int n = scandir(top, &names, NULL, alphasort), shown = 0;

	for (int i = 0; i < n; i++) {
		const char *d = names[i]->d_name, *dash = strchr(d, '-');
		char *file = xasprintf("%s/%s/image", top, d), line[4096];
		FILE *fp = d[0] == '.' ? NULL : fopen(file, "r");

		if (fp && fgets(line, sizeof(line), fp)) {
			const char *base;

			line[strcspn(line, "\n")] = '\0';
			base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
			if (!access(line, R_OK)) {
				printf("%-8.*s  %-9s  %-24s  %s\n",
				       dash ? (int)(dash - d) : (int)strlen(d), d,
				       dash ? dash + 1 : rel,
				       strchr(base, '-') ? strchr(base, '-') + 1 : base, line);
				shown++;
			}
		}
		if (fp)
			fclose(fp);
		free(file);
		free(names[i]);
	}
	free(names);
	if (!shown)
		fprintf(stderr, "tapboot: no kernels in %s (tapboot kernel fetch ARCH)\n", top);
	free(rel);
	free(top);
	free(cache);
	return EXIT_PASS;
}

int cmd_kernel(int argc, char **argv)
{
	if (argc < 2) {
		fputs(kernel_usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(kernel_usage, stdout);
		return EXIT_PASS;
	}
	if (!strcmp(argv[1], "fetch"))
		return kernel_fetch(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list")) {
		if (argc > 2) {
			error("kernel list takes no arguments");
			return EXIT_USAGE;
		}
		return kernel_list();
	}
	error("unknown kernel command '%s' (fetch or list)", argv[1]);
	fputs(kernel_usage, stderr);
	return EXIT_USAGE;
}
