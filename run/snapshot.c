/* snapshot.c: snapshot boot. A VM is saved once at the init's ready point (set-up done, waiting
 * for its per-VM line) into the cache, keyed by everything the saved state depends on (QEMU's
 * version and command line, the kernel's and the image's contents); later VMs start from that
 * file instead of booting. The file is checked (size and checksum) before every use: a
 * corrupted or truncated one is removed and saved again, never booted. Whatever fails, the
 * run goes on with cold boots that wait for the same handoff line, so the results are the
 * same. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "cache.h"
#include "error.h"
#include "fs.h"
#include "kernel_image.h"
#include "run.h"
#include "strbuf.h"

/* Saving writes tens of MB; loading one takes well under a second here. Generous: a loaded
 * two-core machine. */
#define SAVE_TIMEOUT_S 120.0

const char *snapshot_state_name(enum snapshot_state s)
{
	switch (s) {
	case SNAPSHOT_OFF:
		return "off";
	case SNAPSHOT_BUILD:
		return "saved by this run";
	case SNAPSHOT_READY:
		return "restored";
	case SNAPSHOT_FIRST:
		return "not saved (the first boot of this kernel and image; the next run saves it)";
	default:
		return "failed (cold boots)";
	}
}

void snapshot_release(struct run_snapshot *s)
{
	free(s->path);
	free(s->sum_path);
	free(s->seen_path);
	memset(s, 0, sizeof(*s));
}

void snapshot_fail(struct run *r, const char *why)
{
	r->snap.state = SNAPSHOT_FAILED;
	if (r->snap.noted)
		return;
	r->snap.noted = true;
	if (!r->o->quiet)
		fprintf(stderr, "tapboot: snapshot boot off for this run: %s; the VMs boot cold "
				"(the same results)\n",
			why);
}

void snapshot_setup(struct run *r)
{
	memset(&r->snap, 0, sizeof(r->snap));
	r->snap.state = SNAPSHOT_OFF;
	if (r->o->no_snapshot)
		return;
	r->snap.handoff = true;
	r->snap.state = SNAPSHOT_BUILD;
	if (r->cfg.snapshot_off && *r->cfg.snapshot_off)
		snapshot_fail(r, r->cfg.snapshot_off);
}

/* A checksum over the whole file (not a cryptographic hash: it finds a truncated or damaged
 * file; whoever can write the cache can run anything as the user anyway). Four 64-bit lanes,
 * multiply and rotate: a 50 MB state is read and summed in a few tens of milliseconds. */
static int file_checksum(const char *path, uint64_t *sum, uint64_t *size)
{
	static const uint64_t k[4] = {0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
				      0x165667b19e3779f9ull, 0xd6e8feb86659fd93ull};
	uint64_t lane[4] = {1, 2, 3, 4}, total = 0;
	size_t bufsize = 1 << 20;
	unsigned char *buf = xmalloc(bufsize);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		free(buf);
		return -1;
	}
	while ((n = read(fd, buf, bufsize)) > 0) {
		size_t whole = (size_t)n & ~(size_t)31, i;

		for (i = 0; i < whole; i += 32)
			for (int l = 0; l < 4; l++) {
				uint64_t w;

				memcpy(&w, buf + i + 8 * l, 8);
				lane[l] = (lane[l] ^ w) * k[l];
				lane[l] = lane[l] << 29 | lane[l] >> 35;
			}
		for (; i < (size_t)n; i++)
			lane[i & 3] = (lane[i & 3] ^ buf[i]) * k[i & 3];
		total += (uint64_t)n;
		/* a read that is not a multiple of 32 bytes is the file's end (regular file) */
	}
	free(buf);
	close(fd);
	if (n < 0)
		return -1;
	*sum = total;
	for (int l = 0; l < 4; l++)
		*sum = (*sum ^ lane[l]) * k[l] + (uint64_t)l;
	*size = total;
	return 0;
}

/* The sha256 of a file, through the stat cache (the kernel is the same file run after run;
 * the image is new each run and small). "" when unreadable. */
static void content_hash(const char *path, char hex[65])
{
	if (stat_cache_get(STAT_CACHE_SHA256, path, hex, 65) && strlen(hex) == 64)
		return;
	if (file_sha256(path, hex) < 0) {
		hex[0] = '\0';
		return;
	}
	stat_cache_put(STAT_CACHE_SHA256, path, hex);
}

