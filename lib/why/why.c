// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_why(): every source that claims a key, in the order they take
 * effect at boot and after it: the kernel command line, systemd-sysctl,
 * udev (device added), TuneD (its daemon starting), daemons that write it
 * again, and perftune's own transactions.  The scanners (cmdline.c,
 * sysctld.c, udev.c, tuned.c) find them; this file orders and flags them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "why-internal.h"

/* our own transactions that wrote @t (the journal's last word on it) */
static int why_tx(struct perftune_ctx *ctx, const struct pt_tunable *t, struct pt_srcs *v)
{
	char **names = NULL;
	int r = pt_journal_names(ctx, &names);

	if (r < 0) { /* no journal directory: no transactions */
		pt_err_clear(ctx);
		return r == -ENOMEM ? r : 0;
	}
	for (size_t i = 0; names && names[i] && r >= 0; i++) {
		struct pt_jinfo ji = { 0 };
		struct pt_jentry *e;
		struct pt_src *s;
		if (pt_journal_load(ctx, names[i], &ji) < 0) {
			pt_err_clear(ctx);
			continue;
		}
		e = pt_jinfo_find(&ji, t->key);
		if (e && !e->restored && e->written) {
			if (!(s = pt_src_add(v, PT_SRC_TX, t))) {
				r = -ENOMEM;
			} else {
				snprintf(s->where, sizeof(s->where), "%s", ji.name);
				snprintf(s->value, sizeof(s->value), "%s", e->written);
				s->pid = ji.held || ji.orphaned ? ji.pid : 0;
				snprintf(s->note, sizeof(s->note),
					 "perftune transaction%s (original %s)",
					 ji.held       ? ", held by a live process"
					 : ji.orphaned ? ", orphaned: its holder is gone"
						       : "",
					 e->orig ? e->orig : "?");
			}
		}
		pt_jinfo_free(&ji);
	}
	pt_strv_free(names);
	return r;
}

/* the word of the command line that @value makes ("transparent_hugepage=never") */
static bool cmdline_differs(struct perftune_ctx *ctx, const struct pt_tunable *t,
			    const struct pt_src *s, const char *value)
{
	struct pt_xnames x = { 0 };
	const char *eq = strchr(s->value, '=');
	size_t n;

	if (!t->fam->export_names)
		return false;
	t->fam->export_names(ctx, t, value, &x);
	if (x.sysctl[0] && eq && !strncmp(s->value, "sysctl.", 7)) /* sysctl.vm.swappiness=10 */
		return !pt_value_same(value, eq + 1);
	n = strcspn(x.boot, "=");
	if (!x.boot[0] || strncmp(s->value, x.boot, n) || s->value[n] != '=')
		return false; /* another parameter: not compared */
	return strcmp(s->value, x.boot) != 0;
}

/* WINS for the last of each kind that has a value, OVERRIDDEN for those before it; DIFFERS */
static void flag(struct perftune_ctx *ctx, const struct pt_tunable *t, struct pt_srcs *v,
		 size_t from, const char *value)
{
	for (size_t i = from; i < v->n; i++) {
		struct pt_src *s = &v->s[i];
		bool last = true;
		if (s->flags & PERFTUNE_SOURCE_ERROR || !s->value[0])
			continue;
		if (s->kind == PT_SRC_CMDLINE ? cmdline_differs(ctx, t, s, value)
					      : !pt_value_same(value, s->value))
			s->flags |= PERFTUNE_SOURCE_DIFFERS;
		if (s->kind == PT_SRC_CMDLINE || s->kind == PT_SRC_DAEMON)
			continue;
		for (size_t k = i + 1; k < v->n; k++)
			if (v->s[k].kind == s->kind && v->s[k].value[0] &&
			    !(v->s[k].flags & PERFTUNE_SOURCE_ERROR))
				last = false;
		s->flags |= last ? PERFTUNE_SOURCE_WINS : PERFTUNE_SOURCE_OVERRIDDEN;
	}
}

