/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* identity.c: which object a journaled original belongs to, found again. */
#ifndef PERFTUNE_ENGINE_IDENTITY_H
#define PERFTUNE_ENGINE_IDENTITY_H

#include "core/key.h"

/* the identity of @t for its original @orig into @buf: "" where its family keeps none */
int pt_ident_of(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig, char *buf,
		size_t size);
/*
 * Where the original @orig of @key, journaled with the identity @id (NULL or
 * "": none, as in journals of format 1), goes back to, in @f: PT_FOUND_SAME
 * (@key's object) or PT_FOUND_MOVED (the object goes by another key now), both
 * with f->t to write and f->value to write there; PT_FOUND_GONE: gone for good
 * (the message says why; without @id: @key resolves no more); or -errno: not
 * found now, though it may still be (the message says why).
 */
int pt_ident_find(struct perftune_ctx *ctx, const char *key, const char *id, const char *orig,
		  struct pt_found *f);
/* two identities name one object: equal, or one of them unknown (NULL or "") */
bool pt_ident_same(const char *a, const char *b);

#endif
