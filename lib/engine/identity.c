// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which object a journaled original belongs to, found again.  A name can
 * outlive its object (a pid reused, a NIC deleted and made again under its
 * name) and an object can outlive its name (a NIC renamed): an original is
 * journaled with the identity of its object (a family's identity op), and a
 * restore writes it only onto the object that still has that identity,
 * under whatever key it goes by now (its reclaim op).  The engine knows no
 * family: identities are opaque text to it, compared whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "core/key.h"
#include "core/log.h"
#include "core/lookup.h"
#include "family/family.h"
#include "engine/identity.h"

int pt_ident_of(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig, char *buf,
		size_t size)
{
	buf[0] = '\0';
	if (t->fam->identity)
		return t->fam->identity(ctx, t, orig, buf, size);
	return 0;
}

bool pt_ident_same(const char *a, const char *b)
{
	return !a || !b || !a[0] || !b[0] || !strcmp(a, b);
}

/* the family of @key by its name, for a key that resolves no more */
static const struct pt_family *family_of(struct perftune_ctx *ctx, const char *key)
{
	_cleanup_free_ struct pt_keyparts *kp = malloc(sizeof(*kp));
	const struct pt_family *fam = NULL;
	char msg[PT_ERR_MAX];

	snprintf(msg, sizeof(msg), "%s", pt_errmsg(ctx)); /* the resolve's, kept */
	if (kp && pt_key_parse(ctx, key, kp) == 0)
		fam = pt_family_find(kp->c[0].s);
	pt_err(ctx, -ENOENT, "%s", msg);
	return fam;
}

/* f->t, what the key names now, is the object: its original as journaled */
static int same(struct pt_found *f)
{
	snprintf(f->value, sizeof(f->value), "%s", f->orig);
	return PT_FOUND_SAME;
}

/*
 * The family's answer: a moved object's key resolved, and its identity
 * checked again.  @why: what resolving the key said, if it did not resolve.
 */
static int reclaimed(struct perftune_ctx *ctx, struct pt_found *f, int r, const char *why)
{
	char id[PT_IDENT_MAX];

	if (r == PT_FOUND_SAME && !f->now) /* the object is there, its key names nothing */
		return pt_err(ctx, -ENOENT, "%s", why);
	if (r != PT_FOUND_MOVED)
		return r;
	if (pt_resolve_one(ctx, f->moved, &f->t) < 0)
		return pt_err(ctx, -ENOENT, "%s: %s, but %s", f->key, f->note, pt_errmsg(ctx));
	if (pt_ident_of(ctx, &f->t, f->orig, id, sizeof(id)) < 0 || strcmp(id, f->id))
		return pt_err(ctx, -ESTALE, "%s: %s, but that changed again since", f->key, f->note);
	return PT_FOUND_MOVED;
}

int pt_ident_find(struct perftune_ctx *ctx, const char *key, const char *id, const char *orig,
		  struct pt_found *f)
{
	const struct pt_family *fam;
	char now[PT_IDENT_MAX] = "", why[PT_ERR_MAX];
	int r;

	*f = (struct pt_found){ .key = key, .id = id, .orig = orig };
	r = pt_resolve_one(ctx, key, &f->t);
	if (!id || !id[0]) /* nothing journaled of it (format 1): by its name, as always */
		return r < 0 ? PT_FOUND_GONE : same(f);
	if (r >= 0 && pt_ident_of(ctx, &f->t, orig, now, sizeof(now)) >= 0 && !strcmp(now, id))
		return same(f);
	fam = r >= 0 ? f->t.fam : family_of(ctx, key);
	if (r < 0 && (!fam || !fam->reclaim)) /* nothing of that name now, nor anything to ask */
		return PT_FOUND_GONE;
	if (!fam->reclaim && !now[0]) /* the kernel shows no identity now: not a guess */
		return pt_err(ctx, -ESTALE, "%s: cannot tell whether it is the one journaled (%s)",
			      key, id);
	if (!fam->reclaim) {
		pt_err(ctx, -ESTALE, "%s: another object now (%s; journaled %s)", key, now, id);
		return PT_FOUND_GONE;
	}
	snprintf(why, sizeof(why), "%s", r < 0 ? pt_errmsg(ctx) : "");
	pt_err_clear(ctx);
	f->now = r >= 0 ? &f->t : NULL;
	snprintf(f->value, sizeof(f->value), "%s", orig);
	return reclaimed(ctx, f, fam->reclaim(ctx, f), why);
}
