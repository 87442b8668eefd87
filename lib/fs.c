// SPDX-License-Identifier: GPL-2.0-only
/* fs.c: mkdir -p, an empty directory, reading a whole file, writing or copying one atomically. */
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "strbuf.h"

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);

	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			int saved = errno;

			free(p);
			errno = saved;
			return -1;
		}
		*s = '/';
	}
	free(p);
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return true;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}

const char *fs_kind_name(mode_t mode)
{
	return S_ISREG(mode)	? "a regular file"
	       : S_ISDIR(mode)	? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISSOCK(mode) ? "a socket"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
				: "not a file";
}

int fs_check_regular(const char *path, const char *what)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return error_errno("cannot read %s '%s'", what, path);
	if (!S_ISREG(st.st_mode))
		return error("%s '%s' is %s, not a regular file", what, path,
			     fs_kind_name(st.st_mode));
	return 0;
}

int open_regular(const char *path, int flags)
{
	struct stat st;
	int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC), fl, err;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto out_close;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto out_close;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		goto out_close;
	return fd;
out_close:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

int read_file(const char *path, char **buf, size_t *len)
{
	int fd = open_regular(path, O_RDONLY);
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "rb");
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	size_t n;

	*buf = NULL;
	*len = 0;
	if (!fp) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	strbuf_grow(&sb, 0);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		strbuf_add(&sb, chunk, n);
	if (ferror(fp)) {
		int saved = errno;

		fclose(fp);
		strbuf_release(&sb);
		errno = saved ? saved : EIO;
		return -1;
	}
	fclose(fp);
	*len = sb.len;
	*buf = strbuf_detach(&sb);
	return 0;
}

int write_file_atomic(const char *path, unsigned flags, mode_t mode,
		      int (*fn)(FILE *fp, const void *ctx), const void *ctx)
{
	bool quiet = flags & WRITE_FILE_QUIET;
	char *tmp = flags & WRITE_FILE_SHARED ? xasprintf("%s.%ld", path, (long)getpid())
					      : xasprintf("%s.tmp", path);
	FILE *fp = fopen(tmp, "w");
	int ret = -1;

	if (!fp) {
		if (!quiet)
			error_errno("cannot create '%s'", tmp);
		goto out_free;
	}
	if (fn(fp, ctx) < 0) {
		fclose(fp);
		if (!quiet)
			error("cannot write '%s'", tmp);
		goto out_unlink;
	}
	/* fsync too (EIO comes there, or at close), except for a best-effort cache shared by
	 * concurrent runs: a report renamed into place unsynced may be empty after a crash */
	if (fflush(fp) || ferror(fp) || (!(flags & WRITE_FILE_SHARED) && fsync(fileno(fp)))) {
		if (!quiet)
			error_errno("cannot write '%s'", tmp);
		fclose(fp);
		goto out_unlink;
	}
	if (fclose(fp)) {
		if (!quiet)
			error_errno("cannot write '%s'", tmp);
		goto out_unlink;
	}
	if (mode && chmod(tmp, mode) < 0) {
		if (!quiet)
			error_errno("cannot chmod '%s'", tmp);
		goto out_unlink;
	}
	if (rename(tmp, path)) {
		if (!quiet)
			error_errno("cannot rename '%s' to '%s'", tmp, path);
		goto out_unlink;
	}
	ret = 0;
	goto out_free;
out_unlink:
	unlink(tmp);
out_free:
	free(tmp);
	return ret;
}

struct bytes {
	const char *s;
	size_t n;
};

static int put_bytes(FILE *fp, const void *ctx)
{
	const struct bytes *b = ctx;

	return b->n && fwrite(b->s, 1, b->n, fp) != b->n ? -1 : 0;
}

int write_string_atomic(const char *path, unsigned flags, mode_t mode, const char *s, size_t n)
{
	return write_file_atomic(path, flags, mode, put_bytes, &(struct bytes){s, n});
}

static int put_copy(FILE *fp, const void *ctx)
{
	FILE *in = (FILE *)ctx;
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		if (fwrite(chunk, 1, n, fp) != n)
			return -1;
	return ferror(in) ? -1 : 0;
}

int copy_file_atomic(const char *from, const char *to, mode_t mode)
{
	FILE *in = fopen(from, "rb");
	int ret;

	if (!in)
		return error_errno("cannot open '%s'", from);
	ret = write_file_atomic(to, 0, mode, put_copy, in);
	fclose(in);
	return ret;
}
