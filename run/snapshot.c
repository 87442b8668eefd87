// SPDX-License-Identifier: GPL-2.0-only
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
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "error.h"
#include "filesum.h"
#include "fs.h"
#include "qemu_version.h"
#include "vm.h"
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
	free(s->ram_path);
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
		note("snapshot boot off for this run: %s; the VMs boot cold "
		     "(the same results)",
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

/* KEY.sum: the sizes and checksums of the state and of the RAM, and how much of the RAM is
 * data. */
struct snap_sums {
	uint64_t state_size, state_sum, ram_size, ram_sum, ram_data;
	char tests[65]; /* the builder's key of the tests the guest holds, "" for none */
};

static bool read_sum(const char *path, struct snap_sums *v)
{
	FILE *fp = fopen(path, "r");
	bool ok;

	if (!fp)
		return false;
	ok = fscanf(fp,
		    "tapboot-snapshot 2 state %" SCNu64 " %" SCNx64 " ram %" SCNu64 " %" SCNx64
		    " %" SCNu64,
		    &v->state_size, &v->state_sum, &v->ram_size, &v->ram_sum, &v->ram_data) == 5;
	/* optional: a guest saved without its tests has none */
	if (!ok || fscanf(fp, " tests %64[0-9a-f]", v->tests) != 1 || strlen(v->tests) != 64)
		v->tests[0] = '\0';
	fclose(fp);
	return ok;
}

/* What the stat cache remembers of a file summed whole: its size and checksum. */
static void sum_text(char out[64], uint64_t size, uint64_t sum)
{
	snprintf(out, 64, "%" PRIu64 " %016" PRIx64, size, sum);
}

/* One file of the snapshot whole? NULL, or why not. Summed whole once and not written since
 * (the stat cache: same inode, size, mtime and ctime, and any write moves ctime): reading
 * 60-100 MB again would cost every run. */
static const char *check_file(const char *path, bool sparse, uint64_t want_size, uint64_t want_sum)
{
	char verified[64], want[64];
	uint64_t size, sum, data;
	struct stat st;
	int fd, ret;

	if (stat(path, &st) < 0)
		return "a file of it is missing";
	sum_text(want, want_size, want_sum);
	if ((uint64_t)st.st_size == want_size &&
	    stat_cache_get(STAT_CACHE_SNAPSHOT_OK, path, verified, sizeof(verified)) &&
	    !strcmp(verified, want))
		return NULL;
	if ((uint64_t)st.st_size != want_size)
		return (uint64_t)st.st_size < want_size ? "it is truncated" : "it has grown";
	if (sparse) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ret = fd < 0 ? -1 : file_checksum_sparse(fd, &sum, &data, &size);
		if (fd >= 0)
			close(fd);
	} else {
		ret = file_checksum(path, &sum, &size);
	}
	if (ret < 0)
		return "it cannot be read";
	if (sum != want_sum || size != want_size)
		return "its checksum does not match (the file is damaged)";
	stat_cache_put(STAT_CACHE_SNAPSHOT_OK, path, want);
	return NULL;
}

void snapshot_remove(const struct run *r)
{
	unlink(r->snap.path);
	unlink(r->snap.ram_path);
	unlink(r->snap.sum_path);
}

/* Are the state and RAM files there and whole? A damaged snapshot is removed, and said. */
static bool snapshot_check(struct run *r)
{
	struct snap_sums v;
	const char *why = NULL, *which = r->snap.path;

	if (access(r->snap.path, F_OK) < 0 && access(r->snap.ram_path, F_OK) < 0)
		return false;
	if (!read_sum(r->snap.sum_path, &v))
		why = "its checksum file is missing or unreadable";
	else if (!(why = check_file(r->snap.path, false, v.state_size, v.state_sum)))
		why = check_file(which = r->snap.ram_path, true, v.ram_size, v.ram_sum);
	if (!why) {
		memcpy(r->snap.tests_key, v.tests, sizeof(v.tests));
		return true;
	}
	if (!r->o->quiet)
		note("snapshot '%s' is not usable: %s; saving it again", which, why);
	snapshot_remove(r);
	return false;
}

void snapshot_lookup(struct run *r, const struct qemu_boot *b)
{
	char ver[256], *cache, *dir;

	if (r->snap.state != SNAPSHOT_BUILD)
		return;
	qemu_version(r->cfg.qemu, ver, sizeof(ver));
	qemu_snapshot_key(b, ver, r->snap.key);
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
	free(r->snap.ram_path);
	free(r->snap.sum_path);
	free(r->snap.seen_path);
	r->snap.path = xasprintf("%s/%s.state", dir, r->snap.key);
	r->snap.ram_path = xasprintf("%s/%s.ram", dir, r->snap.key);
	r->snap.sum_path = xasprintf("%s/%s.sum", dir, r->snap.key);
	r->snap.seen_path = xasprintf("%s/%s.seen", dir, r->snap.key);
	free(dir);
	/* the RAM is a file of -m's size */
	r->snap.ram_size = qemu_boot_ram_size(b);
	if (!r->snap.ram_size) {
		snapshot_fail(r, "the guest's memory size (-m) is not a plain number of MiB");
		return;
	}
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
	const struct snap_sums *v = ctx;

	fprintf(fp,
		"tapboot-snapshot 2 state %" PRIu64 " %016" PRIx64 " ram %" PRIu64 " %016" PRIx64
		" %" PRIu64 "%s%s\n",
		v->state_size, v->state_sum, v->ram_size, v->ram_sum, v->ram_data,
		v->tests[0] ? " tests " : "", v->tests);
	return 0;
}

