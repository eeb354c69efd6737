/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A key of a journaled transaction (perftune_status()), as restore.c fills it. */
#ifndef PERFTUNE_OBJECT_STATUS_H
#define PERFTUNE_OBJECT_STATUS_H

struct perftune_status_entry {
	const char *tx_name;
	const char *key;
	const char *original; /* the value before the transaction, as journaled */
	const char *written;  /* what the transaction wrote; NULL: not yet */
	const char *current;  /* the value now; NULL: unreadable, gone */
	const char *note;     /* drift, hand-over, why no value now; NULL or "": none */
	const char *key_now;  /* the key its object goes by now (moved: a renamed NIC), or NULL */
	unsigned flags;	      /* PERFTUNE_STATUS_*; other bits are dropped */
	int pid;	      /* the holder of a held or orphaned transaction, else 0 */
};

struct perftune_status_iter *pt_status_iter_new(void);
/* Append a copy of @e, its strings too: 0 or -ENOMEM. */
int pt_status_iter_add(struct perftune_status_iter *it, const struct perftune_status_entry *e);
/* the key @e's object goes by now: where it moved, or its key (export) */
const char *pt_status_entry_key_now(const struct perftune_status_entry *e);

#endif
