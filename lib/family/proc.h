/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* proc.c: processes by selector, their identity. */
#ifndef PERFTUNE_FAMILY_PROC_H
#define PERFTUNE_FAMILY_PROC_H

#include "core/key.h"

#define PT_PF_KTHREAD 0x00200000	/* PF_KTHREAD in /proc/<pid>/stat's flags */
#define PT_PF_NO_SETAFFINITY 0x04000000 /* the kernel will not move it (per-CPU kthreads) */
struct pt_pstat {
	char comm[64]; /* as /proc/<pid>/stat shows it, without the parentheses */
	char state;
	unsigned long flags;
	unsigned long long start; /* field 22: when it started, in clock ticks after boot */
	bool has_start;		  /* the file had that field */
};
/* /proc/<pid>/stat (@tid > 0: /proc/<pid>/task/<tid>/stat); -ESRCH: gone */
int pt_proc_stat(struct perftune_ctx *ctx, int pid, int tid, struct pt_pstat *st);
/*
 * proc.<pid>.<attr> (a process that the kernel will not move is an error), or a
 * selector: proc.all, proc.user (no kernel threads), proc.kernel, each with an
 * optional [ERE] that comm matches (re.search, as TuneD's ps_whitelist), or
 * proc[ERE]: emit a @fam tunable per process; unmovable ones skipped, logged.
 */
int pt_proc_select(struct perftune_ctx *ctx, const struct pt_keyparts *kp,
		   const struct pt_family *fam, pt_emit_fn emit, void *ud);
/* a @fam tunable for each process the kernel lets move */
int pt_proc_each(struct perftune_ctx *ctx, const struct pt_family *fam, pt_emit_fn emit, void *ud);
/*
 * The identity of process @pid and of its threads @tids (sorted here): "start=<S>
 * threads=<tid>[-<tid>]:<S>,...", their start times; "exited" for a process gone,
 * "" where /proc shows no start time.
 */
int pt_proc_identity(struct perftune_ctx *ctx, int pid, int *tids, size_t n, char *buf, size_t size);
/*
 * The reclaim of a key of process @pid journaled as @f->id: PT_FOUND_GONE when
 * another process has the pid now (the message says so, with both start times), else
 * PT_FOUND_SAME with the journaled threads that are not the same threads now
 * (exited, or another thread has the tid: f->note says which) in the malloc'd
 * *@stale, for the family to leave out of its original.
 */
int pt_proc_reclaim(struct perftune_ctx *ctx, struct pt_found *f, int pid, int **stale,
		    size_t *nstale);
bool pt_tids_has(const int *v, size_t n, int tid); /* @v sorted, as pt_proc_reclaim's */

#endif
