// SPDX-License-Identifier: LGPL-2.1-or-later
/* struct perftune_change: one tunable a transaction stages (perftune_tx_changes()). */
#include <stddef.h>
#include <stdlib.h>
#include "perftune.h"
#include "macro.h"
#include "object/store.h"
#include "object/change.h"

struct perftune_change_iter {
	struct pt_store all;
};

static const size_t change_strings[] = {
	offsetof(struct perftune_change, key),
	offsetof(struct perftune_change, old_value),
	offsetof(struct perftune_change, new_value),
	offsetof(struct perftune_change, note),
};

struct perftune_change_iter *pt_change_iter_new(void)
{
	return calloc(1, sizeof(struct perftune_change_iter));
}

int pt_change_iter_add(struct perftune_change_iter *it, const struct perftune_change *c)
{
	struct perftune_change copy = *c;

	copy.note = pt_store_note(c->note);
	copy.flags &=
		PERFTUNE_CHANGE_WRITTEN | PERFTUNE_CHANGE_UNCHANGED | PERFTUNE_CHANGE_GIVEN_BACK;
	return pt_store_add(&it->all, pt_store_copy(&copy, sizeof(copy), change_strings,
						    ARRAY_SIZE(change_strings)));
}

PERFTUNE_EXPORT const struct perftune_change *
perftune_change_iter_next(struct perftune_change_iter *it)
{
	if (!it)
		return NULL;
	return pt_store_next(&it->all);
}

PERFTUNE_EXPORT void perftune_change_iter_free(struct perftune_change_iter *it)
{
	if (!it)
		return;
	pt_store_clear(&it->all);
	free(it);
}

PERFTUNE_EXPORT const char *perftune_change_key(const struct perftune_change *c)
{
	if (!c)
		return NULL;
	return c->key;
}

PERFTUNE_EXPORT const char *perftune_change_old_value(const struct perftune_change *c)
{
	if (!c)
		return NULL;
	return c->old_value;
}

PERFTUNE_EXPORT const char *perftune_change_new_value(const struct perftune_change *c)
{
	if (!c)
		return NULL;
	return c->new_value;
}

PERFTUNE_EXPORT const char *perftune_change_note(const struct perftune_change *c)
{
	if (!c)
		return NULL;
	return c->note;
}

PERFTUNE_EXPORT unsigned perftune_change_flags(const struct perftune_change *c)
{
	if (!c)
		return 0;
	return c->flags;
}
