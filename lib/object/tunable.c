// SPDX-License-Identifier: LGPL-2.1-or-later
/* struct perftune_tunable: one tunable that perftune_list() or perftune_get_each() found. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "object/store.h"
#include "object/tunable.h"

struct perftune_tunable_iter {
	struct pt_store all;
};

static const size_t tunable_strings[] = {
	offsetof(struct perftune_tunable, key),
	offsetof(struct perftune_tunable, value),
	offsetof(struct perftune_tunable, note),
};

struct perftune_tunable_iter *pt_tunable_iter_new(void)
{
	return calloc(1, sizeof(struct perftune_tunable_iter));
}

int pt_tunable_iter_add(struct perftune_tunable_iter *it, const struct perftune_tunable *t)
{
	struct perftune_tunable c = *t;

	c.note = pt_store_note(t->note);
	c.flags &= PERFTUNE_TUNABLE_READONLY | PERFTUNE_TUNABLE_ABSENT;
	return pt_store_add(&it->all, pt_store_copy(&c, sizeof(c), tunable_strings,
						    ARRAY_SIZE(tunable_strings)));
}

static int by_key(const void *a, const void *b)
{
	const struct perftune_tunable *const *x = a, *const *y = b;

	return strverscmp((*x)->key, (*y)->key);
}

void pt_tunable_iter_sort(struct perftune_tunable_iter *it)
{
	pt_store_sort(&it->all, by_key);
}

PERFTUNE_EXPORT const struct perftune_tunable *
perftune_tunable_iter_next(struct perftune_tunable_iter *it)
{
	if (!it)
		return NULL;
	return pt_store_next(&it->all);
}

PERFTUNE_EXPORT void perftune_tunable_iter_free(struct perftune_tunable_iter *it)
{
	if (!it)
		return;
	pt_store_clear(&it->all);
	free(it);
}

PERFTUNE_EXPORT const char *perftune_tunable_key(const struct perftune_tunable *t)
{
	if (!t)
		return NULL;
	return t->key;
}

PERFTUNE_EXPORT const char *perftune_tunable_value(const struct perftune_tunable *t)
{
	if (!t)
		return NULL;
	return t->value;
}

PERFTUNE_EXPORT const char *perftune_tunable_note(const struct perftune_tunable *t)
{
	if (!t)
		return NULL;
	return t->note;
}

PERFTUNE_EXPORT unsigned perftune_tunable_flags(const struct perftune_tunable *t)
{
	if (!t)
		return 0;
	return t->flags;
}
