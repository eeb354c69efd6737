// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * numa.balancing (kernel.numa_balancing) with the node facts in describe, and
 * proc.<pid>.numa_nodes: the NUMA nodes a process may run on, through libnuma.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/cpulist.h"
#include "shared/dlopen.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/family.h"
#include "family/file.h"
#include "family/proc.h"

#define NB_PATH "proc/sys/kernel/numa_balancing"

static int numa_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	return pt_file_emit_one(ctx, &pt_numa_family, NB_PATH, "numa.balancing",
				"automatic NUMA balancing", emit, ud);
}

static int numa_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
			void *ud)
{
	if (!pt_key_is(kp, "numa.balancing"))
		return pt_err(ctx, -ENOENT,
			      "%s: the NUMA keys are numa.balancing and proc.<pid>.numa_nodes",
			      kp->text);
	return numa_list(ctx, emit, ud);
}

/* libnuma there and NUMA available: 0, or the error naming @key */
static int numa_here(struct perftune_ctx *ctx, const char *key)
{
	if (pt_dl_need(ctx, PT_DL_NUMA, key) < 0)
		return -EOPNOTSUPP;
	if (pt_libnuma.numa_available() < 0)
		return pt_err(ctx, -EOPNOTSUPP, "%s: NUMA is not available", key);
	return 0;
}

static void node_facts(struct perftune_ctx *ctx, struct perftune_desc *d)
{
	if (pt_dl_load(PT_DL_NUMA) < 0) {
		pt_desc_add_info(d, "%s is not installed: no node facts", pt_dl_soname(PT_DL_NUMA));
		return;
	}
	if (pt_libnuma.numa_available() < 0) {
		pt_desc_add_info(d, "libnuma: NUMA not available");
		return;
	}
	for (int n = 0; n <= pt_libnuma.numa_max_node(); n++) {
		struct bitmask *cpus = pt_libnuma.numa_allocate_cpumask();
		char list[256] = "", p[PATH_MAX], hp[32] = "0";
		long long freeb = 0, size = pt_libnuma.numa_node_size64(n, &freeb);
		unsigned char mask[1024] = { 0 };

		if (size < 0 || !cpus) {
			pt_libnuma.numa_bitmask_free(cpus);
			continue;
		}
		if (pt_libnuma.numa_node_to_cpus(n, cpus) == 0)
			for (unsigned c = 0; c < cpus->size && c < sizeof(mask) * 8; c++)
				if (pt_libnuma.numa_bitmask_isbitset(cpus, c))
					mask[c / 8] |= (unsigned char)(1u << (c % 8));
		pt_libnuma.numa_bitmask_free(cpus);
		pt_format_cpulist(mask, sizeof(mask) * 8, list, sizeof(list));
		snprintf(p, sizeof(p),
			 "sys/devices/system/node/node%d/hugepages/hugepages-2048kB/free_hugepages",
			 n);
		pt_attr_read(ctx, p, hp, sizeof(hp));
		pt_desc_add_info(d,
				 "node%d: cpus %s, %lld MiB (%lld MiB free), %s free 2M huge pages",
				 n, list[0] ? list : "none", size >> 20, freeb >> 20, hp);
	}
}

static int numa_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			 struct perftune_desc *d)
{
	int r = pt_file_describe(ctx, t, d);

	node_facts(ctx, d);
	return r;
}

static void numa_export_names(struct perftune_ctx *ctx, const struct pt_tunable *t,
			      const char *value, struct pt_xnames *x)
{
	pt_file_export_names(ctx, t, value, x); /* kernel.numa_balancing */
	snprintf(x->boot, sizeof(x->boot), "numa_balancing=%s",
		 strcmp(value, "0") ? "enable" : "disable");
}

const struct pt_family pt_numa_family = {
	.name = "numa",
	.resolve = numa_resolve,
	.list = numa_list,
	.read = pt_file_read,
	.validate = pt_file_validate,
	.validate_cur = pt_file_validate_cur,
	.write = pt_file_write,
	.flags = PT_FAM_FILE,
	.describe = numa_describe,
	.export_names = numa_export_names,
};

/* ---- proc.<pid>.numa_nodes ---- */

