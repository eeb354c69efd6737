// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The context's log callback and each thread's last error: every file of
 * lib/ reports through here, so this file uses none of them.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include "perftune.h"
#include "macro.h"
#include "shared/util.h"
#include "core/ctx.h"
#include "core/log.h"

/* the last error of each thread: concurrent calls on one context keep their own */
static __thread char last_error[PT_ERR_MAX];

PERFTUNE_EXPORT const char *perftune_ctx_last_error(struct perftune_ctx *ctx)
{
	(void)ctx;
	return last_error;
}

void pt_log(struct perftune_ctx *ctx, int prio, const char *fmt, ...)
{
	struct pt_ctx_head *h = pt_ctx_head(ctx);
	char msg[PERFTUNE_KEY_MAX + 2048];
	va_list ap;

	if (!h->log_fn || prio > h->log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pt_one_line(msg);
	pthread_mutex_lock(&h->log_lock); /* workers of a parallel commit log too */
	h->log_fn(ctx, prio, msg, h->log_data);
	pthread_mutex_unlock(&h->log_lock);
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
	if (err_sink)
		return err_sink;
	return last_error;
}

int pt_err(struct perftune_ctx *ctx, int err, const char *fmt, ...)
{
	char *buf = err_sink ? err_sink : last_error;
	size_t size = err_sink ? err_sink_size : sizeof(last_error);
	char msg[PT_ERR_MAX];
	va_list ap;

	/* formatted apart first: an argument may be pt_errmsg(), this very
	 * buffer ("cannot apply the change before %s: %s"), which vsnprintf
	 * must not read while it writes it */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(buf, size, "%s", msg);
	pt_one_line(buf);
	pt_log(ctx, PERFTUNE_LOG_DEBUG, "error: %s", buf);
	return err;
}

void pt_err_clear(struct perftune_ctx *ctx)
{
	(void)ctx;
	(err_sink ? err_sink : last_error)[0] = '\0';
}
