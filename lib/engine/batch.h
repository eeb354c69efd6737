/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* batch.c: the one engine of commit, rollback and restore. */
#ifndef PERFTUNE_ENGINE_BATCH_H
#define PERFTUNE_ENGINE_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include "perftune.h"

enum pt_strategy {
	PT_BATCH_SERIAL,  /* no device or one: in the caller's thread */
	PT_BATCH_WAVES,	  /* devices' writes at once through io_uring */
	PT_BATCH_THREADS, /* a thread per device (no io_uring) */
};
/* serial for fewer than two devices; else waves where io_uring is, threads elsewhere */
enum pt_strategy pt_batch_strategy(size_t ndev);
/* the unit tier: take @strategy for two or more devices (-1: choose again) */
void pt_batch_force(int strategy);
/*
 * Per item @i of group @g.  pre: everything before its write: 1 write it,
 * 0 nothing to write, -errno.  file: true with the path and value if the
 * write is a plain file write (it may join a wave).  write: the write here
 * and now.  refused: the kernel's -errno of a wave's write into the message.
 * post: after the write with its result @r: the item's result.  end: the
 * item's result (pre's or post's), in the group's thread.
 */
struct pt_batch_ops {
	int (*pre)(void *ud, size_t g, size_t i);
	bool (*file)(void *ud, size_t g, size_t i, const char **path, const char **value);
	int (*write)(void *ud, size_t g, size_t i);
	int (*refused)(void *ud, size_t g, size_t i, int r);
	int (*post)(void *ud, size_t g, size_t i, int r);
	void (*end)(void *ud, size_t g, size_t i, int r);
	bool stop_on_error; /* a failure ends the batch: no item starts any more */
};
/* the ops of a batch user whose callbacks are b_pre(), b_file(), ... b_end() */
#define PT_BATCH_OPS(stop)                                                                         \
	{                                                                                          \
		.pre = b_pre, .file = b_file, .write = b_write, .refused = b_refused,              \
		.post = b_post, .end = b_end, .stop_on_error = stop,                               \
	}
/*
 * Group 0 (no device) first in this thread, then groups 1..@ngrp-1 side by
 * side; grp[g] = [start, end) of the items.  -ECANCELED: stopped by an error.
 */
int pt_batch_run(struct perftune_ctx *ctx, const struct pt_batch_ops *ops, void *ud,
		 const size_t (*grp)[2], size_t ngrp);
/* fn(ud, g) for the devices' groups side by side (threads), then group 0 */
void pt_batch_groups(void *ud, void (*fn)(void *ud, size_t g), size_t ngrp);

#endif