static int proc_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
			void *ud)
{
	struct pt_tunable t;
	char p[64];
	unsigned long pid;

	if (kp->n != 3 || strcmp(kp->c[2].s, "numa_nodes"))
		return pt_err(ctx, -EINVAL, "%s: expected proc.<pid>.numa_nodes", kp->text);
	if (pt_parse_digits(kp->c[1].s, 4194304, &pid) < 0 || kp->c[1].s[0] == '0')
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a process id", kp->text, kp->c[1].s);
	snprintf(p, sizeof(p), "proc/%lu/status", pid);
	if (!pt_attr_exists(ctx, p))
		return pt_err(ctx, -ESRCH, "%s: no process %lu", kp->text, pid);
	pt_tunable_init(&t, &pt_proc_numa_family, p, "proc.%lu.numa_nodes", pid);
	t.id = (int)pid;
	return emit(ctx, &t, ud);
}

/* the nodes that hold at least one CPU the process may run on */
static int proc_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	struct bitmask *cpus, *ncpus;
	unsigned char nodes[128] = { 0 };
	int r = numa_here(ctx, t->key);

	if (r < 0)
		return r;
	cpus = pt_libnuma.numa_allocate_cpumask();
	ncpus = pt_libnuma.numa_allocate_cpumask();
	if (!cpus || !ncpus) {
		r = -ENOMEM;
		goto out;
	}
	if (pt_libnuma.numa_sched_getaffinity(t->id, cpus) < 0) {
		r = pt_err(ctx, -errno, "%s: process %d: %s", t->key, t->id, strerror(errno));
		goto out;
	}
	for (int n = 0; n <= pt_libnuma.numa_max_node() && n < 1024; n++) {
		if (pt_libnuma.numa_node_to_cpus(n, ncpus) < 0)
			continue;
		for (unsigned c = 0; c < cpus->size; c++)
			if (pt_libnuma.numa_bitmask_isbitset(cpus, c) &&
			    pt_libnuma.numa_bitmask_isbitset(ncpus, c)) {
				nodes[n / 8] |= (unsigned char)(1u << (n % 8));
				break;
			}
	}
	pt_format_cpulist(nodes, 1024, buf, size);
out:
	pt_libnuma.numa_bitmask_free(cpus);
	pt_libnuma.numa_bitmask_free(ncpus);
	return r;
}

/* user processes only: kernel threads (empty cmdline) are not placed */
static int proc_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int r = 0;

	if (pt_dl_load(PT_DL_NUMA) < 0 || pt_libnuma.numa_available() < 0)
		return 0;
	d = pt_attr_opendir(ctx, "proc");
	while (d && (de = readdir(d)) && r >= 0) {
		char p[64], c[8];
		struct pt_tunable t;
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(p, sizeof(p), "proc/%s/cmdline", de->d_name);
		if (pt_attr_read_raw(ctx, p, c, sizeof(c)) <= 0)
			continue;
		snprintf(p, sizeof(p), "proc/%s/status", de->d_name);
		pt_tunable_init(&t, &pt_proc_numa_family, p, "proc.%s.numa_nodes", de->d_name);
		t.id = atoi(de->d_name);
		r = emit(ctx, &t, ud);
	}
	return r;
}

/* the CPUs of the nodes in @nodes */
static int nodes_cpus(struct bitmask *nodes, struct bitmask *cpus)
{
	struct bitmask *ncpus = pt_libnuma.numa_allocate_cpumask();

	if (!ncpus)
		return -ENOMEM;
	pt_libnuma.numa_bitmask_clearall(cpus);
	for (unsigned n = 0; n < nodes->size; n++) {
		if (!pt_libnuma.numa_bitmask_isbitset(nodes, n) ||
		    pt_libnuma.numa_node_to_cpus((int)n, ncpus) < 0)
			continue;
		for (unsigned c = 0; c < ncpus->size; c++)
			if (pt_libnuma.numa_bitmask_isbitset(ncpus, c))
				pt_libnuma.numa_bitmask_setbit(cpus, c);
	}
	pt_libnuma.numa_bitmask_free(ncpus);
	return 0;
}

