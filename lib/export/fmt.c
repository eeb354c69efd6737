// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Export formats that group keys: udev rules (one rule per disk or per
 * pattern, the scheduler before the attributes its switch resets) and a TuneD
 * profile (a section per plugin, a disk section per disk, sysfs for the rest).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "export.h"

/* block.sda.scheduler -> dev "sda", attr "queue/scheduler", order 0 */
bool pt_block_attr(const char *key, char *dev, size_t dsize, char *attr, size_t asize,
		       int *order)
{
	const char *d = key + 6, *dot;

	if (!pt_prefix(key, "block.") || *d == '[' || !(dot = strchr(d, '.')))
		return false;
	snprintf(dev, dsize, "%.*s", (int)(dot - d), d);
	if (pt_prefix(dot + 1, "iosched.")) {
		snprintf(attr, asize, "queue/iosched/%s", dot + 9);
		*order = 2;
	} else {
		snprintf(attr, asize, "queue/%s", dot + 1);
		*order = strcmp(dot + 1, "scheduler") ? 1 : 0;
	}
	return !strchr(dot + 1, '[');
}

int pt_fmt_udev(struct perftune_ctx *ctx, const struct xlist *l, struct pt_buf *b)
{
	char **match = calloc(l->n + 1, sizeof(*match));
	size_t nm = 0;
	int n = 0;

	if (!match)
		return -ENOMEM;
	pt_export_header(b, l, "Install as /etc/udev/rules.d/60-perftune.rules; applied on add/change events.");
	for (size_t i = 0; i < l->n; i++) { /* one rule per device or pattern, in order */
		char dev[128], attr[PERFTUNE_KEY_MAX], m[1024];
		int order;
		bool seen = false;
		if (!pt_block_attr(l->e[i].key, dev, sizeof(dev), attr, sizeof(attr), &order))
			continue;
		if (l->e[i].hint)
			snprintf(m, sizeof(m), "ENV{DEVTYPE}==\"disk\", %s", l->e[i].hint);
		else
			snprintf(m, sizeof(m), "KERNEL==\"%s\"", dev);
		for (size_t k = 0; k < nm && !seen; k++)
			seen = !strcmp(match[k], m);
		if (!seen && !(match[nm++] = strdup(m)))
			break;
	}
	for (size_t k = 0; k < nm && match[k]; k++) {
		struct pt_buf attrs = { 0 }; /* "\nattr\n..." set in this rule: a pattern rule
						 stands for several disks with the same value */
		pt_buf_printf(b, "ACTION==\"add|change\", SUBSYSTEM==\"block\", %s", match[k]);
		for (int order = 0; order < 3; order++)
			for (size_t i = 0; i < l->n; i++) {
				char dev[128], attr[PERFTUNE_KEY_MAX], m[1024];
				int o;
				if (!pt_block_attr(l->e[i].key, dev, sizeof(dev), attr, sizeof(attr), &o) ||
				    o != order)
					continue;
				if (l->e[i].hint)
					snprintf(m, sizeof(m), "ENV{DEVTYPE}==\"disk\", %s", l->e[i].hint);
				else
					snprintf(m, sizeof(m), "KERNEL==\"%s\"", dev);
				if (strcmp(m, match[k]))
					continue;
				n++;
				snprintf(m, sizeof(m), "\n%s\n", attr);
				if (attrs.s && strstr(attrs.s, m))
					continue;
				pt_buf_puts(&attrs, m);
				pt_buf_printf(b, ", ATTR{%s}=\"%s\"", attr, l->e[i].value);
			}
		pt_buf_puts(b, "\n");
		free(attrs.s);
	}
	for (size_t i = 0; i < l->n; i++) {
		char dev[128], attr[PERFTUNE_KEY_MAX];
		int o;
		if (pt_block_attr(l->e[i].key, dev, sizeof(dev), attr, sizeof(attr), &o))
			continue;
		pt_buf_printf(b, "# not a block queue attribute: %s = %s\n", l->e[i].key,
			      l->e[i].value);
		pt_log(ctx, PERFTUNE_LOG_INFO, "udev export: %s is not a block queue attribute",
		       l->e[i].key);
	}
	for (size_t k = 0; k < nm; k++)
		free(match[k]);
	free(match);
	return n;
}

