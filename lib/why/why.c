// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_why() and perftune_why_keys(): every source that claims a key,
 * in the order they take effect at boot and after it: the kernel command
 * line, systemd-sysctl, udev (device added), TuneD (its daemon starting),
 * daemons that write it again, and perftune's own transactions.  The
 * scanners (cmdline.c, sysctld.c, udev.c, tuned.c, daemons.c) read their
 * files into an index once per call, and only when a key of the call can be
 * named there (a sysctl: sysctl.d; a device's attribute: udev rules); each
 * key is then looked up in them.  This file orders and flags the sources,
 * in one pass.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "core/lookup.h"
#include "object/source.h"
#include "family/family.h"
#include "engine/journal.h"
#include "why-internal.h"

struct pt_why {
	struct perftune_ctx *ctx;
	struct pt_why_work work;
	struct pt_cmdline *cmdline; /* each built on first need */
	struct pt_sysctld *sysctld;
	struct pt_udev_rules *udev;
	struct pt_tuned *tuned;
	struct pt_daemons *daemons;
	struct pt_jinfo *tx; /* the journals, loaded once */
	size_t ntx;
	bool tx_read;
};

struct pt_why *pt_why_new(struct perftune_ctx *ctx)
{
	struct pt_why *w = calloc(1, sizeof(*w));

	if (w)
		w->ctx = ctx;
	return w;
}

void pt_why_free(struct pt_why *w)
{
	if (!w)
		return;
	pt_cmdline_free(w->cmdline);
	pt_sysctld_free(w->sysctld);
	pt_udev_rules_free(w->udev);
	pt_tuned_free(w->tuned);
	pt_daemons_free(w->daemons);
	for (size_t i = 0; i < w->ntx; i++)
		pt_jinfo_free(&w->tx[i]);
	free(w->tx);
	free(w);
}

const struct pt_why_work *pt_why_work(const struct pt_why *w)
{
	return &w->work;
}

/* ---- the indexes, each built at most once (a failed one is NULL: tried again) ---- */

static int cmdline(struct pt_why *w)
{
	if (w->cmdline)
		return 0;
	return pt_cmdline_new(w->ctx, &w->cmdline);
}

static int sysctld(struct pt_why *w)
{
	if (w->sysctld)
		return 0;
	return pt_sysctld_new(w->ctx, &w->sysctld, &w->work);
}

static int udev(struct pt_why *w)
{
	if (w->udev)
		return 0;
	return pt_udev_rules_new(w->ctx, &w->udev, &w->work);
}

static int tuned(struct pt_why *w)
{
	if (w->tuned)
		return 0;
	return pt_tuned_new(w->ctx, &w->tuned, &w->work);
}

static int daemons(struct pt_why *w)
{
	if (w->daemons)
		return 0;
	return pt_daemons_new(w->ctx, &w->daemons);
}

/* our own transactions: every journal, loaded once */
static int journals(struct pt_why *w)
{
	char **names = NULL;
	size_t n = 0;
	int r;

	if (w->tx_read)
		return 0;
	w->tx_read = true;
	r = pt_journal_names(w->ctx, &names);
	if (r < 0) { /* no journal directory: no transactions */
		pt_err_clear(w->ctx);
		if (r == -ENOMEM)
			return r;
		return 0;
	}
	while (names && names[n])
		n++;
	w->tx = calloc(n + 1, sizeof(*w->tx));
	for (size_t i = 0; w->tx && i < n; i++) {
		if (pt_journal_load(w->ctx, names[i], &w->tx[w->ntx]) < 0) {
			pt_err_clear(w->ctx);
			continue;
		}
		w->ntx++;
	}
	pt_strv_free(names);
	if (w->tx)
		return 0;
	return -ENOMEM;
}

/* the transactions that wrote @t (the journal's last word on it) */
static int why_tx(struct pt_why *w, const struct pt_tunable *t, struct pt_srcs *v)
{
	int r = journals(w);

	for (size_t i = 0; i < w->ntx && r >= 0; i++) {
		struct pt_jinfo *ji = &w->tx[i];
		struct pt_jentry *e = pt_jinfo_find(ji, t->key);
		const char *how = "";
		struct pt_src *s;
		w->work.steps++;
		if (!e || e->restored || !e->written)
			continue;
		if (ji->held)
			how = ", held by a live process";
		else if (ji->orphaned)
			how = ", orphaned: its holder is gone";
		s = pt_src_add(v, PT_SRC_TX, t, ji->name, e->written,
			       "perftune transaction%s (original %s)", how,
			       e->orig ? e->orig : "?");
		if (!s)
			return -ENOMEM;
		s->pid = ji->held || ji->orphaned ? ji->pid : 0;
	}
	return r;
}

/* ---- flags ---- */

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

/*
 * WINS for the last of each kind that has a value, OVERRIDDEN for those
 * before it (one pass from the end: the kinds seen later); DIFFERS.
 */
static void flag(struct pt_why *w, const struct pt_tunable *t, struct pt_srcs *v, size_t from,
		 const char *value)
{
	bool later[PT_SRC_KINDS] = { false };

	for (size_t i = v->n; i-- > from;) {
		struct pt_src *s = &v->s[i];
		bool differs;
		w->work.steps++;
		if (s->flags & PERFTUNE_SOURCE_ERROR || !s->value[0])
			continue;
		if (s->kind == PT_SRC_CMDLINE)
			differs = cmdline_differs(w->ctx, t, s, value);
		else
			differs = !pt_value_same(value, s->value);
		if (differs)
			s->flags |= PERFTUNE_SOURCE_DIFFERS;
		if (s->kind == PT_SRC_CMDLINE || s->kind == PT_SRC_DAEMON)
			continue;
		s->flags |= later[s->kind] ? PERFTUNE_SOURCE_OVERRIDDEN : PERFTUNE_SOURCE_WINS;
		later[s->kind] = true;
	}
}

/*
 * TuneD applies its profile, then sysctl.d again (reapply_sysctl): a key both
 * set, sysctl.d's value is the one that stays, the profile's line is overridden.
 */
static int sysctl_after_tuned(struct pt_why *w, struct pt_srcs *v, size_t from)
{
	bool sysctl = false;

	for (size_t i = from; i < v->n; i++)
		sysctl |= v->s[i].kind == PT_SRC_SYSCTL && v->s[i].value[0];
	for (size_t i = from; i < v->n && sysctl; i++) {
		struct pt_src *s = &v->s[i];
		char *note = NULL;
		w->work.steps++;
		if (s->kind != PT_SRC_TUNED || !s->value[0])
			continue;
		s->flags = (s->flags & ~PERFTUNE_SOURCE_WINS) | PERFTUNE_SOURCE_OVERRIDDEN;
		if (asprintf(&note, "%s; sysctl.d, applied again after it (reapply_sysctl), wins",
			     s->note) < 0)
			return -ENOMEM;
		free(s->note);
		s->note = note;
	}
	return 0;
}

int pt_why_tunable(struct pt_why *w, const struct pt_tunable *t, const char *value,
		   struct pt_srcs *v)
{
	struct perftune_ctx *ctx = w->ctx;
	struct pt_xnames x = { 0 };
	char cur[PT_VAL] = "";
	size_t from = v->n, nsys = 0;
	int r, found = 0;

	if (!value) {
		if (t->fam->read(ctx, t, cur, sizeof(cur)) < 0)
			cur[0] = '\0';
		pt_err_clear(ctx);
		value = cur;
	}
	if (t->fam->export_names)
		t->fam->export_names(ctx, t, value, &x);
	r = cmdline(w);
	if (r >= 0)
		r = pt_cmdline_why(w->cmdline, t, &x, v, &w->work);
	if (r >= 0 && x.sysctl[0]) { /* only a sysctl's key reads sysctl.d */
		size_t before = v->n;
		r = sysctld(w);
		if (r >= 0)
			r = pt_sysctld_why(w->sysctld, t, &x, v, &w->work);
		nsys = v->n - before;
	}
	if (r >= 0 && x.dev[0] && x.attr[0]) /* only a device's attribute reads udev rules */
		r = udev(w);
	if (r >= 0 && x.dev[0] && x.attr[0])
		r = pt_udev_rules_why(w->udev, t, &x, v, &w->work);
	if (r >= 0)
		r = tuned(w);
	if (r >= 0)
		r = found = pt_tuned_why(w->tuned, t, v, &w->work);
	if (r >= 0)
		r = daemons(w);
	if (r >= 0)
		r = pt_daemons_why(w->daemons, t, found > 0, nsys > 0, v, &w->work);
	if (r >= 0)
		r = why_tx(w, t, v);
	if (r >= 0)
		flag(w, t, v, from, value);
	if (r >= 0 && nsys && found > 0 && pt_tuned_reapplies_sysctl(w->tuned))
		r = sysctl_after_tuned(w, v, from);
	return r;
}

/* ---- the API ---- */

static int source_item(struct perftune_source_iter *it, const struct pt_src *s)
{
	struct perftune_source o = { .kind = pt_src_kind_name(s->kind),
				     .key = s->key,
				     .location = s->where,
				     .value = s->value,
				     .note = s->note,
				     .flags = s->flags,
				     .pid = s->pid };

	return pt_source_iter_add(it, &o);
}

/* the sources of each of @keys (@n of them) compared with @values[i] (NULL: the value now) */
static int why_impl(struct perftune_ctx *ctx, const char *const *keys, const char *const *values,
		    size_t n, struct perftune_source_iter **iterp)
{
	struct pt_tunable **t = calloc(n + 1, sizeof(*t));
	struct pt_why *w = pt_why_new(ctx);
	struct pt_srcs v = { 0 };
	struct perftune_source_iter *it = NULL;
	const char *key = n ? keys[0] : "";
	int r = t && w ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && r >= 0; i++) {
		int nt = r = pt_resolve_all(ctx, keys[i], &t[i]);
		key = keys[i];
		for (int k = 0; k < nt && r >= 0; k++)
			r = pt_why_tunable(w, &t[i][k], values ? values[i] : NULL, &v);
	}
	if (r >= 0 && !(it = pt_source_iter_new()))
		r = -ENOMEM;
	for (size_t i = 0; i < v.n && r >= 0; i++)
		r = source_item(it, &v.s[i]);
	if (r >= 0)
		r = (int)v.n;
	pt_srcs_free(&v);
	pt_why_free(w);
	if (r < 0)
		perftune_source_iter_free(it);
	for (size_t i = 0; t && i < n; i++)
		free(t[i]);
	free(t);
	if (r < 0)
		return r == -ENOMEM ? pt_err(ctx, r, "%s: out of memory", key) : r;
	*iterp = it;
	return r;
}

PERFTUNE_EXPORT int perftune_why(struct perftune_ctx *ctx, const char *key, const char *value,
				 struct perftune_source_iter **iterp)
{
	if (iterp)
		*iterp = NULL;
	if (!ctx || !key || !iterp)
		return -EINVAL;
	pt_err_clear(ctx);
	return pt_api_ret(why_impl(ctx, &key, &value, 1, iterp));
}

PERFTUNE_EXPORT int perftune_why_keys(struct perftune_ctx *ctx, const char *const *keys,
				      const char *const *compare_to,
				      struct perftune_source_iter **iterp)
{
	size_t n = 0;

	if (iterp)
		*iterp = NULL;
	if (!ctx || !keys || !iterp)
		return -EINVAL;
	pt_err_clear(ctx);
	while (keys[n])
		n++;
	return pt_api_ret(why_impl(ctx, keys, compare_to, n, iterp));
}
