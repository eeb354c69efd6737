// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_verify*(): is a setting in force?  Each one is resolved, its
 * expected value validated the way a transaction would stage it (aliases
 * mapped), the value now read, and the two compared as the kernel shows
 * values.  A setting that differs names the source that set the value now
 * (why.c), so that a change behind our back is attributed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "core/lookup.h"
#include "object/check.h"
#include "engine/journal.h"
#include "profile/profile-internal.h"
#include "why-internal.h"

static const char *const status_names[] = {
	[PERFTUNE_CHECK_IN_FORCE] = "in force",		[PERFTUNE_CHECK_DIFFERS] = "differs",
	[PERFTUNE_CHECK_CLAMPED] = "clamped",		[PERFTUNE_CHECK_NOT_HERE] = "not here",
	[PERFTUNE_CHECK_NEEDS_REBOOT] = "needs reboot", [PERFTUNE_CHECK_SKIPPED] = "skipped",
};

PERFTUNE_EXPORT const char *perftune_check_status_name(int status)
{
	if (status >= 0 && (size_t)status < ARRAY_SIZE(status_names))
		return status_names[status];
	return NULL;
}

struct checks {
	struct perftune_ctx *ctx;
	struct perftune_check_iter *it;
	const char *origin;
	int not_in_force;
	struct pt_why *why; /* the sources, read once for all the checks of the call */
};

/* the sources of @t compared with @cur, from the call's indexes (built on first use) */
static int sources(struct checks *c, const struct pt_tunable *t, const char *cur, struct pt_srcs *v)
{
	if (!c->why && !(c->why = pt_why_new(c->ctx)))
		return -ENOMEM;
	return pt_why_tunable(c->why, t, cur, v);
}

static int add(struct checks *c, const char *key, const char *want, const char *cur, int status,
	       const char *reason)
{
	struct perftune_check check = { .key = key,
					.expected = want,
					.current = cur,
					.reason = reason,
					.origin = c->origin,
					.status = status };

	if (status == PERFTUNE_CHECK_DIFFERS || status == PERFTUNE_CHECK_CLAMPED ||
	    status == PERFTUNE_CHECK_NEEDS_REBOOT)
		c->not_in_force++;
	return pt_check_iter_add(c->it, &check);
}

/* "set by sysctl.d /etc/sysctl.d/99-x.conf:3": the last source that sets the value now */
static int attribute(struct checks *c, const struct pt_tunable *t, const char *cur, char *reason,
		     size_t size)
{
	struct pt_srcs v = { 0 };
	const struct pt_src *by = NULL;
	int r = sources(c, t, cur, &v);

	for (size_t i = 0; r >= 0 && i < v.n; i++)
		if (v.s[i].value[0] && !(v.s[i].flags & PERFTUNE_SOURCE_DIFFERS) &&
		    !(v.s[i].flags & PERFTUNE_SOURCE_OVERRIDDEN))
			by = &v.s[i];
	if (by)
		snprintf(reason + strlen(reason), size - strlen(reason), "; set by %s %s",
			 pt_src_kind_name(by->kind), by->where);
	pt_srcs_free(&v);
	pt_err_clear(c->ctx);
	if (r == -ENOMEM)
		return r;
	return 0;
}

/* a transaction of ours wrote @t and the kernel read back @cur: it accepted less */
static bool our_write(struct checks *c, const struct pt_tunable *t, const char *cur)
{
	struct pt_srcs v = { 0 };
	bool ours = false;

	if (sources(c, t, cur, &v) >= 0)
		for (size_t i = 0; i < v.n; i++)
			if (v.s[i].kind == PT_SRC_TX && !(v.s[i].flags & PERFTUNE_SOURCE_DIFFERS))
				ours = true;
	pt_srcs_free(&v);
	pt_err_clear(c->ctx);
	return ours;
}

