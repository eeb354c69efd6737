// SPDX-License-Identifier: LGPL-2.1-or-later
/* The library context: root, journal dir, log callback, last error. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <libudev.h>
#include "internal.h"

#define DEFAULT_JOURNAL_DIR "/run/perftune"

struct perftune_ctx {
	int refcount;
	char *root;
	int root_fd;
	int top_fd[PT_TOP_MAX]; /* sys, proc, dev under the root: opened once, on first use */
	char *journal_dir;
	perftune_log_fn log_fn;
	int log_max;
	void *log_data;
	struct udev *udev;
	pt_write_fn write_fn;
	void *write_data;
	pthread_mutex_t lock;
	pthread_mutex_t log_lock;
	struct pt_fcache *fcache; /* attr.c: kernel files kept open for the length of one call */
	int jdir_fd;		  /* journal.c: the journal directory while its lock is held */
	struct pt_resolver_state resolver; /* resolve.c: openat2 or the user-space walk */
};

static void close_tops(struct perftune_ctx *ctx)
{
	for (int i = 0; i < PT_TOP_MAX; i++) {
		if (ctx->top_fd[i] >= 0)
			close(ctx->top_fd[i]);
		ctx->top_fd[i] = -1;
	}
}

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
	ctx->root_fd = -1;
	ctx->jdir_fd = -1;
	for (int i = 0; i < PT_TOP_MAX; i++)
		ctx->top_fd[i] = -1;
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&ctx->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutex_init(&ctx->log_lock, NULL);
	/* a relative one is kept, to be refused by name when a journal is used */
	ctx->journal_dir = strdup(jd && jd[0] ? jd : DEFAULT_JOURNAL_DIR);
	if (!ctx->journal_dir) {
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
	pt_attr_cache_free(ctx);
	close_tops(ctx);
	if (ctx->root_fd >= 0)
		close(ctx->root_fd);
	udev_unref(ctx->udev);
	pthread_mutex_destroy(&ctx->lock);
	pthread_mutex_destroy(&ctx->log_lock);
	free(ctx->root);
	free(ctx->journal_dir);
	free(ctx);
	return NULL;
}

static int ctx_set_root_impl(struct perftune_ctx *ctx, const char *root)
{
	char *copy;
	int fd;

	if (!ctx)
		return -EINVAL;
	if (!root || root[0] != '/')
		return pt_err(ctx, -EINVAL, "root '%s': not an absolute path", root ? root : "(null)");
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return pt_err(ctx, -errno, "root %s: %s", root, strerror(errno));
	copy = strdup(root);
	if (!copy) {
		close(fd);
		return -ENOMEM;
	}
	close_tops(ctx);
	if (ctx->root_fd >= 0)
		close(ctx->root_fd);
	free(ctx->root);
	ctx->root = copy;
	ctx->root_fd = fd;
	return 0;
}

PERFTUNE_EXPORT int perftune_ctx_set_root(struct perftune_ctx *ctx, const char *root)
{
	return pt_api_ret(ctx_set_root_impl(ctx, root));
}

PERFTUNE_EXPORT const char *perftune_ctx_get_root(struct perftune_ctx *ctx)
{
	return ctx ? ctx->root : NULL;
}

static int ctx_set_journal_dir_impl(struct perftune_ctx *ctx, const char *dir)
{
	char *copy;

	if (!ctx)
		return -EINVAL;
	if (!dir || dir[0] != '/')
		return pt_err(ctx, -EINVAL, "journal directory '%s': not an absolute path",
			      dir ? dir : "(null)");
	copy = strdup(dir);
	if (!copy)
		return -ENOMEM;
	free(ctx->journal_dir);
	ctx->journal_dir = copy;
	return 0;
}

PERFTUNE_EXPORT int perftune_ctx_set_journal_dir(struct perftune_ctx *ctx, const char *dir)
{
	return pt_api_ret(ctx_set_journal_dir_impl(ctx, dir));
}

PERFTUNE_EXPORT const char *perftune_ctx_get_journal_dir(struct perftune_ctx *ctx)
{
	return ctx ? ctx->journal_dir : NULL;
}

PERFTUNE_EXPORT void perftune_ctx_set_log_fn(struct perftune_ctx *ctx, perftune_log_fn fn,
					     int max_priority, void *userdata)
{
	if (!ctx)
		return;
	ctx->log_fn = fn;
	ctx->log_max = max_priority;
	ctx->log_data = userdata;
}

