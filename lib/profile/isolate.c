// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CPU isolation, the IRQ side: [scheduler] isolated_cores moves every movable
 * IRQ, the default IRQ mask and the unbound workqueues off the isolated
 * cores; TuneD's [irq] plugin sets IRQ affinities per IRQ ("irq<n>" devices,
 * "DEFAULT"); [irqbalance] banned_cpus is irqbalance's configuration, not a
 * kernel tunable, and a running irqbalance would move IRQs back.  The thread
 * side of isolated_cores (ps_blacklist, ps_whitelist) is threads.c's, called
 * from here; group.* is not mapped; the boot-time part of cpu-partitioning
 * ([bootloader]) goes to export --format cmdline.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/cpulist.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/log.h"
#include "family/cpumask.h"
#include "profile-internal.h"

bool pt_isolate_option(const char *name)
{
	return !strcmp(name, "isolated_cores") || !strcmp(name, "default_irq_smp_affinity") ||
	       !strcmp(name, "irq_process");
}

/* option @name of @u expanded (malloc'd), @dflt if absent; NULL with a skip of it if it cannot be */
static char *opt_value(struct perftune_profile *p, struct pt_punit *u, const char *name,
		       const char *dflt, struct pt_popt **o)
{
	_cleanup_free_ char *why = NULL;
	char *v = NULL;

	*o = pt_popt_find(u->opt, u->n, name);
	if (!*o)
		return strdup(dflt);
	if (pt_vars_expand(p, (*o)->value, *o, &v, &why) < 0 || why) {
		if (why)
			pt_pitem_skip(p, u, *o, "%s", why);
		free(v);
		return NULL;
	}
	return v;
}

/* the online CPUs but those of @isolated, as a packed list; NULL with a skip saying why */
static char *kept_cpus(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		       const char *isolated)
{
	unsigned char iso[PT_CPUS_BYTES], on[PT_CPUS_BYTES], keep[PT_CPUS_BYTES],
		off[PT_CPUS_BYTES];
	_cleanup_free_ char *online = NULL;
	char why[160] = "";
	bool any = false;
	int bad;

	if (pt_cpus_parse(isolated, iso, why, sizeof(why)) < 0) {
		pt_pitem_skip(p, u, o, "isolated_cores=%s: %s", isolated, why);
		return NULL;
	}
	if (pt_cpus_online(p->ctx, on) < 0) {
		pt_pitem_skip(p, u, o,
			      "cannot read the online CPUs (/sys/devices/system/cpu/online)");
		return NULL;
	}
	online = pt_cpus_list(on, "", true);
	for (size_t b = 0; b < PT_CPUS_BYTES; b++) { /* a byte at a time: 8192 bits */
		off[b] = iso[b] & (unsigned char)~on[b];
		keep[b] = on[b] & (unsigned char)~iso[b];
		any |= keep[b] != 0;
	}
	bad = pt_cpus_next(off, PT_CPUS_MAX, 0);
	if (bad < PT_CPUS_MAX) { /* TuneD: an error, no change */
		pt_pitem_skip(p, u, o, "isolated_cores=%s: CPU %d is not online (%s)", isolated,
			      bad, online ? online : "?");
		return NULL;
	}
	if (!any) {
		pt_pitem_skip(p, u, o, "isolated_cores=%s isolates every online CPU (%s)", isolated,
			      online ? online : "?");
		return NULL;
	}
	return pt_cpus_list(keep, "", true);
}

/* @key is staged on the profile's scratch transaction */
static bool staged(struct perftune_profile *p, const char *key)
{
	struct perftune_change_iter *ch;
	const struct perftune_change *c;
	bool found = false;

	if (perftune_tx_changes(p->check, &ch) < 0)
		return false;
	while (!found && (c = perftune_change_iter_next(ch)))
		found = !strcmp(perftune_change_key(c), key);
	perftune_change_iter_free(ch);
	return found;
}

/*
 * A key of every IRQ (irq.all.cpus), staged on the scratch transaction
 * without the notices of the IRQs it skips (the real staging gives them
 * once): those the kernel will not move are items of their own, whether
 * their files say so (6.12) or the kernel's EIO did.
 */
