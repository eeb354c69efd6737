/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit-tier harness: fake machine trees, a simulated kernel behind attr.c, snapshots. */
#ifndef PERFTUNE_TEST_HARNESS_H
#define PERFTUNE_TEST_HARNESS_H

#include <check.h>
#include <limits.h>
#include "lib-all.h"

/* The simulated kernel: what writes do to the fake tree. */
struct sim {
	char root[PATH_MAX];
	int writes;   /* writes seen so far */
	int fault_at; /* fail write number N with -EIO (0: never) */
	int crash_at; /* _exit() at write number N, as kill -9 would (0: never) */
	long hp_cap;  /* huge pages the "kernel" can allocate per write (-1: any) */
	int busy;     /* the next N writes answer -EAGAIN, as a queue busy switching does */
	int busy_seen; /* -EAGAIN answers given */
};

struct fx {
	char root[PATH_MAX];
	char jdir[PATH_MAX];
	struct perftune_ctx *ctx;
	struct sim sim;
};

/* The directory fake trees are made in ($TMPDIR: a private tmpfs when run as root). */
const char *fx_scratch_dir(void);
/* A fresh copy of the fake machine, a context on it, the simulated kernel installed. */
void fx_setup(struct fx *f);
void fx_teardown(struct fx *f);
/* Read a file of the fake tree (relative to its root), trimmed; static buffer per call slot. */
const char *fx_read(struct fx *f, const char *rel);
void fx_write(struct fx *f, const char *rel, const char *value);
/* make directory @rel of the fake tree and its parents (a device the kernel adds) */
void fx_mkdirs(struct fx *f, const char *rel);
/* create file @rel (its directory must exist) holding @value and a newline */
void fx_put(struct fx *f, const char *rel, const char *value);
int fx_journals(struct fx *f); /* number of *.journal files */

/*
 * Make the batch engine take strategy @st (PT_BATCH_SERIAL, _WAVES, _THREADS) for two or more
 * devices: serial forced; waves chosen (io_uring here) or forced (the simulated kernel needs no
 * ring); threads through PERFTUNE_NO_IO_URING, as a user would.
 */
void fx_strategy(int st);
/* one KEY=VALUE in a transaction NAME, committed: perftune_tx_set's or commit's result */
/* perftune_get(KEY) succeeds and reads WANT */
void fx_get_is(struct fx *f, const char *key, const char *want);
int fx_set_one(struct fx *f, const char *name, const char *key, const char *value);
/* perftune_get(KEY) fails with ERR (negative), its message naming KEY and holding MSG */
void fx_get_fails(struct fx *f, const char *key, int err, const char *msg);
/* a row of a table of keys perftune_get() refuses: fx_get_fails() of it */
struct fx_bad_key {
	const char *key;
	int err;
	const char *msg;
};
void fx_bad_key_is_refused(struct fx *f, const struct fx_bad_key *row);
/* perftune_tx_set(KEY, VALUE) in a dry run fails with ERR, its message naming KEY and holding MSG */
void fx_set_fails(struct fx *f, const char *key, const char *value, int err, const char *msg);
/* perftune_tx_set(KEY, VALUE) in a dry run stages one change: its new value (static buffer) */
const char *fx_staged(struct fx *f, const char *key, const char *value);
/* a row of a table of values: KEY=VALUE stages STAGED, or (STAGED NULL) fails with ERR, MSG */
struct fx_value {
	const char *key, *value, *staged;
	int err;
	const char *msg;
};
void fx_value_is_staged_or_refused(struct fx *f, const struct fx_value *row);
/* the concrete keys perftune_get_each(KEY) reads, in order, joined by ' ' (static buffer) */
const char *fx_each_keys(struct fx *f, const char *key);
/* the keys perftune_list(PREFIX) lists, in order, joined by ' '; "=value" after each if @values */
const char *fx_list_keys(struct fx *f, const char *prefix, bool values);

/* Snapshot of every file under the root except run/: compare later. */
struct snap;
struct snap *snap_take(const char *root);
/* NULL if equal, else a malloc'd description of the first difference */
char *snap_diff(const struct snap *a, const struct snap *b);
void snap_free(struct snap *s);

/* Run the suites built by the given functions; re-exec under umockdev first. */
int harness_main(int argc, char **argv, Suite *(*const *suites)(void), int n);

#endif
