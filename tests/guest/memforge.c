// SPDX-License-Identifier: GPL-2.0-only
/* memforge.c: issue 41's forgery by a root test: read the line-tag key out of PID 1's memory
 * (/proc/1/mem over the ranges of /proc/1/maps), find it by trying every 16-byte window against
 * a tagged line the init left in its buffers (SipHash, lib/line_tag.c), take the nonce from the
 * same memory, and write tagged lines to /dev/console: its own verdict a pass, the next test's
 * run line and a pass for it, and the end line. Then it exits 1 (its real verdict: fail).
 * usage: memforge NEXT_NAME. Prints what it could do. Where the init's memory is out of its
 * reach (init/privilege.c), it stops at the first step. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the tag code itself, as the init and the host use it */
#include "../../lib/base64.c"
#include "../../lib/error.c"
#include "../../lib/line_tag.c"
#include "../../lib/strbuf.c"

struct region {
	unsigned char *p;
	size_t n;
};

static struct region regions[64];
static size_t nregions;

static int read_memory(void)
{
	FILE *maps = fopen("/proc/1/maps", "r");
	char line[512];
	int mem = open("/proc/1/mem", O_RDONLY);

	if (!maps || mem < 0) {
		printf("memforge: cannot open /proc/1/%s: %s\n", maps ? "mem" : "maps",
		       strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), maps) && nregions < 64) {
		unsigned long lo, hi;
		char perms[8];
		ssize_t got;

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' ||
		    perms[1] != 'w' || hi - lo > (64ul << 20))
			continue;
		regions[nregions].p = malloc(hi - lo);
		got = pread(mem, regions[nregions].p, hi - lo, (off_t)lo);
		if (got <= 0) {
			printf("memforge: cannot read /proc/1/mem at %lx: %s\n", lo,
			       got < 0 ? strerror(errno) : "nothing");
			free(regions[nregions].p);
			continue;
		}
		regions[nregions++].n = (size_t)got;
	}
	fclose(maps);
	close(mem);
	printf("memforge: read %zu writable regions of PID 1\n", nregions);
	return nregions ? 0 : -1;
}

/* The most recent tagged "# tapboot: run N NAME ~tb:SEQ:TAG" line in memory (highest SEQ). */
static int find_run_line(char *out, size_t size, uint64_t *seq, uint64_t *tag, size_t *body)
{
	uint64_t best = 0;

	for (size_t r = 0; r < nregions; r++) {
		const unsigned char *p = regions[r].p, *end = p + regions[r].n;

		for (const unsigned char *m = p; (m = memmem(m, (size_t)(end - m), "# tapboot: run ", 15));
		     m++) {
			size_t n = 0, b;
			uint64_t s, t;

			while (m + n < end && n < size - 1 && m[n] != '\n' && m[n] != '\0')
				n++;
			if (line_tag_split((const char *)m, n, &b, &s, &t) && s > best) {
				best = s;
				memcpy(out, m, n);
				out[n] = '\0';
				*seq = s;
				*tag = t;
				*body = b;
			}
		}
	}
	return best ? 0 : -1;
}

static int find_key(const char *line, size_t body, uint64_t seq, uint64_t tag, unsigned char key[16])
{
	for (size_t r = 0; r < nregions; r++)
		for (size_t i = 0; i + 16 <= regions[r].n; i++)
			if (line_tag_mac(regions[r].p + i, seq, line, body) == tag) {
				memcpy(key, regions[r].p + i, 16);
				return 0;
			}
	return -1;
}

/* The nonce: after "nonce=" in a line the init kept, else its own copy, a string of 32 hex
 * digits on its own (the key's hex, in the handoff line's buffer, is left out). */
static int find_nonce(char nonce[33], const unsigned char key[16])
{
	char keyhex[33];

	for (int i = 0; i < 16; i++)
		snprintf(keyhex + 2 * i, 3, "%02x", key[i]);
	for (size_t r = 0; r < nregions; r++) {
		const unsigned char *p = regions[r].p, *end = p + regions[r].n;

		for (const unsigned char *m = p; (m = memmem(m, (size_t)(end - m), "nonce=", 6)); m++) {
			size_t k = 0;

			while (k < 32 && m + 6 + k < end && isxdigit(m[6 + k]))
				k++;
			if (k == 32) {
				memcpy(nonce, m + 6, 32);
				nonce[32] = '\0';
				return 0;
			}
		}
	}
	for (size_t r = 0; r < nregions; r++) {
		const unsigned char *p = regions[r].p;

		for (size_t i = 1; i + 33 <= regions[r].n; i++) {
			size_t k = 0;

			if (isxdigit(p[i - 1]) || p[i - 1] == '=')
				continue;
			while (k < 32 && isxdigit(p[i + k]) && !isupper(p[i + k]))
				k++;
			if (k == 32 && p[i + 32] == '\0' && memcmp(p + i, keyhex, 32)) {
				memcpy(nonce, p + i, 32);
				nonce[32] = '\0';
				return 0;
			}
		}
	}
	return -1;
}

static void emit(int con, const unsigned char key[16], uint64_t seq, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	line_tag_append(&sb, key, seq, s, strlen(s));
	strbuf_addch(&sb, '\n');
	if (write(con, sb.buf, sb.len) < 0)
		perror("memforge: write");
	printf("memforge: wrote %s", sb.buf);
	strbuf_release(&sb);
}

int main(int argc, char **argv)
{
	char line[512], me[256], nonce[33], s[600];
	unsigned char key[16];
	uint64_t seq, tag;
	size_t body;
	unsigned num;
	int con;

	if (argc < 2)
		return 2;
	if (read_memory() < 0)
		return 1;
	if (find_run_line(line, sizeof(line), &seq, &tag, &body) < 0 ||
	    sscanf(line, "# tapboot: run %u %255s", &num, me) != 2) {
		printf("memforge: no tagged run line in PID 1's memory\n");
		return 1;
	}
	printf("memforge: the init's last run line: %s\n", line);
	if (find_key(line, body, seq, tag, key) < 0) {
		printf("memforge: no key found\n");
		return 1;
	}
	printf("memforge: found the key\n");
	con = open("/dev/console", O_WRONLY);
	snprintf(s, sizeof(s), "ok %u %s # time=1ms", num, me);
	emit(con, key, seq + 1, s);
	snprintf(s, sizeof(s), "# tapboot: run %u %s", num + 1, argv[1]);
	emit(con, key, seq + 2, s);
	snprintf(s, sizeof(s), "ok %u %s # time=1ms", num + 1, argv[1]);
	emit(con, key, seq + 3, s);
	if (find_nonce(nonce, key) < 0) {
		printf("memforge: no nonce found: no end line\n");
		return 1;
	}
	snprintf(s, sizeof(s), "# tapboot: end nonce=%s pass=%u fail=0 skip=0 xfail=0 xpass=0 timeout=0",
		 nonce, num + 1);
	emit(con, key, seq + 4, s);
	return 1;
}
