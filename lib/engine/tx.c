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
#include <string.h>
#include <sys/uio.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/desc.h"
#include "core/key.h"
#include "core/log.h"
#include "core/lookup.h"
#include "family/family.h"
#include "family/file.h"
#include "engine/batch.h"
#include "engine/identity.h"
#include "engine/journal.h"

/*
 * A staged key.  Its strings are allocated at their length (a struct
 * pt_tunable alone has a PATH_MAX path): a scheduler change on 256 disks stages
 * 256 keys.  The family ops get the full pt_tunable back from tunable().
 */
struct stage {
	struct pt_ctun c; /* the tunable */
	char *value;	  /* exact value to write */
	char *old;	  /* value before this commit */
	char *verbatim;	  /* old as the kernel gave it, where read() normalizes it: journaled
			   * and written back (a sysctl string's blanks), or NULL */
	char *input;	  /* as given, when an alias was mapped; or NULL */
	unsigned flags;	  /* PT_ITEM_* */
	bool deferred;	  /* iosched parameter of a scheduler staged in the same tx */
	char *awaits;	  /* its file is missing and no scheduler/channels key of its group
			   * is staged (yet): the error the commit gives if none is */
	bool attempted;	  /* a write was tried: give it back on failure */
	bool journaled;	  /* the journal had the key before this commit */
	bool pre;	  /* old was read before its scheduler switched: journal that */
	int seq;	  /* staging order, for a stable sort */
	int hold_fd;
};

/*
 * A committed transaction of at most this many files keeps them open for its
 * rollback (a program that applies a few settings and gives them back later);
 * a larger one closes them after its commit.
 */
#define TX_KEEP_FILES 32

struct perftune_tx {
	int refcount;
	struct perftune_ctx *ctx;
	char name[PT_TX_NAME_MAX + 1];
	unsigned flags;
	struct stage *s;
	size_t n, cap;
	bool committed, done;
	bool released;		 /* perftune_tx_release(): takes nothing more */
	struct pt_fcache *files; /* its keys' files, open from staging to the rollback (few keys) */
};

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

/* Replace the string *@dst by a copy of @v (commit workers mostly keep theirs: no malloc). */
static int set_str(char **dst, const char *v)
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

static void stage_free(struct stage *s)
{
	pt_ctun_free(&s->c);
	free(s->value);
	free(s->old);
	free(s->verbatim);
	free(s->input);
	free(s->awaits);
}

static int stage_init(struct stage *s, const struct pt_tunable *t)
{
	memset(s, 0, sizeof(*s));
	s->hold_fd = -1;
	return pt_ctun_set(&s->c, t);
}

/* The family's view of a stage, in @t (on the caller's stack). */
static const struct pt_tunable *tunable(const struct stage *s, struct pt_tunable *t)
{
	return pt_ctun_get(&s->c, t);
}

static void release_holds(struct perftune_tx *tx)
{
	for (size_t i = 0; i < tx->n; i++)
		if (tx->s[i].hold_fd >= 0) {
			close(tx->s[i].hold_fd);
			tx->s[i].hold_fd = -1;
		}
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
	release_holds(tx);
	pt_attr_cache_destroy(tx->files);
	perftune_ctx_unref(tx->ctx);
	for (size_t i = 0; i < tx->n; i++)
		stage_free(&tx->s[i]);
	free(tx->s);
	free(tx);
	return NULL;
}

PERFTUNE_EXPORT const char *perftune_tx_name(struct perftune_tx *tx)
{
	return tx ? tx->name : NULL;
}

/* staging area of one perftune_tx_set() call: merged only if all of it validates */
struct pending {
	struct perftune_tx *tx;
	struct stage *s;
	size_t n;
	const char *input;
	size_t resolved; /* tunables the key named (an expanding key may stage none) */
};

static struct stage *find(struct stage *s, size_t n, const char *key)
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
	struct stage *lists[2] = { p->tx->s, p->s };
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
	struct stage *s, *n = realloc(p->s, (p->n + 1) * sizeof(*p->s));
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
	r = stage_init(s, t);
	if (r >= 0)
		r = set_str(&s->value, out);
	if (r >= 0)
		r = set_str(&s->old, cur);
	if (r >= 0 && strcmp(out, value))
		r = set_str(&s->input, value);
	if (r < 0) {
		stage_free(s);
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

	return r == 1 ? stage_one(ctx, t, p->input, ud) : r;
}

/*
 * The opening of a call that stages or commits: lock the context, use the
 * transaction's open files, clear the message.  0, or -EALREADY for a
 * transaction that takes nothing more (@key, if any, leads the message); the
 * caller unuses and unlocks either way.
 */
