// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Restore and status.  Restoring a transaction writes each original back,
 * schedulers first (their iosched parameters only exist under them), newest
 * first otherwise.  A key that a later live transaction also changed is not
 * written: its original is handed over to that transaction, so that restoring
 * stacked transactions in any order returns the machine to where it was.
 * An original goes back only to the object it was taken from (identity.c):
 * a key whose object is gone for good is reported and dropped, one whose
 * object went by another name is written there, and one whose object cannot
 * be found now, though it may still be there, stays in the journal.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
#include "object/status.h"
#include "family/family.h"
#include "family/file.h"
#include "engine/batch.h"
#include "engine/identity.h"
#include "engine/journal.h"
#include "engine/restore.h"

/* The other journals, read once for a restore or a status. */
struct others {
	struct pt_jinfo *ji;
	size_t n;
};

static void others_load(struct perftune_ctx *ctx, const char *self, struct others *o)
{
	char **names = NULL;
	int n = pt_journal_names(ctx, &names);

	o->n = 0;
	o->ji = NULL;
	if (n > 0)
		o->ji = calloc((size_t)n, sizeof(*o->ji));
	for (int i = 0; o->ji && i < n; i++)
		if (strcmp(names[i], self) && pt_journal_load(ctx, names[i], &o->ji[o->n]) == 0)
			o->n++;
	pt_strv_free(names);
	pt_err_clear(ctx);
}

static void others_free(struct others *o)
{
	for (size_t i = 0; i < o->n; i++)
		pt_jinfo_free(&o->ji[i]);
	free(o->ji);
}

/* the live transaction that took @key of the object @ident after @seq, earliest first */
static int later_holder(struct others *o, const char *key, const char *ident,
			unsigned long long seq, char *out, size_t size)
{
	unsigned long long best = 0;

	out[0] = '\0';
	for (size_t i = 0; i < o->n; i++) {
		struct pt_jentry *e = pt_jinfo_find(&o->ji[i], key);
		if (e && !e->restored && !o->ji[i].foreign_boot && e->seq > seq &&
		    pt_ident_same(e->ident, ident) && (!best || e->seq < best)) {
			best = e->seq;
			snprintf(out, size, "%s", o->ji[i].name);
		}
	}
	return out[0] != '\0';
}

/* One key to give back, resolved in the caller's thread. */
struct item {
	struct pt_jentry *e;
	struct pt_ctun t; /* (a scheduler change on 256 disks gives back 256 keys) */
	char *value;	  /* the original to write, where it is not e->orig (narrowed) */
	size_t pos;	  /* newest first */
	int r;
	bool wrote;
	char *err; /* when r < 0 */
};

struct restore {
	struct perftune_ctx *ctx;
	struct pt_jinfo *ji;
	struct item *it;
	size_t n;
	size_t (*grp)[2]; /* [start, end) of each device's items; grp[0]: no device */
	size_t ngrp;
	bool *sched;	      /* per group: its scheduler was given back */
	int unfound;	      /* keys whose object was not found, though it may be there: kept */
	char err[PT_ERR_MAX]; /* the first of their messages */
};

/* the original to write back */
static const char *orig_of(const struct item *it)
{
	if (it->value)
		return it->value;
	return it->e->orig;
}

/* Before writing one original back: 1 = write it, 0 = nothing to write, or -errno. */
static int give_pre(struct perftune_ctx *ctx, struct pt_jinfo *ji, struct item *it, bool sched)
{
	struct pt_jentry *e = it->e;
	struct pt_tunable tb;
	const struct pt_tunable *t = pt_ctun_get(&it->t, &tb);
	char cur[PT_VAL];
	int r;

	r = t->fam->read(ctx, t, cur, sizeof(cur));
	if (r == -ENOENT &&
	    t->order == PT_ORDER_RESET) /* an iosched parameter gone with its scheduler */
		return 0;
	if (r < 0)
		return r;
	if (e->written && strcmp(cur, e->written) && !(t->order == PT_ORDER_RESET && sched))
		pt_log(ctx, PERFTUNE_LOG_WARNING,
		       "%s: drifted: transaction '%s' wrote '%s', now '%s'; restoring '%s' anyway",
		       e->key, ji->name, e->written, cur, orig_of(it));
	return strcmp(cur, orig_of(it)) != 0; /* one kept verbatim ("a  b\tc"): written */
}