static int proc_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			 char *out, size_t size)
{
	struct bitmask *nodes, *cpus;
	unsigned char mask[128] = { 0 };
	int r = numa_here(ctx, t->key);

	if (r < 0)
		return r;
	/* checked here first: libnuma's parser prints its complaints on stderr */
	if (pt_parse_cpulist(in, mask, (int)sizeof(mask) * 8) < 0)
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a node list (0, 0-1)", t->key, in);
	for (int n = 0; n < (int)sizeof(mask) * 8; n++)
		if ((mask[n / 8] & (1u << (n % 8))) &&
		    (n > pt_libnuma.numa_max_node() ||
		     !pt_libnuma.numa_bitmask_isbitset(*pt_libnuma.numa_all_nodes_ptr, (unsigned)n)))
			return pt_err(ctx, -ENODEV, "%s: no NUMA node %d on this machine", t->key,
				      n);
	memset(mask, 0, sizeof(mask));
	if (!(nodes = pt_libnuma.numa_parse_nodestring(in)))
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a list of online NUMA nodes (0, 0-1)",
			      t->key, in);
	cpus = pt_libnuma.numa_allocate_cpumask();
	if (!cpus || nodes_cpus(nodes, cpus) < 0 || pt_libnuma.numa_bitmask_weight(cpus) == 0)
		r = pt_err(ctx, -EINVAL, "%s: nodes '%s' have no CPUs to run on", t->key, in);
	for (unsigned n = 0; r == 0 && n < nodes->size && n < sizeof(mask) * 8; n++)
		if (pt_libnuma.numa_bitmask_isbitset(nodes, n))
			mask[n / 8] |= (unsigned char)(1u << (n % 8));
	if (r == 0)
		pt_format_cpulist(mask, sizeof(mask) * 8, out, size);
	pt_libnuma.numa_bitmask_free(cpus);
	pt_libnuma.numa_bitmask_free(nodes);
	return r;
}

/*
 * The original placement, exact: "@<nodes> <tid>=<cpus> ..." (every thread's
 * own affinity, which may differ; the nodes hold the pages).
 */
static int proc_snapshot(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			 char *buf, size_t size)
{
	char p[64];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	size_t o;
	int r = proc_read(ctx, t, buf + 1, size - 1);

	(void)value;
	if (r < 0)
		return r;
	buf[0] = '@';
	o = strlen(buf);
	snprintf(p, sizeof(p), "proc/%d/task", t->id);
	d = pt_attr_opendir(ctx, p);
	while (d && (de = readdir(d))) {
		unsigned char mask[1024] = { 0 };
		char list[512];
		struct bitmask *cpus;
		if (de->d_name[0] == '.')
			continue;
		cpus = pt_libnuma.numa_allocate_cpumask();
		if (!cpus)
			return -ENOMEM;
		if (pt_libnuma.numa_sched_getaffinity(atoi(de->d_name), cpus) >= 0) {
			for (unsigned c = 0; c < cpus->size && c < sizeof(mask) * 8; c++)
				if (pt_libnuma.numa_bitmask_isbitset(cpus, c))
					mask[c / 8] |= (unsigned char)(1u << (c % 8));
			pt_format_cpulist(mask, sizeof(mask) * 8, list, sizeof(list));
			int n = snprintf(buf + o, size - o, " %s=%s", de->d_name, list);
			if (n < 0 || (size_t)n >= size - o) {
				pt_libnuma.numa_bitmask_free(cpus);
				return pt_err(ctx, -E2BIG, "%s: too many threads to journal",
					      t->key);
			}
			o += (size_t)n;
		}
		pt_libnuma.numa_bitmask_free(cpus);
	}
	return 0;
}

static int set_affinity(struct perftune_ctx *ctx, const struct pt_tunable *t, int tid,
			struct bitmask *cpus, bool restoring)
{
	if (pt_libnuma.numa_sched_setaffinity(tid, cpus) == 0)
		return 0;
	if (errno == ESRCH && (restoring || tid != t->id))
		return 0; /* a thread that ended meanwhile */
	int err = errno;
	const char *who = "thread";

