// SPDX-License-Identifier: LGPL-2.1-or-later
/* Describe objects, and the typed objects and iterators of list, changes, status and profiles. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "core/desc.h"
#include "core/key.h"
#include "family/family.h"

struct perftune_desc {
	char *key, *path, *value, *choices, *unit, *reason, *info;
	char *unreadable; /* why value is NULL */
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

void pt_desc_set_value(struct perftune_desc *d, const char *v)
{
	set_str(&d->value, v);
}
void pt_desc_set_unreadable(struct perftune_desc *d, const char *why)
{
	set_str(&d->value, NULL);
	set_str(&d->unreadable, why);
}
void pt_desc_set_choices(struct perftune_desc *d, const char *c)
{
	set_str(&d->choices, c);
}
void pt_desc_set_unit(struct perftune_desc *d, const char *u)
{
	set_str(&d->unit, u);
}

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

int pt_desc_read_writable(struct perftune_ctx *ctx, const struct pt_tunable *t,
			  struct perftune_desc *d)
{
	const struct pt_family *fam = t->fam;
	char v[PT_VAL];
	int r = fam->read(ctx, t, v, sizeof(v));

	if (r < 0)
		return r;
	pt_desc_set_value(d, v);
	pt_desc_set_writable(d, true, NULL);
	return 0;
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

/* perftune_desc_key(), _value(), _path() ...: a string of the description, NULL for NULL */
#define DESC_STRING(f)                                                                             \
	PERFTUNE_EXPORT const char *perftune_desc_##f(const struct perftune_desc *d)               \
	{                                                                                          \
		return d ? d->f : NULL;                                                            \
	}
DESC_STRING(key)
DESC_STRING(value)
DESC_STRING(path)
DESC_STRING(choices)
DESC_STRING(unit)
DESC_STRING(reason)
DESC_STRING(info)
DESC_STRING(unreadable)

PERFTUNE_EXPORT bool perftune_desc_writable(const struct perftune_desc *d)
{
	return d && d->writable;
}

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
	pt_free_all(d->key, d->path, d->value, d->choices, d->unit, d->reason, d->info,
		    d->unreadable, d);
}

/* ---- the store behind the typed iterators ---- */

struct pt_iter {
	struct pt_item *items;
	size_t n, cap, pos; /* pos: index of the next item */
};

struct pt_iter *pt_iter_new(void)
{
	return calloc(1, sizeof(struct pt_iter));
}

static void item_clear(struct pt_item *it)
{
	pt_free_all(it->name, it->key, it->value, it->old, it->current, it->note, it->now);
}

int pt_iter_add(struct pt_iter *it, const struct pt_item *item)
{
	struct pt_item c = { .flags = item->flags, .pid = item->pid };
	bool fail = false;

	if (pt_grow(&it->items, &it->cap, it->n + 1, 64) < 0)
		return -ENOMEM;
	c.name = pt_strdup_or_null(item->name, &fail);
	c.key = pt_strdup_or_null(item->key, &fail);
	c.value = pt_strdup_or_null(item->value, &fail);
	c.old = pt_strdup_or_null(item->old, &fail);
	c.current = pt_strdup_or_null(item->current, &fail);
	c.note = pt_strdup_or_null(item->note && item->note[0] ? item->note : NULL, &fail);
	c.now = pt_strdup_or_null(item->now, &fail);
	if (fail) {
		item_clear(&c);
		return -ENOMEM;
	}
	it->items[it->n++] = c;
	return 0;
}

int pt_iter_collect(size_t n, pt_item_fn fill, void *ud, struct pt_iter **out)
{
	struct pt_iter *it = pt_iter_new();
	char note[PT_ITEM_NOTE];

	for (size_t i = 0; it && i < n; i++) {
		struct pt_item item = { 0 };

		note[0] = '\0';
		fill(ud, i, &item, note);
		if (pt_iter_add(it, &item) < 0) {
			pt_iter_free(it);
			it = NULL;
		}
	}
	*out = it;
	return it ? 0 : -ENOMEM;
}

static int item_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct pt_item *)a)->key, ((const struct pt_item *)b)->key);
}

void pt_iter_sort(struct pt_iter *it)
{
	if (it->n)
		qsort(it->items, it->n, sizeof(*it->items), item_cmp);
}

static const struct pt_item *iter_step(struct pt_iter *it)
{
	return it && it->pos < it->n ? &it->items[it->pos++] : NULL;
}

void pt_iter_free(struct pt_iter *it)
{
	if (!it)
		return;
	for (size_t i = 0; i < it->n; i++)
		item_clear(&it->items[i]);
	free(it->items);
	free(it);
}

/*
 * Each public object is a struct pt_item seen through its own type, each
 * iterator a struct pt_iter: perftune_<iter>_iter_next() and _free(), and
 * pt_<iter>_iter() that the listing functions hand out.
 */