/* What the saved state depends on, as text: QEMU's version, its command line with the kernel
 * and image as content hashes, TCG's threading left out (one host thread or one per vCPU is
 * not part of the guest's state). */
static void key_text(struct run *r, const struct strlist *argv, struct strbuf *sb)
{
	char ver[256], hex[65];

	run_qemu_version(r->cfg.qemu, ver, sizeof(ver));
	strbuf_addf(sb, "tapboot snapshot 1\nqemu %s\n", ver);
	for (size_t i = 0; i < argv->n; i++) {
		const char *prev = i ? argv->v[i - 1] : "";

		if (!strcmp(prev, "-kernel") && strcmp(r->boot_kernel, r->kernel_image) &&
		    !strcmp(argv->v[i], r->boot_kernel) && run_kernel_sha256(r)) {
			/* unpacked on the host into the cache, named by the image's sha256: the
			 * image's hash (stat-cached) names it. Hashing the 60-70 MB vmlinux cost
			 * 0.08-0.11 s a run, since the cache upkeep's mark of use moves its ctime. */
			const char *base = strrchr(r->boot_kernel, '/');

			strbuf_addf(sb, "unpacked %s from sha256:%s\n", base ? base + 1 : r->boot_kernel,
				    run_kernel_sha256(r));
		} else if (!strcmp(prev, "-kernel") || !strcmp(prev, "-initrd")) {
			content_hash(argv->v[i], hex);
			strbuf_addf(sb, "sha256:%s\n", hex);
		} else if (!strcmp(prev, "-object") && !strncmp(argv->v[i], QEMU_TESTS_OBJECT ",",
								strlen(QEMU_TESTS_OBJECT) + 1)) {
			/* the tests image: its size, not its path or content (the state leaves it
			 * out, x-ignore-shared; a restored VM reads the run's own) */
			const char *size = strstr(argv->v[i], ",size=");

			strbuf_addf(sb, "%s tests image%s\n", QEMU_TESTS_OBJECT, size ? size : "");
		} else if (!strcmp(prev, "-accel") && !strncmp(argv->v[i], "tcg", 3)) {
			strbuf_addstr(sb, "tcg\n");
		} else {
			strbuf_addf(sb, "%s\n", argv->v[i]);
		}
	}
}

/* Read KEY.sum: "tapboot-snapshot SIZE CHECKSUM". */
static bool read_sum(const char *path, uint64_t *size, uint64_t *sum)
{
	FILE *fp = fopen(path, "r");
	bool ok;

	if (!fp)
		return false;
	ok = fscanf(fp, "tapboot-snapshot %" SCNu64 " %" SCNx64, size, sum) == 2;
	fclose(fp);
	return ok;
}

/* Is the state file there and whole? A damaged one (and its sum) is removed, and said. */
static bool snapshot_check(struct run *r)
{
	uint64_t want_size = 0, want_sum = 0, size, sum;
	char verified[64], want[64];
	struct stat st;
	const char *why = NULL;

	if (stat(r->snap.path, &st) < 0)
		return false;
	if (!read_sum(r->snap.sum_path, &want_size, &want_sum))
		why = "its checksum file is missing or unreadable";
	snprintf(want, sizeof(want), "%" PRIu64 " %016" PRIx64, want_size, want_sum);
	/* Summed whole before and not written since (the stat cache: same inode, size, mtime and
	 * ctime, and any write moves ctime): reading 50-70 MB again would cost every run. */
	if (!why && (uint64_t)st.st_size == want_size &&
	    stat_cache_get(STAT_CACHE_SNAPSHOT_OK, r->snap.path, verified, sizeof(verified)) &&
	    !strcmp(verified, want))
		return true;
	if (why)
		;
	else if ((uint64_t)st.st_size != want_size)
		why = (uint64_t)st.st_size < want_size ? "it is truncated" : "it has grown";
	else if (file_checksum(r->snap.path, &sum, &size) < 0)
		why = "it cannot be read";
	else if (sum != want_sum || size != want_size)
		why = "its checksum does not match (the file is damaged)";
	if (!why) {
		stat_cache_put(STAT_CACHE_SNAPSHOT_OK, r->snap.path, want);
		return true;
	}
	if (!r->o->quiet)
		fprintf(stderr, "tapboot: snapshot '%s' is not usable: %s; saving it again\n",
			r->snap.path, why);
	unlink(r->snap.path);
	unlink(r->snap.sum_path);
	return false;
}