/* After the write (result @r): an iosched parameter reset with its scheduler is fine. */
static int give_post(struct perftune_ctx *ctx, struct item *it, bool sched, int r)
{
	struct pt_jentry *e = it->e;
	struct pt_tunable tb;
	const struct pt_tunable *t = pt_ctun_get(&it->t, &tb);
	char cur[PT_VAL];

	if (r < 0 && t->order == PT_ORDER_RESET && sched) {
		pt_log(ctx, PERFTUNE_LOG_NOTICE, "%s: reset with its scheduler", e->key);
		pt_err_clear(ctx);
		return 0;
	}
	if (r < 0)
		return r;
	if (!(t->fam->flags & PT_FAM_SNAPSHOT) && t->fam->read(ctx, t, cur, sizeof(cur)) == 0 &&
	    !pt_value_eq(cur, orig_of(it))) /* an original kept verbatim reads normalized */
		pt_log(ctx, PERFTUNE_LOG_WARNING, "%s: restored '%s' but reads back '%s'", e->key,
		       orig_of(it), cur);
	it->wrote = true;
	return 0;
}

static int give_write(struct perftune_ctx *ctx, struct item *it)
{
	struct pt_tunable tb;
	int dummy = -1, r = it->t.fam->write(ctx, pt_ctun_get(&it->t, &tb), orig_of(it), &dummy);

	if (dummy >= 0)
		close(dummy);
	return r;
}

static void item_done(struct restore *rs, struct item *it, int r, bool *sched)
{
	it->r = r;
	if (r < 0) {
		free(it->err);
		it->err = strdup(pt_errmsg(rs->ctx)[0] ? pt_errmsg(rs->ctx) : strerror(-r));
	}
	*sched |= it->t.order == PT_ORDER_SCHED && it->wrote;
}

/* ---- the batch engine's view of a restore: item i of group g is rs->it[i] ---- */
static int b_pre(void *ud, size_t g, size_t i)
{
	struct restore *rs = ud;

	return give_pre(rs->ctx, rs->ji, &rs->it[i], rs->sched[g]);
}

static bool b_file(void *ud, size_t g, size_t i, const char **path, const char **value)
{
	struct item *it = &((struct restore *)ud)->it[i];

	(void)g;
	*path = it->t.path;
	*value = orig_of(it);
	return it->t.fam->flags & PT_FAM_FILE;
}

static int b_write(void *ud, size_t g, size_t i)
{
	struct restore *rs = ud;

	(void)g;
	return give_write(rs->ctx, &rs->it[i]);
}

static int b_refused(void *ud, size_t g, size_t i, int r)
{
	struct restore *rs = ud;

	(void)g;
	return pt_file_refused(rs->ctx, rs->it[i].e->key, orig_of(&rs->it[i]), r);
}

static int b_post(void *ud, size_t g, size_t i, int r)
{
	struct restore *rs = ud;

	return give_post(rs->ctx, &rs->it[i], rs->sched[g], r);
}

static void b_end(void *ud, size_t g, size_t i, int r)
{
	struct restore *rs = ud;

	item_done(rs, &rs->it[i], r, &rs->sched[g]);
}

/* every original is tried: a key that cannot be given back does not stop the others */
static const struct pt_batch_ops restore_ops = PT_BATCH_OPS(false);

/* no device first, then per device: the scheduler first, then newest first */
static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int g = strcmp(x->t.group, y->t.group);

	if (g)
		return g;
	if ((x->t.order == PT_ORDER_SCHED) != (y->t.order == PT_ORDER_SCHED))
		return x->t.order == PT_ORDER_SCHED ? -1 : 1;
	if (x->pos < y->pos)
		return -1;
	return x->pos > y->pos;
}

