// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * proc.<sel>.cpus: the CPU affinity of every thread of a process (taskset -a).
 * A value is a CPU list for every thread; "&LIST": each thread keeps its CPUs
 * inside LIST, or gets LIST when it has none there (TuneD's isolated_cores);
 * "@TIDS=LIST ...": the threads named (TIDS "101-104,107"), a LIST there may
 * take '&' too.  A read shows one list when every thread has it, else the
 * "@" form; an original is the "@" form of the threads a change moves, so
 * that a restore gives each thread its own mask and touches no other.
 * After staging, a process or thread that exits is no error: nothing to move.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/buf.h"
#include "shared/cpulist.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/family.h"
#include "family/proc.h"

#define TIDS_MAX 65536 /* threads a value may name */

struct thr {
	int tid;
	bool inter; /* "&": within the mask */
	unsigned char m[PT_CPUS_BYTES];
};

struct tset {
	struct thr *v;
	size_t n, cap;
	bool all; /* one mask for every thread: v[0] */
};

static void tset_free(struct tset *ts)
{
	free(ts->v);
	*ts = (struct tset){ 0 };
}

static struct thr *tset_add(struct tset *ts, int tid)
{
	if (pt_grow(&ts->v, &ts->cap, ts->n + 1, 8) < 0)
		return NULL;
	memset(&ts->v[ts->n], 0, sizeof(ts->v[0]));
	ts->v[ts->n].tid = tid;
	return &ts->v[ts->n++];
}

static int by_tid(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static struct thr *tset_find(struct tset *ts, int tid)
{
	struct thr key = { .tid = tid };

	return bsearch(&key, ts->v, ts->n, sizeof(key), by_tid);
}

/* the entry of @ts for thread @tid: its only one when it names no thread ("all") */
static const struct thr *tset_want(const struct tset *ts, int tid)
{
	if (ts->all)
		return &ts->v[0];
	return tset_find((struct tset *)ts, tid);
}

/* every thread of @pid and its mask, by tid; -ESRCH: the process is gone */
static int tset_load(struct perftune_ctx *ctx, int pid, struct tset *ts)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	char p[64];

	snprintf(p, sizeof(p), "proc/%d/task", pid);
	d = pt_attr_opendir(ctx, p);
	while (d && (de = readdir(d))) {
		struct thr *t;
		int r;
		if (de->d_name[0] == '.')
			continue;
		t = tset_add(ts, atoi(de->d_name));
		if (!t)
			return -ENOMEM;
		r = pt_attr_affinity(ctx, t->tid, t->m, false);
		if (r == -ESRCH) /* ended meanwhile */
			ts->n--;
		else if (r < 0)
			return r;
	}
	if (ts->n == 0)
		return -ESRCH;
	qsort(ts->v, ts->n, sizeof(*ts->v), by_tid);
	return 0;
}

/* "101-104,107": tids in increasing order; -E2BIG past @size */
static int tids_format(const struct tset *ts, size_t from, const unsigned char *m, bool inter,
		       struct pt_buf *b)
{
	int run = -1, prev = -1;

	for (size_t i = from; i <= ts->n; i++) {
		const struct thr *t = i < ts->n ? &ts->v[i] : NULL;
		if (t && (t->inter != inter || memcmp(t->m, m, PT_CPUS_BYTES)))
			continue;
		if (t && prev >= 0 && t->tid == prev + 1) {
			prev = t->tid;
			continue;
		}
		if (prev >= 0 && b->len)
			pt_buf_printf(b, ",");
		if (prev >= 0 && run == prev)
			pt_buf_printf(b, "%d", run);
		else if (prev >= 0)
			pt_buf_printf(b, "%d-%d", run, prev);
		run = prev = t ? t->tid : -1;
	}
	return 0;
}

/* a list of the mask; "" when it has no CPU */
static void list_of(const unsigned char *m, bool inter, char *out, size_t size)
{
	out[0] = inter ? '&' : '\0';
	pt_format_cpulist(m, PT_CPUS_MAX, out + inter, size - inter);
}

/* the canonical form of @ts: one list, or "@" groups by first tid (@at: always groups) */
static int tset_format(const struct tset *ts, bool at, char *out, size_t size)
{
	struct pt_buf b = { 0 };
	_cleanup_free_ bool *done = calloc(ts->n + 1, sizeof(bool));
	_cleanup_free_ char *s = NULL;
	char list[PT_VAL];
	bool same = ts->n > 0;

	if (!done)
		return -ENOMEM;
	for (size_t i = 1; i < ts->n && same; i++)
		same = ts->v[i].inter == ts->v[0].inter &&
		       !memcmp(ts->v[i].m, ts->v[0].m, PT_CPUS_BYTES);
	if ((same && !at) || ts->all) {
		list_of(ts->v[0].m, ts->v[0].inter, out, size);
		return 0;
	}
	pt_buf_puts(&b, "@");
	for (size_t i = 0; i < ts->n; i++) {
		struct pt_buf g = { 0 };
		_cleanup_free_ char *gs = NULL;
		if (done[i])
			continue;
		for (size_t j = i; j < ts->n; j++)
			done[j] |= ts->v[j].inter == ts->v[i].inter &&
				   !memcmp(ts->v[j].m, ts->v[i].m, PT_CPUS_BYTES);
		tids_format(ts, i, ts->v[i].m, ts->v[i].inter, &g);
		gs = pt_buf_steal(&g);
		list_of(ts->v[i].m, ts->v[i].inter, list, sizeof(list));
		if (b.len > 1)
			pt_buf_printf(&b, " ");
		pt_buf_printf(&b, "%s=%s", gs ? gs : "", list);
	}
	s = pt_buf_steal(&b);
	if (!s)
		return -ENOMEM;
	if (strlen(s) >= size)
		return -E2BIG;
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

/* "0-3", "&0-3": a non-empty mask */
static int parse_list(const char *s, struct thr *t)
{
	t->inter = s[0] == '&';
	s += t->inter;
	if (!*s || pt_parse_cpulist(s, t->m, PT_CPUS_MAX) < 0)
		return -EINVAL;
	for (size_t i = 0; i < PT_CPUS_BYTES; i++)
		if (t->m[i])
			return 0;
	return -EINVAL;
}

/* one "TIDS=LIST" group of an "@" value */
static int parse_group(char *g, struct tset *ts)
{
	char *eq = strchr(g, '='), *save = NULL;
	struct thr proto = { 0 };

	if (!eq || parse_list(eq + 1, &proto) < 0)
		return -EINVAL;
	*eq = '\0';
	for (char *r = strtok_r(g, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		char *end;
		long a = strtol(r, &end, 10), b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (*end || a <= 0 || b < a || b > 4194304 || ts->n + (size_t)(b - a) >= TIDS_MAX)
			return -EINVAL;
		for (long tid = a; tid <= b; tid++) {
			struct thr *t = tset_add(ts, (int)tid);
			if (!t)
				return -ENOMEM;
			memcpy(t->m, proto.m, sizeof(t->m));
			t->inter = proto.inter;
		}
	}
	return 0;
}

/* a value into @ts: "LIST", "&LIST" (ts->all) or "@TIDS=LIST ..." */
static int aff_parse(const char *in, struct tset *ts)
{
	_cleanup_free_ char *dup = strdup(in);
	char *save = NULL;
	int r = 0;

	if (!dup)
		return -ENOMEM;
	if (in[0] != '@') {
		ts->all = true;
		if (tset_add(ts, 0))
			return parse_list(in, &ts->v[0]);
		return -ENOMEM;
	}
	for (char *g = strtok_r(dup + 1, " ", &save); g && r >= 0; g = strtok_r(NULL, " ", &save))
		r = parse_group(g, ts);
	if (r >= 0 && ts->n == 0)
		r = -EINVAL;
	if (r >= 0)
		qsort(ts->v, ts->n, sizeof(*ts->v), by_tid);
	for (size_t i = 1; r >= 0 && i < ts->n; i++)
		if (ts->v[i].tid == ts->v[i - 1].tid)
			r = -EINVAL;
	return r;
}

/* what thread @cur gets from @want: the mask, or (&) its CPUs inside it, else all of it */
static void target(const struct thr *want, const struct thr *cur, unsigned char *out)
{
	bool any = false;

	for (size_t i = 0; i < PT_CPUS_BYTES; i++) {
		out[i] = want->m[i] & (want->inter ? cur->m[i] : 0xff);
		any |= out[i] != 0;
	}
	if (!any)
		memcpy(out, want->m, PT_CPUS_BYTES);
}

static int aff_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	struct tset ts = { 0 };
	int r = tset_load(ctx, t->id, &ts);

	buf[0] = '\0';
	if (r == -ESRCH) /* exited after staging: nothing left to move */
		r = 0;
	else if (r >= 0)
		r = tset_format(&ts, false, buf, size);
	tset_free(&ts);
	if (r == -E2BIG)
		return pt_err(ctx, r, "%s: too many threads with different masks for one value",
			      t->key);
	if (r < 0)
		return pt_err(ctx, r, "%s: %s", t->key, strerror(-r));
	return 0;
}

/* the state @want leaves the threads in (@cur), exact; @only: just the threads it names */
static int apply_want(const struct tset *want, struct tset *cur, bool only)
{
	for (size_t i = 0; i < cur->n; i++) {
		struct thr *c = &cur->v[i];
		const struct thr *w = tset_want(want, c->tid);
		unsigned char m[PT_CPUS_BYTES];
		if (!w) {
			if (only)
				c->tid = -1;
			continue;
		}
		target(w, c, m);
		memcpy(c->m, m, sizeof(m));
	}
	if (only) { /* drop the threads @want does not name */
		size_t k = 0;
		for (size_t i = 0; i < cur->n; i++)
			if (cur->v[i].tid >= 0)
				cur->v[k++] = cur->v[i];
		cur->n = k;
	}
	return 0;
}

static int check_online(struct perftune_ctx *ctx, const struct pt_tunable *t, const struct tset *w)
{
	unsigned char on[PT_CPUS_BYTES] = { 0 };
	char buf[4096];

	if (pt_attr_read(ctx, "sys/devices/system/cpu/online", buf, sizeof(buf)) < 0 ||
	    pt_parse_cpulist(buf, on, PT_CPUS_MAX) < 0)
		return 0; /* the kernel decides */
	for (size_t i = 0; i < w->n; i++)
		for (int c = 0; c < PT_CPUS_MAX; c++)
			if (pt_cpus_has(w->v[i].m, c) && !pt_cpus_has(on, c))
				return pt_err(ctx, -EINVAL, "%s: CPU %d is not online (online: %s)",
					      t->key, c, buf);
	return 0;
}

static int aff_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size)
{
	struct tset want = { 0 }, cur = { 0 };
	int r = aff_parse(in, &want);

	if (r == -EINVAL)
		r = pt_err(ctx, r,
			   "%s: '%s' is not a CPU list (0-3,8), &LIST (within it) or @TIDS=LIST",
			   t->key, in);
	if (r >= 0)
		r = check_online(ctx, t, &want);
	if (r >= 0 && (r = tset_load(ctx, t->id, &cur)) == -ESRCH) {
		r = 0; /* exited after staging: the value as given */
		cur.n = 0;
	}
	if (r >= 0 && cur.n == 0)
		r = pt_snprintf(out, size, "%s", in);
	else if (r >= 0 && want.all && !want.v[0].inter)
		r = tset_format(&want, false, out, size);
	else if (r >= 0 && !(r = apply_want(&want, &cur, false)))
		r = tset_format(&cur, false, out, size);
	tset_free(&want);
	tset_free(&cur);
	if (r == -E2BIG || r == -ENAMETOOLONG)
		return pt_err(ctx, -E2BIG, "%s: value too long", t->key);
	return r;
}

/* the threads @value would move, with their masks now, as "@" groups ("@" alone: none) */
static int aff_snapshot(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			char *buf, size_t size)
{
	struct tset want = { 0 }, cur = { 0 }, moved = { 0 };
	int r = aff_parse(value, &want);

	if (r >= 0 && (r = tset_load(ctx, t->id, &cur)) == -ESRCH)
		r = 0;
	for (size_t i = 0; r >= 0 && i < cur.n; i++) {
		const struct thr *w = tset_want(&want, cur.v[i].tid);
		unsigned char m[PT_CPUS_BYTES];
		struct thr *k;
		if (!w)
			continue;
		target(w, &cur.v[i], m);
		if (!memcmp(m, cur.v[i].m, sizeof(m)))
			continue;
		if (!(k = tset_add(&moved, cur.v[i].tid)))
			r = -ENOMEM;
		else
			memcpy(k->m, cur.v[i].m, sizeof(k->m));
	}
	if (r >= 0 && moved.n)
		r = tset_format(&moved, true, buf, size);
	else if (r >= 0)
		r = pt_snprintf(buf, size, "@");
	tset_free(&want);
	tset_free(&cur);
	tset_free(&moved);
	if (r == -E2BIG)
		return pt_err(ctx, r, "%s: too many threads to journal", t->key);
	return r;
}

static int set_one(struct perftune_ctx *ctx, const struct pt_tunable *t, struct thr *c,
		   const unsigned char *m)
{
	unsigned char mm[PT_CPUS_BYTES];
	int r;

	if (!memcmp(c->m, m, PT_CPUS_BYTES))
		return 0; /* already there: a thread not moved is a thread not touched */
	memcpy(mm, m, sizeof(mm));
	r = pt_attr_affinity(ctx, c->tid, mm, true);
	if (r == -ESRCH) {
		pt_log(ctx, PERFTUNE_LOG_INFO, "%s: thread %d exited", t->key, c->tid);
		return 0;
	}
	if (r == -EINVAL)
		return pt_err(ctx, r,
			      "%s: the kernel refuses to move thread %d (a kernel thread "
			      "bound to its CPUs, or no CPU of the list can run it)",
			      t->key, c->tid);
	if (r < 0)
		return pt_err(ctx, r, "%s: thread %d: %s", t->key, c->tid, strerror(-r));
	return 0;
}

static int aff_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     int *hold_fd)
{
	struct tset want = { 0 }, cur = { 0 };
	int r = aff_parse(value, &want);

	(void)hold_fd;
	pt_log(ctx, PERFTUNE_LOG_DEBUG, "write %s (sched_setaffinity) <- %s", t->key, value);
	if (r == -EINVAL && !strcmp(value, "@")) /* an original that moved nothing */
		r = 0;
	if (r >= 0 && (r = tset_load(ctx, t->id, &cur)) == -ESRCH) {
		pt_log(ctx, PERFTUNE_LOG_NOTICE, "%s: process %d exited: nothing to move", t->key,
		       t->id);
		r = 0;
	}
	for (size_t i = 0; r >= 0 && i < cur.n && want.n; i++) {
		const struct thr *w = tset_want(&want, cur.v[i].tid);
		unsigned char m[PT_CPUS_BYTES];
		if (!w)
			continue;
		target(w, &cur.v[i], m);
		r = set_one(ctx, t, &cur.v[i], m);
	}
	tset_free(&want);
	tset_free(&cur);
	return r;
}

