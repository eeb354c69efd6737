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
#include "internal.h"

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
	if (sscanf(close + 1, " %c %*d %*d %*d %*d %*d %lu", &st->state, &st->flags) != 2)
		return -EIO;
	return 0;
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
	int r = s->re ? pt_regex_match(s->re, comm, &err) : 1;

	return r == -EINVAL ? pt_err(ctx, r, "%s: %s", s->key, err) : r;
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
	char *end;
	long pid = strtol(kp->c[1].s, &end, 10);
	int r;

	if (*end || pid <= 0 || pid > 4194304 || kp->c[1].s[0] == '0')
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a process id, all, user or kernel",
			      kp->text, kp->c[1].s);
	r = pt_proc_stat(ctx, (int)pid, 0, &st);
	if (r < 0)
		return pt_err(ctx, -ESRCH, "%s: no process %ld", kp->text, pid);
	if (st.flags & PT_PF_NO_SETAFFINITY)
		return pt_err(ctx, -EINVAL,
			      "%s: process %ld (%s) is a kernel thread bound to its CPUs: the "
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
	if (re && (r = pt_regex_new(re->s, &s.re, &err)) < 0)
		return r == -EINVAL ? pt_err(ctx, r, "%s: not an extended regular expression: %s",
					     kp->text, err)
				    : r;
	r = select_each(ctx, &s, emit, ud);
	pt_regex_free(s.re);
	return r;
}
