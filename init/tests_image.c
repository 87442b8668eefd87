// SPDX-License-Identifier: GPL-2.0-only
/* tests_image.c: snapshot boot's tests image. The host puts the tests (everything under /tests/)
 * into a second newc archive in an ivshmem device's shared memory, which a saved state leaves
 * out: a VM restored from the snapshot reads the run's own tests, so a changed test keeps the
 * snapshot. The init reads it only after the handoff (before the ready point nothing may look
 * at it: the saved state would hold what it saw). No driver: the device's BAR 2 through sysfs.
 * The reader takes what the builder writes (regular files, directories, symlinks, hard links)
 * and trusts no size: every field is checked against the region. The VM that saved the state
 * had the tests in its initramfs too: a restored VM told tapboot.tests=keep (the same tests)
 * reads nothing, one told load replaces them. */
#include "init.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "protocol.h"

/* QEMU's ivshmem (hw/misc/ivshmem.c): Red Hat's vendor id, PCI_DEVICE_ID_IVSHMEM. */
#define IVSHMEM_VENDOR "0x1af4"
#define IVSHMEM_DEVICE "0x1110"
#define PCI_DEVICES "/sys/bus/pci/devices"

#define NEWC_HEADER 110
/* The builder's names are image paths; PATH_MAX bounds what the kernel would take anyway. */
#define NAME_MAX_LEN 4096

struct newc {
	unsigned long ino, mode, uid, gid, nlink, mtime, size, namesize;
};

static bool hex8(const unsigned char *p, unsigned long *out)
{
	unsigned long v = 0;

	for (int i = 0; i < 8; i++) {
		int c = p[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = v << 4 | (unsigned long)d;
	}
	*out = v;
	return true;
}

/* The header at p (at least NEWC_HEADER bytes). Fields in order: ino mode uid gid nlink mtime
 * filesize devmajor devminor rdevmajor rdevminor namesize check. */
static bool parse_header(const unsigned char *p, struct newc *h)
{
	unsigned long skip;

	if (memcmp(p, "070701", 6))
		return false;
	p += 6;
	return hex8(p, &h->ino) && hex8(p + 8, &h->mode) && hex8(p + 16, &h->uid) &&
	       hex8(p + 24, &h->gid) && hex8(p + 32, &h->nlink) && hex8(p + 40, &h->mtime) &&
	       hex8(p + 48, &h->size) && hex8(p + 56, &skip) && hex8(p + 64, &skip) &&
	       hex8(p + 72, &skip) && hex8(p + 80, &skip) && hex8(p + 88, &h->namesize);
}

/* An archive name is a relative path without ".." (the builder's normalised paths). */
static bool name_ok(const char *name)
{
	const char *s = name;

	if (!*name || *name == '/')
		return false;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		s += n;
		if (*s == '/')
			s++;
	}
	return true;
}

static void mkdir_parents(char *path)
{
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
}

static int write_all_fd(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Hard-link groups: the first name of each inode seen with nlink > 1. */
struct links {
	unsigned long *ino;
	char **path;
	size_t n, alloc;
};

static const char *links_find(const struct links *l, unsigned long ino)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ino[i] == ino)
			return l->path[i];
	return NULL;
}

static void links_add(struct links *l, unsigned long ino, const char *path)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 8;
		l->ino = xrealloc(l->ino, l->alloc * sizeof(*l->ino));
		l->path = xrealloc(l->path, l->alloc * sizeof(*l->path));
	}
	l->ino[l->n] = ino;
	l->path[l->n++] = xstrdup(path);
}

static void links_release(struct links *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->path[i]);
	free(l->ino);
	free(l->path);
}

static int put_file(const char *path, const struct newc *h, const unsigned char *data,
		    struct links *links, struct strbuf *diag)
{
	const char *first = h->nlink > 1 ? links_find(links, h->ino) : NULL;
	int fd;

	unlink(path);
	if (first) {
		/* newc: a hard-link group's data comes with its last name */
		if (link(first, path) < 0) {
			strbuf_addf(diag, "cannot link '%s' to '%s': %s", path, first,
				    strerror(errno));
			return -1;
		}
		if (!h->size)
			return 0;
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			  (mode_t)(h->mode & 07777));
		if (h->nlink > 1)
			links_add(links, h->ino, path);
	}
	if (fd < 0 || write_all_fd(fd, data, h->size) < 0 ||
	    fchmod(fd, (mode_t)(h->mode & 07777)) < 0 ||
	    fchown(fd, (uid_t)h->uid, (gid_t)h->gid) < 0) {
		strbuf_addf(diag, "cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	{
		struct timespec ts[2] = {{(time_t)h->mtime, 0}, {(time_t)h->mtime, 0}};

		futimens(fd, ts);
	}
	close(fd);
	return 0;
}