/*
 * Where @e goes back to: 1 an item to write (@it), 0 nothing to write (gone
 * for good, held, handed over: journaled as restored), or -errno.
 */
static int place(struct perftune_ctx *ctx, struct restore *rs, struct others *o, int jfd,
		 struct pt_jentry *e, struct item *it)
{
	_cleanup_free_ struct pt_found *f = malloc(sizeof(*f));
	char later[PT_TX_NAME_MAX + 1];
	int k, r;

	if (!f)
		return -ENOMEM;
	k = pt_ident_find(ctx, e->key, e->ident, e->orig, f);
	if (k < 0) { /* it may be there still: its original stays in the journal */
		pt_log(ctx, PERFTUNE_LOG_ERR, "%s: not restored: %s", e->key, pt_errmsg(ctx));
		if (!rs->unfound++)
			snprintf(rs->err, sizeof(rs->err), "%s", pt_errmsg(ctx));
		pt_err_clear(ctx);
		return 0;
	}
	if (k == PT_FOUND_GONE) {
		pt_log(ctx, PERFTUNE_LOG_NOTICE, "%s: skipped, gone: %s", e->key, pt_errmsg(ctx));
		pt_err_clear(ctx);
		r = pt_journal_append(ctx, jfd, "restored", e->key, NULL);
	} else if (f->t.fam->flags & PT_FAM_HELD) { /* died with its holder's fd */
		r = pt_journal_append(ctx, jfd, "restored", e->key, NULL);
	} else if (later_holder(o, f->t.key, e->ident, e->seq, later, sizeof(later))) {
		pt_log(ctx, PERFTUNE_LOG_INFO, "%s: handed over to transaction '%s'", f->t.key,
		       later);
		r = pt_journal_append_to(ctx, later, "handover", f->t.key, f->value);
		if (r >= 0)
			r = pt_journal_append(ctx, jfd, "restored", e->key, NULL);
	} else {
		if (k == PT_FOUND_MOVED)
			pt_log(ctx, PERFTUNE_LOG_NOTICE, "%s: %s: given back as %s", e->key,
			       f->note, f->t.key);
		else if (f->note[0])
			pt_log(ctx, PERFTUNE_LOG_NOTICE, "%s: %s", e->key, f->note);
		if (pt_ctun_set(&it->t, &f->t) < 0 ||
		    (strcmp(f->value, e->orig) && !(it->value = strdup(f->value))))
			return -ENOMEM;
		it->e = e;
		return 1;
	}
	if (r >= 0)
		e->restored = true;
	if (r < 0)
		return r;
	return 0;
}

/* Place each key (but those @o keeps in force); hand over those a later transaction also changed. */
static int collect(struct perftune_ctx *ctx, struct pt_jinfo *ji, struct restore *rs, int jfd,
		   const struct pt_restore_opts *o)
{
	struct others others;
	int r = 0;

	rs->it = calloc(ji->n + 1, sizeof(*rs->it));
	rs->grp = calloc(ji->n + 1, sizeof(*rs->grp));
	rs->sched = calloc(ji->n + 1, sizeof(*rs->sched));
	if (!rs->it || !rs->grp || !rs->sched)
		return -ENOMEM;
	others_load(ctx, ji->name, &others);
	for (size_t i = ji->n; i-- > 0 && r >= 0;) {
		struct item *it = &rs->it[rs->n];
		if (ji->e[i].restored || (o->keep && o->keep(o->ud, ji->e[i].key)))
			continue;
		r = place(ctx, rs, &others, jfd, &ji->e[i], it);
		if (r > 0)
			it->pos = rs->n++;
	}
	others_free(&others);
	if (r < 0)
		return r;
	qsort(rs->it, rs->n, sizeof(*rs->it), item_cmp);
	rs->ngrp = 1;
	for (size_t i = 0; i < rs->n; i++) {
		if (!rs->it[i].t.group[0]) {
			rs->grp[0][1] = i + 1;
			continue;
		}
		if (i == 0 || strcmp(rs->it[i].t.group, rs->it[i - 1].t.group))
			rs->grp[rs->ngrp++][0] = i;
		rs->grp[rs->ngrp - 1][1] = i + 1;
	}
	return 0;
}

