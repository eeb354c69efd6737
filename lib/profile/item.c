// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Profile items: each option becomes a key and a value validated on the
 * profile's scratch transaction, or a skip with its reason.  What counts as
 * "absent on this machine" (a skip) and what is an error in the profile.
 * Also the sysfs mapping every plugin shares (a path becomes a sysfs[] key).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/util.h"
#include "core/log.h"
#include "family/cpumask.h"
#include "profile-internal.h"

static void pitem_free(struct pt_pitem *it)
{
	pt_free_all(it->option, it->origin, it->raw, it->key, it->value, it->note, it->udev_match);
}

void pt_pitems_free(struct perftune_profile *p)
{
	for (size_t i = 0; i < p->nitems; i++)
		pitem_free(&p->items[i]);
	free(p->items);
	p->items = NULL;
	p->nitems = 0;
}

static _printf_(7, 0) struct pt_pitem *vadd(struct perftune_profile *p, const struct pt_punit *u,
					    const struct pt_popt *o, const char *key,
					    const char *value, unsigned flags, const char *fmt,
					    va_list ap)
{
	struct pt_pitem *v = realloc(p->items, (p->nitems + 1) * sizeof(*v)), *it;
	bool fail = false, oom = false;

	if (!v)
		return NULL;
	p->items = v;
	it = &v[p->nitems];
	memset(it, 0, sizeof(*it));
	if (asprintf(&it->option, "[%s] %s", u ? u->name : "main", o ? o->name : "") < 0)
		it->option = NULL;
	if (o && asprintf(&it->origin, "%s:%d", o->file, o->line) < 0)
		it->origin = NULL;
	else if (!o && u && asprintf(&it->origin, "%s:%d", u->file, u->line) < 0)
		it->origin = NULL;
	if (o)
		it->raw = strdup(o->value);
	it->key = pt_strdup_or_null(key, &oom);
	it->value = pt_strdup_or_null(value, &oom);
	if (fmt && vasprintf(&it->note, fmt, ap) < 0)
		it->note = NULL;
	it->flags = flags;
	fail = !it->option || !it->origin || (o && !it->raw) || oom || (fmt && !it->note);
	if (fail) {
		pitem_free(it);
		return NULL;
	}
	p->nitems++;
	return it;
}

struct pt_pitem *pt_pitem_add(struct perftune_profile *p, const struct pt_punit *u,
			      const struct pt_popt *o, const char *key, const char *value,
			      unsigned flags, const char *fmt, ...)
{
	struct pt_pitem *it;
	va_list ap;

	va_start(ap, fmt);
	it = vadd(p, u, o, key, value, flags, fmt, ap);
	va_end(ap);
	return it;
}

void pt_pitem_skip(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(p, u, o, NULL, NULL, PT_ITEM_SKIPPED, fmt, ap);
	va_end(ap);
}

int pt_err_prefix(struct perftune_ctx *ctx, int err, const char *fmt, ...)
{
	char msg[512], prefix[512];
	va_list ap;

	snprintf(msg, sizeof(msg), "%s", perftune_ctx_last_error(ctx));
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	return pt_err(ctx, err, "%s: %s", prefix, msg[0] ? msg : strerror(-err));
}

static bool absent(int r)
{
	return r == -ENOENT || r == -ENODEV || r == -EOPNOTSUPP || r == -EROFS;
}

/* the value the library resolved for a concrete key ("deadline" -> "mq-deadline") */
static void resolved_value(struct perftune_profile *p, struct pt_pitem *it)
{
	struct perftune_change_iter *ch;
	const struct perftune_change *c;

	if (perftune_tx_changes(p->check, &ch) < 0)
		return;
	while ((c = perftune_change_iter_next(ch)))
		if (!strcmp(perftune_change_key(c), it->key)) {
			char *v = strdup(perftune_change_new_value(c));
			if (v) {
				free(it->value);
				it->value = v;
			}
		}
	perftune_change_iter_free(ch);
}

