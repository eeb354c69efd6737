// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The module's state, one per context: made, given its root, freed (with
 * the file cache).  And what the unit tier swaps in it for its simulated
 * kernel: the write of a file, a thread's CPU affinity, the kernel modules;
 * without a hook, the real thing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sched.h>
#include "perftune.h"
#include "shared/cpulist.h"
#include "shared/kmod.h"
#include "io/attr.h"
#include "io/attr-internal.h"

struct pt_attr *pt_attr_new(void)
{
	struct pt_attr *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->root_fd = -1;
	for (int i = 0; i < PT_TOP_MAX; i++)
		a->top_fd[i] = -1;
	return a;
}

static void close_tops(struct pt_attr *a)
{
	for (int i = 0; i < PT_TOP_MAX; i++) {
		if (a->top_fd[i] >= 0)
			close(a->top_fd[i]);
		a->top_fd[i] = -1;
	}
}

void pt_attr_set_root(struct pt_attr *a, int root_fd, bool host)
{
	close_tops(a);
	if (a->root_fd >= 0)
		close(a->root_fd);
	a->root_fd = root_fd;
	a->host = host;
}

void pt_attr_free(struct pt_attr *a)
{
	if (!a)
		return;
	pt_attr_cache_destroy(a->fcache);
	pt_attr_set_root(a, -1, false);
	free(a);
}

void pt_attr_set_write_fn(struct perftune_ctx *ctx, pt_write_fn fn, void *userdata)
{
	pt_attr_of(ctx)->write_fn = fn;
	pt_attr_of(ctx)->write_data = userdata;
}

pt_write_fn pt_attr_get_write_fn(struct perftune_ctx *ctx, void **userdata)
{
	*userdata = pt_attr_of(ctx)->write_data;
	return pt_attr_of(ctx)->write_fn;
}

void pt_attr_set_affinity_fn(struct perftune_ctx *ctx, pt_affinity_fn fn, void *userdata)
{
	pt_attr_of(ctx)->affinity_fn = fn;
	pt_attr_of(ctx)->affinity_data = userdata;
}

int pt_attr_affinity(struct perftune_ctx *ctx, int tid, unsigned char *mask, bool set)
{
	struct pt_attr *a = pt_attr_of(ctx);
	size_t size = CPU_ALLOC_SIZE(PT_CPUS_MAX);
	cpu_set_t *cs;
	int r = 0;

	if (a->affinity_fn)
		return a->affinity_fn(ctx, tid, mask, set, a->affinity_data);
	if (!a->host) /* the threads of another root's /proc are not ours to move */
		return -EOPNOTSUPP;
	cs = CPU_ALLOC(PT_CPUS_MAX);
	if (!cs)
		return -ENOMEM;
	CPU_ZERO_S(size, cs);
	for (int c = 0; set && c < PT_CPUS_MAX; c++)
		if (pt_cpus_has(mask, c))
			CPU_SET_S((size_t)c, size, cs);
	if (set ? sched_setaffinity(tid, size, cs) : sched_getaffinity(tid, size, cs))
		r = -errno;
	for (int c = 0; !set && r == 0 && c < PT_CPUS_MAX; c++)
		pt_cpus_set(mask, c, CPU_ISSET_S((size_t)c, size, cs));
	CPU_FREE(cs);
	return r;
}

void pt_attr_set_kmod_fn(struct perftune_ctx *ctx, pt_kmod_fn fn, void *userdata)
{
	pt_attr_of(ctx)->kmod_fn = fn;
	pt_attr_of(ctx)->kmod_data = userdata;
}

int pt_attr_kmod_need(struct perftune_ctx *ctx, const char *key)
{
	if (pt_attr_of(ctx)->kmod_fn) /* the unit tier's modules need no libkmod */
		return 0;
	return pt_kmod_need(ctx, key);
}

int pt_attr_kmod(struct perftune_ctx *ctx, int op, const char *name, const char *options, char *out,
		 size_t size)
{
	struct pt_attr *a = pt_attr_of(ctx);

	out[0] = '\0';
	if (a->kmod_fn)
		return a->kmod_fn(ctx, op, name, options, out, size, a->kmod_data);
	if (!a->host) /* another root's modules are not this kernel's to load */
		return -EOPNOTSUPP;
	return pt_kmod_real(op, name, options, out, size);
}
