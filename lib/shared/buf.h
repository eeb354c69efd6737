/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* buf.c: a growable string; out of memory shows once, at pt_buf_steal(). */
#ifndef PERFTUNE_SHARED_BUF_H
#define PERFTUNE_SHARED_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include "macro.h"

struct pt_buf {
	char *s;
	size_t len, cap;
	bool oom;
};
void pt_buf_add(struct pt_buf *b, const char *s, size_t n);
void pt_buf_puts(struct pt_buf *b, const char *s);
void pt_buf_printf(struct pt_buf *b, const char *fmt, ...) _printf_(2, 3);
char *pt_buf_steal(struct pt_buf *b); /* NULL if out of memory; "" if nothing was added */

#endif
