// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel files read, written and looked at: through the kept fd of the file
 * cache where there is one, a fresh confined open elsewhere; a busy queue
 * tried again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include "perftune.h"
#include "macro.h"
#include "shared/util.h"
#include "io/attr.h"
#include "io/attr-internal.h"
#include "core/log.h"

/*
 * Run @op on @path: on its kept fd (once more on a fresh one if the file went
 * away), else on a fresh open with @flags.  @kept tells @op which it has.
 */
typedef int (*fd_op)(int fd, bool kept, void *arg);

static int on_file(struct perftune_ctx *ctx, const char *path, int flags, fd_op op, void *arg)
{
	_cleanup_close_ int fd = -1;

	for (int tries = 0; tries < 2; tries++) {
		int kfd = pt_fcache_get(ctx, path, NULL);
		int r;
		if (kfd == PT_NOCACHE)
			break;
		r = op(kfd, true, arg);
		if (!pt_attr_gone(r))
			return r;
		pt_fcache_drop(pt_fcache_of(ctx, path), kfd);
	}
	fd = pt_attr_open(ctx, path, flags);
	if (fd < 0)
		return fd;
	return op(fd, false, arg);
}

/*
 * A busy queue answers EAGAIN to a read or write of queue/scheduler while
 * another switch holds it (seen with 256 devices switched at once): try
 * again for up to about a second before giving up.
 */
#define BUSY_TRIES 40

static bool busy_again(int r, int *tries)
{
	if (r != -EAGAIN || ++*tries >= BUSY_TRIES)
		return false;
	struct timespec ts = { 0, (*tries < 10 ? 2 : 30) * 1000000L };
	nanosleep(&ts, NULL);
	return true;
}

struct rd {
	char *buf;
	size_t size;
	bool whole; /* one short read is the whole file */
};

