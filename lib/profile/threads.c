// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The thread part of TuneD's [scheduler] isolated_cores (isolate.c finds the
 * CPUs it leaves, @others, and calls this): every process and
 * thread whose comm ps_whitelist finds and ps_blacklist does not (Python's
 * re.search on /proc/<pid>/stat's comm; ';' separates alternatives, "\;" is a
 * ';') keeps its CPUs off the isolated cores: proc.<pid>.cpus=&<the others>,
 * or @<its threads>=&<the others> where some of its threads are blacklisted
 * (plugin_scheduler.py's _set_all_obj_affinity).  Kernel threads the kernel
 * will not move are left alone, as TuneD leaves them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/buf.h"
#include "io/attr.h"
#include "core/log.h"
#include "family/proc.h"
#include "profile-internal.h"

struct filter {
	char *white, *black; /* "(a)|(b)", NULL: none */
	char *err;
};

/* TuneD's "|".join(["(%s)" % v for v in re.split(r"(?<!\\);", value)]) */
static int joined(struct perftune_profile *p, const struct pt_punit *u, const char *name, char **out)
{
	struct pt_popt *o = pt_popt_find(u->opt, u->n, name);
	_cleanup_free_ char *v = NULL, *why = NULL;
	char **parts = NULL;
	struct pt_buf b = { 0 };
	int r;

	*out = NULL;
	if (!o)
		return 0;
	r = pt_vars_expand(p, o->value, o, &v, &why);
	if (r < 0)
		return r;
	parts = pt_regex_split("(?<!\\\\);", v);
	if (!parts)
		return -ENOMEM;
	for (char **s = parts; *s; s++)
		pt_buf_printf(&b, "%s(%s)", s == parts ? "" : "|", *s);
	pt_strv_free(parts);
	*out = pt_buf_steal(&b);
	if (*out)
		return 1;
	return -ENOMEM;
}

/* 1: @comm is taken (whitelisted, not blacklisted), 0: not, -EINVAL: a bad regex */
static int taken(struct filter *f, const char *comm)
{
	int r = 1;

	if (f->white)
		r = pt_regex_search(f->white, comm, false, &f->err);
	if (r != 1 || !f->black)
		return r;
	if (pt_regex_search(f->black, comm, false, &f->err) == 1)
		return 0;
	if (f->err)
		return -EINVAL;
	return 1;
}

/* "@101-103,107=&0-2", or "&0-2" when every thread of @pid is taken; "" when none is */
static int process_value(struct perftune_ctx *ctx, struct filter *f, int pid, const char *aff,
			 struct pt_buf *b)
{
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_free_ int *tids = NULL;
	struct dirent *de;
	size_t n = 0, cap = 0, all = 0;
	char p[64];

	snprintf(p, sizeof(p), "proc/%d/task", pid);
	d = pt_attr_opendir(ctx, p);
	while (d && (de = readdir(d))) {
		struct pt_pstat st;
		int tid = atoi(de->d_name), r;
		if (de->d_name[0] == '.' || pt_proc_stat(ctx, pid, tid, &st) < 0)
			continue;
		all++;
		if ((r = taken(f, st.comm)) < 0)
			return r;
		if (r && pt_grow(&tids, &cap, n + 1, 16) < 0)
			return -ENOMEM;
		if (r)
			tids[n++] = tid;
	}
	if (n == all && n) {
		pt_buf_printf(b, "&%s", aff);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		pt_buf_printf(b, "%s%d", i ? "," : "@", tids[i]);
	if (n)
		pt_buf_printf(b, "=&%s", aff);
	return 0;
}

static int map_process(struct perftune_profile *p, const struct pt_punit *u,
		       const struct pt_popt *o, struct filter *f, int pid, const char *aff)
{
	struct pt_buf b = { 0 };
	_cleanup_free_ char *v = NULL;
	char key[64];
	struct pt_pstat st;
	int r = pt_proc_stat(p->ctx, pid, 0, &st);

	if (r < 0 || st.state == 'Z' || (st.flags & PT_PF_NO_SETAFFINITY))
		return 0; /* gone, a zombie, or bound to its CPUs: TuneD leaves it too */
	r = taken(f, st.comm);
	if (r <= 0)
		return r;
	r = process_value(p->ctx, f, pid, aff, &b);
	v = pt_buf_steal(&b);
	if (r < 0 || !v) {
		if (r < 0)
			return r;
		return -ENOMEM;
	}
	if (!v[0])
		return 0;
	snprintf(key, sizeof(key), "proc.%d.cpus", pid);
	r = pt_pmap_key(p, u, o, key, v, false, NULL);
	if (r < 0)
		return r;
	return 0;
}

int pt_map_isolated_threads(struct perftune_profile *p, const struct pt_punit *u,
			    const struct pt_popt *o, const char *others)
{
	struct filter f = { 0 };
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int r;

	if ((r = joined(p, u, "ps_whitelist", &f.white)) < 0 ||
	    (r = joined(p, u, "ps_blacklist", &f.black)) < 0)
		goto out;
	d = pt_attr_opendir(p->ctx, "proc");
	while (d && (de = readdir(d)) && r >= 0)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			r = map_process(p, u, o, &f, atoi(de->d_name), others);
	if (r == -EINVAL)
		r = pt_err(p->ctx, r, "%s:%d: [%s] ps_whitelist/ps_blacklist: %s", o->file, o->line,
			   u->name, f.err ? f.err : "not a regular expression");
out:
	pt_free_all(f.white, f.black, f.err);
	return r;
}
