// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One key of a commit: its original read and journaled (with the identity of
 * its object) before the write, the write read back and compared after it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/util.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"
#include "engine/identity.h"
#include "engine/journal.h"
#include "engine/tx-internal.h"

/* Take what the kernel made of the value: @got, and @note saying so. */
static int accept_got(struct perftune_ctx *ctx, struct pt_stage *s, const char *got,
		      const char *note)
{
	if (pt_tx_set_str(&s->c.note, note) < 0 || pt_tx_set_str(&s->value, got) < 0)
		return pt_stage_oom(ctx, s);
	return 0;
}

static int verify(struct perftune_ctx *ctx, struct perftune_tx *tx, struct pt_stage *s,
		  const struct pt_tunable *t)
{
	char got[PT_VAL], note[sizeof(t->note)];
	int r = s->c.fam->read(ctx, t, got, sizeof(got));

	if (r < 0)
		return r;
	if (s->c.fam->verify) {
		r = s->c.fam->verify(ctx, t, s->value, got);
		if (r == -ERANGE) /* clamped to the kernel's limit: partial where allowed, else
				     * the read-back differs (EIO, as documented) */
			r = tx->flags & PERFTUNE_TX_ALLOW_PARTIAL ? -EAGAIN : -EIO;
		if (r == 1) /* in force as asked; the read says more (threads it did not name) */
			return pt_tx_set_str(&s->value, got) < 0 ? pt_stage_oom(ctx, s) : 0;
		/* a verify that waited for the kernel (cpufreq limits): what it settled on */
		if (r == 0 && !pt_value_eq(got, s->value) &&
		    s->c.fam->read(ctx, t, got, sizeof(got)) < 0)
			return -EIO;
	} else if (!pt_value_eq(got, s->value))
		r = pt_err(ctx, -EIO, "%s: the kernel accepted '%s' but reads back '%s'", s->c.key,
			   s->value, got);
	if (r == 0 && !pt_value_eq(got, s->value)) { /* accepted as the kernel rounded it */
		snprintf(note, sizeof(note), "kernel rounded %s to %s", s->value, got);
		return accept_got(ctx, s, got, note);
	}
	if (r == -EAGAIN && (tx->flags & PERFTUNE_TX_ALLOW_PARTIAL)) {
		pt_log(ctx, PERFTUNE_LOG_WARNING, "%s (accepted: partial allowed)", pt_errmsg(ctx));
		snprintf(note, sizeof(note), "partial: asked %s, got %s", s->value, got);
		pt_err_clear(ctx);
		return accept_got(ctx, s, got, note);
	}
	return r;
}

/*
 * Read @s before its write into @cur (PT_VAL bytes) as read() gives it, and
 * the same read verbatim into s->verbatim where that differs (one read: what
 * is journaled is what was compared).  Not after a scheduler switch (s->pre):
 * the original was read before it.
 */
static int read_orig(struct perftune_ctx *ctx, struct pt_stage *s, const struct pt_tunable *t,
		     char *cur)
{
	char raw[PT_VAL];
	int r;

	if (!s->c.fam->read_verbatim || s->pre)
		return s->c.fam->read(ctx, t, cur, PT_VAL);
	r = s->c.fam->read_verbatim(ctx, t, raw, sizeof(raw));
	if (r < 0)
		return r;
	snprintf(cur, PT_VAL, "%s", raw);
	pt_normalize(cur);
	free(s->verbatim);
	s->verbatim = NULL;
	if (strcmp(raw, cur) && !(s->verbatim = strdup(raw)))
		return pt_stage_oom(ctx, s);
	return 0;
}

/*
 * A re-apply: @je, this transaction's original of the key, is still the
 * original of the object written now (0), or of an object gone for good
 * since: dropped (0, *@journaled false: the key is journaled afresh).  An
 * object that went by another name since (a renamed NIC) keeps its original:
 * -EBUSY, restore first; -errno: it cannot be told now.
 */
