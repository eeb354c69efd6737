/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* suggest.c: "did you mean ...?" for a key that names nothing. */
#ifndef PERFTUNE_SUGGEST_H
#define PERFTUNE_SUGGEST_H

#include <stddef.h>
#include "perftune.h"
#include "core/key.h"
#include "family/family.h"

/*
 * @kp failed with @r in family @fam (NULL: no family has its first name;
 * @fams, @nfams: the registry).  Where the key meant can be named (a sysctl
 * one or two letters off or in another case, the sysctl of a key given
 * without "sysctl.", a family name mistyped), the message gets "; did you
 * mean KEY?" and the
 * error becomes -EINVAL: the key is a mistake, not a tunable this machine
 * lacks.  Returns the error to report (@r where nothing is suggested).
 */
int pt_suggest(struct perftune_ctx *ctx, const struct pt_keyparts *kp, const struct pt_family *fam,
	       int r, const struct pt_family *const *fams, size_t nfams);

/* Optimal string alignment distance of @a and @b (a swap of two neighbours is one
 * edit), or @max + 1 when it is more than @max; names past 64 bytes are never near. */
int pt_edit_distance(const char *a, const char *b, int max);

#endif