/* the journal loaded in @jfd is the file @o expects (or @o expects none) */
static bool same_file(int jfd, const struct pt_restore_opts *o)
{
	struct stat st;

	if (!o->ino)
		return true;
	return fstat(jfd, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
}

int pt_restore_with(struct perftune_ctx *ctx, const char *name, const struct pt_restore_opts *o)
{
	struct pt_jinfo ji;
	struct restore rs = { .ctx = ctx, .ji = &ji };
	int r, written = 0, failed, jfd = -1;
	const char **done = NULL;
	size_t ndone = 0;
	char firsterr[PT_ERR_MAX] = "";
	unsigned flags = o->flags;

	r = pt_journal_load_fd(ctx, name, &ji, &jfd);
	if (r < 0)
		return r;
	if (!same_file(jfd, o)) {
		r = -ESTALE; /* replaced (tx-replace.c): its keys are another transaction's now */
		goto out;
	}
	if (ji.held && ji.pid != getpid() && !(flags & PERFTUNE_RESTORE_FORCE)) {
		r = pt_err(ctx, -EBUSY, "transaction '%s' is held by process %d (stop it first)",
			   name, ji.pid);
		goto out;
	}
	if (ji.foreign_boot) {
		pt_log(ctx, PERFTUNE_LOG_NOTICE,
		       "transaction '%s' is from another boot: its values were reset then", name);
		pt_journal_remove(ctx, name);
		goto out;
	}
	r = collect(ctx, &ji, &rs, jfd, o);
	if (r < 0)
		goto out;
	/* keys without a device here, then the devices side by side */
	pt_batch_run(ctx, &restore_ops, &rs, (const size_t(*)[2])rs.grp, rs.ngrp);
	done = calloc(rs.n + 1, sizeof(*done));
	if (!done) {
		r = -ENOMEM;
		goto out;
	}
	failed = rs.unfound;
	snprintf(firsterr, sizeof(firsterr), "%s", rs.err);
	for (size_t i = 0; i < rs.n; i++) {
		struct item *it = &rs.it[i];
		if (it->r < 0) {
			failed++;
			if (!firsterr[0])
				snprintf(firsterr, sizeof(firsterr), "%s", it->err ? it->err : "");
			pt_log(ctx, PERFTUNE_LOG_ERR, "%s: not restored: %s", it->e->key,
			       it->err ? it->err : "");
			continue;
		}
		written += it->wrote;
		done[ndone++] = it->e->key;
	}
	r = pt_journal_append_restored(ctx, jfd, done, ndone);
	if (r < 0)
		goto out;
	if (failed) {
		r = pt_err(ctx, -EIO, "transaction '%s': %d key(s) not restored, journal kept: %s",
			   name, failed, firsterr);
		goto out;
	}
	if (!o->keep) /* a partial restore leaves the journal to what it keeps */
		pt_journal_remove(ctx, name);
	r = written;
out:
	if (jfd >= 0)
		close(jfd);
	free(done);
	for (size_t i = 0; rs.it && i <= ji.n; i++) {
		pt_ctun_free(&rs.it[i].t);
		pt_free_all(rs.it[i].err, rs.it[i].value);
	}
	free(rs.it);
	free(rs.grp);
	free(rs.sched);
	pt_jinfo_free(&ji);
	return r;
}

int pt_restore_locked(struct perftune_ctx *ctx, const char *name, unsigned flags)
{
	struct pt_restore_opts o = { .flags = flags };

	return pt_restore_with(ctx, name, &o);
}

int pt_restore_file(struct perftune_ctx *ctx, const char *name, dev_t dev, ino_t ino)
{
	struct pt_restore_opts o = { .flags = PERFTUNE_RESTORE_FORCE, .dev = dev, .ino = ino };
	int lockfd, r;

	pt_lock(ctx);
	pt_attr_cache_begin(ctx);
	pt_err_clear(ctx);
	r = pt_journal_lock(ctx, &lockfd);
	if (r >= 0) {
		r = pt_restore_with(ctx, name, &o);
		pt_journal_unlock(ctx, lockfd);
	}
	pt_attr_cache_end(ctx);
	pt_unlock(ctx);
	return r;
}

static int restore_impl(struct perftune_ctx *ctx, const char *name, unsigned flags)
{
	char **names = NULL;
	int lockfd, r, total = 0, err = 0;

	if (!ctx || (!name && !(flags & (PERFTUNE_RESTORE_ALL | PERFTUNE_RESTORE_ORPHANS))))
		return -EINVAL;
	pt_lock(ctx);
	pt_attr_cache_begin(ctx);
	pt_err_clear(ctx);
	r = pt_journal_lock(ctx, &lockfd);
	if (r < 0)
		goto out;
	if (name) {
		r = pt_restore_locked(ctx, name, flags);
		pt_journal_unlock(ctx, lockfd);
		goto out;
	}
	r = pt_journal_names(ctx, &names);
	for (int i = 0; i < r; i++) {
		struct pt_jinfo ji;
		int k;
		if (flags & PERFTUNE_RESTORE_ORPHANS) {
			if (pt_journal_load(ctx, names[i], &ji) < 0)
				continue;
			bool orphan = ji.orphaned || ji.foreign_boot;
			pt_jinfo_free(&ji);
			if (!orphan)
				continue;
		}
		k = pt_restore_locked(ctx, names[i], flags);
		if (k < 0 && !err)
			err = k;
		if (k > 0)
			total += k;
	}
	pt_strv_free(names);
	pt_journal_unlock(ctx, lockfd);
	if (err)
		r = err;
	else if (r >= 0)
		r = total;
out:
	pt_attr_cache_end(ctx);
	pt_unlock(ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_restore(struct perftune_ctx *ctx, const char *name, unsigned flags)
{
	return pt_api_ret(restore_impl(ctx, name, flags));
}

/* the status flags of @e, a key of @ji */
static unsigned entry_flags(const struct pt_jinfo *ji, const struct pt_jentry *e)
{
	unsigned flags = 0;

	if (ji->orphaned)
		flags |= PERFTUNE_STATUS_ORPHANED;
	if (ji->held)
		flags |= PERFTUNE_STATUS_HELD;
	if (ji->committed)
		flags |= PERFTUNE_STATUS_COMMITTED;
	if (e && e->written)
		flags |= PERFTUNE_STATUS_WRITTEN;
	if (e && e->plugged)
		flags |= PERFTUNE_STATUS_HOTPLUG;
	return flags;
}

/* a device a watch did not tune: an entry of its own, with no value */
static int status_refusal(const struct pt_jinfo *ji, const struct pt_jrefusal *x,
			  struct perftune_status_iter *it)
{
	struct perftune_status_entry se = { .tx_name = ji->name,
					    .key = x->key,
					    .note = x->why,
					    .flags = entry_flags(ji, NULL) |
						     PERFTUNE_STATUS_REFUSED };

	if (ji->held || ji->orphaned)
		se.pid = ji->pid;
	return pt_status_iter_add(it, &se);
}

/* what restore would find of @e: the object (moved or not) and its value, or why not */
static int status_entry(struct perftune_ctx *ctx, const struct pt_jinfo *ji, struct others *o,
			const struct pt_jentry *e, struct perftune_status_iter *it)
{
	_cleanup_free_ struct pt_found *f = malloc(sizeof(*f));
	char cur[PT_VAL] = "", later[PT_TX_NAME_MAX + 1], note[PT_ERR_MAX] = "";
	bool have = false;
	struct perftune_status_entry se = { .tx_name = ji->name,
					    .key = e->key,
					    .original = e->orig,
					    .written = e->written,
					    .note = note,
					    .flags = entry_flags(ji, e) };
	int k;

	if (!f)
		return -ENOMEM;
	if (ji->held || ji->orphaned)
		se.pid = ji->pid;
	k = pt_ident_find(ctx, e->key, e->ident, e->orig, f);
	if (k == PT_FOUND_SAME || k == PT_FOUND_MOVED)
		have = f->t.fam->read(ctx, &f->t, cur, sizeof(cur)) == 0;
	if (have)
		se.current = cur;
	else
		snprintf(note, sizeof(note), "%s", pt_errmsg(ctx));
	pt_err_clear(ctx);
	if (k == PT_FOUND_GONE && e->ident) /* a name alone going missing is the old "gone" */
		se.flags |= PERFTUNE_STATUS_GONE;
	if (k == PT_FOUND_MOVED) {
		se.flags |= PERFTUNE_STATUS_MOVED;
		se.key_now = f->t.key;
		snprintf(note, sizeof(note), "%s: restore gives it back as %s", f->note, f->t.key);
	} else if (k == PT_FOUND_SAME && f->note[0]) {
		snprintf(note, sizeof(note), "%s", f->note);
	}
	if (k >= 0 && k != PT_FOUND_GONE &&
	    later_holder(o, f->t.key, e->ident, e->seq, later, sizeof(later))) {
		se.flags |= PERFTUNE_STATUS_SHADOWED;
		snprintf(note, sizeof(note), "also changed later by '%s'", later);
	} else if (have && e->written && strcmp(cur, e->written) &&
		   !(f->t.fam->flags & PT_FAM_HELD)) {
		se.flags |= PERFTUNE_STATUS_DRIFT;
		size_t n = strlen(note);
		snprintf(note + n, sizeof(note) - n, "%s%s", n ? "; " : "",
			 "drift: changed behind perftune's back");
	}
	if (ji->foreign_boot)
		snprintf(note, sizeof(note), "journal from another boot");
	return pt_status_iter_add(it, &se);
}

static int status_impl(struct perftune_ctx *ctx, struct perftune_status_iter **iterp)
{
	struct perftune_status_iter *it;
	char **names = NULL;
	int n, r = 0;

	if (!ctx || !iterp)
		return -EINVAL;
	it = pt_status_iter_new();
	if (!it)
		return -ENOMEM;
	pt_lock(ctx);
	pt_err_clear(ctx);
	n = pt_journal_names(ctx, &names);
	if (n < 0)
		r = n;
	for (int i = 0; i < n && r >= 0; i++) {
		struct pt_jinfo ji;
		struct others o;
		if (pt_journal_load(ctx, names[i], &ji) < 0) {
			struct perftune_status_entry bad = { .tx_name = names[i],
							     .key = "",
							     .note = pt_errmsg(ctx) };
			r = pt_status_iter_add(it, &bad);
			continue;
		}
		others_load(ctx, ji.name, &o);
		for (size_t k = 0; k < ji.n && r >= 0; k++)
			if (!ji.e[k].restored)
				r = status_entry(ctx, &ji, &o, &ji.e[k], it);
		for (size_t k = 0; k < ji.nrefused && r >= 0; k++)
			r = status_refusal(&ji, &ji.refused[k], it);
		others_free(&o);
		pt_jinfo_free(&ji);
	}
	pt_strv_free(names);
	pt_unlock(ctx);
	if (r < 0) {
		perftune_status_iter_free(it);
		return r;
	}
	*iterp = it;
	return 0;
}

PERFTUNE_EXPORT int perftune_status(struct perftune_ctx *ctx, struct perftune_status_iter **iterp)
{
	return pt_api_ret(status_impl(ctx, iterp));
}
