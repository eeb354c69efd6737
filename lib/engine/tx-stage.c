// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_tx_set(): a key resolved, each tunable validated and staged; a key
 * whose file its scheduler (channels) makes waits for that key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "core/lookup.h"
#include "family/family.h"
#include "engine/tx-internal.h"

/* staging area of one perftune_tx_set() call: merged only if all of it validates */
struct pending {
	struct perftune_tx *tx;
	struct pt_stage *s;
	size_t n;
	const char *input;
	size_t resolved; /* tunables the key named (an expanding key may stage none) */
};

static struct pt_stage *find(struct pt_stage *s, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].c.key, key))
			return &s[i];
	return NULL;
}

static bool sched_staged(struct perftune_tx *tx, struct pending *p, const char *group)
{
	for (size_t i = 0; i < tx->n; i++)
		if (tx->s[i].c.order == PT_ORDER_SCHED && !strcmp(tx->s[i].c.group, group))
			return true;
	for (size_t i = 0; i < p->n; i++)
		if (p->s[i].c.order == PT_ORDER_SCHED && !strcmp(p->s[i].c.group, group))
			return true;
	return false;
}

/* a scheduler or channels key of @group is staged: its dependents wait no more */
static void sched_arrives(struct pending *p, const char *group)
{
	struct pt_stage *lists[2] = { p->tx->s, p->s };
	size_t ns[2] = { p->tx->n, p->n };

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < ns[l]; i++)
			if (lists[l][i].awaits && !strcmp(lists[l][i].c.group, group)) {
				free(lists[l][i].awaits);
				lists[l][i].awaits = NULL;
			}
}

static int stage_one(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     void *ud)
{
	struct pending *p = ud;
	struct pt_stage *s, *n = realloc(p->s, (p->n + 1) * sizeof(*p->s));
	char out[PT_VAL], cur[PT_VAL];
	_cleanup_free_ char *awaits = NULL;
	bool deferred = false, have_cur = false;
	int r;

	if (!n)
		return -ENOMEM;
	p->s = n;
	if ((t->fam->flags & PT_FAM_HELD) && !(p->tx->flags & PERFTUNE_TX_HOLD))
		return pt_err(ctx, -EINVAL,
			      "%s: the value is in force only while its file stays open: it needs "
			      "a holding transaction (perftune set --hold, PERFTUNE_TX_HOLD)",
			      t->key);
	if (t->fam->validate_cur) { /* the original from the read that validates */
		r = t->fam->validate_cur(ctx, t, value, out, sizeof(out), cur, sizeof(cur));
		have_cur = r >= 0;
	} else {
		r = t->fam->validate(ctx, t, value, out, sizeof(out));
	}
	if (r == -ENOENT && t->order == PT_ORDER_RESET && t->group[0]) {
		/*
		 * Its scheduler (channels) switches first and makes the file:
		 * validate after the switch.  Staged before that key, in any
		 * order: it waits for it, and the commit fails with this error
		 * if it never comes.
		 */
		if (!sched_staged(p->tx, p, t->group)) {
			awaits = strdup(pt_errmsg(ctx));
			if (!awaits)
				return -ENOMEM;
		}
		snprintf(out, sizeof(out), "%s", value);
		deferred = true;
		pt_err_clear(ctx);
		r = 0;
	}
	if (r < 0)
		return r;
	if (t->order == PT_ORDER_SCHED)
		sched_arrives(p, t->group);
	if (!have_cur && t->fam->read(ctx, t, cur, sizeof(cur)) < 0)
		cur[0] = '\0';
	pt_err_clear(ctx);
	s = &p->s[p->n];
	r = pt_stage_init(s, t);
	if (r >= 0)
		r = pt_tx_set_str(&s->value, out);
	if (r >= 0)
		r = pt_tx_set_str(&s->old, cur);
	if (r >= 0 && strcmp(out, value))
		r = pt_tx_set_str(&s->input, value);
	if (r < 0) {
		pt_stage_free(s);
		return r;
	}
	s->deferred = deferred;
	s->awaits = awaits;
	awaits = NULL;
	p->n++;
	return 0;
}

