// SPDX-License-Identifier: GPL-2.0-only
/* kbuild.c: the tree's make for `tapboot kernel build` (and config's make targets): ARCH and
 * CROSS_COMPILE from the architecture table, ccache when installed, the output in the build
 * directory's build.log with a progress line, the first compiler error when it fails; and why an
 * option did not stick, read from the tree's Kconfig files. */
#include "kbuild.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "kbuild_run.h"
#include "kconfig.h"
#include "proc.h"

/* The program's path on PATH, or NULL (caller frees). */
static char *find_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *save = NULL, *found = NULL;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	dirs = xstrdup(path);
	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *d ? d : ".", name);

		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(dirs);
	return found;
}

int kbuild_check_tree(const struct kbuild *kb)
{
	char *mk = xasprintf("%s/Makefile", kb->src);
	char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", kb->src);
	struct stat st;
	int ret = 0;

	if (stat(kb->src, &st) < 0 || !S_ISDIR(st.st_mode))
		ret = error("'%s' is not a kernel tree (not a directory)", kb->src);
	else if (access(mk, R_OK) < 0 || access(merge, R_OK) < 0)
		ret = error("'%s' is not a kernel tree (no Makefile and scripts/kconfig/"
			    "merge_config.sh)",
			    kb->src);
	else if (mkdir_p(kb->out) < 0)
		ret = -1;
	free(mk);
	free(merge);
	return ret;
}

/* The compiler prefix: none for LLVM=1; the table's cross_compile when that gcc is installed;
 * none on a host of the architecture itself. NULL after a message. */
static char *cross_prefix(const struct kbuild *kb)
{
	const struct arch_config *host = arch_config_host();
	char *gcc, *p;

	if (kb->llvm)
		return xstrdup("");
	/* the host's own compiler on a host of the architecture (what the kernel's docs do) */
	if (host && !strcmp(host->arch, kb->cfg->arch) && (p = find_on_path("gcc"))) {
		free(p);
		return xstrdup("");
	}
	gcc = xasprintf("%sgcc", kb->cfg->cross_compile);
	p = find_on_path(gcc);
	free(gcc);
	if (p) {
		free(p);
		return xstrdup(kb->cfg->cross_compile);
	}
	error("%sgcc not found: building a %s kernel needs Debian's cross compiler "
	      "(apt-get install gcc-%.*s)",
	      kb->cfg->cross_compile, kb->cfg->arch, (int)strlen(kb->cfg->cross_compile) - 1,
	      kb->cfg->cross_compile);
	return NULL;
}

static void push_fmt(struct strlist *l, const char *fmt, ...) FMT_PRINTF(2, 3);
static void push_fmt(struct strlist *l, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	strlist_push(l, s);
	free(s);
}

/* make's command line for targets. -1 after a message. */
static int make_argv(const struct kbuild *kb, const char *const *targets, struct strlist *argv)
{
	char *cross = cross_prefix(kb), *ccache;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!cross)
		return -1;
	strlist_push(argv, "make");
	strlist_push(argv, "-C");
	strlist_push(argv, kb->src);
	push_fmt(argv, "-j%u", kb->jobs ? kb->jobs : cpus > 0 ? (unsigned)cpus : 1);
	push_fmt(argv, "O=%s", kb->out);
	push_fmt(argv, "ARCH=%s",
		 kb->cfg->kbuild_arch && *kb->cfg->kbuild_arch ? kb->cfg->kbuild_arch : kb->cfg->kernel_arch);
	if (kb->llvm)
		strlist_push(argv, "LLVM=1");
	else if (*cross)
		push_fmt(argv, "CROSS_COMPILE=%s", cross);
	/* ccache when installed: an incremental build of a series or a bisection recompiles what
	 * another checkout compiled before */
	if ((ccache = find_on_path("ccache"))) {
		if (kb->llvm)
			push_fmt(argv, "CC=%s clang", ccache);
		else
			push_fmt(argv, "CC=%s %sgcc", ccache, cross);
		free(ccache);
	}
	for (size_t i = 0; targets[i]; i++)
		strlist_push(argv, targets[i]);
	free(cross);
	return 0;
}

static volatile sig_atomic_t group_term;

static void on_term(int sig)
{
	(void)sig;
	group_term = 1;
}

/* The child's side: a process group of its own, led by a small supervisor that kills the
 * whole group when tapboot dies (its PR_SET_PDEATHSIG is SIGTERM, which it can catch): make's
 * compilers would otherwise outlive a tapboot killed with SIGKILL, make alone being killed. */
