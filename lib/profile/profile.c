// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Profiles, the public side: load a TuneD-format profile by name or path,
 * list what it maps to, stage it into a transaction, list the profiles on
 * the search path.  The work is done in profile-*.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/dlopen.h"
#include "shared/util.h"
#include "core/ctx.h"
#include "core/log.h"
#include "object/profile-entry.h"
#include "object/profile-item.h"
#include "engine/watch.h"
#include "profile-internal.h"

static char **strv_dup(const char *const *v)
{
	size_t n = 0;
	char **d;

	while (v && v[n])
		n++;
	d = calloc(n + 1, sizeof(*d));
	for (size_t i = 0; d && i < n; i++)
		if (!(d[i] = strdup(v[i]))) {
			pt_strv_free(d);
			return NULL;
		}
	return d;
}

PERFTUNE_EXPORT void perftune_profile_free(struct perftune_profile *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_SEQ_CST) > 0)
		return;
	pt_pitems_free(p);
	perftune_tx_unref(p->check);
	pt_vars_free(p->vars);
	pt_strv_free(p->overrides);
	pt_strv_free(p->file_vars);
	pt_free_all(p->vars_file, p->vars_hint);
	for (size_t i = 0; i < p->nmain; i++) {
		free(p->main[i].name);
		free(p->main[i].value);
	}
	free(p->main);
	for (size_t i = 0; i < p->n; i++)
		pt_punit_free(&p->u[i]);
	free(p->u);
	pt_strv_free(p->files);
	pt_free_all(p->name, p->path, p->summary, p->description, p->txname);
	perftune_ctx_unref(p->ctx);
	free(p);
}

static int profile_load_impl(struct perftune_ctx *ctx, const char *name_or_path,
			     const char *const *vars, struct perftune_profile **pp)
{
	struct perftune_profile *p;
	char what[PATH_MAX];
	int r;

	if (!ctx || !name_or_path || !*name_or_path || !pp)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->refs = 1;
	p->ctx = perftune_ctx_ref(ctx);
	p->overrides = strv_dup(vars);
	pt_lock(ctx);
	pt_err_clear(ctx);
	snprintf(what, sizeof(what), "profile %s", name_or_path);
	r = pt_dl_need(ctx, PT_DL_PCRE2, what); /* include= lists are split with a regex too */
	if (r >= 0 && !p->overrides)
		r = -ENOMEM;
	if (r >= 0)
		r = pt_profile_read(p, name_or_path);
	if (r >= 0 && !strchr(name_or_path, '/')) /* by name: the instance's variables file */
		r = pt_vars_instance(p, name_or_path);
	if (r >= 0)
		r = pt_profile_map(p, 0, NULL);
	if (r < 0 && !perftune_ctx_last_error(ctx)[0])
		pt_err(ctx, r, "profile %s: %s", name_or_path, strerror(-r));
	pt_unlock(ctx);
	if (r < 0) {
		perftune_profile_free(p);
		return r;
	}
	*pp = p;
	return 0;
}

PERFTUNE_EXPORT int perftune_profile_load(struct perftune_ctx *ctx, const char *name_or_path,
					  const char *const *vars, struct perftune_profile **pp)
{
	return pt_api_ret(profile_load_impl(ctx, name_or_path, vars, pp));
}

PERFTUNE_EXPORT const char *perftune_profile_name(struct perftune_profile *p)
{
	if (p)
		return p->name;
	return NULL;
}

PERFTUNE_EXPORT const char *perftune_profile_path(struct perftune_profile *p)
{
	if (p)
		return p->path;
	return NULL;
}

PERFTUNE_EXPORT const char *perftune_profile_summary(struct perftune_profile *p)
{
	if (p)
		return p->summary;
	return NULL;
}

/* @x as its public object: the note of a skipped item is why it is skipped */
static int profile_item(struct perftune_profile_item_iter *it, const struct pt_pitem *x)
{
	struct perftune_profile_item i = { .option = x->option,
					   .value_as_written = x->raw,
					   .key = x->key,
					   .value = x->value,
					   .location = x->origin,
					   .flags = x->flags };

	if (x->flags & PT_ITEM_SKIPPED)
		i.skip_reason = x->note;
	else
		i.note = x->note;
	return pt_profile_item_iter_add(it, &i);
}

static int profile_items_impl(struct perftune_profile *p, struct perftune_profile_item_iter **iterp)
{
	struct perftune_profile_item_iter *it;
	int r = 0;

	if (!p || !iterp)
		return -EINVAL;
	it = pt_profile_item_iter_new();
	if (!it)
		return -ENOMEM;
	for (size_t i = 0; i < p->nitems && r >= 0; i++)
		r = profile_item(it, &p->items[i]);
	if (r < 0) {
		perftune_profile_item_iter_free(it);
		return r;
	}
	*iterp = it;
	return 0;
}

