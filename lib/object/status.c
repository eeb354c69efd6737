// SPDX-License-Identifier: LGPL-2.1-or-later
/* struct perftune_status_entry: one key of a journaled transaction (perftune_status()). */
#include <stddef.h>
#include <stdlib.h>
#include "perftune.h"
#include "macro.h"
#include "object/store.h"
#include "object/status.h"

struct perftune_status_iter {
	struct pt_store all;
};

static const size_t status_strings[] = {
	offsetof(struct perftune_status_entry, tx_name),
	offsetof(struct perftune_status_entry, key),
	offsetof(struct perftune_status_entry, original),
	offsetof(struct perftune_status_entry, written),
	offsetof(struct perftune_status_entry, current),
	offsetof(struct perftune_status_entry, note),
	offsetof(struct perftune_status_entry, key_now),
};

static const unsigned status_flags = PERFTUNE_STATUS_DRIFT | PERFTUNE_STATUS_ORPHANED |
				     PERFTUNE_STATUS_HELD | PERFTUNE_STATUS_WRITTEN |
				     PERFTUNE_STATUS_COMMITTED | PERFTUNE_STATUS_SHADOWED |
				     PERFTUNE_STATUS_GONE | PERFTUNE_STATUS_MOVED |
				     PERFTUNE_STATUS_HOTPLUG | PERFTUNE_STATUS_REFUSED;

struct perftune_status_iter *pt_status_iter_new(void)
{
	return calloc(1, sizeof(struct perftune_status_iter));
}

int pt_status_iter_add(struct perftune_status_iter *it, const struct perftune_status_entry *e)
{
	struct perftune_status_entry c = *e;

	c.note = pt_store_note(e->note);
	c.flags &= status_flags;
	return pt_store_add(&it->all, pt_store_copy(&c, sizeof(c), status_strings,
						    ARRAY_SIZE(status_strings)));
}

const char *pt_status_entry_key_now(const struct perftune_status_entry *e)
{
	if (e->key_now)
		return e->key_now;
	return e->key;
}

PERFTUNE_EXPORT const struct perftune_status_entry *
perftune_status_iter_next(struct perftune_status_iter *it)
{
	if (!it)
		return NULL;
	return pt_store_next(&it->all);
}

PERFTUNE_EXPORT void perftune_status_iter_free(struct perftune_status_iter *it)
{
	if (!it)
		return;
	pt_store_clear(&it->all);
	free(it);
}

PERFTUNE_EXPORT const char *perftune_status_entry_tx_name(const struct perftune_status_entry *e)
{
	if (!e)
		return NULL;
	return e->tx_name;
}

PERFTUNE_EXPORT const char *perftune_status_entry_key(const struct perftune_status_entry *e)
{
	if (!e)
		return NULL;
	return e->key;
}

PERFTUNE_EXPORT const char *perftune_status_entry_original(const struct perftune_status_entry *e)
{
	if (!e)
		return NULL;
	return e->original;
}

PERFTUNE_EXPORT const char *perftune_status_entry_written(const struct perftune_status_entry *e)
{
	if (!e)
		return NULL;
	return e->written;
}

PERFTUNE_EXPORT const char *perftune_status_entry_current(const struct perftune_status_entry *e)
{
	if (!e)
		return NULL;
	return e->current;
}

PERFTUNE_EXPORT const char *perftune_status_entry_note(const struct perftune_status_entry *e)
{
	if (!e)
		return NULL;
	return e->note;
}

PERFTUNE_EXPORT unsigned perftune_status_entry_flags(const struct perftune_status_entry *e)
{
	if (!e)
		return 0;
	return e->flags;
}

PERFTUNE_EXPORT int perftune_status_entry_pid(const struct perftune_status_entry *e)
{
	if (!e)
		return 0;
	return e->pid;
}
