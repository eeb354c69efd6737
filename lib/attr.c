// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The only module that opens, reads and writes kernel files.  Every path is
 * relative to the context root and confined below its top directory (sys/,
 * proc/, dev/) with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS): sysfs is
 * full of relative symlinks, which stay allowed, but nothing resolves outside.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

static const char *const tops[PT_TOP_MAX] = { "sys/", "proc/", "dev/" };

/* Split "sys/block/x" into the (cached) top dir fd and the rest. */
static int open_top(struct perftune_ctx *ctx, const char *path, const char **rest)
{
	for (size_t i = 0; i < ARRAY_SIZE(tops); i++) {
		size_t n = strlen(tops[i]);
		bool whole = strncmp(path, tops[i], n - 1) == 0 && path[n - 1] == '\0';
		if (whole || (strncmp(path, tops[i], n) == 0 && path[n] && path[n] != '/')) {
			char top[8];
			memcpy(top, tops[i], n - 1);
			top[n - 1] = '\0';
			*rest = whole ? "." : path + n;
			return pt_top_fd(ctx, (int)i, top);
		}
	}
	return -EPERM;
}

int pt_attr_open(struct perftune_ctx *ctx, const char *path, int flags)
{
	struct open_how how = {
		/* openat2 takes only these flags with O_PATH */
		.flags = (unsigned)flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	const char *rest;
	int top, fd;

	top = open_top(ctx, path, &rest);
	if (top < 0)
		return top;
	fd = (int)syscall(SYS_openat2, top, rest, &how, sizeof(how));
	if (fd < 0)
		fd = errno == EXDEV ? -EPERM : -errno; /* EXDEV: escape attempt */
	return fd;
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

static int read_once(struct perftune_ctx *ctx, const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = pt_attr_open(ctx, path, O_RDONLY);
	size_t len = 0;

	if (fd < 0)
		return fd;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (int)len;
}

int pt_attr_read_raw(struct perftune_ctx *ctx, const char *path, char *buf, size_t size)
{
	int r, tries = 0;

	if (size == 0)
		return -EINVAL;
	do
		r = read_once(ctx, path, buf, size);
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

int pt_attr_write_real(struct perftune_ctx *ctx, const char *path, const char *buf, size_t len)
{
	/* O_TRUNC: sysfs and procfs ignore it; a plain file (a fake root) needs it */
	_cleanup_close_ int fd = pt_attr_open(ctx, path, O_WRONLY | O_NOFOLLOW | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return fd;
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int pt_attr_write(struct perftune_ctx *ctx, const char *path, const char *value)
{
	void *ud;
	pt_write_fn fn = pt_attr_get_write_fn(ctx, &ud);
	int r, tries = 0;

	pt_log(ctx, PERFTUNE_LOG_DEBUG, "write %s <- %s", path, value);
	do
		r = fn ? fn(ctx, path, value, strlen(value), ud)
		       : pt_attr_write_real(ctx, path, value, strlen(value));
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
	_cleanup_close_ int fd = pt_attr_open(ctx, path, O_PATH);

	if (fd < 0)
		return fd;
	return fstat(fd, st) < 0 ? -errno : 0;
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
	if (pt_root_is_host(ctx) && geteuid() != 0 && geteuid() != st.st_uid) {
		snprintf(reason, size, "needs root (owned by uid %u, mode %04o)", st.st_uid,
			 st.st_mode & 07777);
		return 0;
	}
	return 1;
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