/* the mask @g (a thread's, or every thread's) is what @w asks, where @w is exact */
static bool agrees(const struct thr *w, const struct thr *g)
{
	return !w || !g || w->inter || !memcmp(w->m, g->m, PT_CPUS_BYTES);
}

/*
 * In force as asked: every thread the value names that still runs has its mask
 * (threads that ended or began meanwhile aside).  1: in force, and @got says more.
 */
static int aff_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		      const char *got)
{
	struct tset w = { 0 }, g = { 0 };
	int r = 0;
	bool ok = true;

	if (got[0])
		r = aff_parse(got, &g);
	if (r >= 0 && strcmp(want, "@"))
		r = aff_parse(want, &w);
	for (size_t i = 0; r >= 0 && g.all && i < w.n; i++)
		ok &= agrees(&w.v[i], &g.v[0]);
	for (size_t i = 0; r >= 0 && !g.all && i < g.n; i++)
		ok &= agrees(tset_want(&w, g.v[i].tid), &g.v[i]);
	tset_free(&w);
	tset_free(&g);
	if (r >= 0 && !ok)
		r = pt_err(ctx, -EIO, "%s: the kernel accepted '%s' but reads back '%s'", t->key,
			   want, got);
	if (r < 0)
		return r;
	return strcmp(want, got) != 0;
}

