// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel command line (/proc/cmdline below the root): the boot
 * parameters that set a key before anything else runs.  Which parameter
 * claims which key is this table (kernel-parameters.txt), plus
 * sysctl.<name>= (any sysctl, kernel 5.8 and later) and what the family's
 * export names give (numa_balancing=, transparent_hugepage=, hugepages=).
 * The line is read and split into words once per call (pt_cmdline_new()),
 * then each key looks the words up.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"
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

/* sized to the line: the words of a short command line in a few hundred bytes */
struct pt_cmdline {
	char *line; /* after word[]: at most PT_VAL - 1 bytes, as read */
	size_t n;
	char *word[]; /* into line: at most one word per two bytes */
};

int pt_cmdline_parse(const char *text, struct pt_cmdline **out)
{
	size_t len = strnlen(text, PT_VAL - 1), max = len / 2 + 1;
	struct pt_cmdline *c = malloc(sizeof(*c) + max * sizeof(c->word[0]) + len + 1);
	char *p;

	*out = c;
	if (!c)
		return -ENOMEM;
	c->n = 0;
	c->line = (char *)&c->word[max];
	memcpy(c->line, text, len);
	c->line[len] = '\0';
	p = c->line;
	while (*p) {
		bool quote = false;
		char *word;
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
		c->word[c->n++] = word;
	}
	return 0;
}

int pt_cmdline_new(struct perftune_ctx *ctx, struct pt_cmdline **out)
{
	char line[PT_VAL];

	if (pt_attr_read_raw(ctx, "proc/cmdline", line, sizeof(line)) < 0)
		line[0] = '\0'; /* no /proc/cmdline below this root: nothing to say */
	pt_err_clear(ctx);
	return pt_cmdline_parse(line, out);
}

void pt_cmdline_free(struct pt_cmdline *c)
{
	free(c);
}

/* the parameters that claim @t: its sysctl.<name>, the table's */
static size_t params_of(const struct pt_tunable *t, const struct pt_xnames *x, char *sysctl,
			size_t size, const char **params)
{
	size_t n = 0;

	if (x->sysctl[0]) {
		snprintf(sysctl, size, "sysctl.%s", x->sysctl);
		for (char *c = sysctl; *c; c++)
			if (*c == '/')
				*c = '.';
		params[n++] = sysctl;
	}
	for (size_t i = 0; i < ARRAY_SIZE(boot_params); i++) {
		if (fnmatch(boot_params[i].keys, t->key, 0))
			continue;
		for (size_t k = 0;
		     k < ARRAY_SIZE(boot_params[i].params) && boot_params[i].params[k]; k++)
			params[n++] = boot_params[i].params[k];
	}
	return n;
}

int pt_cmdline_why(struct pt_cmdline *c, const struct pt_tunable *t, const struct pt_xnames *x,
		   struct pt_srcs *v, struct pt_why_work *work)
{
	const char *params[1 + 5 * ARRAY_SIZE(boot_params)];
	char sysctl[PERFTUNE_KEY_MAX + 8];
	size_t np = params_of(t, x, sysctl, sizeof(sysctl), params);

	for (size_t i = 0; i < c->n && np; i++) {
		const char *word = c->word[i];
		size_t len = strcspn(word, "=");
		struct pt_src *s;
		bool claimed = false;
		for (size_t k = 0; k < np && !claimed; k++)
			claimed = strlen(params[k]) == len && !strncmp(word, params[k], len);
		work->steps++;
		if (!claimed)
			continue;
		s = pt_src_add(v, PT_SRC_CMDLINE, t, "/proc/cmdline", word, "kernel boot parameter");
		if (!s)
			return -ENOMEM;
		s->flags |= PERFTUNE_SOURCE_PERSISTENT;
	}
	return 0;
}
