// SPDX-License-Identifier: LGPL-2.1-or-later
/* A failed commit given back: each key this commit wrote, its journal as it was. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perftune.h"
#include "internal.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"
#include "engine/journal.h"
#include "engine/tx-internal.h"

static bool sched_undone(struct perftune_tx *tx, const struct pt_range *rg)
{
	for (size_t i = rg->start; i < rg->end; i++)
		if (tx->s[i].c.order == PT_ORDER_SCHED && tx->s[i].attempted)
			return true;
	return false;
}

void pt_tx_undo_range(struct pt_commit *c, struct pt_range *rg)
{
	struct perftune_ctx *ctx = c->ctx;
	struct perftune_tx *tx = c->tx;
	bool sched = sched_undone(tx, rg);

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = rg->end; i-- > rg->start;) {
			struct pt_stage *s = &tx->s[i];
			int dummy = -1;
			if (!s->attempted || (pass == 0) != (s->c.order == PT_ORDER_SCHED))
				continue;
			if (s->hold_fd >= 0) {
				close(s->hold_fd);
				s->hold_fd = -1;
			} else if (!(s->c.fam->flags & PT_FAM_HELD)) {
				struct pt_tunable tb;
				const struct pt_tunable *t = pt_stage_tunable(s, &tb);
				const char *old = pt_stage_orig(s);
				char cur[PT_VAL];
				int w = 0;
				if (s->c.fam->read(ctx, t, cur, sizeof(cur)) < 0 || strcmp(cur, old))
					w = s->c.fam->write(ctx, t, old, &dummy);
				if (w < 0 && s->c.order == PT_ORDER_RESET && sched)
					pt_log(ctx, PERFTUNE_LOG_INFO,
					       "%s: reset with its scheduler", s->c.key);
				else if (w < 0)
					pt_log(ctx, PERFTUNE_LOG_ERR, "rollback of %s failed: %s",
					       s->c.key, pt_errmsg(ctx));
			}
			if (s->journaled)
				pt_journal_append(ctx, c->jfd, "wrote", s->c.key, s->old);
			else
				pt_journal_append(ctx, c->jfd, "restored", s->c.key, NULL);
			s->attempted = false;
			s->flags &= ~(unsigned)PERFTUNE_CHANGE_WRITTEN;
		}
}

void pt_tx_drop_empty_journal(struct perftune_ctx *ctx, const char *name)
{
	struct pt_jinfo now;
	bool live = false;

	if (pt_journal_load(ctx, name, &now) < 0)
		return;
	for (size_t k = 0; k < now.n; k++)
		live |= !now.e[k].restored;
	if (!live)
		pt_journal_remove(ctx, name);
	pt_jinfo_free(&now);
}

/*
 * A failed re-apply under the name of an existing transaction: its rollback
 * gave every key back to the value it had under that transaction; the holder
 * goes back too (its "pid" record as it was, "pid 0 0" when it had none), so
 * that the journal reads as before: applied or held, never an orphan of this
 * process.
 */
void pt_tx_give_holder_back(struct perftune_ctx *ctx, int jfd, const struct pt_jinfo *ji)
{
	char pid[64];

	snprintf(pid, sizeof(pid), "0 0");
	if (ji->pid > 0)
		snprintf(pid, sizeof(pid), "%d %llu", ji->pid, ji->starttime);
	if (pt_journal_append(ctx, jfd, "pid", NULL, pid) < 0)
		pt_log(ctx, PERFTUNE_LOG_ERR, "transaction '%s': holder not given back: %s",
		       ji->name, pt_errmsg(ctx));
}
