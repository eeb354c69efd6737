// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel command line (/proc/cmdline below the root): the boot
 * parameters that set a key before anything else runs.  Which parameter
 * claims which key is this table (kernel-parameters.txt), plus
 * sysctl.<name>= (any sysctl, kernel 5.8 and later) and what the family's
 * export names give (numa_balancing=, transparent_hugepage=, hugepages=).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "why-internal.h"

static const struct {
	const char *keys; /* fnmatch() pattern over keys */
	const char *params[5];
} boot_params[] = {
	{ "thp.*", { "transparent_hugepage" } },
	{ "hugepages.*", { "hugepages", "hugepagesz", "default_hugepagesz", "hugetlb_cma" } },
	{ "block.*.scheduler", { "elevator", "scsi_mod.use_blk_mq" } },
	{ "cpu.*.idle.*",
	  { "processor.max_cstate", "intel_idle.max_cstate", "idle", "cpuidle.off" } },
	{ "cpu.*.governor", { "cpufreq.default_governor", "intel_pstate", "amd_pstate" } },
	{ "cpu.*.epp", { "intel_pstate", "amd_pstate" } },
	{ "cpu.*.m??_khz", { "intel_pstate", "amd_pstate" } },
	{ "cpu.boost", { "intel_pstate", "amd_pstate" } },
	{ "cpu.*.resume_latency_us", { "isolcpus", "nohz_full" } },
	{ "proc.*.numa_nodes", { "isolcpus", "numa" } },
	{ "numa.balancing", { "numa_balancing" } },
	{ "selinux.*", { "selinux", "enforcing" } },
};

static bool claims(const char *param, size_t len, const struct pt_tunable *t,
		   const struct pt_xnames *x)
{
	char sysctl[PERFTUNE_KEY_MAX + 8];

	if (x->sysctl[0]) {
		snprintf(sysctl, sizeof(sysctl), "sysctl.%s", x->sysctl);
		for (char *c = sysctl; *c; c++)
			if (*c == '/')
				*c = '.';
		if (strlen(sysctl) == len && !strncmp(param, sysctl, len))
			return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(boot_params); i++) {
		if (fnmatch(boot_params[i].keys, t->key, 0))
			continue;
		for (size_t k = 0;
		     k < ARRAY_SIZE(boot_params[i].params) && boot_params[i].params[k]; k++)
			if (strlen(boot_params[i].params[k]) == len &&
			    !strncmp(param, boot_params[i].params[k], len))
				return true;
	}
	return false;
}

int pt_why_cmdline(struct perftune_ctx *ctx, const struct pt_tunable *t, const struct pt_xnames *x,
		   struct pt_srcs *v)
{
	char line[PT_VAL];
	char *p = line;

	if (pt_attr_read_raw(ctx, "proc/cmdline", line, sizeof(line)) < 0)
		return 0; /* no /proc/cmdline below this root: nothing to say */
	while (*p) {
		char *word, *eq;
		bool quote = false;
		struct pt_src *s;
		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		word = p;
		for (; *p && (quote || !strchr(" \t\n", *p)); p++)
			if (*p == '"')
				quote = !quote;
		if (*p)
			*p++ = '\0';
		if (!*word)
			break;
		eq = strchr(word, '=');
		if (!claims(word, eq ? (size_t)(eq - word) : strlen(word), t, x))
			continue;
		if (!(s = pt_src_add(v, PT_SRC_CMDLINE, t)))
			return -ENOMEM;
		snprintf(s->where, sizeof(s->where), "/proc/cmdline");
		snprintf(s->value, sizeof(s->value), "%s", word);
		snprintf(s->note, sizeof(s->note), "kernel boot parameter");
		s->flags |= PERFTUNE_SOURCE_PERSISTENT;
	}
	return 0;
}
