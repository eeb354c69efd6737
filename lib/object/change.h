/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A staged tunable of a transaction (perftune_tx_changes()), as tx.c fills it. */
#ifndef PERFTUNE_OBJECT_CHANGE_H
#define PERFTUNE_OBJECT_CHANGE_H

struct perftune_change {
	const char *key;
	const char *old_value; /* the value before the commit; NULL: not known yet */
	const char *new_value; /* the staged value, after alias mapping */
	const char *note;      /* alias mapping, resolution; NULL or "": none */
	unsigned flags;	       /* PERFTUNE_CHANGE_*; other bits are dropped */
};

struct perftune_change_iter *pt_change_iter_new(void);
/* Append a copy of @c, its strings too: 0 or -ENOMEM. */
int pt_change_iter_add(struct perftune_change_iter *it, const struct perftune_change *c);

#endif