static int read_op(int fd, bool kept, void *arg)
{
	struct rd *a = arg;
	size_t len = 0;

	while (len < a->size - 1) {
		ssize_t n = kept ? pread(fd, a->buf + len, a->size - 1 - len, (off_t)len)
				 : read(fd, a->buf + len, a->size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (a->whole && len < a->size - 1)
			break;
	}
	a->buf[len] = '\0';
	return (int)len;
}

int pt_attr_read_raw(struct perftune_ctx *ctx, const char *path, char *buf, size_t size)
{
	/*
	 * A sysfs attribute or a sysctl comes whole from one read (one show() or
	 * proc handler call); other files (/proc/<pid>/..., seq_files of many
	 * records) may return short reads before their end.
	 */
	struct rd a = { buf, size, !strncmp(path, "sys/", 4) || !strncmp(path, "proc/sys/", 9) };
	int r, tries = 0;

	if (size == 0)
		return -EINVAL;
	do
		r = on_file(ctx, path, O_RDONLY, read_op, &a);
	while (busy_again(r, &tries));
	return r;
}

int pt_attr_read(struct perftune_ctx *ctx, const char *path, char *buf, size_t size)
{
	int r = pt_attr_read_raw(ctx, path, buf, size);

	if (r < 0)
		return r;
	pt_normalize(buf);
	return (int)strlen(buf);
}

struct wr {
	const char *buf;
	size_t len;
	bool plain; /* a fake root's plain file: cut it to what was written */
};

static int write_op(int fd, bool kept, void *arg)
{
	struct wr *a = arg;
	ssize_t n;

	do
		n = kept ? pwrite(fd, a->buf, a->len, 0) : write(fd, a->buf, a->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != a->len)
		return -EIO;
	if (kept && a->plain && ftruncate(fd, (off_t)a->len) < 0) /* fresh opens have O_TRUNC */
		return -errno;
	return 0;
}

int pt_attr_write_real(struct perftune_ctx *ctx, const char *path, const char *buf, size_t len)
{
	/* the simulated kernel of the unit tier writes its files here: never through the cache */
	_cleanup_close_ int fd = pt_attr_open(ctx, path, O_WRONLY | O_NOFOLLOW | O_TRUNC);
	struct wr a = { buf, len, false };

	if (fd < 0)
		return fd;
	return write_op(fd, false, &a);
}

int pt_attr_write(struct perftune_ctx *ctx, const char *path, const char *value)
{
	void *ud;
	pt_write_fn fn = pt_attr_get_write_fn(ctx, &ud);
	struct wr a = { value, strlen(value), !pt_attr_of(ctx)->host };
	int r, tries = 0;

	pt_log(ctx, PERFTUNE_LOG_DEBUG, "write %s <- %s", path, value);
	do
		/* O_TRUNC: sysfs and procfs ignore it; a plain file (a fake root) needs it */
		r = fn ? fn(ctx, path, value, a.len, ud)
		       : on_file(ctx, path, O_WRONLY | O_NOFOLLOW | O_TRUNC, write_op, &a);
	while (busy_again(r, &tries));
	return r;
}

int pt_attr_write_hold(struct perftune_ctx *ctx, const char *path, const void *buf, size_t len,
		       int *hold_fd)
{
	void *ud;
	pt_write_fn fn = pt_attr_get_write_fn(ctx, &ud);
	int fd;
	ssize_t n;

	*hold_fd = -1;
	if (fn) /* a simulated kernel keeps the request itself */
		return fn(ctx, path, buf, len, ud);
	fd = pt_attr_open(ctx, path, O_RDWR | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	n = write(fd, buf, len);
	if (n < 0 || (size_t)n != len) {
		int r = n < 0 ? -errno : -EIO;
		close(fd);
		return r;
	}
	*hold_fd = fd;
	return 0;
}

static int attr_stat(struct perftune_ctx *ctx, const char *path, struct stat *st)
{
	struct pt_fcache *fc = pt_fcache_of(ctx, path);
	_cleanup_close_ int fd = -1;

	if (fc && pt_fcache_find(fc, path, st) != PT_NOCACHE)
		return 0;
	fd = pt_attr_open(ctx, path, O_PATH);
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0)
		return -errno;
	return 0;
}

int pt_attr_stat_file(struct perftune_ctx *ctx, const char *path, struct stat *st)
{
	if (pt_fcache_get(ctx, path, st) != PT_NOCACHE)
		return 0;
	return attr_stat(ctx, path, st);
}

bool pt_attr_exists(struct perftune_ctx *ctx, const char *path)
{
	struct stat st;
	return attr_stat(ctx, path, &st) == 0;
}

bool pt_attr_is_dir(struct perftune_ctx *ctx, const char *path)
{
	struct stat st;
	return attr_stat(ctx, path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool pt_attr_tunable(struct perftune_ctx *ctx, const char *path)
{
	struct stat st;
	return attr_stat(ctx, path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0222) &&
	       (st.st_mode & 0444);
}

int pt_attr_writable(struct perftune_ctx *ctx, const char *path, char *reason, size_t size)
{
	struct stat st;
	int r = attr_stat(ctx, path, &st);

	if (r < 0)
		return r;
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		snprintf(reason, size, "not a regular attribute file");
		return 0;
	}
	if (!(st.st_mode & 0222)) {
		snprintf(reason, size, "read-only in this kernel (mode %04o)", st.st_mode & 07777);
		return 0;
	}
	if (pt_attr_of(ctx)->host && geteuid() != 0 && geteuid() != st.st_uid) {
		snprintf(reason, size, "needs root (owned by uid %u, mode %04o)", st.st_uid,
			 st.st_mode & 07777);
		return 0;
	}
	return 1;
}

int pt_attr_dir_has_entries(struct perftune_ctx *ctx, const char *path)
{
	_cleanup_close_ int fd = pt_attr_open(ctx, path, O_RDONLY | O_DIRECTORY);
	char buf[1024] __attribute__((aligned(8)));
	long n;

	if (fd < 0)
		return fd;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct {
				unsigned long long ino;
				long long off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *de = (void *)(buf + off);
			if (strcmp(de->name, ".") && strcmp(de->name, ".."))
				return 1;
			off += de->reclen;
		}
	if (n < 0)
		return -errno;
	return 0;
}

DIR *pt_attr_opendir(struct perftune_ctx *ctx, const char *path)
{
	int fd = pt_attr_open(ctx, path, O_RDONLY | O_DIRECTORY);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

int pt_attr_readlink(struct perftune_ctx *ctx, const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	_cleanup_close_ int dfd = -1;
	ssize_t n;

	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	dfd = pt_attr_open(ctx, dir, O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return dfd;
	n = readlinkat(dfd, slash + 1, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}