static const struct {
	const char *key, *section, *option;
} tuned_opts[] = {
	{ "thp.enabled", "vm", "transparent_hugepages" },
	{ "thp.defrag", "vm", "transparent_hugepage.defrag" },
	{ "selinux.avc.cache_threshold", "selinux", "avc_cache_threshold" },
	{ "cpu.all.governor", "cpu", "governor" },
	{ "cpu.all.epp", "cpu", "energy_performance_preference" },
	{ "cpu.all.resume_latency_us", "cpu", "pm_qos_resume_latency_us" },
	{ "cpu.all.idle.max_latency_us", "cpu", "force_latency" },
	{ "pmqos.cpu_dma_latency_us", "cpu", "force_latency" },
	{ "hugepages.nr", "sysctl", "vm.nr_hugepages" },
	{ "numa.balancing", "sysctl", "kernel.numa_balancing" },
};

/* one line of a TuneD section: "option=value", or NULL if @key has no place in it */
static bool tuned_line(struct perftune_ctx *ctx, const struct xent *e, const char *section,
		       struct pt_buf *b)
{
	char name[PERFTUNE_KEY_MAX], dev[128], attr[PERFTUNE_KEY_MAX];
	int order;

	for (size_t i = 0; i < ARRAY_SIZE(tuned_opts); i++)
		if (!strcmp(e->key, tuned_opts[i].key)) {
			if (strcmp(section, tuned_opts[i].section))
				return false;
			pt_buf_printf(b, "%s=%s\n", tuned_opts[i].option, e->value);
			return true;
		}
	if (!strcmp(section, "sysctl") && pt_sysctl_name(e->key, name, sizeof(name))) {
		pt_buf_printf(b, "%s=%s\n", name, e->value);
		return true;
	}
	if (pt_block_attr(e->key, dev, sizeof(dev), attr, sizeof(attr), &order) &&
	    (!strcmp(attr, "queue/scheduler") || !strcmp(attr, "queue/read_ahead_kb")))
		return false; /* in a disk section */
	if (!strcmp(section, "sysfs")) {
		struct perftune_desc *d;
		const char *path;
		if (pt_prefix(e->key, "sysfs[")) {
			pt_buf_printf(b, "%.*s=%s\n", (int)strlen(e->key) - 7, e->key + 6, e->value);
			return true;
		}
		if (perftune_describe(ctx, e->key, &d) < 0)
			return false;
		path = perftune_desc_path(d);
		bool sys = path && pt_prefix(path, "/sys/");
		if (sys)
			pt_buf_printf(b, "%s=%s\n", path, e->value);
		perftune_desc_free(d);
		return sys;
	}
	return false;
}

int pt_fmt_tuned(struct perftune_ctx *ctx, const struct xlist *l, struct pt_buf *b)
{
	static const char *const sections[] = { "sysctl", "vm", "selinux", "cpu", "sysfs" };
	bool *done = calloc(l->n + 1, sizeof(*done));
	int n = 0;

	if (!done)
		return -ENOMEM;
	pt_export_header(b, l, "Install as /etc/tuned/<name>/tuned.conf; perftune apply reads it too.");
	pt_buf_printf(b, "[main]\nsummary=%s\n", l->summary ? l->summary : l->title);
	for (size_t s = 0; s < ARRAY_SIZE(sections); s++) {
		bool open = false;
		for (size_t i = 0; i < l->n; i++) {
			struct pt_buf line = { 0 };
			if (done[i] || !tuned_line(ctx, &l->e[i], sections[s], &line)) {
				free(line.s);
				continue;
			}
			if (!open)
				pt_buf_printf(b, "\n[%s]\n", sections[s]);
			open = done[i] = true;
			pt_buf_puts(b, line.s);
			free(line.s);
			n++;
		}
	}
	for (size_t i = 0; i < l->n; i++) { /* one disk section per device */
		char dev[128], attr[PERFTUNE_KEY_MAX];
		int order;
		if (done[i] || !pt_block_attr(l->e[i].key, dev, sizeof(dev), attr, sizeof(attr), &order))
			continue;
		pt_buf_printf(b, "\n[disk_%s]\ntype=disk\ndevices=%s\n", dev, dev);
		for (size_t k = i; k < l->n; k++) {
			char d2[128], a2[PERFTUNE_KEY_MAX];
			if (done[k] || !pt_block_attr(l->e[k].key, d2, sizeof(d2), a2, sizeof(a2), &order) ||
			    strcmp(d2, dev))
				continue;
			pt_buf_printf(b, "%s=%s\n", !strcmp(a2, "queue/scheduler") ? "elevator" : "readahead",
				      l->e[k].value);
			done[k] = true;
			n++;
		}
	}
	for (size_t i = 0; i < l->n; i++)
		if (!done[i]) {
			pt_buf_printf(b, "# no TuneD option: %s = %s\n", l->e[i].key, l->e[i].value);
			pt_log(ctx, PERFTUNE_LOG_INFO, "tuned export: %s has no TuneD option",
			       l->e[i].key);
		}
	free(done);
	return n;
}
