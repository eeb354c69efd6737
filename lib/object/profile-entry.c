// SPDX-License-Identifier: LGPL-2.1-or-later
/* struct perftune_profile_entry: a profile perftune_profile_list() finds. */
#include <stddef.h>
#include <stdlib.h>
#include "perftune.h"
#include "macro.h"
#include "object/store.h"
#include "object/profile-entry.h"

struct perftune_profile_entry_iter {
	struct pt_store all;
};

static const size_t profile_entry_strings[] = {
	offsetof(struct perftune_profile_entry, name),
	offsetof(struct perftune_profile_entry, path),
	offsetof(struct perftune_profile_entry, summary),
	offsetof(struct perftune_profile_entry, error),
	offsetof(struct perftune_profile_entry, variables),
	offsetof(struct perftune_profile_entry, unset_variables),
};

struct perftune_profile_entry_iter *pt_profile_entry_iter_new(void)
{
	return calloc(1, sizeof(struct perftune_profile_entry_iter));
}

int pt_profile_entry_iter_add(struct perftune_profile_entry_iter *it,
			      const struct perftune_profile_entry *e)
{
	struct perftune_profile_entry c = *e;

	c.error = pt_store_note(e->error);
	return pt_store_add(&it->all, pt_store_copy(&c, sizeof(c), profile_entry_strings,
						    ARRAY_SIZE(profile_entry_strings)));
}

PERFTUNE_EXPORT const struct perftune_profile_entry *
perftune_profile_entry_iter_next(struct perftune_profile_entry_iter *it)
{
	if (!it)
		return NULL;
	return pt_store_next(&it->all);
}

PERFTUNE_EXPORT void perftune_profile_entry_iter_free(struct perftune_profile_entry_iter *it)
{
	if (!it)
		return;
	pt_store_clear(&it->all);
	free(it);
}

PERFTUNE_EXPORT const char *perftune_profile_entry_name(const struct perftune_profile_entry *e)
{
	if (!e)
		return NULL;
	return e->name;
}

PERFTUNE_EXPORT const char *perftune_profile_entry_path(const struct perftune_profile_entry *e)
{
	if (!e)
		return NULL;
	return e->path;
}

PERFTUNE_EXPORT const char *perftune_profile_entry_summary(const struct perftune_profile_entry *e)
{
	if (!e)
		return NULL;
	return e->summary;
}

PERFTUNE_EXPORT const char *perftune_profile_entry_error(const struct perftune_profile_entry *e)
{
	if (!e)
		return NULL;
	return e->error;
}

PERFTUNE_EXPORT const char *perftune_profile_entry_variables(const struct perftune_profile_entry *e)
{
	if (!e)
		return NULL;
	return e->variables;
}

PERFTUNE_EXPORT const char *
perftune_profile_entry_unset_variables(const struct perftune_profile_entry *e)
{
	if (!e)
		return NULL;
	return e->unset_variables;
}
