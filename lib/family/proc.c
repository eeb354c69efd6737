// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The processes a proc.<sel> key selects, for the keys of the proc family:
 * proc.<pid>.numa_nodes (numa.c) and proc.<sel>.cpus (affinity.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/buf.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"
#include "family/proc.h"
#include "profile/regex.h"

int pt_proc_stat(struct perftune_ctx *ctx, int pid, int tid, struct pt_pstat *st)
{
	char p[96], buf[1024], *open, *close;
	int r;

	if (tid > 0)
		snprintf(p, sizeof(p), "proc/%d/task/%d/stat", pid, tid);
	else
		snprintf(p, sizeof(p), "proc/%d/stat", pid);
	r = pt_attr_read_raw(ctx, p, buf, sizeof(buf));
	if (r == -ENOENT)
		return -ESRCH;
	if (r < 0)
		return r;
	/* "pid (comm) S ppid pgrp session tty tpgid flags": comm may hold ") " */
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open || !close[1])
		return -EIO;
	snprintf(st->comm, sizeof(st->comm), "%.*s", (int)(close - open - 1), open + 1);
	st->start = 0;
	/* then ppid pgrp session tty tpgid flags ... field 22: starttime (proc(5)) */
	r = sscanf(close + 1,
		   " %c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d "
		   "%llu",
		   &st->state, &st->flags, &st->start);
	if (r < 2)
		return -EIO;
	st->has_start = r == 3;
	return 0;
}

/* ---- identity: a process by its start time, its threads by theirs ---- */

static int by_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* " threads=<tid>[-<tid>]:<start>,...": runs of tids started at once, in @b */
static void threads_add(struct perftune_ctx *ctx, int pid, int *tids, size_t n, struct pt_buf *b)
{
	unsigned long long prev = 0;
	int first = -1, last = -1;

	if (n)
		qsort(tids, n, sizeof(*tids), by_int);
	for (size_t i = 0; i <= n; i++) {
		struct pt_pstat st = { 0 };
		bool have = i < n && tids[i] != pid && pt_proc_stat(ctx, pid, tids[i], &st) == 0 &&
			    st.has_start;
		if (have && first >= 0 && tids[i] == last + 1 && st.start == prev) {
			last = tids[i];
			continue;
		}
		if (first >= 0)
			pt_buf_printf(b, "%s%d", b->len ? "," : " threads=", first);
		if (first >= 0 && last > first)
			pt_buf_printf(b, "-%d", last);
		if (first >= 0)
			pt_buf_printf(b, ":%llu", prev);
		first = last = have ? tids[i] : -1;
		prev = st.start;
		if (!have) /* the main thread is the process; a thread gone has nothing to keep */
			first = last = -1;
	}
}

int pt_proc_identity(struct perftune_ctx *ctx, int pid, int *tids, size_t n, char *buf, size_t size)
{
	struct pt_pstat st;
	struct pt_buf b = { 0 };
	_cleanup_free_ char *s = NULL;
	int r = pt_proc_stat(ctx, pid, 0, &st);
	size_t len;

	buf[0] = '\0';
	if (r == -ESRCH) { /* exited before the write: its pid can only be another's later */
		if (pt_snprintf(buf, size, "exited") < 0)
			return -ENAMETOOLONG;
		return 0;
	}
	if (r < 0 || !st.has_start) {
		/* a stat without a start time (a fake tree): none to keep */
		if (r < 0)
			return r;
		return 0;
	}
	threads_add(ctx, pid, tids, n, &b);
	s = pt_buf_steal(&b);
	if (!s)
		return -ENOMEM;
	len = (size_t)snprintf(buf, size, "start=%llu%s", st.start, s);
	if (len >= size) { /* too many threads to name: the process alone */
		pt_log(ctx, PERFTUNE_LOG_INFO,
		       "process %d: too many threads to journal each one's start time", pid);
		snprintf(buf, size, "start=%llu", st.start);
	}
	return 0;
}

/* "start=S threads=A-B:T,..." back into the start and each thread's (-EINVAL: not that) */
struct tstart {
	int tid;
	unsigned long long start;
};