int pt_pmap_key(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		const char *key, const char *value, bool first_offered, struct pt_pitem **out)
{
	int r = perftune_tx_set(p->check, key, value);
	const char *msg = perftune_ctx_last_error(p->ctx);
	struct pt_pitem *it = NULL;

	if (out)
		*out = NULL;
	if (r >= 0) {
		it = pt_pitem_add(p, u, o, key, value, 0, NULL);
		if (it)
			resolved_value(p, it);
	} else if (absent(r) || (first_offered && (r == -EINVAL || r == -ERANGE))) {
		it = pt_pitem_add(p, u, o, key, value, PT_ITEM_SKIPPED, "%s", msg);
		r = 0;
	} else if (r == -EACCES) { /* checked again when staged for real */
		it = pt_pitem_add(p, u, o, key, value, 0, "not validated: %s", msg);
		if (it)
			it->unvalidated = true;
	} else {
		return pt_err_prefix(p->ctx, r, "%s:%d: [%s] %s = %s", o->file, o->line, u->name,
				     o->name, o->value);
	}
	if (!it)
		return -ENOMEM;
	if (out)
		*out = it;
	if (r < 0)
		return 0;
	if (it->flags & PT_ITEM_SKIPPED)
		return 0;
	return 1;
}

int pt_pmap_cond(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		 const char *key, const char *value)
{
	_cleanup_free_ char *cur = NULL;
	long long want, now;
	int r;

	if ((value[0] != '>' && value[0] != '<') || !value[1])
		return 0;
	r = perftune_get(p->ctx, key, &cur);
	if (r < 0) {
		if (!absent(r) && r != -EACCES && r != -ENOTUNIQ)
			return pt_err_prefix(p->ctx, r, "%s:%d: [%s] %s", o->file, o->line, u->name,
					     o->name);
		if (pt_pitem_add(p, u, o, key, value + 1, PT_ITEM_SKIPPED, "%s",
				 perftune_ctx_last_error(p->ctx)))
			return 1;
		return -ENOMEM;
	}
	if (pt_parse_ll(value + 1, &want) < 0 || pt_parse_ll(cur, &now) < 0) {
		if (pt_pitem_add(p, u, o, key, value + 1, PT_ITEM_SKIPPED,
				 "cannot compare '%s' with the current value '%s'", value, cur))
			return 1;
		return -ENOMEM;
	}
	if ((value[0] == '>' && want > now) || (value[0] != '>' && want < now)) {
		r = pt_pmap_key(p, u, o, key, value + 1, false, NULL);
		if (r < 0)
			return r;
		return 1;
	}
	if (pt_pitem_add(p, u, o, key, cur, PT_ITEM_UNCHANGED,
			 "the current value %lld is already %s %lld", now,
			 value[0] == '>' ? ">=" : "<=", want))
		return 1;
	return -ENOMEM;
}

/* @path is relative to the root ("sys/..."): the sysfs[] key confines it */
int pt_pmap_sysfs(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		  const char *path, const char *in)
{
	char key[PERFTUNE_KEY_MAX], value[PT_VAL];
	int r;

	if (strlen(in) >= sizeof(value)) { /* never a value cut short */
		pt_pitem_skip(p, u, o, "/%s: the value is %zu bytes, more than %zu", path,
			      strlen(in), sizeof(value) - 1);
		return 0;
	}
	pt_cpumask_width(p->ctx, path, in, value, sizeof(value));

	if (pt_snprintf(key, sizeof(key), "sysfs[/%s]", path) < 0) {
		pt_pitem_skip(p, u, o, "/%s: path too long", path);
		return 0;
	}
	r = pt_pmap_cond(p, u, o, key, value);
	if (r)
		return r;
	return pt_pmap_key(p, u, o, key, value, false, NULL);
}

struct pt_popt pt_unit_attr(const struct pt_punit *u, const char *attr, const char *value,
			    char *name, size_t size)
{
	snprintf(name, size, "[%s] %s", u->name, attr);
	return (struct pt_popt){ name, (char *)value, u->file, u->line };
}
