/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the files of the attr module share: the state and the unit tier's
 * hooks (attr-state.c), confined opens (attr.c), the file cache (fcache.c),
 * reads and writes (attr-rw.c) and waves (attr-wave.c).
 */
#ifndef PERFTUNE_IO_ATTR_INTERNAL_H
#define PERFTUNE_IO_ATTR_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include "perftune.h"
#include "io/attr.h"
#include "io/beneath.h"
#include "core/ctx.h"

struct pt_attr {
	int root_fd;
	int top_fd[PT_TOP_MAX];	  /* sys, proc, dev under the root: opened once, on first use */
	bool host;		  /* the root is "/": the real kernel's files */
	struct pt_fcache *fcache; /* kernel files kept open for the length of one call */
	pt_write_fn write_fn;
	void *write_data;
	pt_affinity_fn affinity_fn; /* the unit tier's threads, instead of the syscalls */
	void *affinity_data;
	pt_kmod_fn kmod_fn; /* the unit tier's modules, instead of libkmod */
	void *kmod_data;
	struct pt_beneath_state beneath; /* beneath.c: openat2 or the user-space walk */
};

static inline struct pt_attr *pt_attr_of(struct perftune_ctx *ctx)
{
	return pt_ctx_head(ctx)->attr;
}

/* pt_attr_open(); a file's stat in *@st (untouched for O_PATH and O_DIRECTORY) */
int pt_attr_open_st(struct perftune_ctx *ctx, const char *path, int flags, struct stat *st);

/* fcache.c: what pt_fcache_get() and pt_fcache_find() answer for no kept fd */
#define PT_NOCACHE INT_MIN
/* the cache of @ctx if @path is a kind of file it keeps and a scope is open, or NULL */
struct pt_fcache *pt_fcache_of(struct perftune_ctx *ctx, const char *path);
/* the kept fd of @path and its stat, or PT_NOCACHE */
int pt_fcache_find(struct pt_fcache *fc, const char *path, struct stat *st);
/* close and forget the kept @fd (its file went away) */
void pt_fcache_drop(struct pt_fcache *fc, int fd);
/*
 * The kept fd of @path, opened now if it is not kept yet; PT_NOCACHE: no scope,
 * not a kept kind of file, or full.  In a fake root the files are plain
 * files that a simulated kernel may replace: a kept one no longer linked
 * is opened again.
 */
int pt_fcache_get(struct perftune_ctx *ctx, const char *path, struct stat *st);

#endif
