// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The daemons that set keys again while they run, found by their names in
 * /proc/<pid>/comm below the root: tuned (and tuned-ppd) applies its profile
 * when it starts and re-applies sysctl.d after it; irqbalance moves the
 * IRQs it balances; power-profiles-daemon writes the CPU's energy
 * preference and boost whenever the power profile changes.  /proc is read
 * once per call, and only when a key may be set by one of them.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "why-internal.h"

struct daemon {
	char comm[16];
	int pid;
};

struct pt_daemons {
	struct perftune_ctx *ctx;
	struct daemon *d;
	size_t n, cap;
	bool read;
};

int pt_daemons_new(struct perftune_ctx *ctx, struct pt_daemons **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->ctx = ctx;
	return 0;
}

void pt_daemons_free(struct pt_daemons *ds)
{
	if (ds)
		free(ds->d);
	free(ds);
}

/* keys power-profiles-daemon writes (its intel_pstate/amd_pstate and platform drivers) */
static const char *const ppd_keys[] = { "cpu.*.epp", "cpu.boost", "cpu.*.governor" };

static int add_daemon(const struct pt_tunable *t, const char *comm, int pid, const char *what,
		      struct pt_srcs *v)
{
	char where[64];
	struct pt_src *s;

	snprintf(where, sizeof(where), "%s (pid %d)", comm, pid);
	s = pt_src_add(v, PT_SRC_DAEMON, t, where, NULL, "%s", what);
	if (!s)
		return -ENOMEM;
	s->flags |= PERFTUNE_SOURCE_PERSISTENT;
	s->pid = pid;
	return 0;
}

static bool tuned_comm(const char *comm)
{
	return !strcmp(comm, "tuned") || !strcmp(comm, "tuned-ppd");
}

static bool ppd_comm(const char *comm)
{
	return !strcmp(comm, "power-profiles-") || !strcmp(comm, "power-profiles-daemon");
}

/* irqbalance writes the smp_affinity of the IRQs it balances, not the default mask */
static bool irqbalance_key(const struct pt_tunable *t)
{
	return !fnmatch("irq.*.cpus", t->key, 0) && strcmp(t->key, "irq.default.cpus");
}

static bool ppd_key(const struct pt_tunable *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(ppd_keys); i++)
		if (!fnmatch(ppd_keys[i], t->key, 0))
			return true;
	return false;
}

static int daemon_claims(const struct pt_tunable *t, const char *comm, int pid, bool tuned,
			 bool sysctl_d, struct pt_srcs *v)
{
	if (tuned_comm(comm) && tuned)
		return add_daemon(t, comm, pid, "running: applies the active profile again", v);
	if (tuned_comm(comm) && sysctl_d)
		return add_daemon(t, comm, pid,
				  "running: re-applies sysctl.d after its profile "
				  "(reapply_sysctl)",
				  v);
	if (!strcmp(comm, "irqbalance") && irqbalance_key(t))
		return add_daemon(t, comm, pid,
				  "running: moves IRQs by its own configuration, onto "
				  "every CPU not in IRQBALANCE_BANNED_CPUS",
				  v);
	if (ppd_comm(comm) && ppd_key(t)) /* comm is cut at 15 characters */
		return add_daemon(t, "power-profiles-daemon", pid,
				  "running: writes it when the power profile changes", v);
	return 0;
}

/* the daemons of interest running, from /proc below the root: once */
static int read_daemons(struct pt_daemons *ds)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ds->ctx, "proc");
	struct dirent *e;

	ds->read = true;
	while (d && (e = readdir(d))) {
		char path[64], comm[64];
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "proc/%.20s/comm", e->d_name);
		if (pt_attr_read_raw(ds->ctx, path, comm, sizeof(comm)) < 0)
			continue; /* gone meanwhile */
		pt_trim(comm);
		if (!tuned_comm(comm) && !ppd_comm(comm) && strcmp(comm, "irqbalance"))
			continue;
		if (pt_grow(&ds->d, &ds->cap, ds->n + 1, 4) < 0)
			return -ENOMEM;
		snprintf(ds->d[ds->n].comm, sizeof(ds->d[ds->n].comm), "%s", comm);
		ds->d[ds->n++].pid = atoi(e->d_name);
	}
	pt_err_clear(ds->ctx);
	return 0;
}

int pt_daemons_why(struct pt_daemons *ds, const struct pt_tunable *t, bool tuned, bool sysctl_d,
		   struct pt_srcs *v, struct pt_why_work *work)
{
	int r = 0;

	if (!tuned && !sysctl_d && !irqbalance_key(t) && !ppd_key(t))
		return 0; /* no daemon sets it: /proc is not read */
	if (!ds->read)
		r = read_daemons(ds);
	for (size_t i = 0; i < ds->n && r >= 0; i++) {
		work->steps++;
		r = daemon_claims(t, ds->d[i].comm, ds->d[i].pid, tuned, sysctl_d, v);
	}
	return r;
}
