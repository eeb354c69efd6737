/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lookup.c: the family registry, and keys looked up in it. */
#ifndef PERFTUNE_CORE_LOOKUP_H
#define PERFTUNE_CORE_LOOKUP_H

#include "core/key.h"

/* lookup.c: the family of that name, or NULL */
const struct pt_family *pt_family_find(const char *name);
/* Parse and resolve @key; emit each concrete tunable. */
int pt_resolve(struct perftune_ctx *ctx, const char *key, pt_emit_fn emit, void *ud);
/* Resolve to exactly the tunables, into a malloc'd array. */
int pt_resolve_all(struct perftune_ctx *ctx, const char *key, struct pt_tunable **out);
/* Look a concrete key up again (journal replay). */
int pt_resolve_one(struct perftune_ctx *ctx, const char *key, struct pt_tunable *t);

#endif