static int reapply_check(struct perftune_ctx *ctx, const char *name, int jfd, struct pt_jentry *je,
			 bool *journaled)
{
	_cleanup_free_ struct pt_found *f = NULL;
	int k;

	if (!je->ident)
		return 0; /* nothing journaled of the object (format 1): by its name */
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	k = pt_ident_find(ctx, je->key, je->ident, je->orig, f);
	if (k == PT_FOUND_MOVED)
		return pt_err(ctx, -EBUSY,
			      "%s: transaction '%s' holds the original of what is %s now (%s): "
			      "restore it first",
			      je->key, name, f->t.key, f->note);
	if (k != PT_FOUND_GONE)
		return k < 0 ? k : 0;
	pt_log(ctx, PERFTUNE_LOG_NOTICE, "%s: the original journaled before is dropped: %s",
	       je->key, pt_errmsg(ctx));
	pt_err_clear(ctx);
	k = pt_journal_append(ctx, jfd, "restored", je->key, NULL);
	if (k < 0)
		return k;
	je->restored = true;
	*journaled = false;
	return 0;
}

/* "orig" of @s with the identity of its object, before its first write */
static int journal_orig(struct perftune_ctx *ctx, const struct pt_jinfo *ji, int jfd,
			struct pt_stage *s, const struct pt_tunable *t)
{
	_cleanup_free_ char *id = NULL;
	int r;

	if (pt_journal_has_identity(ji) && s->c.fam->identity) {
		id = malloc(PT_IDENT_MAX);
		if (!id)
			return pt_stage_oom(ctx, s);
		r = pt_ident_of(ctx, t, s->old, id, PT_IDENT_MAX);
		if (r < 0)
			return r;
	}
	return pt_journal_append_orig(ctx, jfd, s->c.key, pt_stage_orig(s), id);
}

int pt_tx_commit_pre(struct perftune_ctx *ctx, struct pt_jinfo *ji, int jfd, struct pt_stage *s)
{
	struct pt_jentry *je;
	struct pt_tunable tb;
	const struct pt_tunable *t = pt_stage_tunable(s, &tb);
	char cur[PT_VAL];
	int r;

	if (s->deferred) {
		char v[PT_VAL];
		r = s->c.fam->validate(ctx, t, s->value, v, sizeof(v));
		if (r < 0)
			return r;
		if (pt_tx_set_str(&s->value, v) < 0)
			return pt_stage_oom(ctx, s);
	}
	r = read_orig(ctx, s, t, cur);
	if (r < 0)
		return r;
	if (s->c.fam->snapshot && !pt_value_eq(cur, s->value)) {
		char snap[PT_VAL];
		r = s->c.fam->snapshot(ctx, t, s->value, snap, sizeof(snap));
		if (r < 0 || pt_tx_set_str(&s->old, snap) < 0)
			return r < 0 ? r : pt_stage_oom(ctx, s);
	} else if (!s->pre && pt_tx_set_str(&s->old, cur) < 0) {
		return pt_stage_oom(ctx, s);
	}
	je = pt_jinfo_find(ji, s->c.key);
	s->journaled = je && !je->restored;
	if (pt_value_eq(cur, s->value) && !(s->c.fam->flags & PT_FAM_HELD)) {
		s->flags |= PERFTUNE_CHANGE_UNCHANGED;
		return 0;
	}
	if (s->journaled && (r = reapply_check(ctx, ji->name, jfd, je, &s->journaled)) < 0)
		return r;
	if (!s->journaled && (r = journal_orig(ctx, ji, jfd, s, t)) < 0)
		return r;
	s->attempted = true;
	return 1;
}

int pt_tx_commit_post(struct perftune_ctx *ctx, struct perftune_tx *tx, int jfd, struct pt_stage *s)
{
	struct pt_tunable tb;
	char w[PT_VAL];
	int r = verify(ctx, tx, s, pt_stage_tunable(s, &tb));

	if (r < 0)
		return r;
	s->flags |= PERFTUNE_CHANGE_WRITTEN;
	/* as a read shows it (restore compares a read with it): one line, blanks collapsed */
	snprintf(w, sizeof(w), "%s", s->value);
	pt_normalize(w);
	return pt_journal_append(ctx, jfd, "wrote", s->c.key, w);
}
