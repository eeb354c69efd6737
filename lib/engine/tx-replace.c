// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A transaction that takes the place of another without a gap
 * (perftune_tx_replace(), doc/design.md "Replace").  Its commit runs as a
 * re-apply inside the replaced transaction's journal: a key the two share
 * goes from the old value to the new one and keeps its first original; a new
 * key is journaled before its write.  Then the keys only the replaced one
 * had are given back, and its live originals move, whole, to the new
 * transaction's journal in one step (pt_journal_swap()).  A kill at any
 * point leaves every original journaled, so a restore ends at the machine's
 * originals, never at the replaced transaction's values.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "core/log.h"
#include "io/attr.h"
#include "engine/holder.h"
#include "engine/journal.h"
#include "engine/restore.h"
#include "engine/tx-internal.h"

int pt_tx_replace_check(struct perftune_ctx *ctx, struct perftune_tx *tx, struct pt_jinfo *ji)
{
	struct pt_jinfo other;
	int r = pt_journal_load(ctx, tx->replaces, ji);

	if (r == -ENOENT)
		return pt_err(ctx, r, "no transaction named '%s' to replace", tx->replaces);
	if (r < 0)
		return r;
	if (ji->foreign_boot)
		return pt_err(ctx, -ENOENT,
			      "transaction '%s' is from another boot: nothing of it is in force",
			      tx->replaces);
	if (!ji->committed)
		return pt_err(ctx, -EBUSY,
			      "transaction '%s' did not complete its commit: restore it first",
			      tx->replaces);
	if (!strcmp(tx->name, tx->replaces))
		return 0;
	r = pt_journal_load(ctx, tx->name, &other);
	if (r == 0) {
		pt_jinfo_free(&other);
		return pt_err(ctx, -EBUSY,
			      "transaction '%s' exists: replace it by that name, or restore it first",
			      tx->name);
	}
	pt_err_clear(ctx);
	return r == -ENOENT ? 0 : r;
}