	if (tid == t->id)
		who = "process";
	return pt_err(ctx, -err, "%s: %s %d: %s", t->key, who, tid,
		      err == ESRCH ? "exited" : strerror(err));
}

/* move the pages the process has to @nodes; what cannot move stays (logged) */
static void migrate(struct perftune_ctx *ctx, const struct pt_tunable *t, struct bitmask *nodes)
{
	struct bitmask *from = pt_libnuma.numa_allocate_nodemask();
	int left;

	if (!from)
		return;
	for (int n = 0; n <= pt_libnuma.numa_max_node(); n++)
		pt_libnuma.numa_bitmask_setbit(from, (unsigned)n);
	left = pt_libnuma.numa_migrate_pages(t->id, from, nodes);
	if (left != 0)
		pt_log(ctx, PERFTUNE_LOG_NOTICE, "%s: %d pages could not be moved%s", t->key, left,
		       left < 0 ? " (migrate_pages failed)" : "");
	pt_libnuma.numa_bitmask_free(from);
}

static int restore_snapshot(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *snap)
{
	_cleanup_free_ char *copy = strdup(snap + 1);
	char *save = NULL, *tok;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	tok = strtok_r(copy, " ", &save);
	struct bitmask *nodes = NULL;
	if (tok)
		nodes = pt_libnuma.numa_parse_nodestring(tok);
	while ((tok = strtok_r(NULL, " ", &save)) && r >= 0) {
		char *eq = strchr(tok, '=');
		struct bitmask *cpus;
		if (!eq)
			continue;
		*eq = '\0';
		cpus = pt_libnuma.numa_parse_cpustring_all(eq + 1);
		if (cpus) {
			r = set_affinity(ctx, t, atoi(tok), cpus, true);
			pt_libnuma.numa_bitmask_free(cpus);
		}
	}
	if (r >= 0 && nodes)
		migrate(ctx, t, nodes);
	if (nodes)
		pt_libnuma.numa_bitmask_free(nodes);
	return r;
}

static int proc_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		      int *hold_fd)
{
	struct bitmask *nodes, *cpus;
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	char p[64];
	int r = numa_here(ctx, t->key); /* a restore may be the process's first NUMA call */

	(void)hold_fd;
	if (r < 0)
		return r;
	if (value[0] == '@')
		return restore_snapshot(ctx, t, value);
	nodes = pt_libnuma.numa_parse_nodestring(value);
	cpus = pt_libnuma.numa_allocate_cpumask();
	if (!nodes || !cpus || nodes_cpus(nodes, cpus) < 0) {
		r = -ENOMEM;
		goto out;
	}
	r = set_affinity(ctx, t, t->id, cpus, false); /* the main thread: fails if it exited */
	snprintf(p, sizeof(p), "proc/%d/task", t->id);
	d = pt_attr_opendir(ctx, p);
	while (r >= 0 && d && (de = readdir(d)))
		if (de->d_name[0] != '.' && atoi(de->d_name) != t->id)
			r = set_affinity(ctx, t, atoi(de->d_name), cpus, false);
	if (r >= 0)
		migrate(ctx, t, nodes);
out:
	if (nodes)
		pt_libnuma.numa_bitmask_free(nodes);
	pt_libnuma.numa_bitmask_free(cpus);
	return r;
}

static int proc_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			 struct perftune_desc *d)
{
	int r = pt_desc_read_writable(ctx, t, d);

	if (r < 0)
		return r;
	pt_desc_add_info(d, "setting moves every thread's CPU affinity to the nodes' CPUs and "
			    "migrates the process's pages there; restore puts back each thread's "
			    "own affinity");
	node_facts(ctx, d);
	return 0;
}

/* the threads "@<nodes> <tid>=<cpus> ..." names, in a malloc'd array (*@n of them) */
static int *snapshot_tids(const char *orig, size_t *n)
{
	size_t cap = 0;
	int *v = NULL;

	*n = 0;
	if (orig[0] != '@')
		return calloc(1, sizeof(int));
	for (const char *p = strchr(orig, ' '); p; p = strchr(p + 1, ' ')) {
		char *end;
		long tid = strtol(p + 1, &end, 10);
		if (*end != '=' || tid <= 0)
			continue;
		if (pt_grow(&v, &cap, *n + 1, 16) < 0) {
			free(v);
			return NULL;
		}
		v[(*n)++] = (int)tid;
	}
	if (v)
		return v;
	return calloc(1, sizeof(int));
}

