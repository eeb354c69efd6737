// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The CPUs of this machine, for the profile functions and the [cpu] plugin:
 * TuneD's calc_isolated_cores (lists: shared/cpulist.c; the online CPUs: family/cpumask.c).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/cpulist.h"
#include "shared/util.h"
#include "io/attr.h"
#include "profile-internal.h"

struct cpu_pkg {
	long cpu;
	char pkg[32];
};

static int by_pkg_cpu(const void *a, const void *b)
{
	const struct cpu_pkg *x = a, *y = b;
	int c = strcmp(x->pkg, y->pkg);

	if (c)
		return c;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* "cpuN" with N all digits and below PT_CPUS_MAX; -1 if not */
static long cpu_number(const char *name)
{
	long n = 0;

	if (strncmp(name, "cpu", 3) || !name[3] ||
	    strspn(name + 3, "0123456789") != strlen(name + 3))
		return -1;
	for (const char *c = name + 3; *c && n < PT_CPUS_MAX; c++)
		n = n * 10 + (*c - '0');
	if (n < PT_CPUS_MAX)
		return n;
	return -1;
}

/*
 * calc_isolated_cores as TuneD computes it: every cpuN directory whose
 * topology/physical_package_id reads as a number (online or not), grouped by
 * that text, and all but the first @reserve of each group, by number.
 */
char *pt_cpus_isolated(struct perftune_ctx *ctx, long reserve)
{
	const char *dir = "sys/devices/system/cpu";
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, dir);
	_cleanup_free_ struct cpu_pkg *v = NULL;
	unsigned char m[PT_CPUS_BYTES] = { 0 };
	size_t n = 0, cap = 0, rank = 0;
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char p[96], pkg[32];
		long c = cpu_number(de->d_name);
		if (c < 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s/topology/physical_package_id", dir, de->d_name);
		if (pt_attr_read(ctx, p, pkg, sizeof(pkg)) < 0)
			continue;
		pt_trim(pkg);
		if (!pkg[0] || strspn(pkg, "0123456789") != strlen(pkg))
			continue;
		if (pt_grow(&v, &cap, n + 1, 64) < 0)
			return NULL;
		v[n].cpu = c;
		snprintf(v[n].pkg, sizeof(v[n].pkg), "%s", pkg);
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_pkg_cpu);
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(v[i].pkg, v[i - 1].pkg))
			rank++;
		else
			rank = 0;
		if ((long)rank >= reserve)
			pt_cpus_set(m, v[i].cpu, true);
	}
	return pt_cpus_list(m, "", false);
}
