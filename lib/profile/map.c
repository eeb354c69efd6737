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
#include "perftune.h"
#include "macro.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/log.h"
#include "profile-internal.h"

/* 1 if @u matches @text (always if @re is NULL), 0 if not, -errno */
static int regex_applies(struct perftune_profile *p, struct pt_punit *u, const char *attr,
			 const char *re, const char *text)
{
	_cleanup_free_ char *why = NULL, *x = NULL, *err = NULL;
	char an[160];
	struct pt_popt a;
	int r;

	if (!re)
		return 1;
	a = pt_unit_attr(u, attr, re, an, sizeof(an));
	r = pt_vars_expand(p, re, &a, &x, &why);
	if (r < 0)
		return r;
	if (why)
		return pt_err(p->ctx, -EINVAL, "%s:%d: %s: %s", a.file, a.line, a.name, why);
	r = pt_regex_search(x, text, true, &err); /* TuneD: re.search(re, text, re.MULTILINE) */
	if (r == -EINVAL)
		return pt_err(p->ctx, r, "%s:%d: %s: %s", a.file, a.line, a.name, err);
	return r;
}

/* TuneD creates an instance only if cpuinfo_regex and uname_regex match: 1, 0, -errno */
static int unit_applies(struct perftune_profile *p, struct pt_punit *u)
{
	_cleanup_free_ char *ci = NULL;
	char un[1024];
	int r;

	if (!u->enabled)
		return 0;
	if (u->cpuinfo_regex) {
		if (!(ci = malloc(PT_READ_MAX)))
			return -ENOMEM;
		if (pt_attr_read_raw(p->ctx, "proc/cpuinfo", ci, PT_READ_MAX) < 0)
			ci[0] = '\0';
	}
	r = regex_applies(p, u, "cpuinfo_regex", u->cpuinfo_regex, ci);
	if (r > 0 && u->uname_regex) {
		pt_machine_uname(p->ctx, un, sizeof(un));
		r = regex_applies(p, u, "uname_regex", u->uname_regex, un);
	}
	return r;
}

static int prio_cmp(const void *a, const void *b)
{
	const struct pt_punit *const *x = a, *const *y = b;

	if ((*x)->priority != (*y)->priority) {
		if ((*x)->priority < (*y)->priority)
			return -1;
		return 1;
	}
	if (*x < *y)
		return -1;
	return *x > *y;
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
	p->txname = NULL;
	if (txname)
		p->txname = strdup(txname);
	p->map_flags = flags;
	r = perftune_tx_new(p->ctx, "profile-check",
			    PERFTUNE_TX_DRY_RUN |
				    (flags & PERFTUNE_PROFILE_HOLD ? PERFTUNE_TX_HOLD : 0),
			    &p->check);
	if (r < 0)
		return r;
	r = pt_vars_setup(p);
	if (r >= 0)
		r = priorities(p);
	for (size_t i = 0; i < p->n && r >= 0; i++) {
		if (!strcmp(p->u[i].name, "variables"))
			continue;
		r = unit_applies(p, &p->u[i]);
		if (r > 0)
			order[n++] = &p->u[i];
		else if (r == 0)
			pt_log(p->ctx, PERFTUNE_LOG_INFO, "profile %s: [%s] does not apply here",
			       p->name, p->u[i].name);
	}
	qsort(order, n, sizeof(*order), prio_cmp);
	for (size_t i = 0; i < n && r >= 0; i++)
		r = pt_map_unit(p, order[i], taken, flags);
	for (size_t i = 0; i < ARRAY_SIZE(taken); i++)
		pt_devset_free(&taken[i]);
	return r;
}