static int all_irqs(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		    const char *value)
{
	struct pt_ctx_head *h = pt_ctx_head(p->ctx);
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *t;
	int max = h->log_max, r;

	h->log_max = PERFTUNE_LOG_WARNING;
	r = pt_pmap_key(p, u, o, "irq.all.cpus", value, false, NULL);
	h->log_max = max;
	if (r <= 0 || perftune_list(p->ctx, "irq.", &it) < 0)
		return r;
	while ((t = perftune_tunable_iter_next(it)))
		if (strcmp(perftune_tunable_key(t), "irq.default.cpus") &&
		    !staged(p, perftune_tunable_key(t)) &&
		    !pt_pitem_add(p, u, o, perftune_tunable_key(t), value, PT_ITEM_SKIPPED,
				  "the kernel will not move this IRQ (%s): it is per-CPU or its "
				  "affinity is managed by the kernel",
				  perftune_tunable_note(t) ? perftune_tunable_note(t) : "")) {
			r = -ENOMEM;
			break;
		}
	perftune_tunable_iter_free(it);
	return r;
}

/* default_irq_smp_affinity: calc (the kept CPUs, intersected), ignore, or a CPU list */
static int default_irq(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		       const char *keep)
{
	struct pt_popt *d;
	_cleanup_free_ char *v = opt_value(p, u, "default_irq_smp_affinity", "calc", &d);
	_cleanup_free_ char *list = NULL, *value = NULL;
	unsigned char m[PT_CPUS_BYTES];
	char why[160] = "";

	if (!v || !strcmp(v, "ignore")) {
		if (v)
			return 0;
		if (d)
			return 0;
		return -ENOMEM;
	}
	if (!strcmp(v, "calc")) {
		if (asprintf(&value, "intersect:%s", keep) < 0)
			return -ENOMEM;
		return pt_pmap_key(p, u, o, "irq.default.cpus", value, false, NULL);
	}
	if (pt_cpus_parse(v, m, why, sizeof(why)) < 0 || !(list = pt_cpus_list(m, "", true))) {
		pt_pitem_skip(p, u, d, "%s", why[0] ? why : "out of memory");
		return 0;
	}
	return pt_pmap_key(p, u, d, "irq.default.cpus", list, false, NULL);
}

/*
 * TuneD's isolated_cores, the IRQ side (plugin_scheduler.py _set_all_irq_affinity): each IRQ
 * keeps its CPUs among the others, or gets all of them (intersect:); the default mask as
 * default_irq_smp_affinity says; and the unbound workqueues on the others.
 */
static int isolated_cores(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
			  const char *v)
{
	_cleanup_free_ char *keep = kept_cpus(p, u, o, v), *value = NULL, *irq = NULL;
	struct pt_popt *ip;
	int r;

	if (!keep)
		return 0;
	irq = opt_value(p, u, "irq_process", "true", &ip);
	if (irq && pt_is_true(irq)) {
		if (asprintf(&value, "intersect:%s", keep) < 0)
			return -ENOMEM;
		r = all_irqs(p, u, o, value);
		if (r >= 0)
			r = default_irq(p, u, o, keep);
		if (r < 0)
			return r;
	}
	r = pt_pmap_key(p, u, o, "workqueue.cpus", keep, false, NULL);
	if (r >= 0) /* and the threads, as ps_whitelist/ps_blacklist select them */
		r = pt_map_isolated_threads(p, u, o, keep);
	if (r < 0)
		return r;
	return 0;
}

int pt_map_isolate(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o, char *v)
{
	if (!strcmp(o->name, "isolated_cores")) {
		/* empty: TuneD's none */
		if (v[strspn(v, " \t")])
			return isolated_cores(p, u, o, v);
		return 0;
	}
	if (!pt_popt_find(u->opt, u->n, "isolated_cores"))
		pt_pitem_skip(p, u, o, "%s takes effect with isolated_cores, which this unit lacks",
			      o->name);
	return 0; /* default_irq_smp_affinity, irq_process: read by isolated_cores */
}

/* ---- [irq]: affinity= (a CPU list) and mode= (set, intersect) per IRQ ("irq<n>", "DEFAULT") ---- */