PERFTUNE_EXPORT int perftune_profile_items(struct perftune_profile *p,
					   struct perftune_profile_item_iter **iterp)
{
	return pt_api_ret(profile_items_impl(p, iterp));
}

static int strict_error(struct perftune_profile *p)
{
	for (size_t i = 0; i < p->nitems; i++) {
		const struct pt_pitem *x = &p->items[i];
		if (x->flags & PT_ITEM_SKIPPED)
			return pt_err(p->ctx, -EOPNOTSUPP,
				      "profile %s: %s (%s): skipped (strict): %s", p->name,
				      x->option, x->origin, x->note ? x->note : "no reason");
	}
	return 0;
}

/* a held transaction follows @p for devices added later (engine/watch.c, follow.c) */
static int follow_stage(void *data, struct perftune_tx *sub, const char *subsystem, const char *name)
{
	return pt_profile_stage_device(data, sub, subsystem, name);
}

static void follow_free(void *data)
{
	perftune_profile_free(data);
}

static const struct pt_tx_rules_ops follow_ops = {
	.stage_device = follow_stage,
	.free = follow_free,
};

/*
 * A value or devices= that used a variable nobody defined was skipped: warn,
 * naming the variable, the option and where to set it; with STRICT that is
 * the error, before anything is staged.
 */
static int undefined_vars(struct perftune_profile *p, bool strict)
{
	const char *name, *where, *file = p->vars_file;

	if (!file)
		file = p->vars_hint;
	for (size_t i = 0; (name = pt_vars_undefined(p, i, &where)); i++) {
		char set[PATH_MAX + 256];
		int n = snprintf(set, sizeof(set), "-v %s=VALUE", name);
		if (file && n >= 0 && (size_t)n < sizeof(set))
			snprintf(set + n, sizeof(set) - (size_t)n, " or in %s", file);
		if (strict)
			return pt_err(p->ctx, -EOPNOTSUPP,
				      "profile %s: variable ${%s} is not defined (strict): %s; set it "
				      "with %s",
				      p->name, name, where, set);
		pt_log(p->ctx, PERFTUNE_LOG_WARNING,
		       "profile %s: variable ${%s} is not defined: %s is skipped; set it with %s",
		       p->name, name, where, set);
	}
	return 0;
}

static int profile_stage_impl(struct perftune_profile *p, struct perftune_tx *tx, unsigned flags)
{
	int r, n = 0;

	if (!p || !tx)
		return -EINVAL;
	if (flags & ~(unsigned)(PERFTUNE_PROFILE_STRICT | PERFTUNE_PROFILE_HOLD))
		return pt_err(p->ctx, -EINVAL, "unknown profile flags 0x%x", flags);
	pt_lock(p->ctx);
	pt_err_clear(p->ctx);
	/* map again against the machine as it is now, for this transaction */
	r = pt_profile_map(p, flags & PERFTUNE_PROFILE_HOLD, perftune_tx_name(tx));
	if (r >= 0)
		r = undefined_vars(p, flags & PERFTUNE_PROFILE_STRICT);
	if (r >= 0 && (flags & PERFTUNE_PROFILE_STRICT))
		r = strict_error(p);
	for (size_t i = 0; i < p->nitems && r >= 0; i++) /* fail before staging anything */
		if (p->items[i].unvalidated) {
			r = perftune_tx_set(p->check, p->items[i].key, p->items[i].value);
			if (r < 0)
				pt_err_prefix(p->ctx, r, "%s: %s (%s)", p->name, p->items[i].option,
					      p->items[i].origin);
		}
	for (size_t i = 0; i < p->nitems && r >= 0; i++) {
		const struct pt_pitem *x = &p->items[i];
		if (x->flags & (PT_ITEM_SKIPPED | PT_ITEM_UNCHANGED))
			continue;
		r = perftune_tx_set(tx, x->key, x->value);
		if (r == -ENODEV && !strncmp(x->key, "proc.", 5)) { /* exited since it was mapped */
			pt_log(p->ctx, PERFTUNE_LOG_INFO, "%s: %s", x->option,
			       perftune_ctx_last_error(p->ctx));
			r = 0;
			continue;
		}
		if (r < 0)
			pt_err_prefix(p->ctx, r, "%s: %s (%s)", p->name, x->option, x->origin);
		else
			n += r;
	}
	if (r >= 0) { /* a held one: devices added later, by the same rules */
		__atomic_add_fetch(&p->refs, 1, __ATOMIC_SEQ_CST);
		pt_tx_set_rules(tx, &follow_ops, p);
	}
	pt_unlock(p->ctx);
	if (r < 0)
		return r;
	return n;
}

