// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Waves (io/uring.h): the next write of many devices at once, through their
 * kept fds, io_uring or threads; through the write hook in the unit tier.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/uio.h>
#include "perftune.h"
#include "io/attr.h"
#include "io/attr-internal.h"
#include "io/parallel.h"
#include "io/uring.h"
#include "core/log.h"

struct batch {
	const int *fds;
	const struct iovec *iov;
	int *res;
};

/* a ring this large refused (RLIMIT_MEMLOCK before 5.12): the same writes from threads */
static void thread_write(size_t q, void *ud)
{
	struct batch *b = ud;
	ssize_t n;

	do
		n = pwrite(b->fds[q], b->iov[q].iov_base, b->iov[q].iov_len, 0);
	while (n < 0 && errno == EINTR);
	b->res[q] = n < 0 ? -errno : (int)n;
}

void pt_attr_write_batch(struct perftune_ctx *ctx, size_t n, const char *const *paths,
			 const int *fds, const struct iovec *iov, int *res)
{
	struct batch b = { fds, iov, res };
	void *ud;
	pt_write_fn fn = pt_attr_get_write_fn(ctx, &ud);

	pt_log(ctx, PERFTUNE_LOG_DEBUG, "%zu writes at once (io_uring)", n);
	if (fn) { /* the simulated kernel: each write in turn, at its position */
		for (size_t q = 0; q < n; q++) {
			int r = fn(ctx, paths[q], iov[q].iov_base, iov[q].iov_len, ud);
			if (r == -EAGAIN || pt_attr_gone(r))
				r = -EINPROGRESS;
			res[q] = r < 0 ? r : 0;
		}
		return;
	}
	if (pt_uring_write(n, fds, iov, res) < 0 &&
	    pt_parallel(n, PT_WAVE_MAX, thread_write, &b) < 0)
		for (size_t q = 0; q < n; q++)
			res[q] = -EINPROGRESS;
	for (size_t q = 0; q < n; q++) {
		int r = res[q];
		if (r >= 0 && (size_t)r != iov[q].iov_len)
			r = -EIO;
		if (r >= 0 && !pt_attr_of(ctx)->host && ftruncate(fds[q], r) < 0)
			r = -errno; /* a fake root's plain file */
		/* not known, busy or gone: the caller writes it again itself (retries, reopens) */
		if (r == -EINPROGRESS || r == -EAGAIN || pt_attr_gone(r))
			r = -EINPROGRESS;
		res[q] = r < 0 ? r : 0;
	}
}

int pt_wave_add(struct perftune_ctx *ctx, struct pt_wave *w, size_t who, const char *path,
		const char *value)
{
	int fd;

	if (w->n == w->cap)
		return 0;
	fd = pt_attr_kept_fd(ctx, path);
	w->own[w->n] = fd < 0; /* the kept files are full: one for this wave */
	if (fd < 0)
		fd = pt_attr_open(ctx, path, O_WRONLY | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	pt_log(ctx, PERFTUNE_LOG_DEBUG, "write %s <- %s", path, value);
	w->who[w->n] = who;
	w->path[w->n] = path;
	w->fd[w->n] = fd;
	w->iov[w->n].iov_base = (void *)value;
	w->iov[w->n].iov_len = strlen(value);
	w->n++;
	return 1;
}

void pt_wave_run(struct perftune_ctx *ctx, struct pt_wave *w)
{
	pt_attr_write_batch(ctx, w->n, w->path, w->fd, w->iov, w->res);
}
