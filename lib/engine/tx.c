// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transactions: stage validated values, then commit all-or-nothing.
 * For each key in order (schedulers before the attributes and iosched
 * parameters they reset): journal the original, write, read back and compare.
 * A failure gives back every key this commit wrote, in reverse order.
 * tx.c knows no family: everything goes through the family ops.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "object/change.h"
#include "shared/array.h"
#include "engine/journal.h"
#include "engine/restore.h"
#include "engine/tx.h"
#include "engine/tx-internal.h"

static int tx_new_impl(struct perftune_ctx *ctx, const char *name, unsigned flags,
		       struct perftune_tx **txp)
{
	struct perftune_tx *tx;

	if (!ctx || !txp)
		return -EINVAL;
	if (!name)
		name = "default";
	/* '-' first would read as an option to restore and status: refused when made
	 * (journals of such names from before are still found by restore -- NAME) */
	if (!pt_journal_name_ok(name) || name[0] == '-')
		return pt_err(ctx, -EINVAL,
			      "'%s': a transaction name is 1-%d of [A-Za-z0-9_.@-], not starting "
			      "with '.' or '-'",
			      name, PT_TX_NAME_MAX);
	if (flags & ~(unsigned)(PERFTUNE_TX_DRY_RUN | PERFTUNE_TX_HOLD | PERFTUNE_TX_ALLOW_PARTIAL))
		return pt_err(ctx, -EINVAL, "unknown transaction flags 0x%x", flags);
	tx = calloc(1, sizeof(*tx));
	if (!tx)
		return -ENOMEM;
	tx->refcount = 1;
	tx->ctx = perftune_ctx_ref(ctx);
	tx->flags = flags;
	snprintf(tx->name, sizeof(tx->name), "%s", name);
	*txp = tx;
	return 0;
}

PERFTUNE_EXPORT int perftune_tx_new(struct perftune_ctx *ctx, const char *name, unsigned flags,
				    struct perftune_tx **txp)
{
	return pt_api_ret(tx_new_impl(ctx, name, flags, txp));
}

PERFTUNE_EXPORT struct perftune_tx *perftune_tx_ref(struct perftune_tx *tx)
{
	if (tx)
		__atomic_add_fetch(&tx->refcount, 1, __ATOMIC_SEQ_CST);
	return tx;
}