static int check_tunable(struct checks *c, const struct pt_tunable *t, const char *in)
{
	struct perftune_ctx *ctx = c->ctx;
	char want[PT_VAL], cur[PT_VAL], reason[PT_ERR_MAX] = "";
	int r = t->fam->read(ctx, t, cur, sizeof(cur)), status;

	if (r < 0) {
		snprintf(reason, sizeof(reason), "%s", pt_errmsg(ctx));
		pt_err_clear(ctx);
		return add(c, t->key, in, NULL, PERFTUNE_CHECK_NOT_HERE, reason);
	}
	r = t->fam->validate(ctx, t, in, want, sizeof(want));
	if (r == -EINVAL)
		return r; /* a value this key never takes: the message names it */
	if (r < 0) {	  /* not writable here (not root, read-only): compare as given */
		snprintf(want, sizeof(want), "%s", in);
		pt_normalize(want);
	}
	pt_err_clear(ctx);
	r = -EIO;
	if (t->fam->verify)
		r = t->fam->verify(ctx, t, want, cur);
	snprintf(reason, sizeof(reason), "%s", pt_errmsg(ctx));
	if (r == 0 || r == 1 || pt_value_same(cur, want)) {
		status = PERFTUNE_CHECK_IN_FORCE;
		reason[0] = '\0';
	} else if ((r == -EAGAIN && our_write(c, t, cur)) || /* fewer huge pages than asked */
		   r == -ERANGE) { /* the kernel's limit: the value can never be in force */
		status = PERFTUNE_CHECK_CLAMPED;
	} else {
		status = PERFTUNE_CHECK_DIFFERS;
		snprintf(reason, sizeof(reason), "now %s, expected %s", cur, want);
	}
	pt_err_clear(ctx);
	if (status != PERFTUNE_CHECK_IN_FORCE &&
	    (r = attribute(c, t, cur, reason, sizeof(reason))) < 0)
		return r;
	return add(c, t->key, want, cur, status, reason);
}

struct expanded {
	struct pt_tunable *t;
	char **v;
	size_t n, cap, nv;
	const char *input;
};

static int stage_fn(struct perftune_ctx *ctx _unused_, const struct pt_tunable *t,
		    const char *value, void *ud)
{
	struct expanded *e = ud;

	if (pt_grow(&e->t, &e->cap, e->n + 1, 4) < 0 || !pt_strv_add(&e->v, &e->nv, value))
		return -ENOMEM;
	e->t[e->n++] = *t;
	return 0;
}

/* cpu.N.idle.max_latency_us stands for the idle states it disables: check those */
static int emit(struct perftune_ctx *ctx, const struct pt_tunable *t, void *ud)
{
	struct expanded *e = ud;
	int r = 1;

	if (t->fam->expand)
		r = t->fam->expand(ctx, t, e->input, stage_fn, ud);
	if (r == 1)
		return stage_fn(ctx, t, e->input, ud);
	return r;
}

static bool absent(int r)
{
	return r == -ENOENT || r == -ENODEV || r == -EOPNOTSUPP;
}

static int check_key(struct checks *c, const char *key, const char *value)
{
	struct expanded e = { .input = value };
	int r = pt_resolve(c->ctx, key, emit, &e);

	if (r >= 0 && e.n == 0)
		r = pt_err(c->ctx, -ENODEV, "%s: matches nothing on this machine", key);
	if (absent(r)) {
		char reason[PT_ERR_MAX];
		snprintf(reason, sizeof(reason), "%s", pt_errmsg(c->ctx));
		pt_err_clear(c->ctx);
		r = add(c, key, value, NULL, PERFTUNE_CHECK_NOT_HERE, reason);
	}
	for (size_t i = 0; i < e.n && r >= 0; i++)
		r = check_tunable(c, &e.t[i], e.v[i]);
	free(e.t);
	pt_strv_free(e.v);
	return r;
}

