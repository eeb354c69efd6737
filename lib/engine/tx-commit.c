// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_tx_commit(): the staged keys in order (keys without a device, then
 * per device: scheduler, attributes, what the scheduler resets), through the
 * batch engine; the first failure rolls back all of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"
#include "family/file.h"
#include "engine/batch.h"
#include "engine/journal.h"
#include "engine/tx-internal.h"

/* keys without a device first, then per device: scheduler, attributes, dependents; stable */
static int order_cmp(const void *a, const void *b)
{
	const struct pt_stage *x = a, *y = b;
	int g = strcmp(x->c.group, y->c.group);

	if (g)
		return g;
	if (x->c.order != y->c.order)
		return (int)x->c.order - (int)y->c.order;
	return x->seq - y->seq;
}

static int dry_run(struct perftune_ctx *ctx, struct perftune_tx *tx)
{
	int n = 0;

	for (size_t i = 0; i < tx->n; i++) {
		struct pt_stage *s = &tx->s[i];
		struct pt_tunable tb;
		char cur[PT_VAL];
		if (s->c.fam->read(ctx, pt_stage_tunable(s, &tb), cur, sizeof(cur)) < 0)
			cur[0] = '\0';
		if (pt_tx_set_str(&s->old, cur) < 0)
			return pt_stage_oom(ctx, s);
		if (pt_value_eq(s->old, s->value) && !(s->c.fam->flags & PT_FAM_HELD))
			s->flags |= PERFTUNE_CHANGE_UNCHANGED;
		else
			n++;
	}
	pt_err_clear(ctx);
	return n;
}

/*
 * A scheduler switch resets nr_requests and replaces iosched/: read the keys
 * that depend on it now, so that their journaled originals are the values
 * from before the transaction, not the new scheduler's defaults.
 */
static int read_dependents(struct perftune_ctx *ctx, struct perftune_tx *tx, size_t sched)
{
	for (size_t j = sched + 1; j < tx->n; j++) {
		struct pt_stage *d = &tx->s[j];
		struct pt_tunable tb;
		char old[PT_VAL];
		if (d->c.order != PT_ORDER_RESET || d->deferred ||
		    strcmp(d->c.group, tx->s[sched].c.group))
			continue;
		d->pre = d->c.fam->read(ctx, pt_stage_tunable(d, &tb), old, sizeof(old)) == 0;
		if (d->pre && pt_tx_set_str(&d->old, old) < 0)
			return pt_stage_oom(ctx, d);
	}
	pt_err_clear(ctx);
	return 0;
}

/* ---- the batch engine's view of a commit: item i of group g is tx->s[i] ---- */
static int b_pre(void *ud, size_t g, size_t i)
{
	struct pt_commit *c = ud;
	struct perftune_tx *tx = c->tx;
	int r = tx->s[i].c.order == PT_ORDER_SCHED ? read_dependents(c->ctx, tx, i) : 0;

	(void)g;
	if (r < 0)
		return r;
	return pt_tx_commit_pre(c->ctx, c->ji, c->jfd, &tx->s[i]);
}

static bool b_file(void *ud, size_t g, size_t i, const char **path, const char **value)
{
	struct pt_stage *s = &((struct pt_commit *)ud)->tx->s[i];

	(void)g;
	*path = s->c.path;
	*value = s->value;
	return s->c.fam->flags & PT_FAM_FILE;
}

static int b_write(void *ud, size_t g, size_t i)
{
	struct pt_commit *c = ud;
	struct pt_stage *s = &c->tx->s[i];
	struct pt_tunable tb;

	(void)g;
	return s->c.fam->write(c->ctx, pt_stage_tunable(s, &tb), s->value, &s->hold_fd);
}

static int b_refused(void *ud, size_t g, size_t i, int r)
{
	struct pt_commit *c = ud;
	struct pt_stage *s = &c->tx->s[i];

	(void)g;
	return pt_file_refused(c->ctx, s->c.key, s->value, r);
}

