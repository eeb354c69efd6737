// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_output_*: a file written on a path the caller gave (an export, a
 * metrics file, compare's log and plot), maybe as root in a directory that
 * other users write.  The data never goes into an inode that was there
 * before: a new file is made beside the target (O_CREAT|O_EXCL, a random
 * name) and renamed over it, so a symbolic link, a FIFO or a hard link
 * planted at the path is replaced, never followed, opened or truncated.
 * What is there is checked first, for a clear refusal: only a regular file
 * is replaced, and not one of another user in a sticky directory that others
 * may write (as the kernel's protected_regular=2); a character device
 * (/dev/null) is written in place, as only root makes those.  The directory
 * is resolved once: the check, the new file and the rename happen in that
 * directory, whatever its path names by then.  The path is the caller's, not
 * below the context's root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "core/log.h"

struct perftune_output {
	struct perftune_ctx *ctx; /* a reference */
	int fd;			  /* the new file (or the device), to write to */
	int dfd;		  /* the directory (O_PATH) */
	char *tmp;		  /* the new file's name in dfd until committed; NULL in place */
	char *path;
	const char *name; /* the last component of path */
};

static const char *file_kind(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISBLK(m))
		return "a block device";
	return "not a regular file";
}

static void output_close(struct perftune_output *o)
{
	if (o->tmp && o->fd >= 0)
		unlinkat(o->dfd, o->tmp, 0);
	free(o->tmp);
	o->tmp = NULL;
	if (o->fd >= 0)
		close(o->fd);
	if (o->dfd >= 0)
		close(o->dfd);
	o->fd = o->dfd = -1;
}

/* the directory of o->path (O_PATH) in o->dfd, its last component in o->name */
static int output_dir(struct perftune_output *o)
{
	const char *slash = strrchr(o->path, '/');
	char *dir;
	int r = 0;

	o->name = o->path;
	if (slash)
		o->name = slash + 1;
	if (!*o->name)
		return pt_err(o->ctx, -EISDIR, "%s: it names a directory, not a file", o->path);
	if (!slash)
		dir = strdup(".");
	else if (slash == o->path)
		dir = strdup("/");
	else
		dir = strndup(o->path, (size_t)(slash - o->path));
	if (!dir)
		return pt_err(o->ctx, -ENOMEM, "%s: %s", o->path, strerror(ENOMEM));
	o->dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dfd < 0)
		r = pt_err(o->ctx, -errno, "%s: directory %s: %s", o->path, dir, strerror(errno));
	free(dir);
	return r;
}

/* another user's file in a sticky directory others write (protected_regular) */
static bool others_file(struct perftune_output *o, const struct stat *st)
{
	struct stat d;

	return st->st_uid != geteuid() && fstat(o->dfd, &d) == 0 && (d.st_mode & S_ISVTX) &&
	       (d.st_mode & (S_IWGRP | S_IWOTH)) && st->st_uid != d.st_uid;
}

/* what is at o->name now (st_mode 0: nothing) may be replaced, or written in
 * place (a character device) */
static int output_target(struct perftune_output *o, struct stat *st)
{
	const char *hint = "";

	if (fstatat(o->dfd, o->name, st, AT_SYMLINK_NOFOLLOW) < 0) {
		st->st_mode = 0;
		if (errno == ENOENT)
			return 0;
		return pt_err(o->ctx, -errno, "%s: %s", o->path, strerror(errno));
	}
	if (S_ISCHR(st->st_mode))
		return 0;
	if (S_ISLNK(st->st_mode))
		hint = ", never through a link (give the file's own path)";
	if (!S_ISREG(st->st_mode))
		return pt_err(o->ctx, -EPERM, "%s: it is %s: perftune writes regular files only%s",
			      o->path, file_kind(st->st_mode), hint);
	if (others_file(o, st))
		return pt_err(o->ctx, -EPERM,
			      "%s: it belongs to uid %u, in a sticky directory that others may "
			      "write: perftune does not replace another user's file there",
			      o->path, (unsigned)st->st_uid);
	return 0;
}

/* a character device: opened as it is, no O_CREAT, no truncation, no wait */
static int output_in_place(struct perftune_output *o)
{
	struct stat st;

	o->fd = openat(o->dfd, o->name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0 || fstat(o->fd, &st) < 0)
		return pt_err(o->ctx, -errno, "%s: %s", o->path, strerror(errno));
	if (!S_ISCHR(st.st_mode)) /* replaced since it was looked at */
		return pt_err(o->ctx, -EPERM,
			      "%s: it is %s now: perftune writes regular files only", o->path,
			      file_kind(st.st_mode));
	return 0;
}

