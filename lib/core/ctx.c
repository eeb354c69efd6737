// SPDX-License-Identifier: LGPL-2.1-or-later
/* The library context: root, journal dir, log callback; it creates and frees attr.c's state. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "perftune.h"
#include "macro.h"
#include "shared/dlopen.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/log.h"

#define DEFAULT_JOURNAL_DIR "/run/perftune"

struct perftune_ctx {
	struct pt_ctx_head head; /* first: what attr.c and log.c read (core/ctx.h) */
	int refcount;
	char *root;
	char *journal_dir;
	struct udev *udev; /* made on first use: libudev is opened then (pt_udev()) */
	pthread_mutex_t lock;
	int jdir_fd; /* journal.c: the journal directory while its lock is held */
};

static int ctx_new_impl(struct perftune_ctx **ctxp)
{
	struct perftune_ctx *ctx;
	const char *jd = getenv("PERFTUNE_JOURNAL_DIR");

	if (!ctxp)
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->refcount = 1;
	ctx->jdir_fd = -1;
	ctx->head.attr = pt_attr_new();
	if (!ctx->head.attr) {
		free(ctx);
		return -ENOMEM;
	}
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&ctx->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutex_init(&ctx->head.log_lock, NULL);
	/* a relative one is kept, to be refused by name when a journal is used */
	ctx->journal_dir = strdup(jd && jd[0] ? jd : DEFAULT_JOURNAL_DIR);
	if (!ctx->journal_dir) {
		pt_attr_free(ctx->head.attr);
		pthread_mutex_destroy(&ctx->lock);
		pthread_mutex_destroy(&ctx->head.log_lock);
		free(ctx);
		return -ENOMEM;
	}
	int r = perftune_ctx_set_root(ctx, "/");
	if (r < 0) {
		perftune_ctx_unref(ctx);
		return r;
	}
	*ctxp = ctx;
	return 0;
}

PERFTUNE_EXPORT int perftune_ctx_new(struct perftune_ctx **ctxp)
{
	return pt_api_ret(ctx_new_impl(ctxp));
}

PERFTUNE_EXPORT struct perftune_ctx *perftune_ctx_ref(struct perftune_ctx *ctx)
{
	if (ctx)
		__atomic_add_fetch(&ctx->refcount, 1, __ATOMIC_SEQ_CST);
	return ctx;
}

PERFTUNE_EXPORT struct perftune_ctx *perftune_ctx_unref(struct perftune_ctx *ctx)
{
	if (!ctx || __atomic_sub_fetch(&ctx->refcount, 1, __ATOMIC_SEQ_CST) > 0)
		return NULL;
	pt_attr_free(ctx->head.attr);
	if (ctx->udev)
		pt_libudev.udev_unref(ctx->udev);
	pthread_mutex_destroy(&ctx->lock);
	pthread_mutex_destroy(&ctx->head.log_lock);
	free(ctx->root);
	free(ctx->journal_dir);
	free(ctx);
	return NULL;
}

/* in *@copy a copy of @path, which must be absolute (@what of @ctx names it in the error) */
static int abs_copy(struct perftune_ctx *ctx, const char *what, const char *path, char **copy)
{
	if (!ctx)
		return -EINVAL;
	if (!path || path[0] != '/')
		return pt_err(ctx, -EINVAL, "%s '%s': not an absolute path", what,
			      path ? path : "(null)");
	*copy = strdup(path);
	if (*copy)
		return 0;
	return -ENOMEM;
}

static int ctx_set_root_impl(struct perftune_ctx *ctx, const char *root)
{
	char *copy = NULL;
	int fd, r = abs_copy(ctx, "root", root, &copy);

	if (r < 0)
		return r;
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(copy);
		return pt_err(ctx, r, "root %s: %s", root, strerror(-r));
	}
	pt_attr_set_root(ctx->head.attr, fd, strcmp(copy, "/") == 0);
	free(ctx->root);
	ctx->root = copy;
	return 0;
}

