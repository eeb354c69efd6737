/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* restore.c: what the engine asks of restore. */
#ifndef PERFTUNE_ENGINE_RESTORE_H
#define PERFTUNE_ENGINE_RESTORE_H

#include "perftune.h"

/* Restore transaction @name; lock must be held. */
int pt_restore_locked(struct perftune_ctx *ctx, const char *name, unsigned flags);

#endif
