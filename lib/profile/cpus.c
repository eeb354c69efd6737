// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The CPUs of this machine, for the profile functions and the [cpu] plugin:
 * the online ones, and TuneD's calc_isolated_cores (lists: shared/cpulist.c).
 */
#include <stdio.h>
#include <string.h>
#include "profile-internal.h"

int pt_cpus_online(struct perftune_ctx *ctx, unsigned char *m)
{
	char buf[4096];
	int r = pt_attr_read_raw(ctx, "sys/devices/system/cpu/online", buf, sizeof(buf));

	if (r < 0)
		return r;
	pt_trim(buf);
	return pt_cpus_parse(buf, m);
}

/* calc_isolated_cores:N - every CPU but the first N of each package */
char *pt_cpus_isolated(struct perftune_ctx *ctx, int reserve)
{
	unsigned char m[PT_CPUS_BYTES] = { 0 }, online[PT_CPUS_BYTES];
	int seen[1024] = { 0 };

	if (pt_cpus_online(ctx, online) < 0)
		return strdup("");
	for (int i = 0; i < PT_CPUS_MAX; i++) {
		char p[96], pkg[32];
		long id;
		if (!pt_cpus_has(online, i))
			continue;
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			 i);
		id = pt_attr_read(ctx, p, pkg, sizeof(pkg)) < 0 ? 0 : strtol(pkg, NULL, 10);
		if (id < 0 || id >= 1024)
			id = 0;
		if (seen[id]++ >= reserve)
			pt_cpus_set(m, i, true);
	}
	return pt_cpus_list(m, "", false);
}