static void supervise(const struct strlist *argv, int outfd)
{
	struct sigaction sa = {.sa_handler = on_term};
	pid_t pid;
	int status;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	setpgid(0, 0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	pid = fork();
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		dup2(outfd, 1);
		dup2(outfd, 2);
		close(outfd);
		execvp(argv->v[0], argv->v);
		fprintf(stderr, "tapboot: cannot run '%s': %s\n", argv->v[0], strerror(errno));
		_exit(127);
	}
	close(outfd);
	while (pid > 0 && waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR || group_term) {
			signal(SIGTERM, SIG_IGN);
			kill(0, SIGKILL);
		}
	}
	_exit(pid < 0 ? 127 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* The progress line on a terminal: how many lines make printed, and the last one. */
static void progress(const struct kbuild *kb, const char *what, unsigned lines, const char *last)
{
	if (kb->quiet || !isatty(2))
		return;
	fprintf(stderr, "\r\033[Ktapboot: %s: %u steps  %.50s", what, lines, last);
	fflush(stderr);
}

/* Copy the child's output into the log, counting lines. */
static void pump_log(const struct kbuild *kb, const char *what, int rfd, FILE *log)
{
	char buf[8192], last[128] = "";
	size_t llen = 0;
	unsigned lines = 0;
	ssize_t n;

	while ((n = read(rfd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		fwrite(buf, 1, n, log);
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				last[llen] = '\0';
				lines++;
				progress(kb, what, lines, last);
				llen = 0;
			} else if (llen < sizeof(last) - 1 && buf[i] != '\r') {
				last[llen++] = buf[i];
			}
		}
	}
	fflush(log);
	if (!kb->quiet && isatty(2))
		fputs("\r\033[K", stderr);
}

int kbuild_run_logged(const struct kbuild *kb, const struct strlist *argv, const char *what)
{
	char *log_path = xasprintf("%s/build.log", kb->out);
	FILE *log = fopen(log_path, "a");
	long start;
	int fds[2], status, ret = -1;
	pid_t pid;

	if (!log) {
		error_errno("cannot open '%s'", log_path);
		free(log_path);
		return -1;
	}
	fseek(log, 0, SEEK_END);
	start = ftell(log);
	fprintf(log, "==== tapboot: %s:", what);
	for (size_t i = 0; i < argv->n; i++)
		fprintf(log, " %s", argv->v[i]);
	fputc('\n', log);
	fflush(log);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		error_errno("cannot make a pipe");
		goto out;
	}
	pid = proc_fork();
	if (pid < 0) {
		error_errno("cannot fork");
		close(fds[0]);
		close(fds[1]);
		goto out;
	}
	if (pid == 0) {
		close(fds[0]);
		supervise(argv, fds[1]);
	}
	close(fds[1]);
	pump_log(kb, what, fds[0], log);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		ret = 0;
	} else {
		char *text = NULL, *first;
		size_t len = 0;

		fflush(log);
		if (read_file(log_path, &text, &len) == 0 && (size_t)start <= len) {
			first = kbuild_first_error(text + start, len - start);
			error("%s failed (%s %s, log: '%s')%s%s", what, argv->v[0],
			      WIFEXITED(status) ? "exited with an error" : "was killed", log_path,
			      *first ? ":\n" : "", first);
			free(first);
		} else {
			error("%s failed (log: '%s')", what, log_path);
		}
		free(text);
	}
out:
	fclose(log);
	free(log_path);
	return ret;
}

int kbuild_make(const struct kbuild *kb, const char *const *targets, const char *what)
{
	struct strlist argv;
	int ret;

	strlist_init(&argv);
	ret = make_argv(kb, targets, &argv) < 0 ? -1 : kbuild_run_logged(kb, &argv, what);
	strlist_release(&argv);
	return ret;
}

/* The line at p (up to its newline) and up to `more` lines after it, appended to out. */
static void add_lines(struct strbuf *out, const char *p, const char *end, int more)
{
	const char *e = p;

	for (int i = 0; i <= more && e < end; i++) {
		const char *nl = memchr(e, '\n', end - e);

		e = nl ? nl + 1 : end;
	}
	strbuf_add(out, p, e - p);
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
}

char *kbuild_first_error(const char *log, size_t len)
{
	static const char *const marks[] = {": error:", ": fatal error:", "undefined reference to",
					    "Error: "};
	const char *end = log + len, *make_line = NULL;
	struct strbuf out;

	strbuf_init(&out);
	for (const char *p = log; p < end;) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;
		size_t n = le - p;

		for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
			if (memmem(p, n, marks[i], strlen(marks[i]))) {
				add_lines(&out, p, end, 2);
				return strbuf_detach(&out);
			}
		}
		if (!make_line && memmem(p, n, "***", 3))
			make_line = p;
		p = nl ? nl + 1 : end;
	}
	if (make_line)
		add_lines(&out, make_line, end, 0);
	else
		strbuf_addstr(&out, "");
	return strbuf_detach(&out);
}

int kbuild_build(const struct kbuild *kb, char **image)
{
	char *cfg_path = xasprintf("%s/.config", kb->out);
	const char *targets[3] = {NULL, NULL, NULL};
	struct kconfig kc = KCONFIG_INIT;
	const char *first;
	char *what = NULL;
	int ret = -1;

	*image = NULL;
	if (access(cfg_path, R_OK) < 0) {
		error("no .config in '%s': make one first (tapboot kernel config SRC -O %s)", kb->out,
		      kb->out);
		goto out;
	}
	if (kbuild_check_tree(kb) < 0 || kconfig_read(cfg_path, &kc) < 0)
		goto out;
	if (!kb->cfg->image_paths.n) {
		error("%s: no image_paths: tapboot does not know which image a %s build makes",
		      kb->cfg->path, kb->cfg->arch);
		goto out;
	}
	first = kb->cfg->image_paths.v[0];
	targets[0] = strrchr(first, '/') ? strrchr(first, '/') + 1 : first;
	if (kconfig_is_y(&kc, "CONFIG_MODULES"))
		targets[1] = "modules";
	what = xasprintf("build the %s kernel", kb->cfg->arch);
	if (kbuild_make(kb, targets, what) < 0)
		goto out;
	*image = xasprintf("%s/%s", kb->out, first);
	if (access(*image, R_OK) < 0) {
		error("the build made no '%s'", *image);
		free(*image);
		*image = NULL;
		goto out;
	}
	ret = 0;
out:
	free(what);
	kconfig_release(&kc);
	free(cfg_path);
	return ret;
}
