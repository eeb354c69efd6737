/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* restore.c: what the engine asks of restore. */
#ifndef PERFTUNE_ENGINE_RESTORE_H
#define PERFTUNE_ENGINE_RESTORE_H

#include "perftune.h"

#include <stdbool.h>
#include <sys/types.h>

/* Restore transaction @name; lock must be held. */
int pt_restore_locked(struct perftune_ctx *ctx, const char *name, unsigned flags);

struct pt_restore_opts {
	unsigned flags; /* PERFTUNE_RESTORE_* */
	/* a key left in force (its original stays journaled, and the journal with it), or
	 * NULL: every key given back and the journal removed */
	bool (*keep)(void *ud, const char *key);
	void *ud;
	dev_t dev; /* the journal file expected (a transaction handle's), or ino 0: any */
	ino_t ino;
};
/* pt_restore_locked() as @o asks: -ESTALE where @name is another file than @o's */
int pt_restore_with(struct perftune_ctx *ctx, const char *name, const struct pt_restore_opts *o);
/*
 * A handle's rollback: restore @name (forced), taking the locks, if it is
 * still the journal file @dev/@ino the handle committed; -ESTALE if a
 * replace put another in its place, -ENOENT if none is there.
 */
int pt_restore_file(struct perftune_ctx *ctx, const char *name, dev_t dev, ino_t ino);

#endif