/*
 * TuneD applies its profile, then sysctl.d again (reapply_sysctl): a key both
 * set, sysctl.d's value is the one that stays, the profile's line is overridden.
 */
static void sysctl_after_tuned(struct pt_srcs *v, size_t from)
{
	bool sysctl = false;

	for (size_t i = from; i < v->n; i++)
		sysctl |= v->s[i].kind == PT_SRC_SYSCTL && v->s[i].value[0];
	for (size_t i = from; i < v->n && sysctl; i++) {
		struct pt_src *s = &v->s[i];
		size_t n = strlen(s->note);
		if (s->kind != PT_SRC_TUNED || !s->value[0])
			continue;
		s->flags = (s->flags & ~PERFTUNE_SOURCE_WINS) | PERFTUNE_SOURCE_OVERRIDDEN;
		snprintf(s->note + n, sizeof(s->note) - n,
			 "; sysctl.d, applied again after it (reapply_sysctl), wins");
	}
}

int pt_why_tunable(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		   struct pt_srcs *v)
{
	struct pt_xnames x = { 0 };
	char cur[PT_VAL] = "";
	size_t from = v->n, nsys;
	int r, tuned;

	if (!value) {
		if (t->fam->read(ctx, t, cur, sizeof(cur)) < 0)
			cur[0] = '\0';
		pt_err_clear(ctx);
		value = cur;
	}
	if (t->fam->export_names)
		t->fam->export_names(ctx, t, value, &x);
	r = pt_why_cmdline(ctx, t, &x, v);
	nsys = v->n;
	if (r >= 0)
		r = pt_why_sysctl(ctx, t, &x, v);
	nsys = v->n - nsys;
	if (r >= 0)
		r = pt_why_udev(ctx, t, &x, v);
	tuned = r < 0 ? r : pt_why_tuned(ctx, t, v);
	r = tuned < 0 ? tuned : pt_why_daemons(ctx, t, tuned > 0, nsys > 0, v);
	if (r >= 0)
		r = why_tx(ctx, t, v);
	if (r >= 0)
		flag(ctx, t, v, from, value);
	if (r >= 0 && nsys && tuned > 0 && pt_tuned_reapplies_sysctl(ctx))
		sysctl_after_tuned(v, from);
	return r;
}

static void source_item(void *ud, size_t i, struct pt_item *item, char *note _unused_)
{
	const struct pt_src *s = &((const struct pt_srcs *)ud)->s[i];

	*item = (struct pt_item){ .name = (char *)pt_src_kind_name(s->kind),
				  .key = (char *)s->key,
				  .current = (char *)s->where,
				  .value = s->value[0] ? (char *)s->value : NULL,
				  .note = (char *)s->note,
				  .flags = s->flags,
				  .pid = s->pid };
}

static int why_impl(struct perftune_ctx *ctx, const char *key, const char *value,
		    struct perftune_source_iter **iterp)
{
	_cleanup_free_ struct pt_tunable *t = NULL;
	struct pt_srcs v = { 0 };
	struct pt_iter *it = NULL;
	int n, r;

	if (!ctx || !key || !iterp)
		return -EINVAL;
	*iterp = NULL;
	pt_err_clear(ctx);
	r = n = pt_resolve_all(ctx, key, &t);
	for (int i = 0; i < n && r >= 0; i++)
		r = pt_why_tunable(ctx, &t[i], value, &v);
	if (r >= 0)
		r = pt_iter_collect(v.n, source_item, &v, &it);
	free(v.s);
	if (r < 0)
		return r == -ENOMEM ? pt_err(ctx, r, "%s: out of memory", key) : r;
	*iterp = pt_source_iter(it);
	return (int)v.n;
}

PERFTUNE_EXPORT int perftune_why(struct perftune_ctx *ctx, const char *key, const char *value,
				 struct perftune_source_iter **iterp)
{
	return pt_api_ret(why_impl(ctx, key, value, iterp));
}
