// SPDX-License-Identifier: GPL-2.0-only
/* handoff.c: snapshot boot's ready point. The init has done its set-up; it says so on the
 * console and waits for the host's line of per-VM parameters (protocol.h). The host may save the
 * VM while it waits and start any number of VMs from that state, so everything that must differ
 * between two such VMs is applied here: the run's secret, the kernel's randomness (restored VMs
 * would otherwise share one RNG state and print the same "random" bytes) and the wall clock
 * (frozen at the save otherwise). */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "protocol.h"

/* The line is the host's: a few hundred bytes, a long tapboot.only= list at most. */
#define HANDOFF_MAX (1u << 20)

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One line from fd (without its end of line; a '\r' is dropped). NULL at EOF or error. Read
 * as it comes, not byte by byte: each read of a console under TCG costs a system call's round
 * trip (a 300-byte line took 200 of them). The host sends nothing after the line until the
 * tests' output is over, so what a read returns past the '\n' is nothing. */
static char *read_line(int fd)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[512];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || sb.len > HANDOFF_MAX) {
			strbuf_release(&sb);
			return NULL;
		}
		nl = memchr(buf, '\n', (size_t)n);
		for (ssize_t i = 0; i < (nl ? nl - buf : n); i++)
			if (buf[i] != '\r')
				strbuf_addch(&sb, buf[i]);
		if (nl)
			break;
	}
	return strbuf_detach(&sb);
}

/* Credit the seed (the host's getrandom bytes) to the input pool, which makes a kernel whose
 * generator is not ready yet seed it (a quick boot has not gathered 256 bits), then make the
 * kernel reseed from it now (RNDRESEEDCRNG, Linux 4.17): without that a ready generator keeps
 * the state every VM restored from one snapshot shares. */
static void reseed(struct init_ctx *c)
{
	struct {
		struct rand_pool_info info;
		unsigned char buf[32];
	} add;
	int fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);

	_Static_assert(sizeof(add.buf) == sizeof(c->opt.seed), "the seed fills the buffer");
	add.info.entropy_count = 8 * (int)sizeof(add.buf);
	add.info.buf_size = (int)sizeof(add.buf);
	memcpy(add.buf, c->opt.seed, sizeof(add.buf));
	if (fd < 0 || ioctl(fd, RNDADDENTROPY, &add) < 0 || ioctl(fd, RNDRESEEDCRNG) < 0)
		strbuf_addf(&c->out, "# init: cannot reseed the kernel's RNG: %s\n",
			    strerror(errno));
	memset(&add, 0, sizeof(add));
	if (fd >= 0)
		close(fd);
}

int init_handoff(struct init_ctx *c, int in, int out, char **why)
{
	struct termios saved, t;
	bool tty = tcgetattr(in, &saved) == 0;
	char *line;

	*why = NULL;
	if (tty) {
		/* No echo (the line holds the secret; the console is the host's log), no
		 * line editing or CR translation; the output side is left as it is. */
		t = saved;
		t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
		t.c_iflag &= ~(tcflag_t)(ICRNL | INLCR | IGNCR | IXON | ISTRIP);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		tcsetattr(in, TCSANOW, &t);
	}
	if (write_all(out, TAPBOOT_READY_LINE "\n", strlen(TAPBOOT_READY_LINE) + 1) < 0) {
		*why = xasprintf("cannot write the ready line: %s", strerror(errno));
		line = NULL;
	} else {
		line = read_line(in);
		if (!line)
			*why = xstrdup("the console's input ended before the host's handoff line");
	}
	if (tty)
		tcsetattr(in, TCSANOW, &saved);
	if (!line)
		return -1;
	init_options_parse_handoff(&c->opt, line);
	memset(line, 0, strlen(line));
	free(line);
	if (c->opt.have_key && !c->keyed) {
		memcpy(c->key, c->opt.key, sizeof(c->key));
		c->keyed = true;
	}
	memset(c->opt.key, 0, sizeof(c->opt.key));
	if (c->opt.have_seed && c->pid1)
		reseed(c);
	if (c->opt.have_time && c->pid1) {
		struct timespec ts = {.tv_sec = (time_t)c->opt.time_s, .tv_nsec = c->opt.time_ns};

		if (clock_settime(CLOCK_REALTIME, &ts) < 0)
			strbuf_addf(&c->out, "# init: cannot set the clock: %s\n",
				    strerror(errno));
	}
	return 0;
}