static int begin(struct checks *c, struct perftune_ctx *ctx, struct perftune_check_iter **iterp)
{
	if (!ctx || !iterp)
		return -EINVAL;
	*iterp = NULL;
	pt_err_clear(ctx);
	c->ctx = ctx;
	c->it = pt_check_iter_new();
	return c->it ? 0 : -ENOMEM;
}

static int end(struct checks *c, int r, struct perftune_check_iter **iterp)
{
	pt_why_free(c->why);
	c->why = NULL;
	if (r < 0) {
		perftune_check_iter_free(c->it);
		return r;
	}
	*iterp = c->it;
	return c->not_in_force;
}

static int verify_impl(struct perftune_ctx *ctx, const char *const *settings,
		       struct perftune_check_iter **iterp)
{
	struct checks c = { .origin = NULL };
	int r = -EINVAL;

	if (settings)
		r = begin(&c, ctx, iterp);
	for (size_t i = 0; r >= 0 && settings[i]; i++) {
		const char *value;
		char *key;

		r = perftune_setting_split(ctx, settings[i], &key, &value);
		if (r >= 0)
			r = check_key(&c, key, value);
		free(key);
	}
	if (r < 0 && !c.it)
		return r;
	return end(&c, r, iterp);
}

PERFTUNE_EXPORT int perftune_verify(struct perftune_ctx *ctx, const char *const *settings,
				    struct perftune_check_iter **iterp)
{
	return pt_api_ret(verify_impl(ctx, settings, iterp));
}

/* ---- profiles ---- */

/* the boot loader's cmdline of a profile: each word on /proc/cmdline, or a reboot is due */
static int check_cmdline(struct checks *c, const struct perftune_profile_item *i)
{
	char line[PT_VAL], words[PT_VAL], missing[PT_VAL] = "", *save = NULL;
	const char *want = perftune_profile_item_value_as_written(i);

	if (pt_attr_read_raw(c->ctx, "proc/cmdline", line, sizeof(line)) < 0)
		line[0] = '\0';
	pt_err_clear(c->ctx);
	pt_normalize(line);
	snprintf(words, sizeof(words), "%s", want ? want : "");
	for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		size_t n = strlen(w);
		bool found = false;
		for (const char *p = line; (p = strstr(p, w)); p += n)
			if ((p == line || p[-1] == ' ') && (!p[n] || p[n] == ' '))
				found = true;
		if (!found && w[0] != '-')
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 " %s", w);
	}
	if (!missing[0])
		return add(c, perftune_profile_item_option(i), want, line, PERFTUNE_CHECK_IN_FORCE,
			   NULL);
	snprintf(words, sizeof(words), "not on /proc/cmdline:%s", missing);
	return add(c, perftune_profile_item_option(i), want, line, PERFTUNE_CHECK_NEEDS_REBOOT,
		   words);
}

/* a skip for lack of something on this machine, not by policy */
static bool skip_absent(const struct perftune_profile_item *i)
{
	static const char *const phrases[] = { "on this machine", "does not exist", "no such",
					       "matches no",	  "not loaded",	    "not present",
					       "not enabled",	  "has no" };
	const char *why = perftune_profile_item_skip_reason(i);

	if (perftune_profile_item_key(i))
		return true;
	for (size_t k = 0; why && k < ARRAY_SIZE(phrases); k++)
		if (strstr(why, phrases[k]))
			return true;
	return false;
}