PERFTUNE_EXPORT int perftune_profile_stage(struct perftune_profile *p, struct perftune_tx *tx,
					   unsigned flags)
{
	return pt_api_ret(profile_stage_impl(p, tx, flags));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The variables profile @name (at @path) uses and those left unset: read with
 * its includes and its variables file, not mapped.  A profile that cannot be
 * read that far gets none (its entry's error is its tuned.conf's own).
 */
static int list_vars(struct perftune_ctx *ctx, const char *name, const char *path, char **used,
		     char **unset)
{
	struct perftune_profile *p = calloc(1, sizeof(*p));
	int r;

	*used = *unset = NULL;
	if (!p)
		return -ENOMEM;
	p->ctx = perftune_ctx_ref(ctx);
	r = pt_profile_read(p, path);
	if (r >= 0)
		r = pt_vars_instance(p, name);
	if (r >= 0)
		r = pt_vars_scan(p, used, unset);
	perftune_profile_free(p);
	pt_err_clear(ctx);
	if (r == -ENOMEM)
		return r;
	return 0;
}

static int list_add(struct perftune_ctx *ctx, struct perftune_profile_entry_iter *it,
		    const char *name, const char *path, bool vars)
{
	_cleanup_free_ char *used = NULL, *unset = NULL;
	struct pt_pconf c;
	struct pt_popt *o;
	struct perftune_profile_entry e = { .name = name, .path = path };
	int r = pt_ini_parse(ctx, path, path, false, &c);

	if (r < 0) {
		e.error = perftune_ctx_last_error(ctx);
		return pt_profile_entry_iter_add(it, &e);
	}
	if ((o = pt_popt_find(c.main, c.nmain, "summary")))
		e.summary = o->value;
	if (vars)
		r = list_vars(ctx, name, path, &used, &unset);
	e.variables = used;
	e.unset_variables = unset;
	if (r >= 0)
		r = pt_profile_entry_iter_add(it, &e);
	pt_pconf_free(&c);
	return r;
}

static int profile_list_impl(struct perftune_ctx *ctx, struct perftune_profile_entry_iter **iterp)
{
	_cleanup_(pt_strv_freep) char **dirs = pt_profile_path();
	char **names = NULL;
	size_t n = 0;
	struct perftune_profile_entry_iter *it;
	bool vars;
	int r = 0;

	if (!ctx || !iterp)
		return -EINVAL;
	if (!dirs || !(it = pt_profile_entry_iter_new()))
		return -ENOMEM;
	for (size_t i = 0; dirs[i] && r >= 0; i++) {
		_cleanup_closedir_ DIR *d = opendir(dirs[i]);
		struct dirent *de;
		while (d && (de = readdir(d)) && r >= 0) {
			char p[PATH_MAX];
			struct stat st;
			bool seen = false;
			if (de->d_name[0] == '.' ||
			    pt_snprintf(p, sizeof(p), "%s/%s/tuned.conf", dirs[i], de->d_name) < 0 ||
			    stat(p, &st) < 0 || !S_ISREG(st.st_mode) ||
			    !pt_profile_trusted(ctx, p, dirs[i]))
				continue;
			for (size_t k = 0; k < n && !seen; k++) /* an earlier directory wins */
				seen = !strncmp(names[k], de->d_name, strlen(de->d_name)) &&
				       names[k][strlen(de->d_name)] == '\n';
			if (seen)
				continue;
			char **v = realloc(names, (n + 1) * sizeof(*v));
			if (!v || asprintf(&v[n], "%s\n%s", de->d_name, p) < 0) {
				if (v)
					names = v;
				r = -ENOMEM;
				break;
			}
			names = v;
			n++;
		}
	}
	/* entries are "name\npath": sorting them sorts by name */
	if (r >= 0 && n)
		qsort(names, n, sizeof(*names), name_cmp);
	pt_lock(ctx);
	/* include= lists are split with a regex: without PCRE2, no variables */
	vars = pt_dl_need(ctx, PT_DL_PCRE2, "list-profiles") >= 0;
	for (size_t i = 0; i < n && r >= 0; i++) {
		char *nl = strchr(names[i], '\n');
		*nl = '\0';
		r = list_add(ctx, it, names[i], nl + 1, vars);
	}
	pt_err_clear(ctx);
	pt_unlock(ctx);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (r < 0) {
		perftune_profile_entry_iter_free(it);
		return r;
	}
	*iterp = it;
	return 0;
}

PERFTUNE_EXPORT int perftune_profile_list(struct perftune_ctx *ctx,
					  struct perftune_profile_entry_iter **iterp)
{
	return pt_api_ret(profile_list_impl(ctx, iterp));
}
