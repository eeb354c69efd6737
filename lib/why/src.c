// SPDX-License-Identifier: LGPL-2.1-or-later
/* The list of sources that the scanners fill and why.c orders: below them all. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "internal.h"
#include "shared/array.h"
#include "core/key.h"
#include "why-internal.h"

static const char *const kind_names[PT_SRC_KINDS] = {
	[PT_SRC_CMDLINE] = "cmdline", [PT_SRC_SYSCTL] = "sysctl.d", [PT_SRC_UDEV] = "udev",
	[PT_SRC_TUNED] = "tuned",     [PT_SRC_DAEMON] = "daemon",   [PT_SRC_TX] = "transaction",
};

const char *pt_src_kind_name(enum pt_src_kind kind)
{
	if (kind < PT_SRC_KINDS)
		return kind_names[kind];
	return "?";
}

static void src_clear(struct pt_src *s)
{
	pt_free_all(s->where, s->value, s->note);
}

struct pt_src *pt_src_add(struct pt_srcs *v, enum pt_src_kind kind, const struct pt_tunable *t,
			  const char *where, const char *value, const char *fmt, ...)
{
	struct pt_src *s;
	va_list ap;
	int n;

	if (pt_grow(&v->s, &v->cap, v->n + 1, 8) < 0)
		return NULL;
	s = &v->s[v->n];
	*s = (struct pt_src){ .kind = kind, .key = t->key };
	s->where = strdup(where);
	s->value = strndup(value ? value : "", PT_VAL - 1);
	va_start(ap, fmt);
	n = vasprintf(&s->note, fmt, ap);
	va_end(ap);
	if (n < 0)
		s->note = NULL;
	if (!s->where || !s->value || !s->note) {
		src_clear(s);
		return NULL;
	}
	v->n++;
	return s;
}

int pt_src_error(struct pt_srcs *v, enum pt_src_kind kind, const struct pt_tunable *t,
		 const char *where, int err)
{
	struct pt_src *s = pt_src_add(v, kind, t, where, NULL, "cannot read: %s", strerror(-err));

	if (!s)
		return -ENOMEM;
	s->flags |= PERFTUNE_SOURCE_ERROR;
	return 0;
}

void pt_srcs_free(struct pt_srcs *v)
{
	for (size_t i = 0; i < v->n; i++)
		src_clear(&v->s[i]);
	free(v->s);
	*v = (struct pt_srcs){ 0 };
}

/* ---- what the indexes share: names sorted for lookup, hits put back in order ---- */

static int ref_cmp(const void *a, const void *b)
{
	const struct pt_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	/* then in the order they take effect */
	if (x->i < y->i)
		return -1;
	return x->i > y->i;
}

void pt_refs_sort(struct pt_ref *r, size_t n)
{
	if (n)
		qsort(r, n, sizeof(*r), ref_cmp);
}

size_t pt_refs_find(const struct pt_ref *r, size_t n, const char *name, struct pt_why_work *work)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		work->steps++;
		if (strcmp(r[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pt_hits_add(struct pt_hits *h, size_t i, struct pt_why_work *work)
{
	if (pt_grow(&h->i, &h->cap, h->n + 1, 8) < 0)
		return -ENOMEM;
	h->i[h->n++] = i;
	work->steps++;
	return 0;
}

static int idx_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (x < y)
		return -1;
	return x > y;
}

void pt_hits_sort(struct pt_hits *h)
{
	if (h->n)
		qsort(h->i, h->n, sizeof(*h->i), idx_cmp);
}
