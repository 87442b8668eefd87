// SPDX-License-Identifier: GPL-2.0-only
/* proc.c: run a program and collect its standard output. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "error.h"

int proc_capture(const char *const *argv, struct strbuf *out, bool quiet_stderr)
{
	int pfd[2], status;
	pid_t pid;
	char buf[4096];

	if (pipe2(pfd, O_CLOEXEC))
		return error_errno("cannot create a pipe");
	pid = proc_fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return error_errno("cannot fork");
	}
	if (!pid) {
		dup2(pfd[1], 1);
		if (quiet_stderr) {
			int null = open("/dev/null", O_WRONLY);

			if (null >= 0)
				dup2(null, 2);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t r = read(pfd[0], buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		strbuf_add(out, buf, (size_t)r);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return error_errno("cannot wait for '%s'", argv[0]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

pid_t proc_fork(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent))
		_exit(127);
	return pid;
}