static int b_post(void *ud, size_t g, size_t i, int r)
{
	struct pt_commit *c = ud;

	(void)g;
	if (r < 0)
		return r;
	return pt_tx_commit_post(c->ctx, c->tx, c->jfd, &c->tx->s[i]);
}

/* the first failure of a device is its range's: rolled back, and named */
static void b_end(void *ud, size_t g, size_t i, int r)
{
	struct pt_commit *c = ud;
	struct pt_range *rg = &c->rg[g];

	if (r >= 0)
		return;
	rg->r = r;
	rg->failed = i;
	snprintf(rg->err, sizeof(rg->err), "%s",
		 pt_errmsg(c->ctx)[0] ? pt_errmsg(c->ctx) : strerror(-r));
}

static const struct pt_batch_ops commit_ops = PT_BATCH_OPS(true);
static void undo_group(void *ud, size_t g)
{
	struct pt_commit *c = ud;

	pt_tx_undo_range(c, &c->rg[g]);
}

/* rg[0]: keys without a device (maybe empty); rg[1..]: one per device; grp: the same bounds */
static int split_ranges(struct perftune_tx *tx, struct pt_range **out, size_t (**grp)[2])
{
	struct pt_range *rg = calloc(tx->n + 1, sizeof(*rg));
	size_t n = 1, i = 0;

	*grp = calloc(tx->n + 1, sizeof(**grp));
	if (!rg || !*grp) {
		free(rg);
		return -ENOMEM;
	}
	while (i < tx->n && !tx->s[i].c.group[0])
		i++;
	rg[0].end = i;
	while (i < tx->n) {
		rg[n].start = i;
		while (i < tx->n && !strcmp(tx->s[i].c.group, tx->s[rg[n].start].c.group))
			i++;
		rg[n++].end = i;
	}
	for (size_t k = 0; k < n; k++) {
		(*grp)[k][0] = rg[k].start;
		(*grp)[k][1] = rg[k].end;
	}
	*out = rg;
	return (int)n;
}

/* the journal file a later rollback of @tx gives back (another one there: replaced) */
static void journal_file(struct perftune_tx *tx, int jfd)
{
	struct stat st;

	if (fstat(jfd, &st) == 0) {
		tx->jdev = st.st_dev;
		tx->jino = st.st_ino;
	}
}