#define TYPED_ITER(obj, iter)                                                                      \
	struct perftune_##obj {                                                                    \
		struct pt_item item;                                                               \
	};                                                                                         \
	struct perftune_##iter##_iter {                                                            \
		struct pt_iter store;                                                              \
	};                                                                                         \
	struct perftune_##iter##_iter *pt_##iter##_iter(struct pt_iter *it)                        \
	{                                                                                          \
		return (struct perftune_##iter##_iter *)it;                                        \
	}                                                                                          \
	PERFTUNE_EXPORT const struct perftune_##obj *perftune_##iter##_iter_next(                  \
		struct perftune_##iter##_iter *it)                                                 \
	{                                                                                          \
		return (const struct perftune_##obj *)iter_step(it ? &it->store : NULL);           \
	}                                                                                          \
	PERFTUNE_EXPORT void perftune_##iter##_iter_free(struct perftune_##iter##_iter *it)        \
	{                                                                                          \
		pt_iter_free(it ? &it->store : NULL);                                              \
	}

/* a string field of an object; @when: the condition under which it has one */
#define STRING(obj, name, field, when)                                                             \
	PERFTUNE_EXPORT const char *perftune_##obj##_##name(const struct perftune_##obj *o)        \
	{                                                                                          \
		return o && (when) ? o->item.field : NULL;                                         \
	}
#define FLAGS(obj, mask)                                                                           \
	PERFTUNE_EXPORT unsigned perftune_##obj##_flags(const struct perftune_##obj *o)            \
	{                                                                                          \
		return o ? o->item.flags & (mask) : 0;                                             \
	}

/* m(o, x) for each x of up to six */
#define EACH_1(m, o, x) m(o, x)
#define EACH_2(m, o, x, ...) m(o, x) EACH_1(m, o, __VA_ARGS__)
#define EACH_3(m, o, x, ...) m(o, x) EACH_2(m, o, __VA_ARGS__)
#define EACH_4(m, o, x, ...) m(o, x) EACH_3(m, o, __VA_ARGS__)
#define EACH_5(m, o, x, ...) m(o, x) EACH_4(m, o, __VA_ARGS__)
#define EACH_6(m, o, x, ...) m(o, x) EACH_5(m, o, __VA_ARGS__)
#define EACH_N(x1, x2, x3, x4, x5, x6, n, ...) n
#define EACH(m, o, ...)                                                                            \
	EACH_N(__VA_ARGS__, EACH_6, EACH_5, EACH_4, EACH_3, EACH_2, EACH_1, -)(m, o, __VA_ARGS__)

/* (name, field): perftune_<obj>_<name>() returns the item's field */
#define FIELD_NAME(name, field) name
#define FIELD_OF(name, field) field
#define FIELD_(obj, name, field) STRING(obj, name, field, true)
#define FIELD(obj, name_field) FIELD_(obj, FIELD_NAME name_field, FIELD_OF name_field)

/* one public object: its type and iterator, its string fields */
#define OBJECT(obj, iter, ...) TYPED_ITER(obj, iter) EACH(FIELD, obj, __VA_ARGS__)

OBJECT(tunable, tunable, (key, key), (value, value), (note, note))
FLAGS(tunable, PERFTUNE_TUNABLE_READONLY | PERFTUNE_TUNABLE_ABSENT)

OBJECT(change, change, (key, key), (old_value, old), (new_value, value), (note, note))
FLAGS(change, PERFTUNE_CHANGE_WRITTEN | PERFTUNE_CHANGE_UNCHANGED)

OBJECT(status_entry, status, (tx_name, name), (key, key), (original, old), (written, value),
       (current, current), (note, note))
FLAGS(status_entry, PERFTUNE_STATUS_DRIFT | PERFTUNE_STATUS_ORPHANED | PERFTUNE_STATUS_HELD |
			    PERFTUNE_STATUS_WRITTEN | PERFTUNE_STATUS_COMMITTED |
			    PERFTUNE_STATUS_SHADOWED | PERFTUNE_STATUS_GONE | PERFTUNE_STATUS_MOVED)

PERFTUNE_EXPORT int perftune_status_entry_pid(const struct perftune_status_entry *o)
{
	return o ? o->item.pid : 0;
}

const char *pt_status_entry_key_now(const struct perftune_status_entry *o)
{
	return o->item.now ? o->item.now : o->item.key;
}

/* a skipped item's note is its skip reason */
OBJECT(profile_item, profile_item, (option, name), (value_as_written, old), (key, key),
       (value, value), (location, current))
STRING(profile_item, skip_reason, note, o->item.flags &PERFTUNE_PROFILE_ITEM_SKIPPED)
STRING(profile_item, note, note, !(o->item.flags & PERFTUNE_PROFILE_ITEM_SKIPPED))
FLAGS(profile_item, PERFTUNE_PROFILE_ITEM_SKIPPED | PERFTUNE_PROFILE_ITEM_UNCHANGED)

OBJECT(profile_entry, profile_entry, (name, name), (path, key), (summary, value), (error, note))

/* why: the kind's name in name, the location in current; verify: the status in pid */
OBJECT(source, source, (kind, name), (key, key), (location, current), (value, value), (note, note))
FLAGS(source, PERFTUNE_SOURCE_WINS | PERFTUNE_SOURCE_OVERRIDDEN | PERFTUNE_SOURCE_PERSISTENT |
		      PERFTUNE_SOURCE_DIFFERS | PERFTUNE_SOURCE_ERROR)

PERFTUNE_EXPORT int perftune_source_pid(const struct perftune_source *o)
{
	return o ? o->item.pid : 0;
}

OBJECT(check, check, (key, key), (expected, value), (current, current), (reason, note),
       (origin, name))

PERFTUNE_EXPORT int perftune_check_status(const struct perftune_check *o)
{
	return o ? o->item.pid : PERFTUNE_CHECK_NOT_HERE;
}