static int put_entry(const char *root, const char *name, const struct newc *h,
		     const unsigned char *data, struct links *links, struct strbuf *diag)
{
	char *path = xasprintf("%s/%s", root, name);
	mode_t type = (mode_t)h->mode & S_IFMT;
	int ret = 0;

	mkdir_parents(path);
	if (type == S_IFDIR) {
		if (mkdir(path, (mode_t)(h->mode & 07777)) < 0 && errno != EEXIST) {
			strbuf_addf(diag, "cannot create directory '%s': %s", path,
				    strerror(errno));
			ret = -1;
		} else {
			chmod(path, (mode_t)(h->mode & 07777));
		}
	} else if (type == S_IFLNK) {
		char *target = xstrndup((const char *)data, h->size);

		unlink(path);
		if (strlen(target) != h->size || symlink(target, path) < 0) {
			strbuf_addf(diag, "cannot create symlink '%s': %s", path,
				    strlen(target) != h->size ? "a NUL in its target"
							      : strerror(errno));
			ret = -1;
		}
		free(target);
	} else if (type == S_IFREG) {
		ret = put_file(path, h, data, links, diag);
	} else {
		strbuf_addf(diag, "'%s' is of a type the tests image does not take (mode %lo)",
			    name, h->mode);
		ret = -1;
	}
	free(path);
	return ret;
}

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int init_tests_unpack(const unsigned char *buf, size_t len, const char *root, struct strbuf *diag)
{
	struct links links = {0};
	size_t off = 0;
	int n = 0;

	for (;;) {
		struct newc h;
		const char *name;
		size_t data_off;

		if (len - off < NEWC_HEADER || !parse_header(buf + off, &h)) {
			strbuf_addf(diag, "no newc header at byte %zu of the tests image", off);
			n = -1;
			break;
		}
		if (h.namesize < 2 || h.namesize > NAME_MAX_LEN ||
		    h.namesize > len - off - NEWC_HEADER ||
		    buf[off + NEWC_HEADER + h.namesize - 1]) {
			strbuf_addf(diag, "bad name size %lu at byte %zu of the tests image",
				    h.namesize, off);
			n = -1;
			break;
		}
		name = (const char *)buf + off + NEWC_HEADER;
		if (strlen(name) != h.namesize - 1) {
			strbuf_addf(diag, "a NUL inside the name at byte %zu of the tests image",
				    off);
			n = -1;
			break;
		}
		if (!strcmp(name, "TRAILER!!!"))
			break;
		data_off = pad4(off + NEWC_HEADER + h.namesize);
		if (data_off > len || h.size > len - data_off) {
			strbuf_addf(diag, "'%s' (%lu bytes) runs past the end of the tests image",
				    name, h.size);
			n = -1;
			break;
		}
		if (strcmp(name, ".")) {
			if (!name_ok(name)) {
				strbuf_addf(diag, "bad name '%s' in the tests image", name);
				n = -1;
				break;
			}
			if (put_entry(root, name, &h, buf + data_off, &links, diag) < 0) {
				n = -1;
				break;
			}
			n++;
		}
		off = pad4(data_off + h.size);
		if (off > len) {
			strbuf_addf(diag, "the tests image ends inside '%s'", name);
			n = -1;
			break;
		}
	}
	links_release(&links);
	return n;
}

/* The device's sysfs directory into dir (PATH_MAX), or false when there is none. */
static bool find_device(char *dir, size_t size)
{
	DIR *d = opendir(PCI_DEVICES);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char path[512], *v, *dev;
		size_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/vendor", e->d_name);
		if (read_file(path, &v, &n) < 0)
			v = NULL;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/device", e->d_name);
		if (!v || read_file(path, &dev, &n) < 0)
			dev = NULL;
		found = v && dev && !strncmp(v, IVSHMEM_VENDOR, 6) &&
			!strncmp(dev, IVSHMEM_DEVICE, 6);
		if (found)
			snprintf(dir, size, PCI_DEVICES "/%s", e->d_name);
		free(v);
		free(dev);
	}
	if (d)
		closedir(d);
	return found;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	/* everything under the top, which stays */
	if (f->level > 0 && remove(path) < 0)
		return errno;
	return 0;
}

void init_tests_image(struct init_ctx *c)
{
	char dir[512], path[600];
	struct strbuf diag = STRBUF_INIT;
	struct stat st;
	void *map;
	int fd;

	if (c->opt.tests == INIT_TESTS_KEEP || !find_device(dir, sizeof(dir)))
		return;
	if (c->opt.tests == INIT_TESTS_LOAD) {
		/* the saved state's tests go: a test the image does not have must not run */
		int e;

		snprintf(path, sizeof(path), "%s" TAPBOOT_TESTS_DIR, c->root);
		e = nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		if (e && !(e < 0 && errno == ENOENT))
			strbuf_addf(&c->out, "# init: cannot remove the saved tests under '%s': %s\n",
				    path, strerror(e > 0 ? e : errno));
	}
	/* memory decoding is off until a driver enables the device; sysfs's enable does it */
	snprintf(path, sizeof(path), "%s/enable", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		strbuf_addf(&c->out, "# init: cannot enable the tests image's device: %s\n",
			    strerror(errno));
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/resource2", dir);
	/* the size is the BAR's (st_size; lseek to the end says 0) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0 ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		strbuf_addf(&c->out, "# init: cannot map the tests image '%s': %s\n", path,
			    strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	strbuf_init(&diag);
	if (init_tests_unpack(map, (size_t)st.st_size, c->root, &diag) < 0)
		strbuf_addf(&c->out, "# init: cannot unpack the tests image: %s\n", diag.buf);
	munmap(map, (size_t)st.st_size);
	strbuf_release(&diag);
}