static int ctx_set_journal_dir_impl(struct perftune_ctx *ctx, const char *dir)
{
	char *copy = NULL;
	int r = abs_copy(ctx, "journal directory", dir, &copy);

	if (r == 0) {
		free(ctx->journal_dir);
		ctx->journal_dir = copy;
	}
	return r;
}

PERFTUNE_EXPORT int perftune_ctx_set_root(struct perftune_ctx *ctx, const char *path)
{
	return pt_api_ret(ctx_set_root_impl(ctx, path));
}

PERFTUNE_EXPORT const char *perftune_ctx_get_root(struct perftune_ctx *ctx)
{
	if (!ctx)
		return NULL;
	return ctx->root;
}

PERFTUNE_EXPORT int perftune_ctx_set_journal_dir(struct perftune_ctx *ctx, const char *path)
{
	return pt_api_ret(ctx_set_journal_dir_impl(ctx, path));
}

PERFTUNE_EXPORT const char *perftune_ctx_get_journal_dir(struct perftune_ctx *ctx)
{
	if (!ctx)
		return NULL;
	return ctx->journal_dir;
}

PERFTUNE_EXPORT void perftune_ctx_set_log_fn(struct perftune_ctx *ctx, perftune_log_fn fn,
					     int max_priority, void *userdata)
{
	if (!ctx)
		return;
	ctx->head.log_fn = fn;
	ctx->head.log_max = max_priority;
	ctx->head.log_data = userdata;
}

PERFTUNE_EXPORT const char *perftune_version(void)
{
	return PERFTUNE_VERSION;
}

int *pt_ctx_jdir(struct perftune_ctx *ctx)
{
	return &ctx->jdir_fd;
}

bool pt_root_is_host(struct perftune_ctx *ctx)
{
	return strcmp(ctx->root, "/") == 0;
}

bool pt_sys_is_root(struct perftune_ctx *ctx)
{
	const char *mock = getenv("UMOCKDEV_DIR");

	if (mock)
		return strcmp(mock, ctx->root) == 0;
	return pt_root_is_host(ctx);
}

struct udev *pt_udev(struct perftune_ctx *ctx)
{
	if (!ctx->udev && pt_dl_load(PT_DL_UDEV) == 0)
		ctx->udev = pt_libudev.udev_new();
	return ctx->udev;
}

/*
 * The one error filter of the exported functions: the codes perftune.h
 * documents pass, any other (a kernel's or a libc's own) becomes -EIO, its
 * cause kept in the message.
 */
int pt_api_ret(int r)
{
	switch (r) {
	case -EINVAL:
	case -ENOENT:
	case -ENODEV:
	case -EACCES:
	case -EPERM:
	case -EROFS:
	case -ENOMEM:
	case -EIO:
	case -EBUSY:
	case -ENAMETOOLONG:
	case -EOPNOTSUPP:
	case -ENOTUNIQ:
	case -EALREADY:
	case -EAGAIN:
	case -ELOOP:
	case -EFBIG:
	case -ENOTDIR:
	case -ECANCELED:
		return r;
	case -ERANGE: /* a number out of the tunable's range */
	case -EISDIR: /* a key naming a directory, not an attribute file */
		return -EINVAL;
	case -ENOTBLK: /* a device that is not a block device */
	case -ESRCH:   /* proc.<pid>: no such process */
		return -ENODEV;
	case -E2BIG: /* too many devices or threads for one record */
		return -ENAMETOOLONG;
	default: /* -EPROTO (a journal of unknown format), -ENOSPC, -ENXIO, ... */
		if (r < 0)
			return -EIO;
		return r;
	}
}

void pt_lock(struct perftune_ctx *ctx)
{
	pthread_mutex_lock(&ctx->lock);
}

void pt_unlock(struct perftune_ctx *ctx)
{
	pthread_mutex_unlock(&ctx->lock);
}