static int check_item(struct checks *c, const struct perftune_profile_item *i)
{
	const char *opt = perftune_profile_item_option(i), *key = perftune_profile_item_key(i);
	unsigned flags = perftune_profile_item_flags(i);

	c->origin = perftune_profile_item_location(i);
	if (flags & PERFTUNE_PROFILE_ITEM_SKIPPED) {
		if (opt && !strncmp(opt, "[bootloader] cmdline", 20))
			return check_cmdline(c, i);
		return add(c, key ? key : opt, perftune_profile_item_value_as_written(i), NULL,
			   skip_absent(i) ? PERFTUNE_CHECK_NOT_HERE : PERFTUNE_CHECK_SKIPPED,
			   perftune_profile_item_skip_reason(i));
	}
	if (flags & PERFTUNE_PROFILE_ITEM_UNCHANGED) /* ">N": the machine meets it */
		return add(c, key, perftune_profile_item_value_as_written(i),
			   perftune_profile_item_value(i), PERFTUNE_CHECK_IN_FORCE,
			   "condition met");
	return check_key(c, key, perftune_profile_item_value(i));
}

static int verify_profile_impl(struct perftune_profile *p, struct perftune_check_iter **iterp)
{
	struct perftune_profile_item_iter *items = NULL;
	const struct perftune_profile_item *i;
	struct checks c = { 0 };
	int r;

	if (!p)
		return -EINVAL;
	r = begin(&c, p->ctx, iterp);
	if (r >= 0)
		r = perftune_profile_items(p, &items);
	while (r >= 0 && (i = perftune_profile_item_iter_next(items)))
		r = check_item(&c, i);
	perftune_profile_item_iter_free(items);
	if (r < 0 && !c.it)
		return r;
	return end(&c, r, iterp);
}

PERFTUNE_EXPORT int perftune_verify_profile(struct perftune_profile *p,
					    struct perftune_check_iter **iterp)
{
	return pt_api_ret(verify_profile_impl(p, iterp));
}

/* ---- transactions ---- */

static int verify_tx_impl(struct perftune_ctx *ctx, const char *name,
			  struct perftune_check_iter **iterp)
{
	struct pt_jinfo ji = { 0 };
	char origin[PT_TX_NAME_MAX + 16];
	struct checks c = { .origin = origin };
	int r = -EINVAL;

	if (name)
		r = begin(&c, ctx, iterp);
	if (r >= 0)
		r = pt_journal_load(ctx, name, &ji);
	if (r == -ENOENT)
		r = pt_err(ctx, -ENOENT, "no transaction '%s'", name);
	snprintf(origin, sizeof(origin), "transaction %s", name ? name : "");
	for (size_t i = 0; r >= 0 && i < ji.n; i++)
		if (ji.e[i].written && !ji.e[i].restored)
			r = check_key(&c, ji.e[i].key, ji.e[i].written);
	pt_jinfo_free(&ji);
	if (r < 0 && !c.it)
		return r;
	return end(&c, r, iterp);
}

PERFTUNE_EXPORT int perftune_verify_transaction(struct perftune_ctx *ctx, const char *name,
						struct perftune_check_iter **iterp)
{
	return pt_api_ret(verify_tx_impl(ctx, name, iterp));
}

/* ---- a name: a transaction's, else a profile's ---- */

static int verify_named_impl(struct perftune_ctx *ctx, const char *name, const char *const *vars,
			     unsigned flags, struct perftune_check_iter **iterp)
{
	struct perftune_profile *p = NULL;
	int r = -ENOENT;

	if (!ctx || !name || !iterp || !pt_named_flags_ok(flags))
		return -EINVAL;
	*iterp = NULL;
	if (pt_named_tx_first(name, flags))
		r = perftune_verify_transaction(ctx, name, iterp);
	if (r != -ENOENT || (flags & PERFTUNE_NAMED_TRANSACTION))
		return r;
	r = perftune_profile_load(ctx, name, vars, &p);
	if (r >= 0)
		r = perftune_verify_profile(p, iterp);
	perftune_profile_free(p);
	return r;
}

PERFTUNE_EXPORT int perftune_verify_named(struct perftune_ctx *ctx, const char *name,
					  const char *const *vars, unsigned flags,
					  struct perftune_check_iter **iterp)
{
	return pt_api_ret(verify_named_impl(ctx, name, vars, flags, iterp));
}
