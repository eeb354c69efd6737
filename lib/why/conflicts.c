// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_tx_conflicts(): for each key a transaction wrote (or, a dry run,
 * would write), the persistent source that will put another value back --
 * a sysctl.d line, a udev rule, TuneD's profile.  The warnings of
 * `perftune set` and `apply`, here so that a binding warns the same way.
 * One perftune_why_keys() call for all the keys, so that each configuration
 * file is read once; if it fails (a key gone since: a process, a device),
 * each key on its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "core/log.h"
#include "object/source.h"

/* a source that will put its key back: persistent, in effect, another value */
static bool puts_back(const struct perftune_source *s)
{
	const unsigned want = PERFTUNE_SOURCE_PERSISTENT | PERFTUNE_SOURCE_DIFFERS;

	return (s->flags & want) == want &&
	       !(s->flags & (PERFTUNE_SOURCE_OVERRIDDEN | PERFTUNE_SOURCE_ERROR));
}

/* the index of @key among @keys[0..n), looked for from @from on first (sources come in order) */
static size_t key_at(const char *const *keys, size_t n, size_t from, const char *key)
{
	for (size_t j = from; j < n; j++)
		if (!strcmp(keys[j], key))
			return j;
	for (size_t j = 0; j < from && j < n; j++)
		if (!strcmp(keys[j], key))
			return j;
	return n;
}

/* the keys to look at, NULL-terminated, and the values they were set to */
struct conflict_keys {
	const char **keys, **values;
	size_t n, cap;
};

static int keys_add(struct conflict_keys *k, const char *key, const char *value)
{
	if (k->n + 1 >= k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		const char **keys = realloc(k->keys, cap * sizeof(*keys)), **values;

		if (!keys)
			return -ENOMEM;
		k->keys = keys;
		values = realloc(k->values, cap * sizeof(*values));
		if (!values)
			return -ENOMEM;
		k->values = values;
		k->cap = cap;
	}
	k->keys[k->n] = key;
	k->values[k->n++] = value;
	k->keys[k->n] = k->values[k->n] = NULL;
	return 0;
}

/* @s, named by the key the transaction set, appended to @out */
static int add(struct perftune_source_iter *out, const char *key, const struct perftune_source *s)
{
	struct perftune_source c = *s;

	c.key = key;
	return pt_source_iter_add(out, &c);
}

/* the last source of @key alone that puts it back, appended to @out: 1, 0 (none) or -ENOMEM */
static int one_key(struct perftune_ctx *ctx, const char *key, const char *value,
		   struct perftune_source_iter *out)
{
	struct perftune_source_iter *it;
	const struct perftune_source *s, *last = NULL;
	int r = 0;

	if (perftune_why(ctx, key, value, &it) < 0)
		return 0; /* nothing to warn about that we can find */
	while ((s = perftune_source_iter_next(it)))
		if (puts_back(s))
			last = s;
	if (last)
		r = add(out, key, last);
	perftune_source_iter_free(it);
	if (r < 0)
		return r;
	return last != NULL;
}

/* the last source of each of @k's keys that puts it back, in @k's order: their count or -errno */
static int all_keys(struct perftune_ctx *ctx, const struct conflict_keys *k,
		    struct perftune_source_iter *out)
{
	const struct perftune_source *s, **last = calloc(k->n + 1, sizeof(*last));
	struct perftune_source_iter *it = NULL;
	size_t at = 0;
	int r = 0, count = 0;

	if (!last)
		return -ENOMEM;
	if (perftune_why_keys(ctx, k->keys, k->values, &it) < 0) {
		for (size_t i = 0; i < k->n && r >= 0; i++)
			count += r = one_key(ctx, k->keys[i], k->values[i], out);
		free(last);
		if (r < 0)
			return r;
		return count;
	}
	while ((s = perftune_source_iter_next(it))) {
		at = key_at(k->keys, k->n, at, s->key);
		if (at < k->n && puts_back(s))
			last[at] = s;
	}
	for (size_t i = 0; i < k->n && r >= 0; i++) {
		if (!last[i])
			continue;
		r = add(out, k->keys[i], last[i]);
		count++;
	}
	perftune_source_iter_free(it);
	free(last);
	if (r < 0)
		return r;
	return count;
}

static int conflicts_impl(struct perftune_ctx *ctx, struct perftune_tx *tx, unsigned flags,
			  struct perftune_source_iter **iterp)
{
	struct perftune_change_iter *ch = NULL;
	const struct perftune_change *c;
	struct conflict_keys k = { 0 };
	struct perftune_source_iter *out = pt_source_iter_new();
	int r = perftune_tx_changes(tx, &ch);

	if (!out)
		r = -ENOMEM;
	while (r >= 0 && (c = perftune_change_iter_next(ch))) {
		if (!(flags & PERFTUNE_CONFLICTS_STAGED) &&
		    !(perftune_change_flags(c) & PERFTUNE_CHANGE_WRITTEN))
			continue;
		r = keys_add(&k, perftune_change_key(c), perftune_change_new_value(c));
	}
	if (r >= 0 && k.n)
		r = all_keys(ctx, &k, out);
	perftune_change_iter_free(ch);
	free(k.keys);
	free(k.values);
	if (r < 0) {
		perftune_source_iter_free(out);
		return r == -ENOMEM ? pt_err(ctx, r, "%s: out of memory", perftune_tx_name(tx)) : r;
	}
	*iterp = out;
	return r;
}

PERFTUNE_EXPORT int perftune_tx_conflicts(struct perftune_ctx *ctx, struct perftune_tx *tx,
					  unsigned flags, struct perftune_source_iter **iterp)
{
	if (iterp)
		*iterp = NULL;
	if (!ctx || !tx || !iterp || (flags & ~(unsigned)PERFTUNE_CONFLICTS_STAGED))
		return -EINVAL;
	pt_err_clear(ctx);
	return pt_api_ret(conflicts_impl(ctx, tx, flags, iterp));
}