static int tx_replace_impl(struct perftune_tx *tx, const char *old)
{
	struct pt_fcache *prev;
	struct pt_jinfo ji;
	int r;

	if (!tx || !old)
		return -EINVAL;
	r = pt_tx_enter(tx, NULL, &prev);
	if (r >= 0 && !pt_journal_name_ok(old))
		r = pt_err(tx->ctx, -EINVAL, "'%s' is not a transaction name", old);
	if (r >= 0) {
		snprintf(tx->replaces, sizeof(tx->replaces), "%s", old);
		/* said now, and checked again at the commit */
		r = pt_tx_replace_check(tx->ctx, tx, &ji);
		pt_jinfo_free(&ji);
		if (r < 0)
			tx->replaces[0] = '\0';
	}
	pt_attr_cache_unuse(tx->ctx, prev);
	pt_unlock(tx->ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_tx_replace(struct perftune_tx *tx, const char *old)
{
	return pt_api_ret(tx_replace_impl(tx, old));
}

/* a key the new transaction stages: it stays in force (pt_restore_opts.keep) */
static bool staged(void *ud, const char *key)
{
	const struct perftune_tx *tx = ud;

	for (size_t i = 0; i < tx->n; i++)
		if (!strcmp(tx->s[i].c.key, key))
			return true;
	return false;
}

/* the keys only the replaced transaction had, as perftune_tx_changes() shows them */
static int note_given(struct perftune_tx *tx, const struct pt_jinfo *ji)
{
	pt_tx_drop_given(tx); /* of a commit that failed before */
	tx->given = calloc(ji->n + 1, sizeof(*tx->given));
	if (!tx->given)
		return -ENOMEM;
	for (size_t i = 0; i < ji->n; i++) {
		const struct pt_jentry *e = &ji->e[i];
		struct pt_given *g = &tx->given[tx->ngiven];
		if (e->restored || staged(tx, e->key))
			continue;
		g->key = strdup(e->key);
		g->from = strdup(e->written ? e->written : e->orig);
		g->to = strdup(e->orig);
		tx->ngiven++;
		if (!g->key || !g->from || !g->to)
			return -ENOMEM;
	}
	return 0;
}

int pt_tx_replace_preview(struct perftune_ctx *ctx, struct perftune_tx *tx)
{
	struct pt_jinfo ji;
	int r = pt_journal_load(ctx, tx->replaces, &ji);

	if (r >= 0)
		r = note_given(tx, &ji);
	pt_jinfo_free(&ji);
	return r;
}

/* its keys that the new one does not stage go back (a later transaction's stay with it) */
static void give_back_the_rest(struct perftune_ctx *ctx, struct perftune_tx *tx)
{
	struct pt_restore_opts o = { .flags = PERFTUNE_RESTORE_FORCE, .keep = staged, .ud = tx };

	if (!tx->ngiven)
		return;
	if (pt_restore_with(ctx, tx->name, &o) < 0) /* what stays is journaled, as before */
		pt_log(ctx, PERFTUNE_LOG_WARNING,
		       "transaction '%s': not every key only it had was given back (%s): "
		       "'%s' keeps them",
		       tx->replaces, pt_errmsg(ctx), tx->name);
	pt_err_clear(ctx);
}

/*
 * The replaced transaction's holder, another live process, ends: its journal
 * went to this one, so its rollback finds another file (or none) there and
 * writes nothing (pt_restore_file()); its PM QoS requests end as it exits,
 * after this process's own are open.
 */
static void end_old_holder(struct perftune_ctx *ctx, const struct pt_jinfo *old)
{
	if (old->pid <= 0 || old->pid == getpid() || !pt_holder_alive(old->pid, old->starttime))
		return;
	pt_log(ctx, PERFTUNE_LOG_NOTICE, "transaction '%s': its holder, process %d, is told to end",
	       old->name, old->pid);
	if (kill(old->pid, SIGTERM) < 0)
		pt_log(ctx, PERFTUNE_LOG_WARNING, "process %d: %s", old->pid, strerror(errno));
}

int pt_tx_replace_finish(struct perftune_ctx *ctx, struct perftune_tx *tx,
			 const struct pt_jinfo *old)
{
	struct pt_jinfo ji;
	struct stat st;
	int fd = -1, r;

	r = pt_journal_load(ctx, tx->replaces, &ji);
	if (r >= 0)
		r = note_given(tx, &ji);
	if (r >= 0) /* the step: nothing is given back before it, so a failure here rolls back */
		r = pt_journal_swap(ctx, &ji, tx->name, tx->flags, tx->flags & PERFTUNE_TX_HOLD,
				    &fd);
	pt_jinfo_free(&ji);
	if (r < 0) {
		pt_tx_drop_given(tx); /* rolled back: nothing was given back */
		return r;
	}
	if (fstat(fd, &st) == 0) {
		tx->jdev = st.st_dev;
		tx->jino = st.st_ino;
	}
	close(fd);
	give_back_the_rest(ctx, tx);
	end_old_holder(ctx, old);
	return 0;
}

static int tx_holder_impl(struct perftune_ctx *ctx, const char *name)
{
	struct pt_jinfo ji;
	int r = pt_journal_load(ctx, name, &ji);

	if (r == -ENOENT) {
		pt_err_clear(ctx);
		return 0;
	}
	if (r < 0)
		return r;
	r = 0;
	if (ji.held)
		r = (int)ji.pid;
	pt_jinfo_free(&ji);
	return r;
}

PERFTUNE_EXPORT int perftune_tx_holder(struct perftune_ctx *ctx, const char *name)
{
	int r;

	if (!ctx || !name)
		return pt_api_ret(-EINVAL);
	pt_lock(ctx);
	pt_err_clear(ctx);
	r = tx_holder_impl(ctx, name);
	pt_unlock(ctx);
	return pt_api_ret(r);
}
