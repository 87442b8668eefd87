// SPDX-License-Identifier: GPL-2.0-only
/* stall.c: how long a VM's QEMU did not run while a test ran (a SIGSTOP, an overloaded host),
 * read on the host, so that a timeout the stall caused says so. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "vm.h"

/* A stopped process (SIGSTOP, SIGTSTP; 't': traced) is 'T' in /proc/PID/stat's third field,
 * after the command in parentheses (which may hold anything, so the last ')'). */
static bool proc_stopped(pid_t pid)
{
	char path[64], buf[512], *p;
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
}

/* Each thread's run delay (the second field of /proc/PID/task/TID/schedstat: nanoseconds spent
 * runnable but waiting for a CPU), into s's baseline (base) or as the largest growth since it
 * (the vCPU thread that waited longest: threads wait at the same time, so no sum). */
static double run_delay(struct vm_stall *s, pid_t pid, bool base)
{
	char path[64];
	struct dirent *de;
	double worst = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	if (base)
		s->nbase = 0;
	while ((de = readdir(d))) {
		char file[96];
		unsigned long long run, delay;
		long tid;
		FILE *fp;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = strtol(de->d_name, NULL, 10);
		snprintf(file, sizeof(file), "%s/%ld/schedstat", path, tid);
		fp = fopen(file, "r");
		if (!fp)
			continue;
		if (fscanf(fp, "%llu %llu", &run, &delay) != 2) {
			fclose(fp);
			continue;
		}
		fclose(fp);
		if (base) {
			if (s->nbase < ARRAY_SIZE(s->base))
				s->base[s->nbase++] = (struct vm_stall_thread){(pid_t)tid, delay};
			continue;
		}
		for (size_t i = 0; i < s->nbase; i++)
			if (s->base[i].tid == (pid_t)tid && delay > s->base[i].delay_ns &&
			    (double)(delay - s->base[i].delay_ns) / 1e9 > worst)
				worst = (double)(delay - s->base[i].delay_ns) / 1e9;
	}
	closedir(d);
	return worst;
}

void stall_begin(struct vm_stall *s, pid_t pid)
{
	s->stopped_s = 0;
	s->last_tick = now_s();
	s->on = pid > 0;
	if (s->on)
		run_delay(s, pid, true);
}

void stall_tick(struct vm_stall *s, pid_t pid)
{
	double now = now_s();

	if (!s->on)
		return;
	/* the watch loop ticks every 200 ms at most (qemu/launch.c): the time since the last
	 * tick is counted when the process is stopped now */
	if (proc_stopped(pid))
		s->stopped_s += now - s->last_tick;
	s->last_tick = now;
}

double stall_end(struct vm_stall *s, pid_t pid)
{
	double delay;

	if (!s->on)
		return 0;
	stall_tick(s, pid);
	delay = run_delay(s, pid, false);
	s->on = false;
	return s->stopped_s + delay;
}

char *stall_reason(const char *reason, double stall_s)
{
	return xasprintf("%s (QEMU was stopped or starved for %.1f s of it)",
			 reason && *reason ? reason : "timeout", stall_s);
}
