// SPDX-License-Identifier: LGPL-2.1-or-later
/* struct perftune_check: what perftune_verify*() found for one setting. */
#include <stddef.h>
#include <stdlib.h>
#include "perftune.h"
#include "macro.h"
#include "object/store.h"
#include "object/check.h"

struct perftune_check_iter {
	struct pt_store all;
};

static const size_t check_strings[] = {
	offsetof(struct perftune_check, key),	  offsetof(struct perftune_check, expected),
	offsetof(struct perftune_check, current), offsetof(struct perftune_check, reason),
	offsetof(struct perftune_check, origin),
};

struct perftune_check_iter *pt_check_iter_new(void)
{
	return calloc(1, sizeof(struct perftune_check_iter));
}

int pt_check_iter_add(struct perftune_check_iter *it, const struct perftune_check *c)
{
	struct perftune_check copy = *c;

	copy.reason = pt_store_note(c->reason);
	return pt_store_add(&it->all, pt_store_copy(&copy, sizeof(copy), check_strings,
						    ARRAY_SIZE(check_strings)));
}

PERFTUNE_EXPORT const struct perftune_check *perftune_check_iter_next(struct perftune_check_iter *it)
{
	if (!it)
		return NULL;
	return pt_store_next(&it->all);
}

PERFTUNE_EXPORT void perftune_check_iter_free(struct perftune_check_iter *it)
{
	if (!it)
		return;
	pt_store_clear(&it->all);
	free(it);
}

PERFTUNE_EXPORT const char *perftune_check_key(const struct perftune_check *c)
{
	if (!c)
		return NULL;
	return c->key;
}

PERFTUNE_EXPORT const char *perftune_check_expected(const struct perftune_check *c)
{
	if (!c)
		return NULL;
	return c->expected;
}

PERFTUNE_EXPORT const char *perftune_check_current(const struct perftune_check *c)
{
	if (!c)
		return NULL;
	return c->current;
}

PERFTUNE_EXPORT const char *perftune_check_reason(const struct perftune_check *c)
{
	if (!c)
		return NULL;
	return c->reason;
}

PERFTUNE_EXPORT const char *perftune_check_origin(const struct perftune_check *c)
{
	if (!c)
		return NULL;
	return c->origin;
}

/* NULL: no check, so nothing found here */
PERFTUNE_EXPORT int perftune_check_status(const struct perftune_check *c)
{
	if (!c)
		return PERFTUNE_CHECK_NOT_HERE;
	return c->status;
}