static int stage_emit(struct perftune_ctx *ctx, const struct pt_tunable *t, void *ud)
{
	struct pending *p = ud;
	int r;

	p->resolved++;
	r = t->fam->expand ? t->fam->expand(ctx, t, p->input, stage_one, ud) : 1;

	if (r == 1)
		return stage_one(ctx, t, p->input, ud);
	return r;
}

/* @key has a glob outside brackets: kept, so that a device added later that it matches
 * gets @value under a hotplug watch (watch.c) */
static int keep_rule(struct perftune_tx *tx, const char *key, const char *value)
{
	_cleanup_free_ struct pt_keyparts *kp = malloc(sizeof(*kp));
	bool glob = false;
	int r;

	if (!kp)
		return -ENOMEM;
	if (pt_key_parse(tx->ctx, key, kp) < 0) {
		pt_err_clear(tx->ctx);
		return 0;
	}
	for (int i = 0; i < kp->n; i++)
		glob |= kp->c[i].glob;
	for (size_t i = 0; glob && i < tx->nrules; i++)
		if (!strcmp(tx->rules[i].key, key))
			return pt_tx_set_str(&tx->rules[i].value, value);
	if (!glob)
		return 0;
	r = pt_grow(&tx->rules, &tx->caprules, tx->nrules + 1, 4);
	if (r < 0)
		return r;
	tx->rules[tx->nrules] = (struct pt_tx_rule){ strdup(key), strdup(value) };
	if (!tx->rules[tx->nrules].key || !tx->rules[tx->nrules].value) {
		pt_free_all(tx->rules[tx->nrules].key, tx->rules[tx->nrules].value);
		return -ENOMEM;
	}
	tx->nrules++;
	return 0;
}

static int tx_set_impl(struct perftune_tx *tx, const char *key, const char *value)
{
	struct perftune_ctx *ctx;
	struct pending p = { .tx = tx, .input = value };
	struct pt_fcache *prev;
	size_t taken = 0; /* of p.s, moved into tx->s */
	int r;

	if (!tx || !key || !value)
		return -EINVAL;
	ctx = tx->ctx;
	r = pt_tx_enter(tx, key, &prev);
	if (r < 0)
		goto out;
	if (!pt_value_ok(value)) {
		r = pt_err(ctx, -EINVAL,
			   "%s: value has a newline or control character, or is too "
			   "long",
			   key);
		goto out;
	}
	r = pt_resolve(ctx, key, stage_emit, &p);
	/* idle.max_latency_us=N where no state is deeper: nothing to change, not an error */
	if (r >= 0 && p.resolved == 0)
		r = pt_err(ctx, -ENODEV, "%s: matches nothing on this machine", key);
	if (r < 0)
		goto out;
	for (; taken < p.n; taken++) {
		struct pt_stage *old = find(tx->s, tx->n, p.s[taken].c.key);
		if (old) { /* staged again: the new value, the old place in line */
			int seq = old->seq;
			pt_stage_free(old);
			*old = p.s[taken];
			old->seq = seq;
			continue;
		}
		r = pt_grow(&tx->s, &tx->cap, tx->n + 1, 16);
		if (r < 0)
			goto out;
		p.s[taken].seq = (int)tx->n;
		tx->s[tx->n++] = p.s[taken];
	}
	r = keep_rule(tx, key, value);
	if (r >= 0)
		r = (int)p.n;
out:
	for (size_t i = taken; i < p.n; i++)
		pt_stage_free(&p.s[i]);
	free(p.s);
	pt_attr_cache_unuse(ctx, prev);
	pt_unlock(ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_tx_set(struct perftune_tx *tx, const char *key, const char *value)
{
	return pt_api_ret(tx_set_impl(tx, key, value));
}
