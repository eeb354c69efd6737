/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ctx.c: the context, as the files below it see it. */
#ifndef PERFTUNE_CORE_CTX_H
#define PERFTUNE_CORE_CTX_H

#include <pthread.h>
#include <stdbool.h>
#include "perftune.h"

/*
 * The first member of struct perftune_ctx (ctx.c): the part that attr.c and
 * log.c read, so that neither calls into ctx.c (which creates and frees the
 * attr state) and lib/ has no import circle.  ctx.c alone sets it.
 */
struct pt_attr;
struct pt_nl_transport;
struct pt_ctx_head {
	struct pt_attr *attr; /* attr.c: root and top fds, file cache, write hook, resolver */
	const struct pt_nl_transport *nl; /* net/nl.c: NULL = the running kernel's netlink */
	void *nl_data;
	perftune_log_fn log_fn;
	int log_max;
	void *log_data;
	pthread_mutex_t log_lock;
};
static inline struct pt_ctx_head *pt_ctx_head(struct perftune_ctx *ctx)
{
	return (struct pt_ctx_head *)ctx;
}

int *pt_ctx_jdir(struct perftune_ctx *ctx); /* journal.c's, kept in the context */
bool pt_root_is_host(struct perftune_ctx *ctx);
/* libraries that read /sys themselves (libcpupower) see our root: host, or umockdev on it */
bool pt_sys_is_root(struct perftune_ctx *ctx);
/* the context's libudev handle, made on first use; NULL if libudev is not installed (or no memory) */
struct udev *pt_udev(struct perftune_ctx *ctx);
/* Map @r onto the errno set perftune.h documents: every exported int function returns through it. */
int pt_api_ret(int r);

void pt_lock(struct perftune_ctx *ctx);
void pt_unlock(struct perftune_ctx *ctx);

#endif
