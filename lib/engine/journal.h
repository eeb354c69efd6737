/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* journal.c: the crash-safe journal of originals, and its lock. */
#ifndef PERFTUNE_ENGINE_JOURNAL_H
#define PERFTUNE_ENGINE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "perftune.h"

#define PT_TX_NAME_MAX 64 /* a transaction name: 1-64 of [A-Za-z0-9_.@-], not '.' or '-' first */
struct pt_journal;
struct pt_jentry {
	char *key;
	char *orig;		/* original value (possibly handed over) */
	char *written;		/* last value written, or NULL */
	char *ident;		/* what the original belongs to (format 2), or NULL */
	char *plugged;		/* the device a hotplug watch tuned it for ("plugged"), or NULL */
	bool restored;		/* already given back */
	unsigned long long seq; /* when the original was taken: orders stacked transactions */
};
/* a device a watching transaction could not tune ("refused"): its key ("block.sdd") and why */
struct pt_jrefusal {
	char *key, *why;
};
struct pt_jinfo {
	char name[PT_TX_NAME_MAX + 1];
	unsigned long long seq;
	pid_t pid;
	unsigned long long starttime;
	bool committed, orphaned, held, foreign_boot;
	int version; /* of its format: 1 keeps no identities; 0 = not loaded (a new one) */
	unsigned flags;
	size_t n, cap;
	struct pt_jentry *e;
	size_t *idx, nidx; /* key -> entry + 1, open addressing: a key is found in O(1) */
	struct pt_jrefusal *refused;
	size_t nrefused, caprefused;
};
int pt_journal_name_ok(const char *name);
int pt_journal_dir_open(struct perftune_ctx *ctx, bool create);
int pt_journal_lock(struct perftune_ctx *ctx, int *lockfd); /* keeps the dir open till unlock */
void pt_journal_unlock(struct perftune_ctx *ctx, int lockfd);
int pt_journal_load(struct perftune_ctx *ctx, const char *name, struct pt_jinfo *ji);
void pt_jinfo_free(struct pt_jinfo *ji);
struct pt_jentry *pt_jinfo_find(struct pt_jinfo *ji, const char *key);
int pt_journal_names(struct perftune_ctx *ctx, char ***names); /* NULL-terminated, sorted by seq */
/*
 * Open the journal of @name for this process: a new one (whole: header and
 * holder); if there is one already, -EEXIST when @create, else append to it.
 */
int pt_journal_begin(struct perftune_ctx *ctx, const char *name, unsigned flags, bool create,
		     int *jfd);
int pt_journal_append(struct perftune_ctx *ctx, int jfd, const char *tag, const char *key,
		      const char *value);
/*
 * "orig" of @key with its original @value and, where @ident is not empty, the
 * identity of its object ("ident"), in one write: both or neither.
 */
int pt_journal_append_orig(struct perftune_ctx *ctx, int jfd, const char *key, const char *value,
			   const char *ident);
/* the journal @ji keeps identities (format 2; a new one is) */
bool pt_journal_has_identity(const struct pt_jinfo *ji);
/* pt_journal_load(), and the journal kept open in *@jfd for pt_journal_append() */
int pt_journal_load_fd(struct perftune_ctx *ctx, const char *name, struct pt_jinfo *ji, int *jfd);
/* "restored <key>" for each of @keys, in one write */
int pt_journal_append_restored(struct perftune_ctx *ctx, int jfd, const char *const *keys, size_t n);
int pt_journal_append_to(struct perftune_ctx *ctx, const char *name, const char *tag,
			 const char *key, const char *value);
int pt_journal_remove(struct perftune_ctx *ctx, const char *name);
/*
 * The journal step of a replace: the live entries of @ji (loaded under the
 * lock) written whole, as a committed journal @name held by this process
 * (released unless @hold), in the place of @ji's own: 0 with *@jfd open on
 * the new journal, or -errno (nothing changed).
 */
int pt_journal_swap(struct perftune_ctx *ctx, const struct pt_jinfo *ji, const char *name,
		    unsigned flags, bool hold, int *jfd);

#endif