/* "<name>.perftune-<random>" beside the target, or without <name> where that is too long */
static int output_create(struct perftune_output *o, unsigned mode)
{
	const char *prefix = "";
	uint64_t rnd;

	if (strlen(o->name) < NAME_MAX - 22)
		prefix = o->name;
	for (int i = 0; o->fd < 0 && i < 100; i++) {
		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
			      ((uint64_t)i << 40);
		free(o->tmp);
		if (asprintf(&o->tmp, "%s.perftune-%012llx", prefix,
			     (unsigned long long)(rnd & 0xffffffffffffULL)) < 0) {
			o->tmp = NULL;
			return pt_err(o->ctx, -ENOMEM, "%s: %s", o->path, strerror(ENOMEM));
		}
		o->fd = openat(o->dfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600);
		if (o->fd < 0 && errno != EEXIST)
			break;
	}
	if (o->fd < 0 || fchmod(o->fd, (mode_t)mode) < 0)
		return pt_err(o->ctx, -errno, "%s: cannot create a file beside it: %s", o->path,
			      strerror(errno));
	return 0;
}

static int output_new(struct perftune_ctx *ctx, const char *path, struct perftune_output **outp)
{
	struct perftune_output *o;

	*outp = NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	*o = (struct perftune_output){ .fd = -1, .dfd = -1, .path = strdup(path) };
	if (!o->path) {
		free(o);
		return -ENOMEM;
	}
	o->ctx = perftune_ctx_ref(ctx);
	*outp = o;
	return output_dir(o);
}

static int output_open_impl(struct perftune_ctx *ctx, const char *path, unsigned mode,
			    struct perftune_output **outp)
{
	struct perftune_output *o;
	struct stat st;
	int r;

	if (!ctx || !path || !outp || (mode & ~07777U))
		return -EINVAL;
	*outp = NULL;
	r = output_new(ctx, path, &o);
	if (r >= 0)
		r = output_target(o, &st);
	if (r >= 0 && S_ISCHR(st.st_mode))
		r = output_in_place(o);
	else if (r >= 0)
		r = output_create(o, mode);
	if (r < 0) {
		perftune_output_free(o);
		return r;
	}
	*outp = o;
	return 0;
}

PERFTUNE_EXPORT int perftune_output_open(struct perftune_ctx *ctx, const char *path, unsigned mode,
					 struct perftune_output **outp)
{
	return pt_api_ret(output_open_impl(ctx, path, mode, outp));
}

static int output_check_impl(struct perftune_ctx *ctx, const char *path)
{
	struct perftune_output *o = NULL;
	struct stat st;
	int r;

	if (!ctx || !path)
		return -EINVAL;
	r = output_new(ctx, path, &o);
	if (r >= 0)
		r = output_target(o, &st);
	perftune_output_free(o);
	return r;
}

PERFTUNE_EXPORT int perftune_output_check(struct perftune_ctx *ctx, const char *path)
{
	return pt_api_ret(output_check_impl(ctx, path));
}

PERFTUNE_EXPORT int perftune_output_fd(const struct perftune_output *out)
{
	if (!out)
		return -EINVAL;
	return out->fd;
}

PERFTUNE_EXPORT int perftune_output_commit(struct perftune_output *out)
{
	if (!out)
		return -EINVAL;
	if (!out->tmp)
		return 0;
	if (renameat(out->dfd, out->tmp, out->dfd, out->name) < 0)
		return pt_api_ret(pt_err(out->ctx, -errno, "%s: %s", out->path, strerror(errno)));
	free(out->tmp);
	out->tmp = NULL;
	return 0;
}

PERFTUNE_EXPORT void perftune_output_free(struct perftune_output *out)
{
	if (!out)
		return;
	output_close(out);
	perftune_ctx_unref(out->ctx);
	free(out->path);
	free(out);
}

static int output_open_log_impl(struct perftune_ctx *ctx, const char *path, unsigned mode)
{
	struct perftune_output *o = NULL;
	int r = output_open_impl(ctx, path, mode, &o), fd = -1;

	if (r >= 0)
		r = perftune_output_commit(o);
	/* a descriptor of its own, in append mode: the writers that share it
	 * (a child's stdout and stderr, the caller) never write over each other */
	if (r >= 0 && (fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		r = pt_err(ctx, -errno, "%s: %s", path, strerror(errno));
	if (r >= 0 && fcntl(fd, F_SETFL, O_APPEND) < 0)
		r = pt_err(ctx, -errno, "%s: %s", path, strerror(errno));
	perftune_output_free(o);
	if (r >= 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return r;
}

PERFTUNE_EXPORT int perftune_output_open_log(struct perftune_ctx *ctx, const char *path,
					     unsigned mode)
{
	return pt_api_ret(output_open_log_impl(ctx, path, mode));
}

static int write_all(struct perftune_output *o, const char *text)
{
	size_t len = strlen(text), done = 0;

	while (done < len) {
		ssize_t n = write(o->fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pt_err(o->ctx, -errno, "%s: %s", o->path, strerror(errno));
		if (n == 0)
			return pt_err(o->ctx, -EIO, "%s: %s", o->path, strerror(EIO));
		done += (size_t)n;
	}
	return 0;
}

PERFTUNE_EXPORT int perftune_output_write_file(struct perftune_ctx *ctx, const char *path,
					       const char *text, unsigned mode)
{
	struct perftune_output *o = NULL;
	int r;

	if (!text)
		return -EINVAL;
	r = perftune_output_open(ctx, path, mode, &o);
	if (r >= 0)
		r = pt_api_ret(write_all(o, text));
	if (r >= 0)
		r = perftune_output_commit(o);
	perftune_output_free(o);
	return r;
}
