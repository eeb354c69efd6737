// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * numa.balancing (kernel.numa_balancing) with the node facts in describe, and
 * proc.<pid>.numa_nodes: the NUMA nodes a process may run on, through libnuma.
 */
#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

#define NB_PATH "proc/sys/kernel/numa_balancing"

static int numa_emit(struct perftune_ctx *ctx, const char *key, pt_emit_fn emit, void *ud)
{
	struct pt_tunable t;

	if (!pt_attr_exists(ctx, NB_PATH))
		return pt_err(ctx, -EOPNOTSUPP, "%s: this kernel has no automatic NUMA balancing",
			      key);
	pt_tunable_init(&t, &pt_numa_family, NB_PATH, "numa.balancing");
	return emit(ctx, &t, ud);
}

static int numa_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
			void *ud)
{
	if (kp->n != 2 || strcmp(kp->c[1].s, "balancing"))
		return pt_err(ctx, -ENOENT,
			      "%s: the NUMA keys are numa.balancing and proc.<pid>.numa_nodes",
			      kp->text);
	return numa_emit(ctx, kp->text, emit, ud);
}

static int numa_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	return numa_emit(ctx, "numa.balancing", emit, ud);
}

static void node_facts(struct perftune_ctx *ctx, struct perftune_desc *d)
{
	if (numa_available() < 0) {
		pt_desc_add_info(d, "libnuma: NUMA not available");
		return;
	}
	for (int n = 0; n <= numa_max_node(); n++) {
		struct bitmask *cpus = numa_allocate_cpumask();
		char list[256] = "", p[PATH_MAX], hp[32] = "0";
		long long freeb = 0, size = numa_node_size64(n, &freeb);
		unsigned char mask[1024] = { 0 };

		if (size < 0 || !cpus) {
			numa_free_cpumask(cpus);
			continue;
		}
		if (numa_node_to_cpus(n, cpus) == 0)
			for (unsigned c = 0; c < cpus->size && c < sizeof(mask) * 8; c++)
				if (numa_bitmask_isbitset(cpus, c))
					mask[c / 8] |= (unsigned char)(1u << (c % 8));
		numa_free_cpumask(cpus);
		pt_format_cpulist(mask, sizeof(mask) * 8, list, sizeof(list));
		snprintf(p, sizeof(p),
			 "sys/devices/system/node/node%d/hugepages/hugepages-2048kB/free_hugepages",
			 n);
		pt_attr_read(ctx, p, hp, sizeof(hp));
		pt_desc_add_info(d, "node%d: cpus %s, %lld MiB (%lld MiB free), %s free 2M huge pages",
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

const struct pt_family pt_numa_family = {
	.name = "numa",
	.resolve = numa_resolve,
	.list = numa_list,
	.read = pt_file_read,
	.validate = pt_file_validate,
	.write = pt_file_write,
	.describe = numa_describe,
};

/* ---- proc.<pid>.numa_nodes ---- */

static int proc_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
			void *ud)
{
	struct pt_tunable t;
	char *end, p[64];
	long pid;

	if (kp->n != 3 || strcmp(kp->c[2].s, "numa_nodes"))
		return pt_err(ctx, -EINVAL, "%s: expected proc.<pid>.numa_nodes", kp->text);
	pid = strtol(kp->c[1].s, &end, 10);
	if (*end || pid <= 0 || pid > 4194304 || kp->c[1].s[0] == '0')
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a process id", kp->text, kp->c[1].s);
	snprintf(p, sizeof(p), "proc/%ld/status", pid);
	if (!pt_attr_exists(ctx, p))
		return pt_err(ctx, -ESRCH, "%s: no process %ld", kp->text, pid);
	pt_tunable_init(&t, &pt_proc_family, p, "proc.%ld.numa_nodes", pid);
	t.id = (int)pid;
	return emit(ctx, &t, ud);
}

static int proc_list(struct perftune_ctx *ctx _unused_, pt_emit_fn emit _unused_, void *ud _unused_)
{
	return 0; /* one per process: named by pid, never enumerated */
}

/* the nodes that hold at least one CPU the process may run on */
static int proc_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	struct bitmask *cpus, *ncpus;
	unsigned char nodes[128] = { 0 };
	int r = 0;

	if (numa_available() < 0)
		return pt_err(ctx, -EOPNOTSUPP, "%s: NUMA is not available", t->key);
	cpus = numa_allocate_cpumask();
	ncpus = numa_allocate_cpumask();
	if (!cpus || !ncpus) {
		r = -ENOMEM;
		goto out;
	}
	if (numa_sched_getaffinity(t->id, cpus) < 0) {
		r = pt_err(ctx, -errno, "%s: process %d: %s", t->key, t->id, strerror(errno));
		goto out;
	}
	for (int n = 0; n <= numa_max_node() && n < 1024; n++) {
		if (numa_node_to_cpus(n, ncpus) < 0)
			continue;
		for (unsigned c = 0; c < cpus->size; c++)
			if (numa_bitmask_isbitset(cpus, c) && numa_bitmask_isbitset(ncpus, c)) {
				nodes[n / 8] |= (unsigned char)(1u << (n % 8));
				break;
			}
	}
	pt_format_cpulist(nodes, 1024, buf, size);
out:
	numa_free_cpumask(cpus);
	numa_free_cpumask(ncpus);
	return r;
}

static int proc_validate(struct perftune_ctx *ctx, const struct pt_tunable *t,
			 const char *in _unused_, char *out _unused_, size_t size _unused_)
{
	return pt_err(ctx, -EOPNOTSUPP,
		      "%s: moving a running process between nodes is not implemented yet; use "
		      "perftune exec --nodes for new processes",
		      t->key);
}

static int proc_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			 struct perftune_desc *d)
{
	char v[256];
	int r = proc_read(ctx, t, v, sizeof(v));

	if (r < 0)
		return r;
	pt_desc_set_value(d, v);
	pt_desc_set_writable(d, false, "placement of running processes is not implemented yet");
	node_facts(ctx, d);
	return 0;
}

const struct pt_family pt_proc_family = {
	.name = "proc",
	.resolve = proc_resolve,
	.list = proc_list,
	.read = proc_read,
	.validate = proc_validate,
	.write = pt_file_write,
	.describe = proc_describe,
};
