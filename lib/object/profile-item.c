// SPDX-License-Identifier: LGPL-2.1-or-later
/* struct perftune_profile_item: an option of a profile and what it maps to. */
#include <stddef.h>
#include <stdlib.h>
#include "perftune.h"
#include "macro.h"
#include "object/store.h"
#include "object/profile-item.h"

struct perftune_profile_item_iter {
	struct pt_store all;
};

static const size_t profile_item_strings[] = {
	offsetof(struct perftune_profile_item, option),
	offsetof(struct perftune_profile_item, value_as_written),
	offsetof(struct perftune_profile_item, key),
	offsetof(struct perftune_profile_item, value),
	offsetof(struct perftune_profile_item, location),
	offsetof(struct perftune_profile_item, skip_reason),
	offsetof(struct perftune_profile_item, note),
};

struct perftune_profile_item_iter *pt_profile_item_iter_new(void)
{
	return calloc(1, sizeof(struct perftune_profile_item_iter));
}

int pt_profile_item_iter_add(struct perftune_profile_item_iter *it,
			     const struct perftune_profile_item *i)
{
	struct perftune_profile_item c = *i;

	c.skip_reason = pt_store_note(i->skip_reason);
	c.note = pt_store_note(i->note);
	c.flags &= PERFTUNE_PROFILE_ITEM_SKIPPED | PERFTUNE_PROFILE_ITEM_UNCHANGED;
	return pt_store_add(&it->all, pt_store_copy(&c, sizeof(c), profile_item_strings,
						    ARRAY_SIZE(profile_item_strings)));
}

PERFTUNE_EXPORT const struct perftune_profile_item *
perftune_profile_item_iter_next(struct perftune_profile_item_iter *it)
{
	if (!it)
		return NULL;
	return pt_store_next(&it->all);
}

PERFTUNE_EXPORT void perftune_profile_item_iter_free(struct perftune_profile_item_iter *it)
{
	if (!it)
		return;
	pt_store_clear(&it->all);
	free(it);
}

PERFTUNE_EXPORT const char *perftune_profile_item_option(const struct perftune_profile_item *i)
{
	if (!i)
		return NULL;
	return i->option;
}

PERFTUNE_EXPORT const char *
perftune_profile_item_value_as_written(const struct perftune_profile_item *i)
{
	if (!i)
		return NULL;
	return i->value_as_written;
}

PERFTUNE_EXPORT const char *perftune_profile_item_key(const struct perftune_profile_item *i)
{
	if (!i)
		return NULL;
	return i->key;
}

PERFTUNE_EXPORT const char *perftune_profile_item_value(const struct perftune_profile_item *i)
{
	if (!i)
		return NULL;
	return i->value;
}

PERFTUNE_EXPORT const char *perftune_profile_item_location(const struct perftune_profile_item *i)
{
	if (!i)
		return NULL;
	return i->location;
}

PERFTUNE_EXPORT const char *perftune_profile_item_skip_reason(const struct perftune_profile_item *i)
{
	if (!i)
		return NULL;
	return i->skip_reason;
}

PERFTUNE_EXPORT const char *perftune_profile_item_note(const struct perftune_profile_item *i)
{
	if (!i)
		return NULL;
	return i->note;
}

PERFTUNE_EXPORT unsigned perftune_profile_item_flags(const struct perftune_profile_item *i)
{
	if (!i)
		return 0;
	return i->flags;
}
