// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Export as a TuneD profile: a section per plugin, a disk section per disk
 * (elevator, readahead), sysctl names in [sysctl], and the file of any other
 * key below /sys in [sysfs].
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/buf.h"
#include "shared/keyname.h"
#include "core/log.h"
#include "xlist.h"

/* perftune keys with a TuneD plugin option of their own */
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

/* a disk section's option for @e ("elevator", "readahead"), or NULL */
static const char *disk_option(const struct xent *e)
{
	if (!strcmp(e->nm.attr, "queue/scheduler"))
		return "elevator";
	if (!strcmp(e->nm.attr, "queue/read_ahead_kb"))
		return "readahead";
	return NULL;
}

/* @e's line in TuneD section @section, if it has its place there */
static bool tuned_line(const struct xent *e, const char *section, struct pt_buf *b)
{
	for (size_t i = 0; i < ARRAY_SIZE(tuned_opts); i++)
		if (!strcmp(e->key, tuned_opts[i].key)) {
			if (strcmp(section, tuned_opts[i].section))
				return false;
			pt_buf_printf(b, "%s=%s\n", tuned_opts[i].option, e->value);
			return true;
		}
	if (!strcmp(section, "sysctl") && e->nm.sysctl[0] && !strchr(e->nm.sysctl, '=')) {
		pt_buf_printf(b, "%s=%s\n", e->nm.sysctl, e->value);
		return true;
	}
	if (disk_option(e))
		return false; /* in a disk section */
	if (!strcmp(section, "sysfs") && e->path && !strncmp(e->path, "sys/", 4) &&
	    (!e->nm.file_differs || e->nm.file_value[0])) { /* a CPU list as its file's hex mask */
		pt_buf_printf(b, "/%s=%s\n", e->path,
			      e->nm.file_differs ? e->nm.file_value : e->value);
		return true;
	}
	return false;
}

/* the disk options of the device of key @first on: number of keys */
static int disk_body(const struct xlist *l, size_t first, bool *done, struct pt_buf *b)
{
	const char *dev = l->e[first].nm.dev;
	int n = 0;

	for (size_t k = first; k < l->n; k++) {
		if (done[k] || !disk_option(&l->e[k]) || strcmp(l->e[k].nm.dev, dev))
			continue;
		pt_buf_printf(b, "%s=%s\n", disk_option(&l->e[k]), l->e[k].value);
		done[k] = true;
		n++;
	}
	return n;
}

/* a network device's ethtool setting: "<section>.<param>" at the end of its key, or NULL */
static const char *net_option(const struct xent *e)
{
	const char *p = strrchr(e->key, '.');

	if (strcmp(e->nm.subsys, "net") || !e->nm.noattr[0] || !p)
		return NULL;
	while (p > e->key && p[-1] != '.')
		p--;
	return p;
}

/* @e's "<param> <value>" pair of TuneD's [net] option @opt, ethtool's names ('-', not '_') */
static bool net_pair(const struct xent *e, const char *dev, const char *opt, struct pt_buf *b)
{
	const char *o = net_option(e);
	size_t n = strlen(opt);

	if (!o || strcmp(e->nm.dev, dev) || strncmp(o, opt, n) || o[n] != '.')
		return false;
	pt_buf_puts(b, " ");
	for (const char *c = o + n + 1; *c; c++)
		pt_buf_add(b, *c == '_' ? "-" : c, 1);
	pt_buf_printf(b, " %s", e->value);
	return true;
}

/* the net options of the device of key @first on, an option per ethtool section with all
 * its pairs: number of keys */
static int net_body(const struct xlist *l, size_t first, bool *done, struct pt_buf *b)
{
	static const char *const opts[] = { "channels", "ring", "coalesce", "pause", "features" };
	const char *dev = l->e[first].nm.dev;
	int n = 0;

	for (size_t o = 0; o < ARRAY_SIZE(opts); o++) {
		struct pt_buf line = { 0 };
		for (size_t k = first; k < l->n; k++)
			if (!done[k] && net_pair(&l->e[k], dev, opts[o], &line)) {
				done[k] = true;
				n++;
			}
		if (line.s)
			pt_buf_printf(b, "%s=%s\n", opts[o], line.s + 1);
		free(line.s);
	}
	return n;
}

static bool disk_key(const struct xent *e)
{
	return disk_option(e) != NULL;
}

static bool net_key(const struct xent *e)
{
	return net_option(e) != NULL;
}

/* a @type section per device, from its first key on (@mine), filled by @body; number of keys */
static int dev_sections(const struct xlist *l, bool *done, struct pt_buf *b, const char *type,
			bool (*mine)(const struct xent *e),
			int (*body)(const struct xlist *l, size_t first, bool *done,
				    struct pt_buf *b))
{
	int n = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *dev = l->e[i].nm.dev;
		char rule[256];
		if (done[i] || !mine(&l->e[i]))
			continue;
		/* TuneD splits devices= at blanks and ',', takes '!' first as "not" and the rest
		 * as fnmatch patterns: the name in brackets where it has "*?[", else no section */
		if (strpbrk(dev, " \t\n,") || dev[0] == '!' ||
		    pt_glob_literal(dev, rule, sizeof(rule)) < 0) {
			for (size_t k = i; k < l->n; k++)
				if (!done[k] && mine(&l->e[k]) && !strcmp(l->e[k].nm.dev, dev)) {
					pt_buf_printf(b,
						      "# not written: %s = %s: the device name cannot "
						      "be a TuneD devices= rule\n",
						      l->e[k].key, l->e[k].value);
					done[k] = true;
				}
			continue;
		}
		/* a section name of the device's own where it is plain, else of its place */
		if (pt_key_plain(dev))
			pt_buf_printf(b, "\n[%s_%s]\n", type, dev);
		else
			pt_buf_printf(b, "\n[%s_%zu]\n", type, i);
		pt_buf_printf(b, "type=%s\ndevices=%s\n", type, rule);
		n += body(l, i, done, b);
	}
	return n;
}

int pt_export_tuned(struct perftune_ctx *ctx, const struct xlist *l, struct pt_buf *b)
{
	static const char *const sections[] = { "sysctl", "vm", "selinux", "cpu", "sysfs" };
	bool *done = calloc(l->n + 1, sizeof(*done));
	int n = 0;

	if (!done)
		return -ENOMEM;
	pt_export_header(b, l,
			 "Install as /etc/tuned/<name>/tuned.conf; perftune apply reads it too.");
	pt_buf_printf(b, "[main]\nsummary=%s\n", l->summary ? l->summary : l->title);
	for (size_t s = 0; s < ARRAY_SIZE(sections); s++) {
		bool open = false;
		for (size_t i = 0; i < l->n; i++) {
			struct pt_buf line = { 0 };
			if (done[i] || !tuned_line(&l->e[i], sections[s], &line)) {
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
	n += dev_sections(l, done, b, "disk", disk_key, disk_body);
	n += dev_sections(l, done, b, "net", net_key, net_body);
	for (size_t i = 0; i < l->n; i++)
		if (!done[i]) {
			pt_buf_printf(b, "# no TuneD option: %s = %s\n", l->e[i].key, l->e[i].value);
			pt_log(ctx, PERFTUNE_LOG_INFO, "tuned export: %s has no TuneD option",
			       l->e[i].key);
		}
	pt_export_skipped(b, l);
	free(done);
	return n;
}