static int ident_parse(const char *id, unsigned long long *start, struct tstart **v, size_t *n)
{
	size_t cap = 0;
	const char *p;
	char *end;

	*v = NULL;
	*n = 0;
	if (strncmp(id, "start=", 6) || !isdigit((unsigned char)id[6]))
		return -EINVAL;
	*start = strtoull(id + 6, &end, 10);
	if (!*end)
		return 0;
	if (strncmp(end, " threads=", 9))
		return -EINVAL;
	for (p = end + 9; *p; p = *end ? end + 1 : end) {
		long a = strtol(p, &end, 10), b = a;
		unsigned long long t;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (*end != ':' || a <= 0 || b < a || *n + (size_t)(b - a) >= 65536)
			return -EINVAL; /* no more threads than a value may name */
		t = strtoull(end + 1, &end, 10);
		if (*end && *end != ',')
			return -EINVAL;
		for (long tid = a; tid <= b; tid++) {
			if (pt_grow(v, &cap, *n + 1, 16) < 0)
				return -ENOMEM;
			(*v)[(*n)++] = (struct tstart){ .tid = (int)tid, .start = t };
		}
	}
	return 0;
}

bool pt_tids_has(const int *v, size_t n, int tid)
{
	return n && bsearch(&tid, v, n, sizeof(*v), by_int);
}

int pt_proc_reclaim(struct perftune_ctx *ctx, struct pt_found *f, int pid, int **stale,
		    size_t *nstale)
{
	_cleanup_free_ struct tstart *v = NULL;
	unsigned long long start = 0;
	struct pt_pstat st;
	size_t n, o = 0, cap = 0;
	int r = ident_parse(f->id, &start, &v, &n);
	bool exited = !strcmp(f->id, "exited"); /* it had exited when it was journaled */

	*stale = NULL;
	*nstale = 0;
	if (r < 0 && !exited)
		return pt_err(ctx, r, "%s: journaled as '%s': not the identity of a process",
			      f->key, f->id);
	r = pt_proc_stat(ctx, pid, 0, &st);
	if (r == -ESRCH) {
		pt_err(ctx, -ESRCH, "%s: no process %d now", f->key, pid);
		return PT_FOUND_GONE;
	}
	if (r == 0 && !exited && (!st.has_start || st.start != start)) {
		pt_err(ctx, -ESRCH,
		       "%s: pid %d is another process now (started at %llu, journaled "
		       "%llu)",
		       f->key, pid, st.start, start);
		return PT_FOUND_GONE;
	}
	if (r == 0 && exited) {
		pt_err(ctx, -ESRCH,
		       "%s: pid %d is another process now (started at %llu; the one "
		       "journaled had exited)",
		       f->key, pid, st.start);
		return PT_FOUND_GONE;
	}
	if (r < 0)
		return pt_err(ctx, r, "%s: process %d: %s", f->key, pid, strerror(-r));
	for (size_t i = 0; i < n; i++) {
		r = pt_proc_stat(ctx, pid, v[i].tid, &st);
		if (r == 0 && st.has_start && st.start == v[i].start)
			continue; /* the same thread */
		if (pt_grow(stale, &cap, *nstale + 1, 16) < 0)
			return -ENOMEM;
		(*stale)[(*nstale)++] = v[i].tid;
		if (r == 0 && o < sizeof(f->note)) /* replaced: said; exited: nothing to say */
			o += (size_t)snprintf(f->note + o, sizeof(f->note) - o,
					      "%sthread %d is another thread now (started at %llu, "
					      "journaled %llu): not given back",
					      o ? "; " : "", v[i].tid, st.start, v[i].start);
	}
	if (*nstale) /* for pt_tids_has() */
		qsort(*stale, *nstale, sizeof(**stale), by_int);
	return PT_FOUND_SAME;
}

/* selector: all, user or kernel processes, comm matching @re (NULL: any) */
struct sel {
	const struct pt_family *fam;
	const char *attr, *key;
	int kind; /* 0 all, 1 user, 2 kernel */
	struct pt_regex *re;
};

/* 1 @comm is one @s selects by name (no regex: any), 0 not, -EINVAL past a regex's bound */
static int comm_matches(struct perftune_ctx *ctx, const struct sel *s, const char *comm)
{
	_cleanup_free_ char *err = NULL;
	int r = 1;

	if (s->re)
		r = pt_regex_match(s->re, comm, &err);

	if (r == -EINVAL)
		return pt_err(ctx, r, "%s: %s", s->key, err);
	return r;
}

static int emit_pid(struct perftune_ctx *ctx, const struct sel *s, int pid, pt_emit_fn emit,
		    void *ud)
{
	struct pt_tunable t;
	char p[64];

	snprintf(p, sizeof(p), "proc/%d/task", pid);
	pt_tunable_init(&t, s->fam, p, "proc.%d.%s", pid, s->attr);
	t.id = pid;
	return emit(ctx, &t, ud);
}