/* the process, and each thread the original @orig names (what a restore moves) */
static int aff_identity(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig,
			char *buf, size_t size)
{
	struct tset ts = { 0 };
	_cleanup_free_ int *tids = NULL;
	int r = 0;

	if (orig[0] == '@' && orig[1])
		r = aff_parse(orig, &ts);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		ts.n = 0; /* no thread named: the process alone */
	tids = calloc(ts.n + 1, sizeof(*tids));
	for (size_t i = 0; tids && i < ts.n; i++)
		tids[i] = ts.v[i].tid;
	r = -ENOMEM;
	if (tids)
		r = pt_proc_identity(ctx, t->id, tids, ts.n, buf, size);
	tset_free(&ts);
	return r;
}

/* the same process: its original without the threads that are not the ones journaled */
static int aff_reclaim(struct perftune_ctx *ctx, struct pt_found *f)
{
	_cleanup_free_ int *stale = NULL;
	struct tset ts = { 0 };
	size_t n, k = 0;
	int r = pt_proc_reclaim(ctx, f, f->now->id, &stale, &n);

	if (r != PT_FOUND_SAME || !n || aff_parse(f->orig, &ts) < 0 || ts.all) {
		tset_free(&ts);
		return r;
	}
	for (size_t i = 0; i < ts.n; i++)
		if (!pt_tids_has(stale, n, ts.v[i].tid))
			ts.v[k++] = ts.v[i];
	ts.n = k;
	if (k)
		r = tset_format(&ts, true, f->value, sizeof(f->value));
	else
		r = pt_snprintf(f->value, sizeof(f->value), "@");
	tset_free(&ts);
	if (r < 0)
		return r;
	return PT_FOUND_SAME;
}