static int tx_enter(struct perftune_tx *tx, const char *key, struct pt_fcache **prev)
{
	pt_lock(tx->ctx);
	*prev = pt_attr_cache_use(tx->ctx, &tx->files);
	pt_err_clear(tx->ctx);
	if (!tx->committed && !tx->released)
		return 0;
	return pt_err(tx->ctx, -EALREADY, "%s%stransaction '%s' is already %s", key ? key : "",
		      key ? ": " : "", tx->name, tx->committed ? "committed" : "released");
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
	r = tx_enter(tx, key, &prev);
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
		struct stage *old = find(tx->s, tx->n, p.s[taken].c.key);
		if (old) { /* staged again: the new value, the old place in line */
			int seq = old->seq;
			stage_free(old);
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
	r = (int)p.n;
out:
	for (size_t i = taken; i < p.n; i++)
		stage_free(&p.s[i]);
	free(p.s);
	pt_attr_cache_unuse(ctx, prev);
	pt_unlock(ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_tx_set(struct perftune_tx *tx, const char *key, const char *value)
{
	return pt_api_ret(tx_set_impl(tx, key, value));
}

/* keys without a device first, then per device: scheduler, attributes, dependents; stable */
static int order_cmp(const void *a, const void *b)
{
	const struct stage *x = a, *y = b;
	int g = strcmp(x->c.group, y->c.group);

	if (g)
		return g;
	if (x->c.order != y->c.order)
		return (int)x->c.order - (int)y->c.order;
	return x->seq - y->seq;
}

static int oom(struct perftune_ctx *ctx, const struct stage *s)
{
	return pt_err(ctx, -ENOMEM, "%s: out of memory", s->c.key);
}

/* Take what the kernel made of the value: @got, and @note saying so. */
static int accept_got(struct perftune_ctx *ctx, struct stage *s, const char *got, const char *note)
{
	if (set_str(&s->c.note, note) < 0 || set_str(&s->value, got) < 0)
		return oom(ctx, s);
	return 0;
}

static int verify(struct perftune_ctx *ctx, struct perftune_tx *tx, struct stage *s,
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
			return set_str(&s->value, got) < 0 ? oom(ctx, s) : 0;
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

/* Keys of one device (or all keys without a device): tx->s[start, end). */
struct range {
	size_t start, end;
	int r;	       /* the first failure in the range */
	size_t failed; /* its index */
	char err[PT_ERR_MAX];
};

struct commit {
	struct perftune_ctx *ctx;
	struct perftune_tx *tx;
	struct pt_jinfo *ji;
	int jfd;
	struct range *rg;
	size_t nrg;
};

static bool sched_undone(struct perftune_tx *tx, const struct range *rg)
{
	for (size_t i = rg->start; i < rg->end; i++)
		if (tx->s[i].c.order == PT_ORDER_SCHED && tx->s[i].attempted)
			return true;
	return false;
}

/* the original a rollback writes and the journal keeps: byte for byte as read */
static const char *orig_of(const struct stage *s)
{
	return s->verbatim ? s->verbatim : s->old;
}

/*
 * Read @s before its write into @cur (PT_VAL bytes) as read() gives it, and
 * the same read verbatim into s->verbatim where that differs (one read: what
 * is journaled is what was compared).  Not after a scheduler switch (s->pre):
 * the original was read before it.
 */
static int read_orig(struct perftune_ctx *ctx, struct stage *s, const struct pt_tunable *t,
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
		return oom(ctx, s);
	return 0;
}

/* Give back what this commit wrote in one range: the scheduler, then newest first. */
static void undo_range(struct commit *c, struct range *rg)
{
	struct perftune_ctx *ctx = c->ctx;
	struct perftune_tx *tx = c->tx;
	bool sched = sched_undone(tx, rg);

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = rg->end; i-- > rg->start;) {
			struct stage *s = &tx->s[i];
			int dummy = -1;
			if (!s->attempted || (pass == 0) != (s->c.order == PT_ORDER_SCHED))
				continue;
			if (s->hold_fd >= 0) {
				close(s->hold_fd);
				s->hold_fd = -1;
			} else if (!(s->c.fam->flags & PT_FAM_HELD)) {
				struct pt_tunable tb;
				const struct pt_tunable *t = tunable(s, &tb);
				const char *old = orig_of(s);
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
			s->flags &= ~(unsigned)PT_ITEM_WRITTEN;
		}
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
			struct stage *s, const struct pt_tunable *t)
{
	_cleanup_free_ char *id = NULL;
	int r;

	if (pt_journal_has_identity(ji) && s->c.fam->identity) {
		id = malloc(PT_IDENT_MAX);
		if (!id)
			return oom(ctx, s);
		r = pt_ident_of(ctx, t, s->old, id, PT_IDENT_MAX);
		if (r < 0)
			return r;
	}
	return pt_journal_append_orig(ctx, jfd, s->c.key, orig_of(s), id);
}

/* Everything before a key's write: 1 = write it now, 0 = nothing to write, or -errno. */
static int commit_pre(struct perftune_ctx *ctx, struct pt_jinfo *ji, int jfd, struct stage *s)
{
	struct pt_jentry *je;
	struct pt_tunable tb;
	const struct pt_tunable *t = tunable(s, &tb);
	char cur[PT_VAL];
	int r;

	if (s->deferred) {
		char v[PT_VAL];
		r = s->c.fam->validate(ctx, t, s->value, v, sizeof(v));
		if (r < 0)
			return r;
		if (set_str(&s->value, v) < 0)
			return oom(ctx, s);
	}
	r = read_orig(ctx, s, t, cur);
	if (r < 0)
		return r;
	if (s->c.fam->snapshot && !pt_value_eq(cur, s->value)) {
		char snap[PT_VAL];
		r = s->c.fam->snapshot(ctx, t, s->value, snap, sizeof(snap));
		if (r < 0 || set_str(&s->old, snap) < 0)
			return r < 0 ? r : oom(ctx, s);
	} else if (!s->pre && set_str(&s->old, cur) < 0) {
		return oom(ctx, s);
	}
	je = pt_jinfo_find(ji, s->c.key);
	s->journaled = je && !je->restored;
	if (pt_value_eq(cur, s->value) && !(s->c.fam->flags & PT_FAM_HELD)) {
		s->flags |= PT_ITEM_UNCHANGED;
		return 0;
	}
	if (s->journaled && (r = reapply_check(ctx, ji->name, jfd, je, &s->journaled)) < 0)
		return r;
	if (!s->journaled && (r = journal_orig(ctx, ji, jfd, s, t)) < 0)
		return r;
	s->attempted = true;
	return 1;
}

/* After the write: read it back, journal what it left. */
static int commit_post(struct perftune_ctx *ctx, struct perftune_tx *tx, int jfd, struct stage *s)
{
	struct pt_tunable tb;
	char w[PT_VAL];
	int r = verify(ctx, tx, s, tunable(s, &tb));

	if (r < 0)
		return r;
	s->flags |= PT_ITEM_WRITTEN;
	/* as a read shows it (restore compares a read with it): one line, blanks collapsed */
	snprintf(w, sizeof(w), "%s", s->value);
	pt_normalize(w);
	return pt_journal_append(ctx, jfd, "wrote", s->c.key, w);
}

static int dry_run(struct perftune_ctx *ctx, struct perftune_tx *tx)
{
	int n = 0;

	for (size_t i = 0; i < tx->n; i++) {
		struct stage *s = &tx->s[i];
		struct pt_tunable tb;
		char cur[PT_VAL];
		if (s->c.fam->read(ctx, tunable(s, &tb), cur, sizeof(cur)) < 0)
			cur[0] = '\0';
		if (set_str(&s->old, cur) < 0)
			return oom(ctx, s);
		if (pt_value_eq(s->old, s->value) && !(s->c.fam->flags & PT_FAM_HELD))
			s->flags |= PT_ITEM_UNCHANGED;
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
		struct stage *d = &tx->s[j];
		struct pt_tunable tb;
		char old[PT_VAL];
		if (d->c.order != PT_ORDER_RESET || d->deferred ||
		    strcmp(d->c.group, tx->s[sched].c.group))
			continue;
		d->pre = d->c.fam->read(ctx, tunable(d, &tb), old, sizeof(old)) == 0;
		if (d->pre && set_str(&d->old, old) < 0)
			return oom(ctx, d);
	}
	pt_err_clear(ctx);
	return 0;
}

/* ---- the batch engine's view of a commit: item i of group g is tx->s[i] ---- */
static int b_pre(void *ud, size_t g, size_t i)
{
	struct commit *c = ud;
	struct perftune_tx *tx = c->tx;
	int r = tx->s[i].c.order == PT_ORDER_SCHED ? read_dependents(c->ctx, tx, i) : 0;

	(void)g;
	return r < 0 ? r : commit_pre(c->ctx, c->ji, c->jfd, &tx->s[i]);
}

static bool b_file(void *ud, size_t g, size_t i, const char **path, const char **value)
{
	struct stage *s = &((struct commit *)ud)->tx->s[i];

	(void)g;
	*path = s->c.path;
	*value = s->value;
	return s->c.fam->flags & PT_FAM_FILE;
}

static int b_write(void *ud, size_t g, size_t i)
{
	struct commit *c = ud;
	struct stage *s = &c->tx->s[i];
	struct pt_tunable tb;

	(void)g;
	return s->c.fam->write(c->ctx, tunable(s, &tb), s->value, &s->hold_fd);
}

static int b_refused(void *ud, size_t g, size_t i, int r)
{
	struct commit *c = ud;
	struct stage *s = &c->tx->s[i];

	(void)g;
	return pt_file_refused(c->ctx, s->c.key, s->value, r);
}

static int b_post(void *ud, size_t g, size_t i, int r)
{
	struct commit *c = ud;

	(void)g;
	return r < 0 ? r : commit_post(c->ctx, c->tx, c->jfd, &c->tx->s[i]);
}

/* the first failure of a device is its range's: rolled back, and named */
static void b_end(void *ud, size_t g, size_t i, int r)
{
	struct commit *c = ud;
	struct range *rg = &c->rg[g];

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
	struct commit *c = ud;

	undo_range(c, &c->rg[g]);
}

/* rg[0]: keys without a device (maybe empty); rg[1..]: one per device; grp: the same bounds */
static int split_ranges(struct perftune_tx *tx, struct range **out, size_t (**grp)[2])
{
	struct range *rg = calloc(tx->n + 1, sizeof(*rg));
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

/* Nothing of a new transaction remains after a rollback: drop its journal. */
static void drop_empty_journal(struct perftune_ctx *ctx, const char *name)
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
static void give_holder_back(struct perftune_ctx *ctx, int jfd, const struct pt_jinfo *ji)
{
	char pid[64];

	snprintf(pid, sizeof(pid), "%d %llu", ji->pid > 0 ? ji->pid : 0,
		 ji->pid > 0 ? ji->starttime : 0ULL);
	if (pt_journal_append(ctx, jfd, "pid", NULL, pid) < 0)
		pt_log(ctx, PERFTUNE_LOG_ERR, "transaction '%s': holder not given back: %s",
		       ji->name, pt_errmsg(ctx));
}

static int commit_locked(struct perftune_ctx *ctx, struct perftune_tx *tx)
{
	struct pt_jinfo ji;
	struct commit c = { .ctx = ctx, .tx = tx, .ji = &ji, .jfd = -1 };
	struct range *bad = NULL;
	_cleanup_free_ size_t(*grp)[2] = NULL;
	int r, written = 0, n;
	bool existed;

	memset(&ji, 0, sizeof(ji));
	n = split_ranges(tx, &c.rg, &grp);
	if (n < 0)
		return n;
	c.nrg = (size_t)n;
	r = pt_journal_begin(ctx, tx->name, tx->flags, true, &c.jfd); /* the usual case: none yet */
	existed = r == -EEXIST;
	if (existed) { /* a re-apply, or a transaction of that name held elsewhere */
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
	if (bad) {
		pt_batch_groups(&c, undo_group, c.nrg);
		if (!existed)
			drop_empty_journal(ctx, tx->name);
		else
			give_holder_back(ctx, c.jfd, &ji);
		r = pt_err(ctx, bad->r, "%s (rolled back)", bad->err);
		goto out;
	}
	for (size_t i = 0; i < tx->n; i++)
		written += (tx->s[i].flags & PT_ITEM_WRITTEN) != 0;
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
	r = tx_enter(tx, NULL, &prev);
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
		release_holds(tx);
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
	release_holds(tx);
	prev = pt_attr_cache_use(tx->ctx, &tx->files);
	r = perftune_restore(tx->ctx, tx->name, PERFTUNE_RESTORE_FORCE);
	pt_attr_cache_unuse(tx->ctx, prev);
	pt_attr_cache_destroy(tx->files);
	tx->files = NULL;
	pt_unlock(tx->ctx);
	if (r >= 0 || r == -ENOENT)
		tx->done = true;
	return r == -ENOENT ? 0 : r;
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
		release_holds(tx);
		tx->released = true;
	}
	pt_unlock(tx->ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_tx_release(struct perftune_tx *tx)
{
	return pt_api_ret(tx_release_impl(tx));
}

static void tx_change(void *ud, size_t i, struct pt_item *item, char *note)
{
	struct perftune_tx *tx = ud;
	struct stage *s = &tx->s[i];

	if (s->input)
		snprintf(note, PT_ITEM_NOTE, "from '%s'", s->input);
	if (s->c.note)
		snprintf(note + strlen(note), PT_ITEM_NOTE - strlen(note), "%s%s",
			 note[0] ? "; " : "", s->c.note);
	*item = (struct pt_item){ .name = tx->name,
				  .key = s->c.key,
				  .value = s->value,
				  .old = s->old,
				  .note = note,
				  .flags = s->flags };
}

static int tx_changes_impl(struct perftune_tx *tx, struct perftune_change_iter **iterp)
{
	struct pt_iter *it = NULL;
	int r = tx && iterp ? pt_iter_collect(tx->n, tx_change, tx, &it) : -EINVAL;

	if (r == 0)
		*iterp = pt_change_iter(it);
	return r;
}

PERFTUNE_EXPORT int perftune_tx_changes(struct perftune_tx *tx, struct perftune_change_iter **iterp)
{
	return pt_api_ret(tx_changes_impl(tx, iterp));
}
