// SPDX-License-Identifier: LGPL-2.1-or-later
/* A growable string: appends that remember running out of memory, one check at the end. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "shared/buf.h"

void pt_buf_add(struct pt_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void pt_buf_puts(struct pt_buf *b, const char *s)
{
	pt_buf_add(b, s, strlen(s));
}

void pt_buf_printf(struct pt_buf *b, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		pt_buf_add(b, small, (size_t)n);
		return;
	}
	va_start(ap, fmt);
	n = vasprintf(&big, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	pt_buf_add(b, big, (size_t)n);
	free(big);
}

char *pt_buf_steal(struct pt_buf *b)
{
	char *s = b->s;

	if (b->oom) {
		free(s);
		s = NULL;
	} else if (!s) {
		s = strdup("");
	}
	memset(b, 0, sizeof(*b));
	return s;
}