static int proc_identity(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig,
			 char *buf, size_t size)
{
	size_t n;
	_cleanup_free_ int *tids = snapshot_tids(orig, &n);

	if (tids)
		return pt_proc_identity(ctx, t->id, tids, n, buf, size);
	return -ENOMEM;
}

/* the same process: its snapshot without the threads that are not the ones journaled */
static int proc_reclaim(struct perftune_ctx *ctx, struct pt_found *f)
{
	_cleanup_free_ int *stale = NULL;
	size_t n, o;
	int r = pt_proc_reclaim(ctx, f, f->now->id, &stale, &n);
	const char *p = strchr(f->orig, ' ');

	if (r != PT_FOUND_SAME || !n || f->orig[0] != '@')
		return r;
	o = (size_t)snprintf(f->value, sizeof(f->value), "%.*s", (int)strcspn(f->orig, " "),
			     f->orig);
	for (; p; p = strchr(p + 1, ' ')) {
		int len = (int)(1 + strcspn(p + 1, " "));
		if (!pt_tids_has(stale, n, atoi(p + 1)) && o < sizeof(f->value))
			o += (size_t)snprintf(f->value + o, sizeof(f->value) - o, "%.*s", len, p);
	}
	return PT_FOUND_SAME;
}

const struct pt_family pt_proc_numa_family = {
	.name = "proc",
	.resolve = proc_resolve,
	.list = proc_list,
	.read = proc_read,
	.validate = proc_validate,
	.write = proc_write,
	.describe = proc_describe,
	.flags = PT_FAM_SNAPSHOT,
	.snapshot = proc_snapshot,
	.identity = proc_identity,
	.reclaim = proc_reclaim,
};

static int numa_place_self_impl(struct perftune_ctx *ctx, const char *nodes, int mempolicy)
{
	struct pt_tunable t;
	struct bitmask *mask = NULL;
	char list[256];
	int r;

	if (!ctx || !nodes)
		return -EINVAL;
	pt_lock(ctx);
	pt_err_clear(ctx);
	pt_tunable_init(&t, &pt_proc_numa_family, NULL, "exec --nodes %.64s", nodes);
	if (mempolicy < PERFTUNE_MEM_LOCAL || mempolicy > PERFTUNE_MEM_INTERLEAVE) {
		r = pt_err(ctx, -EINVAL,
			   "memory policy %d is not one of local, bind, preferred, "
			   "interleave",
			   mempolicy);
		goto out;
	}
	r = proc_validate(ctx, &t, nodes, list, sizeof(list)); /* node list, nodes with CPUs */
	if (r < 0 || !(mask = pt_libnuma.numa_parse_nodestring(list))) {
		if (r >= 0)
			r = -ENOMEM;
		goto out;
	}
	if (pt_libnuma.numa_run_on_node_mask(mask) < 0) {
		r = pt_err(ctx, -errno, "%s: cannot run on nodes %s: %s", t.key, list,
			   strerror(errno));
		goto out;
	}
	switch (mempolicy) {
	case PERFTUNE_MEM_BIND:
		pt_libnuma.numa_set_membind(mask);
		break;
	case PERFTUNE_MEM_PREFERRED:
		for (unsigned n = 0; n < mask->size; n++)
			if (pt_libnuma.numa_bitmask_isbitset(mask, n)) {
				pt_libnuma.numa_set_preferred((int)n);
				break;
			}
		break;
	case PERFTUNE_MEM_INTERLEAVE:
		pt_libnuma.numa_set_interleave_mask(mask);
		break;
	default:
		pt_libnuma.numa_set_localalloc();
	}
	r = 0;
out:
	if (mask)
		pt_libnuma.numa_bitmask_free(mask);
	pt_unlock(ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_numa_place_self(struct perftune_ctx *ctx, const char *nodes,
					     int mempolicy)
{
	return pt_api_ret(numa_place_self_impl(ctx, nodes, mempolicy));
}
