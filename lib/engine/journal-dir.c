// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The journal directory (/run/perftune): checked (no symlink, root's path,
 * ours and private), locked, listed; a journal in it opened safely, removed.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "io/beneath.h"
#include "core/ctx.h"
#include "core/log.h"
#include "engine/journal-internal.h"
#include "engine/journal.h"

int pt_journal_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > PT_TX_NAME_MAX || name[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.@-", name[i]))
			return 0;
	return 1;
}

/* Open the journal dir, refusing anything not ours: symlink, other owner, group/other access. */
int pt_journal_dir_open(struct perftune_ctx *ctx, bool create)
{
	const char *dir = perftune_ctx_get_journal_dir(ctx), *why;
	struct stat st;
	int fd = *pt_ctx_jdir(ctx);

	if (fd >= 0) { /* checked when the lock was taken, and held since */
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return pt_err(ctx, -errno, "journal directory %s: %s", dir, strerror(errno));
		return fd;
	}
	if (dir[0] != '/') /* perftune_ctx_set_journal_dir() takes absolute paths only */
		return pt_err(ctx, -EINVAL, "PERFTUNE_JOURNAL_DIR '%s': not an absolute path", dir);
	fd = pt_safe_dir_open(dir, create, &why);
	if (fd == -ENOENT && !create && !why)
		return -ENOENT;
	if (fd < 0)
		return pt_err(ctx, fd, "journal directory %s: %s", dir, why ? why : strerror(-fd));
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 0077)) {
		close(fd);
		return pt_err(
			ctx, -EPERM,
			"journal directory %s: must be owned by uid %u with mode 0700, refusing",
			dir, geteuid());
	}
	return fd;
}

/*
 * Take the journal lock.  Until pt_journal_unlock() the directory checked
 * here stays open in the context: the journal calls in between use it instead
 * of opening and checking the path again.
 */
int pt_journal_lock(struct perftune_ctx *ctx, int *lockfd)
{
	int dfd = pt_journal_dir_open(ctx, true);
	struct stat st;
	int fd;

	if (dfd < 0)
		return dfd;
	fd = openat(dfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EPERM;
	}
	if (fd < 0) {
		int r = -errno;
		close(dfd);
		return pt_err(ctx, r, "journal lock %s/.lock: %s",
			      perftune_ctx_get_journal_dir(ctx),
			      r == -EPERM ? "not a regular file, refusing" : strerror(-r));
	}
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			int r = -errno;
			close(fd);
			close(dfd);
			return pt_err(ctx, r, "journal lock: %s", strerror(-r));
		}
	*lockfd = fd;
	*pt_ctx_jdir(ctx) = dfd;
	return 0;
}

void pt_journal_unlock(struct perftune_ctx *ctx, int lockfd)
{
	int *dfd = pt_ctx_jdir(ctx);

	if (*dfd >= 0)
		close(*dfd);
	*dfd = -1;
	close(lockfd);
}

/*
 * Before appending to a journal that ends in a record cut short (its append
 * failed, or its writer was killed in it): cut that record off, so that the
 * next record is not glued to it.  A tail longer than a record is left alone.
 */
static void heal_tail(struct perftune_ctx *ctx, const char *name, int fd, off_t size)
{
	char buf[LINE_MAX_LEN + 2];
	off_t from = size > (off_t)sizeof(buf) ? size - (off_t)sizeof(buf) : 0;
	ssize_t n = size > 0 ? pread(fd, buf, (size_t)(size - from), from) : 0;
	char *nl;

	if (n <= 0 || buf[n - 1] == '\n')
		return;
	nl = memrchr(buf, '\n', (size_t)n);
	if (!nl || ftruncate(fd, from + (nl - buf) + 1) < 0)
		return;
	pt_log(ctx, PERFTUNE_LOG_WARNING,
	       "journal %s: dropped its last record, cut short by an interrupted append", name);
}

/*
 * Open a journal without following a link and without blocking (a FIFO
 * named *.journal would hang the open or the read), then check what was
 * opened.  O_WRONLY: to append (opened read-write, to heal its tail).
 */
int pt_journal_open(struct perftune_ctx *ctx, const char *name, int flags, int *fd)
{
	char file[128];
	struct stat st;
	bool append = (flags & O_ACCMODE) == O_WRONLY && !(flags & O_CREAT);
	_cleanup_close_ int dfd = pt_journal_dir_open(ctx, flags & O_CREAT);

	if (dfd < 0)
		return dfd;
	if (append)
		flags = (flags & ~O_ACCMODE) | O_RDWR;
	snprintf(file, sizeof(file), "%s.journal", name);
	*fd = openat(dfd, file, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
	if (*fd < 0 && errno == ELOOP)
		return pt_err(ctx, -ELOOP, "journal %s: is a symlink, refusing", name);
	if (*fd < 0 && errno == EISDIR) /* opened for writing too */
		return pt_err(ctx, -EPERM,
			      "journal %s: not a private regular file of uid %u, refusing", name,
			      geteuid());
	if (*fd < 0 && errno != ENOENT && errno != EEXIST)
		return pt_err(ctx, -errno, "journal %s: %s", name, strerror(errno));
	if (*fd < 0)
		return -errno;
	if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0077) || st.st_nlink != 1) {
		close(*fd);
		return pt_err(ctx, -EPERM,
			      "journal %s: not a private regular file of uid %u, refusing", name,
			      geteuid());
	}
	if (append)
		heal_tail(ctx, name, *fd, st.st_size);
	return 0;
}

static int seq_cmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	return strcmp(*x, *y);
}

int pt_journal_names(struct perftune_ctx *ctx, char ***names)
{
	int dfd = pt_journal_dir_open(ctx, false);
	DIR *d;
	struct dirent *de;
	char **v = calloc(1, sizeof(char *));
	size_t n = 0;

	if (!v) {
		if (dfd >= 0)
			close(dfd);
		return -ENOMEM;
	}
	if (dfd == -ENOENT) {
		*names = v;
		return 0;
	}
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		free(v);
		if (dfd >= 0)
			close(dfd);
		if (dfd < 0)
			return dfd;
		return -errno;
	}
	/* the fd may share its offset with the one kept under the lock, read to its end
	 * by an earlier listing (restore --orphans lists, then each restore lists again) */
	rewinddir(d);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		struct stat st;
		char name[PT_TX_NAME_MAX + 1];
		if (l <= 8 || strcmp(de->d_name + l - 8, ".journal"))
			continue;
		/* a FIFO, socket, device or directory is no journal (a symlink is refused on load) */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			pt_log(ctx, PERFTUNE_LOG_WARNING,
			       "journal directory %s: %s is not a regular file, skipped",
			       perftune_ctx_get_journal_dir(ctx), de->d_name);
			continue;
		}
		if (l - 8 > PT_TX_NAME_MAX)
			continue; /* no journal name is that long */
		snprintf(name, sizeof(name), "%.*s", (int)(l - 8), de->d_name); /* no ".journal" */
		if (!pt_journal_name_ok(name))
			continue;
		if (!pt_strv_add(&v, &n, name))
			break;
	}
	closedir(d);
	qsort(v, n, sizeof(char *), seq_cmp);
	*names = v;
	return (int)n;
}

int pt_journal_remove(struct perftune_ctx *ctx, const char *name)
{
	_cleanup_close_ int dfd = pt_journal_dir_open(ctx, false);
	char file[128];

	if (dfd < 0)
		return dfd;
	snprintf(file, sizeof(file), "%s.journal", name);
	if (unlinkat(dfd, file, 0) < 0)
		return -errno;
	return 0;
}
