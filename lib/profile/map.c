// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mapping a merged profile onto keys.  Units are taken in TuneD's instance
 * order (priority, then position), skipped when disabled or when their
 * cpuinfo_regex/uname_regex does not match this machine; each goes to its
 * plugin (plugins.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "profile-internal.h"

/* TuneD creates an instance only if cpuinfo_regex and uname_regex match */
static bool unit_applies(struct perftune_profile *p, struct pt_punit *u)
{
	char un[1024];
	bool bad = false;

	if (!u->enabled)
		return false;
	if (u->cpuinfo_regex) {
		_cleanup_free_ char *ci = malloc(PT_READ_MAX), *why = NULL, *re = NULL;
		if (!ci || pt_vars_expand(p, u->cpuinfo_regex, NULL, &re, &why) < 0)
			return false;
		if (pt_attr_read_raw(p->ctx, "proc/cpuinfo", ci, PT_READ_MAX) < 0)
			ci[0] = '\0';
		if (!pt_regex_search(re, ci, &bad))
			return false;
	}
	if (u->uname_regex) {
		_cleanup_free_ char *why = NULL, *re = NULL;
		pt_machine_uname(p->ctx, un, sizeof(un));
		if (pt_vars_expand(p, u->uname_regex, NULL, &re, &why) < 0 ||
		    !pt_regex_search(re, un, &bad))
			return false;
	}
	return true;
}

static int prio_cmp(const void *a, const void *b)
{
	const struct pt_punit *const *x = a, *const *y = b;

	if ((*x)->priority != (*y)->priority)
		return (*x)->priority < (*y)->priority ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

static int priorities(struct perftune_profile *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct pt_popt *o = pt_popt_find(p->u[i].opt, p->u[i].n, "priority");
		long long v = 0;
		if (!o)
			continue;
		if (pt_parse_ll(o->value, &v) < 0 || v < -1000000 || v > 1000000)
			return pt_err(p->ctx, -EINVAL, "%s:%d: [%s] priority=%s is not a number",
				      o->file, o->line, p->u[i].name, o->value);
		p->u[i].priority = (int)v;
		pt_popt_del(p->u[i].opt, &p->u[i].n, "priority");
	}
	return 0;
}

int pt_profile_map(struct perftune_profile *p, unsigned flags, const char *txname)
{
	struct pt_devset taken[PT_DEVTYPES] = { 0 };
	_cleanup_free_ struct pt_punit **order = calloc(p->n + 1, sizeof(*order));
	size_t n = 0;
	int r;

	if (!order)
		return -ENOMEM;
	pt_pitems_free(p);
	perftune_tx_unref(p->check);
	p->check = NULL;
	free(p->txname);
	p->txname = txname ? strdup(txname) : NULL;
	p->map_flags = flags;
	r = perftune_tx_new(p->ctx, "profile-check",
			    PERFTUNE_TX_DRY_RUN | (flags & PERFTUNE_PROFILE_HOLD ? PERFTUNE_TX_HOLD : 0),
			    &p->check);
	if (r < 0)
		return r;
	pt_vars_free(p->vars);
	p->vars = pt_vars_new();
	if (!p->vars)
		return -ENOMEM;
	r = pt_vars_override(p, (const char *const *)p->overrides);
	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (!strcmp(p->u[i].name, "variables"))
			r = pt_vars_define(p, &p->u[i]);
	if (r >= 0)
		r = priorities(p);
	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (strcmp(p->u[i].name, "variables") && unit_applies(p, &p->u[i]))
			order[n++] = &p->u[i];
		else if (strcmp(p->u[i].name, "variables"))
			pt_log(p->ctx, PERFTUNE_LOG_INFO, "profile %s: [%s] does not apply here",
			       p->name, p->u[i].name);
	qsort(order, n, sizeof(*order), prio_cmp);
	for (size_t i = 0; i < n && r >= 0; i++)
		r = pt_map_unit(p, order[i], taken, flags);
	for (size_t i = 0; i < ARRAY_SIZE(taken); i++)
		pt_devset_free(&taken[i]);
	return r;
}