void snapshot_lookup(struct run *r, const struct strlist *argv)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char dig[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	char *cache, *dir;

	if (r->snap.state != SNAPSHOT_BUILD)
		return;
	key_text(r, argv, &sb);
	sha256_init(&ctx);
	sha256_update(&ctx, sb.len, (const uint8_t *)sb.buf);
	sha256_digest(&ctx, sizeof(dig), dig);
	strbuf_release(&sb);
	for (size_t i = 0; i < sizeof(dig); i++)
		sprintf(r->snap.key + 2 * i, "%02x", dig[i]);
	cache = cache_dir();
	dir = xasprintf("%s/snapshots", cache);
	free(cache);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		char *why = xasprintf("cannot create '%s': %s", dir, strerror(errno));

		snapshot_fail(r, why);
		free(why);
		free(dir);
		return;
	}
	free(r->snap.path);
	free(r->snap.sum_path);
	free(r->snap.seen_path);
	r->snap.path = xasprintf("%s/%s.state", dir, r->snap.key);
	r->snap.sum_path = xasprintf("%s/%s.sum", dir, r->snap.key);
	r->snap.seen_path = xasprintf("%s/%s.seen", dir, r->snap.key);
	free(dir);
	if (snapshot_check(r)) {
		r->snap.state = SNAPSHOT_READY;
		/* marked used: the cache upkeep removes the least recently used first, by the
		 * checksum file's time (touching the state would move its ctime and make the next
		 * run sum it whole again) */
		utimensat(AT_FDCWD, r->snap.sum_path, NULL, 0);
		return;
	}
	/* Saved when it will be used: by the other VMs of this run, or because this kernel and
	 * image were booted before (a developer's rerun). A one-off run boots cold. */
	if (r->nvms > 1 || access(r->snap.seen_path, F_OK) == 0)
		return;
	r->snap.state = SNAPSHOT_FIRST;
	{
		int fd = open(r->snap.seen_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0)
			close(fd);
	}
}

static int write_sum(FILE *fp, const void *ctx)
{
	const uint64_t *v = ctx;

	fprintf(fp, "tapboot-snapshot %" PRIu64 " %016" PRIx64 "\n", v[0], v[1]);
	return 0;
}

int snapshot_save(struct run *r, struct vm *vm)
{
	char *tmp = NULL, *err = NULL, *slash;
	uint64_t v[2];
	double t0 = now_s();
	int fd;

	/* a unique temporary name beside the file (a leftover starts with '.': the cache upkeep
	 * removes it after an hour), renamed over it once whole and summed */
	slash = strrchr(r->snap.path, '/');
	tmp = xasprintf("%.*s/.%s.XXXXXX", (int)(slash - r->snap.path), r->snap.path, slash + 1);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = xasprintf("cannot create a file in the cache: %s", strerror(errno));
		goto fail;
	}
	close(fd);
	if (qmp_save(&vm->qmp, tmp, SAVE_TIMEOUT_S, &err) < 0)
		goto fail;
	if (file_checksum(tmp, &v[1], &v[0]) < 0) {
		err = xasprintf("cannot read back '%s': %s", tmp, strerror(errno));
		goto fail;
	}
	if (v[0] == 0) {
		err = xstrdup("QEMU wrote an empty state");
		goto fail;
	}
	/* the state first, then its sum: the cache upkeep takes a sum without its state for a
	 * leftover at once, a state without its sum only after an hour */
	if (rename(tmp, r->snap.path) < 0 ||
	    write_file_atomic(r->snap.sum_path, WRITE_FILE_QUIET, 0644, write_sum, v) < 0) {
		err = xasprintf("cannot write the snapshot into the cache: %s", strerror(errno));
		unlink(r->snap.path);
		goto fail;
	}
	free(tmp);
	r->snap.state = SNAPSHOT_READY;
	if (!r->o->quiet)
		fprintf(stderr, "tapboot: saved the VM at the init's ready point (%.0f MB in %.2f s): "
				"%s\n",
			(double)v[0] / 1e6, now_s() - t0, r->snap.path);
	return 0;
fail:
	if (tmp)
		unlink(tmp);
	free(tmp);
	{
		char *why = xasprintf("saving the VM failed: %s", err ? err : "unknown error");

		snapshot_fail(r, why);
		free(why);
	}
	free(err);
	return -1;
}