static int aff_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d)
{
	int r = pt_desc_read_writable(ctx, t, d);

	if (r >= 0)
		pt_desc_add_info(d, "the CPUs every thread may run on (taskset -a); &LIST keeps "
				    "each thread's CPUs inside LIST; restore puts back each "
				    "thread's own mask");
	return r;
}

static int aff_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		       void *ud)
{
	return pt_proc_select(ctx, kp, &pt_proc_cpus_family, emit, ud);
}

static int aff_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	return pt_proc_each(ctx, &pt_proc_cpus_family, emit, ud);
}

const struct pt_family pt_proc_cpus_family = {
	.name = "proc",
	.resolve = aff_resolve,
	.list = aff_list,
	.read = aff_read,
	.validate = aff_validate,
	.write = aff_write,
	.describe = aff_describe,
	.flags = PT_FAM_SNAPSHOT,
	.snapshot = aff_snapshot,
	.verify = aff_verify,
	.identity = aff_identity,
	.reclaim = aff_reclaim,
};

/* ---- the proc family: its keys' tunables carry the ops of numa.c or the above ---- */

static int proc_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
			void *ud)
{
	const char *last = kp->c[kp->n - 1].s;

	if (kp->n >= 3 && !strcmp(last, "cpus"))
		return pt_proc_cpus_family.resolve(ctx, kp, emit, ud);
	if (kp->n >= 3 && !strcmp(last, "numa_nodes"))
		return pt_proc_numa_family.resolve(ctx, kp, emit, ud);
	return pt_err(ctx, -EINVAL, "%s: expected proc.<pid>.numa_nodes or proc.<pid>.cpus",
		      kp->text);
}

static int proc_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	int r = pt_proc_numa_family.list(ctx, emit, ud);

	if (r < 0)
		return r;
	return pt_proc_cpus_family.list(ctx, emit, ud);
}

/* only resolve and list: the tunables they make have their own ops */
const struct pt_family pt_proc_family = {
	.name = "proc",
	.resolve = proc_resolve,
	.list = proc_list,
};
