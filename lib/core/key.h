/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* key.c: keys parsed into components, and concrete tunables. */
#ifndef PERFTUNE_CORE_KEY_H
#define PERFTUNE_CORE_KEY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"

#define PT_KEY_SHOWN 96 /* bytes of a key quoted in an error message, then "..." */
#define PT_MAX_COMPS 16
/*
 * One component.  Plain: the key alphabet, a glob with '*' or '?'.  In brackets: any
 * printable text, '\' taking the next character as it is ("\]", "\\", "\=") or
 * "\xHH" a byte; a name there is literal, never a glob (doc/design.md, Key namespace).
 */
struct pt_comp {
	char s[PERFTUNE_KEY_MAX];    /* as written: what a selector's regex or glob reads */
	char name[PERFTUNE_KEY_MAX]; /* the name it spells: brackets' escapes undone */
	bool bracketed;
	bool glob; /* plain, with '*' or '?' */
};
struct pt_keyparts {
	const char *text; /* the key as given */
	int n;
	struct pt_comp c[PT_MAX_COMPS];
};

/* Write order within a device's group (a commit; a restore gives the scheduler back first). */
enum pt_order {
	/* an upper limit before the rest: cpufreq clamps a new min to the current
	 * max (cpufreq_verify_within_limits), so max is written first and given
	 * back last; raising min above the current max works in one commit */
	PT_ORDER_LIMIT = 0,
	PT_ORDER_SCHED = 1, /* the I/O scheduler; a NIC's channels */
	PT_ORDER_ATTR = 2,  /* the device's other attributes */
	/* what a scheduler switch resets: iosched params, nr_requests; the queues
	 * (RPS/XPS masks) a channel change makes or removes */
	PT_ORDER_RESET = 3,
};

/* A concrete tunable: one key, one file (or one family-defined object). */
struct pt_tunable {
	const struct pt_family *fam;
	char key[PERFTUNE_KEY_MAX]; /* canonical concrete key */
	char path[PATH_MAX];	    /* kernel file, relative to the root */
	char group[64];		    /* commit group: a disk name; "" = no device */
	enum pt_order order;	    /* within a group */
	int id;			    /* cpu, node or pid */
	int kind;		    /* family-specific */
	char aux[64];		    /* family-specific */
	char note[192];		    /* how the key resolved, or "" */
	bool read_only;		    /* listed as a fact: its file cannot be written (list) */
};

/* Where a journaled original goes back to (identity.c, and the families' reclaim). */
enum { PT_FOUND_SAME, PT_FOUND_MOVED, PT_FOUND_GONE };
#define PT_IDENT_MAX (2 * PT_VAL) /* an identity: a process's threads' start times take room */
struct pt_found {
	const char *key, *id, *orig;  /* as journaled */
	const struct pt_tunable *now; /* what @key names now, or NULL */
	char moved[PERFTUNE_KEY_MAX]; /* PT_FOUND_MOVED: the key it goes by now */
	char value[PT_VAL];	      /* the original to write back */
	char note[256];		      /* what was found ("renamed ve", "thread 102 replaced") */
	struct pt_tunable t;	      /* identity.c's answer: the tunable to write */
};

/* A pt_tunable kept for long (many at once): its strings at their length. */
struct pt_ctun {
	const struct pt_family *fam;
	char *key, *path, *note; /* note: NULL or how the key resolved */
	char group[sizeof(((struct pt_tunable *)0)->group)];
	char aux[sizeof(((struct pt_tunable *)0)->aux)];
	enum pt_order order;
	int id, kind;
};
int pt_ctun_set(struct pt_ctun *c, const struct pt_tunable *t); /* 0 or -ENOMEM */
/* the full pt_tunable again, in @t (on the caller's stack) */
const struct pt_tunable *pt_ctun_get(const struct pt_ctun *c, struct pt_tunable *t);
void pt_ctun_free(struct pt_ctun *c);

typedef int (*pt_emit_fn)(struct perftune_ctx *ctx, const struct pt_tunable *t, void *ud);
/* stage @t set to @value (a transaction's staging) */
typedef int (*pt_stage_fn)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			   void *ud);
int pt_key_parse(struct perftune_ctx *ctx, const char *key, struct pt_keyparts *kp);
/* the ']' closing the '[' at @open, past escaped characters; NULL and *@why (or NULL) if none */
const char *pt_key_bracket_end(const char *open, const char **why);
/* A printable, bounded copy of user input @key for error messages, in @buf. */
const char *pt_key_shown(const char *key, char *buf, size_t size);
bool pt_glob(const char *s);
/* @name is what @c names: the name itself, or one its glob matches */
bool pt_comp_matches(const struct pt_comp *c, const char *name);
/* @kp's components are those of @key ("numa.balancing") */
bool pt_key_is(const struct pt_keyparts *kp, const char *key);
int pt_tunable_init(struct pt_tunable *t, const struct pt_family *fam, const char *path,
		    const char *fmt, ...) _printf_(4, 5);

#endif