/* Room for the whole RAM on dir's file system? (The guest may write all of it: QEMU dies of
 * SIGBUS on a full one.) */
static bool has_room(const char *dir, unsigned long long bytes)
{
	struct statvfs sv;

	return statvfs(dir, &sv) == 0 &&
	       (unsigned long long)sv.f_bavail * sv.f_frsize >= bytes + (64ull << 20);
}

int snapshot_ram_open(struct run *r)
{
	/* /dev/shm: a tmpfs. The boot's page faults on an ext4 file cost 0.3-0.5 s more here than
	 * on anonymous memory or a tmpfs. O_TMPFILE: no name, nothing left behind. */
	char *cache_snaps = xasprintf("%.*s", (int)(strrchr(r->snap.path, '/') - r->snap.path),
				      r->snap.path);
	int fd = -1;

	for (size_t i = 0; i < 2 && fd < 0; i++) {
		const char *dir = i == 0 ? "/dev/shm" : cache_snaps;

		if (has_room(dir, r->snap.ram_size))
			fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		/* the guest's size here, not by QEMU: a file that cannot have it is found now,
		 * before a QEMU that would fail to start */
		if (fd >= 0 && ftruncate(fd, (off_t)r->snap.ram_size) < 0) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		char *why = xasprintf("no room for the guest's %llu MiB of RAM in /dev/shm or '%s'",
				      r->snap.ram_size >> 20, cache_snaps);

		snapshot_fail(r, why);
		free(why);
	}
	free(cache_snaps);
	return fd;
}

/* A unique temporary name beside path (a leftover starts with '.': the cache upkeep removes it
 * after an hour); its fd, or -1. */
static int temp_beside(const char *path, char **tmp)
{
	const char *slash = strrchr(path, '/');

	*tmp = xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1);
	return mkstemp(*tmp);
}

int snapshot_save(struct run *r, struct vm *vm)
{
	char *tmp = NULL, *ram_tmp = NULL, *err = NULL;
	struct snap_sums v;
	double t0 = now_s();
	int fd, ram_fd = -1;

	memcpy(v.tests, vm->tests_in_ram ? r->tests_key : "", vm->tests_in_ram ? sizeof(v.tests) : 1);
	fd = temp_beside(r->snap.path, &tmp);
	if (fd >= 0) {
		close(fd);
		ram_fd = temp_beside(r->snap.ram_path, &ram_tmp);
	}
	if (fd < 0 || ram_fd < 0) {
		err = xasprintf("cannot create a file in the cache: %s", strerror(errno));
		goto fail;
	}
	if (qmp_save(&vm->qmp, tmp, SAVE_TIMEOUT_S, &err) < 0)
		goto fail;
	/* the VM is stopped: its RAM is what the state goes with */
	if (file_copy_sparse(vm->ram_fd, ram_fd, &v.ram_sum, &v.ram_data, &v.ram_size) < 0) {
		err = xasprintf("cannot copy the guest's RAM into the cache: %s", strerror(errno));
		goto fail;
	}
	if (file_checksum(tmp, &v.state_sum, &v.state_size) < 0) {
		err = xasprintf("cannot read back '%s': %s", tmp, strerror(errno));
		goto fail;
	}
	if (v.state_size == 0 || v.ram_size != r->snap.ram_size) {
		err = xstrdup(v.state_size ? "the RAM file has not the guest's size"
					   : "QEMU wrote an empty state");
		goto fail;
	}
	close(ram_fd);
	ram_fd = -1;
	/* the files first, then their sum: the cache upkeep takes a sum without its files for a
	 * leftover at once, files without their sum only after an hour */
	if (rename(tmp, r->snap.path) < 0 || rename(ram_tmp, r->snap.ram_path) < 0 ||
	    write_file_atomic(r->snap.sum_path, WRITE_FILE_QUIET, 0644, write_sum, &v) < 0) {
		err = xasprintf("cannot write the snapshot into the cache: %s", strerror(errno));
		snapshot_remove(r);
		goto fail;
	}
	/* summed as written (a rename moves ctime: after it) */
	{
		char val[64];

		sum_text(val, v.state_size, v.state_sum);
		stat_cache_put(STAT_CACHE_SNAPSHOT_OK, r->snap.path, val);
		sum_text(val, v.ram_size, v.ram_sum);
		stat_cache_put(STAT_CACHE_SNAPSHOT_OK, r->snap.ram_path, val);
	}
	free(tmp);
	free(ram_tmp);
	memcpy(r->snap.tests_key, v.tests, sizeof(v.tests));
	r->snap.state = SNAPSHOT_READY;
	if (!r->o->quiet)
		note("saved the VM at the init's ready point (%.1f MB of state, %.0f MB "
		     "of RAM, in %.2f s): %s",
		     (double)v.state_size / 1e6, (double)v.ram_data / 1e6, now_s() - t0,
		     r->snap.path);
	return 0;
fail:
	if (ram_fd >= 0)
		close(ram_fd);
	if (tmp)
		unlink(tmp);
	if (ram_tmp)
		unlink(ram_tmp);
	free(tmp);
	free(ram_tmp);
	{
		char *why = xasprintf("saving the VM failed: %s", err ? err : "unknown error");

		snapshot_fail(r, why);
		free(why);
	}
	free(err);
	return -1;
}
