// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The only module that opens, reads and writes kernel files.  Every path is
 * relative to the context root and confined below its top directory (sys/,
 * proc/, dev/) by beneath.c (openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * or the same walk in user space): sysfs is full of relative symlinks, which
 * stay allowed, but nothing resolves outside.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "io/attr.h"
#include "io/attr-internal.h"
#include "io/beneath.h"

static const char *const tops[PT_TOP_MAX] = { "sys/", "proc/", "dev/" };

int pt_attr_root_fd(struct perftune_ctx *ctx)
{
	return pt_attr_of(ctx)->root_fd;
}

/*
 * The fd of a top directory (sys, proc, dev) of the root, opened on first use
 * and kept: it saves an open and a close per kernel file.  Worker threads of
 * a parallel commit may race here; the loser closes its own fd.
 */
static int top_fd(struct pt_attr *a, int i, const char *name)
{
	int fd = __atomic_load_n(&a->top_fd[i], __ATOMIC_ACQUIRE), expected = -1;

	if (fd >= 0)
		return fd;
	fd = openat(a->root_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (!__atomic_compare_exchange_n(&a->top_fd[i], &expected, fd, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		close(fd);
		fd = expected;
	}
	return fd;
}

void pt_attr_beneath_force(struct perftune_ctx *ctx, bool user)
{
	pt_beneath_force(&pt_attr_of(ctx)->beneath, user);
}

const char *pt_attr_beneath_name(struct perftune_ctx *ctx)
{
	struct pt_attr *a = pt_attr_of(ctx);
	int top = top_fd(a, 0, "sys");

	if (top < 0)
		top = top_fd(a, 1, "proc");
	return pt_beneath_name(&a->beneath, top);
}

PERFTUNE_EXPORT const char *perftune_ctx_get_resolver(struct perftune_ctx *ctx)
{
	if (ctx)
		return pt_attr_beneath_name(ctx);
	return NULL;
}

int pt_attr_beneath_refused(struct perftune_ctx *ctx)
{
	return __atomic_load_n(&pt_attr_of(ctx)->beneath.refused, __ATOMIC_RELAXED);
}

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
			return top_fd(pt_attr_of(ctx), (int)i, top);
		}
	}
	return -EPERM;
}

/* a regular file, or a character device under dev/ (/dev/cpu_dma_latency); *@st its stat */
static bool file_ok(int fd, const char *path, struct stat *st)
{
	if (fstat(fd, st) < 0)
		return false;
	return S_ISREG(st->st_mode) || (S_ISCHR(st->st_mode) && !strncmp(path, "dev/", 4));
}

int pt_attr_open_st(struct perftune_ctx *ctx, const char *path, int flags, struct stat *st)
{
	const char *rest;
	int top = open_top(ctx, path, &rest), fd;

	if (top < 0)
		return top;
	/* never wait on what a fake root may hold (a FIFO): O_NONBLOCK, then its type checked */
	fd = pt_beneath_open(&pt_attr_of(ctx)->beneath, top, rest,
			     (flags & O_PATH) ? flags : flags | O_NONBLOCK);
	if (fd >= 0 && !(flags & (O_PATH | O_DIRECTORY)) && !file_ok(fd, path, st)) {
		close(fd);
		return -EMEDIUMTYPE;
	}
	return fd;
}

int pt_attr_open(struct perftune_ctx *ctx, const char *path, int flags)
{
	struct stat st;

	return pt_attr_open_st(ctx, path, flags, &st);
}
