// SPDX-License-Identifier: LGPL-2.1-or-later
/* Describe objects and the generic iterator used by list, changes and status. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

struct perftune_desc {
	char *key, *path, *value, *choices, *unit, *reason, *info;
	bool has_range, writable;
	long long min, max;
};

static void set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = src ? strdup(src) : NULL;
}

struct perftune_desc *pt_desc_new(const struct pt_tunable *t)
{
	struct perftune_desc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	set_str(&d->key, t->key);
	set_str(&d->path, t->path[0] ? t->path : NULL);
	if (d->path && d->path[0] != '/') { /* show the kernel's absolute path */
		char *abs = malloc(strlen(d->path) + 2);
		if (abs) {
			abs[0] = '/';
			strcpy(abs + 1, d->path);
		}
		free(d->path);
		d->path = abs;
	}
	if (t->note[0])
		pt_desc_add_info(d, "%s", t->note);
	return d;
}

void pt_desc_set_value(struct perftune_desc *d, const char *v) { set_str(&d->value, v); }
void pt_desc_set_choices(struct perftune_desc *d, const char *c) { set_str(&d->choices, c); }
void pt_desc_set_unit(struct perftune_desc *d, const char *u) { set_str(&d->unit, u); }

void pt_desc_set_range(struct perftune_desc *d, long long min, long long max)
{
	d->has_range = true;
	d->min = min;
	d->max = max;
}

void pt_desc_set_writable(struct perftune_desc *d, bool w, const char *reason)
{
	d->writable = w;
	set_str(&d->reason, w ? NULL : reason);
}

void pt_desc_add_info(struct perftune_desc *d, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	size_t old = d->info ? strlen(d->info) : 0;
	char *n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = realloc(d->info, old + strlen(line) + 3);
	if (!n)
		return;
	if (old)
		strcpy(n + old, "; ");
	strcpy(n + old + (old ? 2 : 0), line);
	d->info = n;
}

PERFTUNE_EXPORT const char *perftune_desc_key(const struct perftune_desc *d) { return d ? d->key : NULL; }
PERFTUNE_EXPORT const char *perftune_desc_value(const struct perftune_desc *d) { return d ? d->value : NULL; }
PERFTUNE_EXPORT const char *perftune_desc_path(const struct perftune_desc *d) { return d ? d->path : NULL; }
PERFTUNE_EXPORT const char *perftune_desc_choices(const struct perftune_desc *d) { return d ? d->choices : NULL; }
PERFTUNE_EXPORT const char *perftune_desc_unit(const struct perftune_desc *d) { return d ? d->unit : NULL; }
PERFTUNE_EXPORT bool perftune_desc_writable(const struct perftune_desc *d) { return d && d->writable; }
PERFTUNE_EXPORT const char *perftune_desc_reason(const struct perftune_desc *d) { return d ? d->reason : NULL; }
PERFTUNE_EXPORT const char *perftune_desc_info(const struct perftune_desc *d) { return d ? d->info : NULL; }

PERFTUNE_EXPORT bool perftune_desc_range(const struct perftune_desc *d, long long *min,
					 long long *max)
{
	if (!d || !d->has_range)
		return false;
	if (min)
		*min = d->min;
	if (max)
		*max = d->max;
	return true;
}

PERFTUNE_EXPORT void perftune_desc_free(struct perftune_desc *d)
{
	if (!d)
		return;
	free(d->key);
	free(d->path);
	free(d->value);
	free(d->choices);
	free(d->unit);
	free(d->reason);
	free(d->info);
	free(d);
}

/* ---- iterator ---- */

struct perftune_iter {
	struct pt_item *items;
	size_t n, cap, pos; /* pos: 1-based index of the current item */
};

struct perftune_iter *pt_iter_new(void)
{
	return calloc(1, sizeof(struct perftune_iter));
}

static char *dup_or_null(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

static void item_clear(struct pt_item *it)
{
	free(it->name);
	free(it->key);
	free(it->value);
	free(it->old);
	free(it->current);
	free(it->note);
}

int pt_iter_add(struct perftune_iter *it, const struct pt_item *item)
{
	struct pt_item c = { .flags = item->flags, .pid = item->pid };
	bool fail = false;

	if (it->n == it->cap) {
		size_t cap = it->cap ? it->cap * 2 : 64;
		struct pt_item *n = realloc(it->items, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		it->items = n;
		it->cap = cap;
	}
	c.name = dup_or_null(item->name, &fail);
	c.key = dup_or_null(item->key, &fail);
	c.value = dup_or_null(item->value, &fail);
	c.old = dup_or_null(item->old, &fail);
	c.current = dup_or_null(item->current, &fail);
	c.note = dup_or_null(item->note && item->note[0] ? item->note : NULL, &fail);
	if (fail) {
		item_clear(&c);
		return -ENOMEM;
	}
	it->items[it->n++] = c;
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct pt_item *)a)->key, ((const struct pt_item *)b)->key);
}

void pt_iter_sort(struct perftune_iter *it)
{
	if (it->n)
		qsort(it->items, it->n, sizeof(*it->items), item_cmp);
}

static int iter_next_impl(struct perftune_iter *it)
{
	if (!it || it->pos >= it->n)
		return 0;
	it->pos++;
	return 1;
}

PERFTUNE_EXPORT int perftune_iter_next(struct perftune_iter *it)
{
	return pt_api_ret(iter_next_impl(it));
}

static const struct pt_item *cur(struct perftune_iter *it)
{
	return it && it->pos ? &it->items[it->pos - 1] : NULL;
}

#define ACCESSOR(name, field)                                                                      \
	PERFTUNE_EXPORT const char *perftune_iter_##name(struct perftune_iter *it)                 \
	{                                                                                          \
		const struct pt_item *c = cur(it);                                                 \
		return c ? c->field : NULL;                                                        \
	}
ACCESSOR(key, key)
ACCESSOR(value, value)
ACCESSOR(old, old)
ACCESSOR(current, current)
ACCESSOR(name, name)
ACCESSOR(note, note)

PERFTUNE_EXPORT unsigned perftune_iter_flags(struct perftune_iter *it)
{
	const struct pt_item *c = cur(it);
	return c ? c->flags : 0;
}

static int iter_pid_impl(struct perftune_iter *it)
{
	const struct pt_item *c = cur(it);
	return c ? c->pid : 0;
}

PERFTUNE_EXPORT int perftune_iter_pid(struct perftune_iter *it)
{
	return pt_api_ret(iter_pid_impl(it));
}

PERFTUNE_EXPORT void perftune_iter_free(struct perftune_iter *it)
{
	if (!it)
		return;
	for (size_t i = 0; i < it->n; i++)
		item_clear(&it->items[i]);
	free(it->items);
	free(it);
}
