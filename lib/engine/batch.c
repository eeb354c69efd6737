// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The batch engine of commit, its rollback and restore: items in groups (one
 * group per device; group 0 the keys without a device), each group's items in
 * order, the groups side by side.  The strategy is chosen here and only here:
 *
 *   serial   group 0 always, and a single device: in the caller's thread;
 *   waves    two or more devices and io_uring: the next write of every device
 *            at once (pt_attr_write_batch()), no thread per device;
 *   threads  two or more devices without io_uring (or PERFTUNE_NO_IO_URING).
 *
 * Every write goes through attr.c, so the unit tier's simulated kernel (its
 * fault and kill positions) reaches all three.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include "perftune.h"
#include "macro.h"
#include "io/attr.h"
#include "io/parallel.h"
#include "io/uring.h"
#include "core/log.h"
#include "engine/batch.h"

static int forced = -1; /* pt_batch_force(): the unit tier's sweeps */

void pt_batch_force(int strategy)
{
	__atomic_store_n(&forced, strategy, __ATOMIC_SEQ_CST);
}

enum pt_strategy pt_batch_strategy(size_t ndev)
{
	int f = __atomic_load_n(&forced, __ATOMIC_SEQ_CST);

	if (ndev < 2)
		return PT_BATCH_SERIAL;
	if (f >= 0)
		return (enum pt_strategy)f;
	if (pt_uring_available())
		return PT_BATCH_WAVES;
	return PT_BATCH_THREADS;
}

struct run {
	struct perftune_ctx *ctx;
	const struct pt_batch_ops *ops;
	void *ud;
	const size_t (*grp)[2];
	void (*group_fn)(void *ud, size_t g);
	int abort; /* an item failed and ops->stop_on_error: no item starts any more */
};

static bool aborted(struct run *rn)
{
	return __atomic_load_n(&rn->abort, __ATOMIC_SEQ_CST) != 0;
}

/* the end of item @i of group @g with result @r; true: the group goes on */
static bool finish(struct run *rn, size_t g, size_t i, int r)
{
	rn->ops->end(rn->ud, g, i, r);
	if (r < 0 && rn->ops->stop_on_error) {
		__atomic_store_n(&rn->abort, 1, __ATOMIC_SEQ_CST);
		return false;
	}
	return true;
}

static void run_group(struct run *rn, size_t g)
{
	for (size_t i = rn->grp[g][0]; i < rn->grp[g][1] && !aborted(rn); i++) {
		int r = rn->ops->pre(rn->ud, g, i);
		if (r == 1)
			r = rn->ops->post(rn->ud, g, i, rn->ops->write(rn->ud, g, i));
		if (!finish(rn, g, i, r))
			return;
	}
}

/* a thread: one device's items, its messages kept apart */
static void group_worker(size_t k, void *arg)
{
	struct run *rn = arg;
	char err[PT_ERR_MAX];

	pt_err_redirect(err, sizeof(err));
	if (rn->group_fn)
		rn->group_fn(rn->ud, k + 1);
	else
		run_group(rn, k + 1);
	pt_err_redirect(NULL, 0);
}

/* -EOPNOTSUPP before anything is done: no memory for a wave (use the threads) */
static int run_waves(struct run *rn, size_t ngrp)
{
	struct perftune_ctx *ctx = rn->ctx;
	const struct pt_batch_ops *ops = rn->ops;
	size_t nd = ngrp - 1;
	_cleanup_free_ size_t *pos = NULL;
	struct pt_wave w;

	pos = calloc(nd, sizeof(*pos));
	if (!pos || pt_wave_init(&w, nd) < 0)
		return -EOPNOTSUPP;
	for (size_t d = 0; d < nd; d++)
		pos[d] = rn->grp[d + 1][0];
	for (;;) {
		for (size_t d = 0; d < nd && !aborted(rn) && w.n < w.cap; d++) {
			size_t g = d + 1, end = rn->grp[g][1];
			for (; pos[d] < end; pos[d]++) { /* up to its next write */
				const char *path, *value;
				int r = ops->pre(rn->ud, g, pos[d]);
				if (r == 1 && ops->file(rn->ud, g, pos[d], &path, &value) &&
				    pt_wave_add(ctx, &w, d, path, value) == 1)
					break;
				if (r == 1) /* not a plain file write: here and now */
					r = ops->post(rn->ud, g, pos[d],
						      ops->write(rn->ud, g, pos[d]));
				if (!finish(rn, g, pos[d], r)) {
					pos[d] = end;
					break;
				}
			}
		}
		if (w.n == 0)
			break;
		pt_wave_run(ctx, &w);
		for (size_t q = 0; q < w.n; q++) { /* read back, in this thread */
			size_t d = w.who[q], g = d + 1, i = pos[d];
			int r = w.res[q];
			if (r == -EINPROGRESS) /* write it again here: retries, reopens */
				r = ops->write(rn->ud, g, i);
			else if (r < 0)
				r = ops->refused(rn->ud, g, i, r);
			r = ops->post(rn->ud, g, i, r);
			pos[d] = finish(rn, g, i, r) ? i + 1 : rn->grp[g][1];
		}
		pt_wave_reset(&w);
		if (aborted(rn))
			break;
	}
	pt_wave_free(&w);
	return 0;
}

int pt_batch_run(struct perftune_ctx *ctx, const struct pt_batch_ops *ops, void *ud,
		 const size_t (*grp)[2], size_t ngrp)
{
	struct run rn = { .ctx = ctx, .ops = ops, .ud = ud, .grp = grp };

	if (ngrp == 0)
		return 0;
	run_group(&rn, 0); /* keys without a device, in this thread */
	if (aborted(&rn) || ngrp == 1)
		return rn.abort ? -ECANCELED : 0;
	switch (pt_batch_strategy(ngrp - 1)) {
	case PT_BATCH_SERIAL:
		for (size_t g = 1; g < ngrp && !aborted(&rn); g++)
			run_group(&rn, g);
		break;
	case PT_BATCH_WAVES:
		if (run_waves(&rn, ngrp) == 0)
			break;
		/* no memory for a wave: threads */
		pt_parallel(ngrp - 1, PT_THREADS_MAX, group_worker, &rn);
		break;
	case PT_BATCH_THREADS:
		pt_parallel(ngrp - 1, PT_THREADS_MAX, group_worker, &rn);
		break;
	}
	if (rn.abort)
		return -ECANCELED;
	return 0;
}

void pt_batch_groups(void *ud, void (*fn)(void *ud, size_t g), size_t ngrp)
{
	struct run rn = { .ud = ud, .group_fn = fn };

	if (ngrp == 0)
		return;
	if (ngrp > 1 && pt_batch_strategy(ngrp - 1) == PT_BATCH_SERIAL)
		for (size_t g = 1; g < ngrp; g++)
			fn(ud, g);
	else if (ngrp > 1) /* waves write; a rollback's few reads and writes go on threads */
		pt_parallel(ngrp - 1, PT_THREADS_MAX, group_worker, &rn);
	fn(ud, 0);
}
