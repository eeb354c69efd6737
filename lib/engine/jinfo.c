// SPDX-License-Identifier: LGPL-2.1-or-later
/* A loaded journal's entries, and their index by key. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "shared/array.h"
#include "engine/journal-internal.h"
#include "engine/journal.h"

void pt_jinfo_free(struct pt_jinfo *ji)
{
	for (size_t i = 0; i < ji->n; i++)
		pt_free_all(ji->e[i].key, ji->e[i].orig, ji->e[i].written, ji->e[i].ident,
			    ji->e[i].plugged);
	for (size_t i = 0; i < ji->nrefused; i++)
		pt_free_all(ji->refused[i].key, ji->refused[i].why);
	free(ji->refused);
	free(ji->e);
	free(ji->idx);
	memset(ji, 0, sizeof(*ji));
}

/*
 * The key index: a journal of 40,000 keys is parsed, and each key looked up
 * by restore and by a commit, in linear time (a scan per record was quadratic).
 */
static size_t key_hash(const char *key)
{
	size_t h = 14695981039346656037ULL; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

/* the slot of @key: where it is, or the empty one where it would go */
static size_t *key_slot(const struct pt_jinfo *ji, const char *key)
{
	size_t mask = ji->nidx - 1;

	for (size_t i = key_hash(key) & mask;; i = (i + 1) & mask)
		if (!ji->idx[i] || !strcmp(ji->e[ji->idx[i] - 1].key, key))
			return &ji->idx[i];
}

/* room for one more entry, kept at most half full */
static int index_grow(struct pt_jinfo *ji)
{
	size_t n = ji->nidx ? ji->nidx : 64;
	size_t *old = ji->idx, nold = ji->nidx;

	if (ji->n + 1 <= ji->nidx / 2)
		return 0;
	while (ji->n + 1 > n / 2)
		n *= 2;
	ji->idx = calloc(n, sizeof(*ji->idx));
	if (!ji->idx) {
		ji->idx = old;
		return -ENOMEM;
	}
	ji->nidx = n;
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			*key_slot(ji, ji->e[old[i] - 1].key) = old[i];
	free(old);
	return 0;
}

struct pt_jentry *pt_jinfo_find(struct pt_jinfo *ji, const char *key)
{
	size_t *slot;

	if (!ji->nidx)
		return NULL;
	slot = key_slot(ji, key);
	if (*slot)
		return &ji->e[*slot - 1];
	return NULL;
}

/* a new entry for @key (not there yet) */
struct pt_jentry *pt_jinfo_add(struct pt_jinfo *ji, const char *key)
{
	struct pt_jentry *e;

	if (pt_grow(&ji->e, &ji->cap, ji->n + 1, 16) < 0)
		return NULL;
	if (index_grow(ji) < 0)
		return NULL;
	e = &ji->e[ji->n];
	memset(e, 0, sizeof(*e));
	e->key = strdup(key);
	if (!e->key)
		return NULL;
	*key_slot(ji, key) = ++ji->n;
	return e;
}
