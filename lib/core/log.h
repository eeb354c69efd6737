/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* log.c: the log callback and the calling thread's last error. */
#ifndef PERFTUNE_CORE_LOG_H
#define PERFTUNE_CORE_LOG_H

#include <stddef.h>
#include "perftune.h"
#include "macro.h"

#define PT_ERR_MAX (PERFTUNE_KEY_MAX + 1024) /* one message: a key and what went wrong */
void pt_log(struct perftune_ctx *ctx, int prio, const char *fmt, ...) _printf_(3, 4);
/* Set the calling thread's one-line error and return @err (a negative errno). */
int pt_err(struct perftune_ctx *ctx, int err, const char *fmt, ...) _printf_(3, 4);
void pt_err_clear(struct perftune_ctx *ctx);
/* The current message: the calling worker's own while redirected. */
const char *pt_errmsg(struct perftune_ctx *ctx);
/* Send this thread's messages to @buf (NULL: back to the context). */
void pt_err_redirect(char *buf, size_t size);

#endif
