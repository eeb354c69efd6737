// SPDX-License-Identifier: LGPL-2.1-or-later
/* struct perftune_source: a source on the machine that claims a key (perftune_why()). */
#include <stddef.h>
#include <stdlib.h>
#include "perftune.h"
#include "macro.h"
#include "object/store.h"
#include "object/source.h"

struct perftune_source_iter {
	struct pt_store all;
};

static const size_t source_strings[] = {
	offsetof(struct perftune_source, kind),	    offsetof(struct perftune_source, key),
	offsetof(struct perftune_source, location), offsetof(struct perftune_source, value),
	offsetof(struct perftune_source, note),
};

static const unsigned source_flags = PERFTUNE_SOURCE_WINS | PERFTUNE_SOURCE_OVERRIDDEN |
				     PERFTUNE_SOURCE_PERSISTENT | PERFTUNE_SOURCE_DIFFERS |
				     PERFTUNE_SOURCE_ERROR;

struct perftune_source_iter *pt_source_iter_new(void)
{
	return calloc(1, sizeof(struct perftune_source_iter));
}

int pt_source_iter_add(struct perftune_source_iter *it, const struct perftune_source *s)
{
	struct perftune_source c = *s;

	c.value = pt_store_note(s->value);
	c.note = pt_store_note(s->note);
	c.flags &= source_flags;
	return pt_store_add(&it->all, pt_store_copy(&c, sizeof(c), source_strings,
						    ARRAY_SIZE(source_strings)));
}

PERFTUNE_EXPORT const struct perftune_source *
perftune_source_iter_next(struct perftune_source_iter *it)
{
	if (!it)
		return NULL;
	return pt_store_next(&it->all);
}

PERFTUNE_EXPORT void perftune_source_iter_free(struct perftune_source_iter *it)
{
	if (!it)
		return;
	pt_store_clear(&it->all);
	free(it);
}

PERFTUNE_EXPORT const char *perftune_source_kind(const struct perftune_source *s)
{
	if (!s)
		return NULL;
	return s->kind;
}

PERFTUNE_EXPORT const char *perftune_source_key(const struct perftune_source *s)
{
	if (!s)
		return NULL;
	return s->key;
}

PERFTUNE_EXPORT const char *perftune_source_location(const struct perftune_source *s)
{
	if (!s)
		return NULL;
	return s->location;
}

PERFTUNE_EXPORT const char *perftune_source_value(const struct perftune_source *s)
{
	if (!s)
		return NULL;
	return s->value;
}

PERFTUNE_EXPORT const char *perftune_source_note(const struct perftune_source *s)
{
	if (!s)
		return NULL;
	return s->note;
}

PERFTUNE_EXPORT unsigned perftune_source_flags(const struct perftune_source *s)
{
	if (!s)
		return 0;
	return s->flags;
}

PERFTUNE_EXPORT int perftune_source_pid(const struct perftune_source *s)
{
	if (!s)
		return 0;
	return s->pid;
}