static int commit_locked(struct perftune_ctx *ctx, struct perftune_tx *tx)
{
	struct pt_jinfo ji;
	struct pt_commit c = { .ctx = ctx, .tx = tx, .ji = &ji, .jfd = -1 };
	struct pt_range *bad = NULL;
	_cleanup_free_ size_t(*grp)[2] = NULL;
	int r, written = 0, n;
	bool existed;

	memset(&ji, 0, sizeof(ji));
	n = split_ranges(tx, &c.rg, &grp);
	if (n < 0)
		return n;
	c.nrg = (size_t)n;
	if (tx->replaces[0]) { /* written as a re-apply in its journal, held by whoever held it */
		r = pt_tx_replace_check(ctx, tx, &ji);
		if (r < 0)
			goto out;
		r = -EEXIST;
	} else {
		r = pt_journal_begin(ctx, tx->name, tx->flags, true, &c.jfd); /* usually none yet */
	}
	existed = r == -EEXIST;
	if (existed && tx->replaces[0]) {
		r = pt_journal_begin(ctx, tx->replaces, tx->flags, false, &c.jfd);
	} else if (existed) { /* a re-apply, or a transaction of that name held elsewhere */
		r = pt_journal_load(ctx, tx->name, &ji);
		if (r < 0)
			goto out;
		if (ji.held && ji.pid != getpid()) {
			r = pt_err(ctx, -EBUSY, "transaction '%s' is held by process %d", tx->name,
				   ji.pid);
			goto out;
		}
		r = pt_journal_begin(ctx, tx->name, tx->flags, false, &c.jfd);
	}
	if (r < 0)
		goto out;
	/* sysctls, THP, huge pages, ... in this thread, then the devices side by side */
	pt_batch_run(ctx, &commit_ops, &c, (const size_t(*)[2])grp, c.nrg);
	for (size_t k = 0; k < c.nrg && !bad; k++)
		if (c.rg[k].r < 0)
			bad = &c.rg[k];
	if (!bad && tx->replaces[0] && (r = pt_tx_replace_finish(ctx, tx, &ji)) < 0) {
		bad = &c.rg[0]; /* its journal step failed: all of it rolled back */
		bad->r = r;
		snprintf(bad->err, sizeof(bad->err), "transaction '%s': %s", tx->name,
			 pt_errmsg(ctx));
	}
	if (bad) {
		pt_batch_groups(&c, undo_group, c.nrg);
		if (!existed)
			pt_tx_drop_empty_journal(ctx, tx->name);
		else
			pt_tx_give_holder_back(ctx, c.jfd, &ji);
		r = pt_err(ctx, bad->r, "%s (rolled back)", bad->err);
		goto out;
	}
	for (size_t i = 0; i < tx->n; i++)
		written += (tx->s[i].flags & PERFTUNE_CHANGE_WRITTEN) != 0;
	if (tx->replaces[0]) { /* its journal is another file now, committed whole */
		r = written;
		goto out;
	}
	journal_file(tx, c.jfd);
	/*
	 * Nothing written (the machine was already in that state): the transaction
	 * is recorded all the same, empty, so that a script's later restore of its
	 * name succeeds, giving back nothing (doc/design.md, "No-op transactions").
	 * Without a hold it persists with no holder: "pid 0 0" in the same write.
	 */
	r = pt_journal_append(ctx, c.jfd,
			      tx->flags & PERFTUNE_TX_HOLD ? "commit" : "commit+release", NULL,
			      NULL);
	if (r >= 0)
		r = written;
out:
	if (c.jfd >= 0)
		close(c.jfd);
	free(c.rg);
	pt_jinfo_free(&ji);
	return r;
}

static int tx_commit_impl(struct perftune_tx *tx)
{
	struct perftune_ctx *ctx;
	struct pt_fcache *prev;
	int lockfd = -1, r;

	if (!tx)
		return -EINVAL;
	ctx = tx->ctx;
	r = pt_tx_enter(tx, NULL, &prev);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < tx->n; i++)
		if (tx->s[i].awaits) { /* nothing made its file: the error of its staging */
			r = pt_err(ctx, -ENOENT, "%s", tx->s[i].awaits);
			goto out;
		}
	if (tx->n) /* an empty transaction has no array: qsort(NULL, 0) is undefined */
		qsort(tx->s, tx->n, sizeof(*tx->s), order_cmp);
	if (tx->flags & PERFTUNE_TX_DRY_RUN) {
		r = dry_run(ctx, tx);
		if (r >= 0 && tx->replaces[0]) {
			int k = pt_tx_replace_preview(ctx, tx);
			if (k < 0)
				r = k;
		}
		goto out;
	}
	r = pt_journal_lock(ctx, &lockfd);
	if (r < 0)
		goto out;
	r = commit_locked(ctx, tx);
	pt_journal_unlock(ctx, lockfd);
	if (r >= 0)
		tx->committed = true;
	else
		pt_tx_release_holds(tx);
out:
	pt_attr_cache_unuse(ctx, prev);
	if (!tx->committed || pt_attr_cache_files(tx->files) > TX_KEEP_FILES) {
		pt_attr_cache_destroy(tx->files); /* a rollback opens what it needs */
		tx->files = NULL;
	}
	pt_unlock(ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_tx_commit(struct perftune_tx *tx)
{
	return pt_api_ret(tx_commit_impl(tx));
}
