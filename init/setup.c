// SPDX-License-Identifier: GPL-2.0-only
/* setup.c: PID 1's set-up (file systems, console) and its only way out (power off). */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

struct mnt {
	const char *src, *dir, *type;
	unsigned long flags;
	const char *data;
	bool required;
};

#define NSE (MS_NOSUID | MS_NODEV | MS_NOEXEC)

/* Order matters: /dev before the console, /sys before the file systems mounted under it.
 * /tmp and /dev/shm allow exec: kselftests build and run helpers there. */
static const struct mnt mounts[] = {
	{"proc", "/proc", "proc", NSE, NULL, true},
	{"sysfs", "/sys", "sysfs", NSE, NULL, true},
	{"devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755", true},
	{"devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "gid=5,mode=620,ptmxmode=666",
	 false},
	{"tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777", false},
	{"tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777", true},
	{"tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755", true},
	{"debugfs", "/sys/kernel/debug", "debugfs", NSE, NULL, false},
	{"tracefs", "/sys/kernel/tracing", "tracefs", NSE, NULL, false},
	{"configfs", "/sys/kernel/config", "configfs", NSE, NULL, false},
	{"cgroup2", "/sys/fs/cgroup", "cgroup2", NSE, NULL, false},
	{"bpf", "/sys/fs/bpf", "bpf", NSE, "mode=0700", false},
};

/* What devtmpfs lacks and shells and tests expect (systemd and busybox mdev add them too). */
static const char *const links[][2] = {
	{"/proc/self/fd", "/dev/fd"},
	{"/proc/self/fd/0", "/dev/stdin"},
	{"/proc/self/fd/1", "/dev/stdout"},
	{"/proc/self/fd/2", "/dev/stderr"},
};

static int console_open(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);

	if (fd < 0)
		return fcntl(1, F_GETFD) < 0 ? -1 : 0; /* keep what the kernel gave us */
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
	return 0;
}

int init_setup_pid1(char **why, struct strbuf *diag)
{
	*why = NULL;
	umask(022);
	for (size_t i = 0; i < ARRAY_SIZE(mounts); i++) {
		const struct mnt *m = &mounts[i];

		mkdir(m->dir, 0755);
		if (!mount(m->src, m->dir, m->type, m->flags, m->data) || errno == EBUSY)
			continue;
		/* ENODEV: not in this kernel; ENOENT: its mount point is missing (no
		 * /sys/kernel/debug without CONFIG_DEBUG_FS). Neither is an error. */
		if (!m->required && (errno == ENODEV || errno == ENOENT))
			continue;
		if (m->required && !*why)
			*why = xasprintf("cannot mount %s on %s: %s", m->type, m->dir,
					 strerror(errno));
		else if (!m->required)
			strbuf_addf(diag, "# init: cannot mount %s on %s: %s\n", m->type, m->dir,
				    strerror(errno));
	}
	for (size_t i = 0; i < ARRAY_SIZE(links); i++)
		if (symlink(links[i][0], links[i][1]) < 0 && errno != EEXIST)
			strbuf_addf(diag, "# init: cannot link %s: %s\n", links[i][1],
				    strerror(errno));
	if (console_open() < 0 && !*why)
		*why = xasprintf("cannot open /dev/console: %s", strerror(errno));
	return *why ? -1 : 0;
}

void init_power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	/* Returning from PID 1 panics the kernel; with signals blocked this waits forever. */
	for (;;)
		pause();
}