int pt_tx_set_str(char **dst, const char *v)
{
	char *n;

	if (*dst && !strcmp(*dst, v))
		return 0;
	n = strdup(v);
	if (!n)
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

void pt_stage_free(struct pt_stage *s)
{
	pt_ctun_free(&s->c);
	free(s->value);
	free(s->old);
	free(s->verbatim);
	free(s->input);
	free(s->awaits);
}

int pt_stage_init(struct pt_stage *s, const struct pt_tunable *t)
{
	memset(s, 0, sizeof(*s));
	s->hold_fd = -1;
	return pt_ctun_set(&s->c, t);
}

const struct pt_tunable *pt_stage_tunable(const struct pt_stage *s, struct pt_tunable *t)
{
	return pt_ctun_get(&s->c, t);
}

int pt_stage_oom(struct perftune_ctx *ctx, const struct pt_stage *s)
{
	return pt_err(ctx, -ENOMEM, "%s: out of memory", s->c.key);
}

void pt_tx_release_holds(struct perftune_tx *tx)
{
	for (size_t i = 0; i < tx->n; i++)
		if (tx->s[i].hold_fd >= 0) {
			close(tx->s[i].hold_fd);
			tx->s[i].hold_fd = -1;
		}
}

void pt_tx_drop_given(struct perftune_tx *tx)
{
	for (size_t i = 0; i < tx->ngiven; i++)
		pt_free_all(tx->given[i].key, tx->given[i].from, tx->given[i].to);
	free(tx->given);
	tx->given = NULL;
	tx->ngiven = 0;
}

PERFTUNE_EXPORT struct perftune_tx *perftune_tx_unref(struct perftune_tx *tx)
{
	if (!tx || __atomic_sub_fetch(&tx->refcount, 1, __ATOMIC_SEQ_CST) > 0)
		return NULL;
	/*
	 * Never a write here: a held transaction not released stays journaled
	 * as held by this process (orphaned once it exits), for a restore.  Its
	 * PM QoS requests end as their fds close: the kernel drops them.
	 */
	pt_tx_release_holds(tx);
	pt_attr_cache_destroy(tx->files);
	if (tx->watch)
		tx->watch_free(tx->watch);
	if (tx->profile_rules)
		tx->profile_rules->free(tx->profile_data);
	for (size_t i = 0; i < tx->nrules; i++)
		pt_free_all(tx->rules[i].key, tx->rules[i].value);
	free(tx->rules);
	perftune_ctx_unref(tx->ctx);
	for (size_t i = 0; i < tx->n; i++)
		pt_stage_free(&tx->s[i]);
	pt_tx_drop_given(tx);
	free(tx->s);
	free(tx);
	return NULL;
}

PERFTUNE_EXPORT const char *perftune_tx_name(struct perftune_tx *tx)
{
	if (tx)
		return tx->name;
	return NULL;
}

struct perftune_ctx *pt_tx_ctx(struct perftune_tx *tx)
{
	return tx->ctx;
}

unsigned pt_tx_flags(struct perftune_tx *tx)
{
	return tx->flags;
}

int pt_tx_enter(struct perftune_tx *tx, const char *key, struct pt_fcache **prev)
{
	const char *state = "released";

	pt_lock(tx->ctx);
	*prev = pt_attr_cache_use(tx->ctx, &tx->files);
	pt_err_clear(tx->ctx);
	if (!tx->committed && !tx->released)
		return 0;
	if (tx->committed)
		state = "committed";
	if (key)
		return pt_err(tx->ctx, -EALREADY, "%s: transaction '%s' is already %s", key,
			      tx->name, state);
	return pt_err(tx->ctx, -EALREADY, "transaction '%s' is already %s", tx->name, state);
}

static int tx_rollback_impl(struct perftune_tx *tx)
{
	struct pt_fcache *prev;
	int r;

	if (!tx)
		return -EINVAL;
	pt_lock(tx->ctx);
	if (!tx->committed || tx->done) {
		r = pt_err(tx->ctx, -EALREADY, "transaction '%s' is not committed", tx->name);
		pt_unlock(tx->ctx);
		return r;
	}
	pt_tx_release_holds(tx);
	prev = pt_attr_cache_use(tx->ctx, &tx->files);
	r = pt_restore_file(tx->ctx, tx->name, tx->jdev, tx->jino);
	if (r == -ESTALE) { /* replaced (tx-replace.c): the keys are the new transaction's */
		pt_log(tx->ctx, PERFTUNE_LOG_NOTICE,
		       "transaction '%s' was replaced: nothing to give back here", tx->name);
		pt_err_clear(tx->ctx);
		r = -ENOENT;
	}
	pt_attr_cache_unuse(tx->ctx, prev);
	pt_attr_cache_destroy(tx->files);
	tx->files = NULL;
	pt_unlock(tx->ctx);
	if (r >= 0 || r == -ENOENT)
		tx->done = true;
	if (r == -ENOENT)
		return 0;
	return r;
}

PERFTUNE_EXPORT int perftune_tx_rollback(struct perftune_tx *tx)
{
	return pt_api_ret(tx_rollback_impl(tx));
}

/*
 * The end of a transaction's life in this process, with a result: a hold is
 * given back (rolled back), staged values are dropped, a committed non-HOLD
 * transaction stays in force.
 */
static int tx_release_impl(struct perftune_tx *tx)
{
	int r = 0;

	if (!tx)
		return -EINVAL;
	pt_lock(tx->ctx);
	pt_err_clear(tx->ctx);
	if (tx->committed && !tx->done && (tx->flags & PERFTUNE_TX_HOLD))
		r = tx_rollback_impl(tx); /* a hold ends with its release */
	if (r >= 0) {
		pt_tx_release_holds(tx);
		tx->released = true;
	}
	pt_unlock(tx->ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_tx_release(struct perftune_tx *tx)
{
	return pt_api_ret(tx_release_impl(tx));
}

/* the change of @s: its note says which alias was mapped, and how the key resolved */
static int tx_change(struct perftune_change_iter *it, const struct pt_stage *s)
{
	char note[PT_VAL + 256] = "";
	struct perftune_change c = { .key = s->c.key,
				     .old_value = s->old,
				     .new_value = s->value,
				     .note = note,
				     .flags = s->flags };

	if (s->input)
		snprintf(note, sizeof(note), "from '%s'", s->input);
	if (s->c.note)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "%s%s",
			 note[0] ? "; " : "", s->c.note);
	return pt_change_iter_add(it, &c);
}

static int tx_changes_impl(struct perftune_tx *tx, struct perftune_change_iter **iterp)
{
	struct perftune_change_iter *it;
	int r = 0;

	if (!tx || !iterp)
		return -EINVAL;
	it = pt_change_iter_new();
	if (!it)
		return -ENOMEM;
	for (size_t i = 0; i < tx->n && r >= 0; i++)
		r = tx_change(it, &tx->s[i]);
	for (size_t i = 0; i < tx->ngiven && r >= 0; i++) {
		struct perftune_change c = { .key = tx->given[i].key,
					     .old_value = tx->given[i].from,
					     .new_value = tx->given[i].to,
					     .flags = PERFTUNE_CHANGE_GIVEN_BACK };
		r = pt_change_iter_add(it, &c);
	}
	if (r < 0) {
		perftune_change_iter_free(it);
		return r;
	}
	*iterp = it;
	return 0;
}

PERFTUNE_EXPORT int perftune_tx_changes(struct perftune_tx *tx, struct perftune_change_iter **iterp)
{
	return pt_api_ret(tx_changes_impl(tx, iterp));
}