/* the last error of each thread: concurrent calls on one context keep their own */
static __thread char last_error[PT_ERR_MAX];

PERFTUNE_EXPORT const char *perftune_ctx_last_error(struct perftune_ctx *ctx)
{
	(void)ctx;
	return last_error;
}

PERFTUNE_EXPORT const char *perftune_version(void)
{
	return PERFTUNE_VERSION;
}

struct pt_fcache **pt_ctx_fcache(struct perftune_ctx *ctx)
{
	return &ctx->fcache;
}

int *pt_ctx_jdir(struct perftune_ctx *ctx)
{
	return &ctx->jdir_fd;
}

struct pt_resolver_state *pt_ctx_resolver(struct perftune_ctx *ctx)
{
	return &ctx->resolver;
}

int pt_root_fd(struct perftune_ctx *ctx)
{
	return ctx->root_fd;
}

/*
 * The fd of a top directory (sys, proc, dev) of the root, opened on first use
 * and kept: it saves an open and a close per kernel file.  Worker threads of
 * a parallel commit may race here; the loser closes its own fd.
 */
int pt_top_fd(struct perftune_ctx *ctx, int i, const char *name)
{
	int fd = __atomic_load_n(&ctx->top_fd[i], __ATOMIC_ACQUIRE), expected = -1;

	if (fd >= 0)
		return fd;
	fd = openat(ctx->root_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (!__atomic_compare_exchange_n(&ctx->top_fd[i], &expected, fd, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		close(fd);
		fd = expected;
	}
	return fd;
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
	if (!ctx->udev)
		ctx->udev = udev_new();
	return ctx->udev;
}

void pt_log(struct perftune_ctx *ctx, int prio, const char *fmt, ...)
{
	char msg[PERFTUNE_KEY_MAX + 2048];
	va_list ap;

	if (!ctx->log_fn || prio > ctx->log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pt_one_line(msg);
	pthread_mutex_lock(&ctx->log_lock); /* workers of a parallel commit log too */
	ctx->log_fn(ctx, prio, msg, ctx->log_data);
	pthread_mutex_unlock(&ctx->log_lock);
}

/* a worker thread of a parallel commit keeps its own message */
static __thread char *err_sink;
static __thread size_t err_sink_size;

void pt_err_redirect(char *buf, size_t size)
{
	err_sink = buf;
	err_sink_size = size;
	if (buf)
		buf[0] = '\0';
}

const char *pt_errmsg(struct perftune_ctx *ctx)
{
	(void)ctx;
	return err_sink ? err_sink : last_error;
}

int pt_err(struct perftune_ctx *ctx, int err, const char *fmt, ...)
{
	char *buf = err_sink ? err_sink : last_error;
	size_t size = err_sink ? err_sink_size : sizeof(last_error);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	pt_one_line(buf);
	pt_log(ctx, PERFTUNE_LOG_DEBUG, "error: %s", buf);
	return err;
}

void pt_err_clear(struct perftune_ctx *ctx)
{
	(void)ctx;
	(err_sink ? err_sink : last_error)[0] = '\0';
}

/*
 * The one error filter of the exported functions: the codes perftune.h
 * documents pass, any other (a kernel's or a libc's own) becomes -EIO, its
 * cause kept in the message.
 */
int pt_api_ret(int r)
{
	switch (r) {
	case -EINVAL: case -ENOENT: case -ENODEV: case -EACCES: case -EPERM: case -EROFS:
	case -ENOMEM: case -EIO: case -EBUSY: case -ENAMETOOLONG: case -EOPNOTSUPP:
	case -ENOTUNIQ: case -EALREADY: case -EAGAIN: case -ELOOP: case -EFBIG: case -ENOTDIR:
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
		return r < 0 ? -EIO : r;
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

void pt_attr_set_write_fn(struct perftune_ctx *ctx, pt_write_fn fn, void *userdata)
{
	ctx->write_fn = fn;
	ctx->write_data = userdata;
}

pt_write_fn pt_attr_get_write_fn(struct perftune_ctx *ctx, void **userdata)
{
	*userdata = ctx->write_data;
	return ctx->write_fn;
}