/* "irq24" -> "irq.24.cpus", "DEFAULT" -> "irq.default.cpus"; false for other names */
static bool irq_key(const char *dev, char *key, size_t size)
{
	if (!strcmp(dev, "DEFAULT"))
		return snprintf(key, size, "irq.default.cpus") > 0;
	if (strncmp(dev, "irq", 3) || !dev[3] || strspn(dev + 3, "0123456789") != strlen(dev + 3))
		return false;
	return snprintf(key, size, "irq.%s.cpus", dev + 3) > 0;
}

/* the IRQ affinity of @o (its expanded value @v) for each IRQ of @devs */
static int irq_affinity(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
			const char *v, const char *mode, const struct pt_devset *devs)
{
	unsigned char m[PT_CPUS_BYTES];
	_cleanup_free_ char *list = NULL;
	char why[160] = "", value[PT_VAL], key[64];
	int r = 0;

	if (!v[strspn(v, " \t")])
		return 0; /* empty: TuneD leaves the IRQs alone */
	if (pt_cpus_parse(v, m, why, sizeof(why)) < 0 || !(list = pt_cpus_list(m, "", true)) ||
	    !list[0]) {
		pt_pitem_skip(p, u, o, "affinity=%s: %s", v, why[0] ? why : "no CPU");
		return 0;
	}
	snprintf(value, sizeof(value), "%s%s", !strcmp(mode, "intersect") ? "intersect:" : "", list);
	for (size_t i = 0; i < devs->n && r >= 0; i++)
		if (irq_key(devs->name[i], key, sizeof(key)))
			r = pt_pmap_key(p, u, o, key, value, false, NULL);
	if (r < 0)
		return r;
	return 0;
}

int pt_map_irq(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken)
{
	struct pt_devset devs;
	struct pt_popt *mo;
	_cleanup_free_ char *rules = NULL, *mode = NULL;
	int r = pt_unit_devices(p, u, taken, &devs, &rules);

	if (r < 0)
		return r;
	mode = opt_value(p, u, "mode", "set", &mo);
	if (mode && strcmp(mode, "set") && strcmp(mode, "intersect")) {
		pt_pitem_skip(p, u, mo, "mode=%s: TuneD takes set or intersect (and uses set)",
			      mode);
		free(mode);
		mode = strdup("set");
	}
	for (size_t i = 0; i < u->n && r >= 0 && mode; i++) {
		struct pt_popt *o = &u->opt[i];
		_cleanup_free_ char *v = NULL, *why = NULL;
		if (!strcmp(o->name, "mode"))
			continue;
		if (strcmp(o->name, "affinity")) {
			pt_pitem_skip(p, u, o, "unknown option of the irq plugin");
			continue;
		}
		r = pt_vars_expand(p, o->value, o, &v, &why);
		if (r >= 0 && why)
			pt_pitem_skip(p, u, o, "%s", why);
		else if (r >= 0)
			r = irq_affinity(p, u, o, v, mode, &devs);
	}
	pt_devset_free(&devs);
	return r;
}

/* ---- [irqbalance] ---- */

/* the pid of a running irqbalance, or 0 */
static long irqbalance_pid(struct perftune_ctx *ctx)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, "proc");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[64], comm[32];
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(path, sizeof(path), "proc/%s/comm", de->d_name);
		if (pt_attr_read(ctx, path, comm, sizeof(comm)) >= 0 && !strcmp(comm, "irqbalance"))
			return atol(de->d_name);
	}
	return 0;
}

int pt_map_irqbalance(struct perftune_profile *p, struct pt_punit *u)
{
	long pid = irqbalance_pid(p->ctx);

	if (pid && u->n)
		pt_log(p->ctx, PERFTUNE_LOG_WARNING,
		       "profile %s: irqbalance is running (pid %ld): it moves IRQs by its own "
		       "configuration, and back onto isolated CPUs unless its banned CPUs "
		       "(IRQBALANCE_BANNED_CPUS) include them",
		       p->name, pid);
	for (size_t i = 0; i < u->n; i++)
		pt_pitem_skip(p, u, &u->opt[i],
			      "%s is irqbalance's configuration (IRQBALANCE_BANNED_CPUS in "
			      "/etc/sysconfig/irqbalance or /etc/default/irqbalance, read when it "
			      "starts): not a kernel tunable; the IRQs themselves move with "
			      "[scheduler] isolated_cores or [irq]%s",
			      u->opt[i].name,
			      pid ? "; irqbalance is running here and will move IRQs back" : "");
	return 0;
}