static int select_each(struct perftune_ctx *ctx, const struct sel *s, pt_emit_fn emit, void *ud)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, "proc");
	struct dirent *de;
	int r = 0, bound = 0;

	while (d && (de = readdir(d)) && r >= 0) {
		struct pt_pstat st;
		bool kthread;
		int pid = atoi(de->d_name);
		if (!isdigit((unsigned char)de->d_name[0]) || pt_proc_stat(ctx, pid, 0, &st) < 0)
			continue;
		kthread = st.flags & PT_PF_KTHREAD;
		if ((s->kind == 1 && kthread) || (s->kind == 2 && !kthread) || st.state == 'Z' ||
		    (r = comm_matches(ctx, s, st.comm)) <= 0)
			continue;
		if (st.flags & PT_PF_NO_SETAFFINITY) {
			bound++;
			if (s->key)
				pt_log(ctx, PERFTUNE_LOG_INFO,
				       "%s: process %d (%s) skipped: a kernel thread bound to its "
				       "CPUs",
				       s->key, pid, st.comm);
			continue;
		}
		r = emit_pid(ctx, s, pid, emit, ud);
	}
	if (bound && s->key)
		pt_log(ctx, PERFTUNE_LOG_NOTICE,
		       "%s: %d kernel threads bound to their CPUs skipped (PF_NO_SETAFFINITY: the "
		       "kernel does not move them)",
		       s->key, bound);
	if (r >= 0)
		pt_err_clear(ctx);
	return r;
}

int pt_proc_each(struct perftune_ctx *ctx, const struct pt_family *fam, pt_emit_fn emit, void *ud)
{
	struct sel s = { .fam = fam, .attr = "cpus" };

	return select_each(ctx, &s, emit, ud);
}

/* proc.<pid>.<attr>: that process, if the kernel lets it move */
static int select_pid(struct perftune_ctx *ctx, const struct pt_keyparts *kp, struct sel *s,
		      pt_emit_fn emit, void *ud)
{
	struct pt_pstat st;
	unsigned long pid;
	int r;

	if (pt_parse_digits(kp->c[1].s, 4194304, &pid) < 0 || kp->c[1].s[0] == '0')
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a process id, all, user or kernel",
			      kp->text, kp->c[1].s);
	r = pt_proc_stat(ctx, (int)pid, 0, &st);
	if (r < 0)
		return pt_err(ctx, -ESRCH, "%s: no process %lu", kp->text, pid);
	if (st.flags & PT_PF_NO_SETAFFINITY) /* a key well made; the kernel refuses (as an IRQ) */
		return pt_err(ctx, -EPERM,
			      "%s: process %lu (%s) is a kernel thread bound to its CPUs: the "
			      "kernel does not let its affinity change",
			      kp->text, pid, st.comm);
	return emit_pid(ctx, s, (int)pid, emit, ud);
}

int pt_proc_select(struct perftune_ctx *ctx, const struct pt_keyparts *kp,
		   const struct pt_family *fam, pt_emit_fn emit, void *ud)
{
	static const char *const kinds[] = { "all", "user", "kernel" };
	struct sel s = { .fam = fam, .attr = kp->c[kp->n - 1].s, .key = kp->text, .kind = -1 };
	const struct pt_comp *re = NULL;
	_cleanup_free_ char *err = NULL;
	int r;

	if (kp->n == 3 && kp->c[1].bracketed) {
		s.kind = 0, re = &kp->c[1];
	} else if (kp->n == 3 || (kp->n == 4 && kp->c[2].bracketed)) {
		for (int k = 0; k < 3; k++)
			if (!kp->c[1].bracketed && !strcmp(kp->c[1].s, kinds[k]))
				s.kind = k;
		re = kp->n == 4 ? &kp->c[2] : NULL;
	}
	if (kp->n == 3 && s.kind < 0)
		return select_pid(ctx, kp, &s, emit, ud);
	if (s.kind < 0)
		return pt_err(ctx, -EINVAL,
			      "%s: expected proc.<pid>.%s, proc.all|user|kernel[<regex>].%s or "
			      "proc[<regex>].%s",
			      kp->text, s.attr, s.attr, s.attr);
	if (re && (r = pt_regex_new(re->s, &s.re, &err)) < 0) {
		if (r == -EINVAL)
			return pt_err(ctx, r, "%s: not an extended regular expression: %s",
				      kp->text, err);
		return r;
	}
	r = select_each(ctx, &s, emit, ud);
	pt_regex_free(s.re);
	return r;
}
