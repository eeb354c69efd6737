// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Export: the values of a journaled transaction or of a profile, written in
 * the formats that make them persist without perftune: a sysctl.d file, udev
 * rules for block queue attributes, a kernel command line fragment (huge
 * pages and THP must be there to be reliable), or a TuneD profile.
 * Keys a format cannot carry, and profile options this machine skipped, are
 * said so in comments (and keys in the log).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/buf.h"
#include "core/ctx.h"
#include "core/log.h"
#include "object/status.h"
#include "profile/profile-internal.h"
#include "xlist.h"

static int export_format_impl(const char *name)
{
	static const char *const names[] = { "sysctl", "udev", "cmdline", "tuned" };

	for (size_t i = 0; name && i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -EINVAL;
}

PERFTUNE_EXPORT int perftune_export_format_from_name(const char *name,
						     enum perftune_export_format *formatp)
{
	int r = export_format_impl(name);

	if (r < 0 || !formatp)
		return -EINVAL;
	*formatp = (enum perftune_export_format)r;
	return 0;
}

static int render(struct perftune_ctx *ctx, const struct xlist *l, int format, char **text)
{
	static int (*const formats[])(struct perftune_ctx *, const struct xlist *,
				      struct pt_buf *) = {
		[PERFTUNE_EXPORT_SYSCTL] = pt_export_sysctl,
		[PERFTUNE_EXPORT_UDEV] = pt_export_udev,
		[PERFTUNE_EXPORT_CMDLINE] = pt_export_cmdline,
		[PERFTUNE_EXPORT_TUNED] = pt_export_tuned,
	};
	struct pt_buf b = { 0 };
	int n;

	if (format < 0 || (size_t)format >= ARRAY_SIZE(formats))
		return pt_err(ctx, -EINVAL, "unknown export format %d", format);
	n = formats[format](ctx, l, &b);
	*text = pt_buf_steal(&b);
	if (n < 0 || !*text) {
		free(*text);
		*text = NULL;
		if (n < 0)
			return n;
		return -ENOMEM;
	}
	return n;
}

/*
 * A written key of a transaction, under the name its object goes by now (a
 * NIC renamed since: its new name, as restore finds it by its ifindex); an
 * object gone for good (another device has its name) is left out, saying so
 */
static int add_entry(struct perftune_ctx *ctx, struct xlist *l,
		     const struct perftune_status_entry *e)
{
	const char *key = perftune_status_entry_key(e), *v = perftune_status_entry_written(e);
	const char *why = perftune_status_entry_note(e);
	size_t n = strlen(key);

	if (!v || !*key)
		return 0;
	if (perftune_status_entry_flags(e) & PERFTUNE_STATUS_GONE) {
		if (why && !strncmp(why, key, n) && !strncmp(why + n, ": ", 2))
			why += n + 2; /* the key is said once */
		return pt_xlist_skip(l, key, v, why);
	}
	return pt_xlist_add(ctx, l, pt_status_entry_key_now(e), v, NULL);
}

static int export_transaction_impl(struct perftune_ctx *ctx, const char *name, int format,
				   char **text)
{
	struct xlist l = { 0 };
	struct perftune_status_iter *it = NULL;
	const struct perftune_status_entry *e;
	bool found = false;
	int r;

	if (!ctx || !name || !text)
		return -EINVAL;
	pt_lock(ctx); /* the journals stay as they are read till the text is made */
	r = perftune_status(ctx, &it); /* clears the message; leaves @it NULL on failure */
	while (r >= 0 && (e = perftune_status_iter_next(it))) {
		if (strcmp(perftune_status_entry_tx_name(e), name))
			continue;
		found = true;
		r = add_entry(ctx, &l, e);
	}
	perftune_status_iter_free(it); /* accepts NULL */
	if (r >= 0 && !found)
		r = pt_err(ctx, -ENOENT, "no journaled transaction '%s' in %s", name,
			   perftune_ctx_get_journal_dir(ctx));
	if (r >= 0 && asprintf(&l.title, "transaction '%s'", name) < 0)
		r = -ENOMEM;
	if (r >= 0)
		r = render(ctx, &l, format, text);
	pt_xlist_free(&l);
	pt_unlock(ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_export_transaction(struct perftune_ctx *ctx, const char *name,
						enum perftune_export_format format, char **text)
{
	return pt_api_ret(export_transaction_impl(ctx, name, format, text));
}

static int export_profile_impl(struct perftune_profile *p, int format, char **text)
{
	struct xlist l = { 0 };
	int r = 0;

	if (!p || !text)
		return -EINVAL;
	pt_lock(p->ctx);
	pt_err_clear(p->ctx);
	for (size_t i = 0; i < p->nitems && r >= 0; i++) {
		const struct pt_pitem *x = &p->items[i];
		/* UNCHANGED: a ">N" condition this machine meets: nothing to persist */
		if (x->flags & PT_ITEM_SKIPPED)
			r = pt_xlist_skip(&l, x->option, x->raw, x->note);
		else if (!(x->flags & PT_ITEM_UNCHANGED) && x->key && x->value)
			r = pt_xlist_add(p->ctx, &l, x->key, x->value, x->udev_match);
	}
	if (r >= 0 && asprintf(&l.title, "profile '%s' (%s)", p->name, p->path) < 0)
		r = -ENOMEM;
	if (r >= 0 && p->summary && !(l.summary = strdup(p->summary)))
		r = -ENOMEM;
	if (r >= 0)
		r = render(p->ctx, &l, format, text);
	pt_xlist_free(&l);
	pt_unlock(p->ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_export_profile(struct perftune_profile *p,
					    enum perftune_export_format format, char **text)
{
	return pt_api_ret(export_profile_impl(p, format, text));
}

static int export_named_impl(struct perftune_ctx *ctx, const char *name, const char *const *vars,
			     enum perftune_export_format format, unsigned flags, char **text)
{
	struct perftune_profile *p = NULL;
	int r = -ENOENT;

	if (!ctx || !name || !text || !pt_named_flags_ok(flags))
		return -EINVAL;
	*text = NULL;
	if (pt_named_tx_first(name, flags))
		r = perftune_export_transaction(ctx, name, format, text);
	if (r != -ENOENT || (flags & PERFTUNE_NAMED_TRANSACTION))
		return r;
	r = perftune_profile_load(ctx, name, vars, &p);
	if (r >= 0)
		r = perftune_export_profile(p, format, text);
	perftune_profile_free(p);
	return r;
}

PERFTUNE_EXPORT int perftune_export_named(struct perftune_ctx *ctx, const char *name,
					  const char *const *vars,
					  enum perftune_export_format format, unsigned flags,
					  char **text)
{
	return pt_api_ret(export_named_impl(ctx, name, vars, format, flags, text));
}
