/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the files of a transaction share: tx.c (the object, rollback, release,
 * the changes), tx-stage.c (perftune_tx_set), tx-commit.c (perftune_tx_commit
 * on the batch engine), tx-write.c (one key's write, journaled and read back)
 * and tx-undo.c (a failed commit given back).
 */
#ifndef PERFTUNE_ENGINE_TX_INTERNAL_H
#define PERFTUNE_ENGINE_TX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "perftune.h"
#include "core/key.h"
#include "core/log.h"
#include "engine/journal.h"

/*
 * A staged key.  Its strings are allocated at their length (a struct
 * pt_tunable alone has a PATH_MAX path): a scheduler change on 256 disks stages
 * 256 keys.  The family ops get the full pt_tunable back from pt_stage_tunable().
 */
struct pt_stage {
	struct pt_ctun c; /* the tunable */
	char *value;	  /* exact value to write */
	char *old;	  /* value before this commit */
	char *verbatim;	  /* old as the kernel gave it, where read() normalizes it: journaled
			   * and written back (a sysctl string's blanks), or NULL */
	char *input;	  /* as given, when an alias was mapped; or NULL */
	unsigned flags;	  /* PERFTUNE_CHANGE_* */
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

/* A key given with a glob ("block.sd*.scheduler"): a device added later may match it. */
struct pt_tx_rule {
	char *key, *value;
};
/*
 * Rules from above the engine (a profile's devices=, rotational=, ...): set
 * by pt_tx_set_rules() (watch.h), called through these pointers only.
 */
struct pt_tx_rules_ops {
	/* stage into @sub what device @name of @subsystem gets: the number of keys, -errno */
	int (*stage_device)(void *data, struct perftune_tx *sub, const char *subsystem,
			    const char *name);
	void (*free)(void *data);
};
struct pt_watch; /* watch.c's */
/* a key of the replaced transaction that a replace gave back (perftune_tx_changes()) */
struct pt_given {
	char *key, *from, *to;
};

struct perftune_tx {
	int refcount;
	struct perftune_ctx *ctx;
	char name[PT_TX_NAME_MAX + 1];
	unsigned flags;
	struct pt_stage *s;
	size_t n, cap;
	bool committed, done;
	bool released;		 /* perftune_tx_release(): takes nothing more */
	struct pt_fcache *files; /* its keys' files, open from staging to the rollback (few keys) */
	/* hotplug (watch.c): what selects devices added while the transaction is held */
	struct pt_tx_rule *rules; /* keys given with a glob, in staging order */
	size_t nrules, caprules;
	const struct pt_tx_rules_ops *profile_rules; /* a staged profile's, with its data */
	void *profile_data;
	struct pt_watch *watch; /* perftune_tx_watch()'s, freed through watch_free */
	void (*watch_free)(struct pt_watch *w);
	char replaces[PT_TX_NAME_MAX + 1]; /* perftune_tx_replace(): whose place it takes, or "" */
	struct pt_given *given;		   /* what the replace gave back */
	size_t ngiven;
	dev_t jdev; /* its journal file since the commit: its rollback gives back that one only */
	ino_t jino;
};

/* Keys of one device (or all keys without a device): tx->s[start, end). */
struct pt_range {
	size_t start, end;
	int r;	       /* the first failure in the range */
	size_t failed; /* its index */
	char err[PT_ERR_MAX];
};

struct pt_commit {
	struct perftune_ctx *ctx;
	struct perftune_tx *tx;
	struct pt_jinfo *ji;
	int jfd;
	struct pt_range *rg;
	size_t nrg;
};

/* Replace the string *@dst by a copy of @v (commit workers mostly keep theirs: no malloc). */
int pt_tx_set_str(char **dst, const char *v);
void pt_stage_free(struct pt_stage *s);
int pt_stage_init(struct pt_stage *s, const struct pt_tunable *t);
/* The family's view of a stage, in @t (on the caller's stack). */
const struct pt_tunable *pt_stage_tunable(const struct pt_stage *s, struct pt_tunable *t);
/* -ENOMEM naming the key of @s */
int pt_stage_oom(struct perftune_ctx *ctx, const struct pt_stage *s);
/* the original a rollback writes and the journal keeps: byte for byte as read */
static inline const char *pt_stage_orig(const struct pt_stage *s)
{
	if (s->verbatim)
		return s->verbatim;
	return s->old;
}

void pt_tx_release_holds(struct perftune_tx *tx);
/* forget what a replace gave back (tx->given) */
void pt_tx_drop_given(struct perftune_tx *tx);
/*
 * The opening of a call that stages or commits: lock the context, use the
 * transaction's open files, clear the message.  0, or -EALREADY for a
 * transaction that takes nothing more (@key, if any, leads the message); the
 * caller unuses and unlocks either way.
 */
struct pt_fcache;
int pt_tx_enter(struct perftune_tx *tx, const char *key, struct pt_fcache **prev);

/* tx-write.c: everything before a key's write: 1 = write it now, 0 = nothing to write, -errno */
int pt_tx_commit_pre(struct perftune_ctx *ctx, struct pt_jinfo *ji, int jfd, struct pt_stage *s);
/* tx-write.c: after the write: read it back, journal what it left */
int pt_tx_commit_post(struct perftune_ctx *ctx, struct perftune_tx *tx, int jfd, struct pt_stage *s);

/*
 * tx-replace.c, under the journal lock: the transaction @tx replaces is in
 * force and may be replaced (loaded in @ji), else -errno with the reason.
 */
int pt_tx_replace_check(struct perftune_ctx *ctx, struct perftune_tx *tx, struct pt_jinfo *ji);
/*
 * tx-replace.c, after the writes of a replace: give back the replaced
 * transaction's keys that @tx did not stage, move its journal to @tx's
 * (pt_journal_swap()) and end its holder @ji (as loaded before the commit).
 */
int pt_tx_replace_finish(struct perftune_ctx *ctx, struct perftune_tx *tx,
			 const struct pt_jinfo *ji);
/* tx-replace.c: a dry run's tx->given: what the replace would give back */
int pt_tx_replace_preview(struct perftune_ctx *ctx, struct perftune_tx *tx);

/* tx-undo.c: give back what this commit wrote in one range: the scheduler, then newest first */
void pt_tx_undo_range(struct pt_commit *c, struct pt_range *rg);
/* tx-undo.c: nothing of a new transaction remains after a rollback: drop its journal */
void pt_tx_drop_empty_journal(struct perftune_ctx *ctx, const char *name);
void pt_tx_give_holder_back(struct perftune_ctx *ctx, int jfd, const struct pt_jinfo *ji);

#endif
