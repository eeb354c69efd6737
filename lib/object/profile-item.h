/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An option of a profile and what it maps to (perftune_profile_items()), as profile.c fills it. */
#ifndef PERFTUNE_OBJECT_PROFILE_ITEM_H
#define PERFTUNE_OBJECT_PROFILE_ITEM_H

struct perftune_profile_item {
	const char *option;	      /* "[section] name" */
	const char *value_as_written; /* after variable expansion */
	const char *key;	      /* the key it maps to; NULL: a skipped option may have none */
	const char *value;	      /* as validated ("deadline" reads "mq-deadline") */
	const char *location;	      /* "file:line" */
	const char *skip_reason;      /* a SKIPPED item's: why; NULL or "": none */
	const char *note;	      /* an applied item's: alias, resolution; NULL or "": none */
	unsigned flags;		      /* PERFTUNE_PROFILE_ITEM_*; other bits are dropped */
};

struct perftune_profile_item_iter *pt_profile_item_iter_new(void);
/* Append a copy of @i, its strings too: 0 or -ENOMEM. */
int pt_profile_item_iter_add(struct perftune_profile_item_iter *it,
			     const struct perftune_profile_item *i);

#endif
