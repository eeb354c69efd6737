// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The data of a parsed profile: options in order (a later one replaces an
 * earlier one in place, as ConfigParser and TuneD's merger do), sections with
 * TuneD's unit attributes split off, the merge of an include chain.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "profile-internal.h"

struct pt_popt *pt_popt_find(struct pt_popt *o, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(o[i].name, name))
			return &o[i];
	return NULL;
}

int pt_popt_set(struct pt_popt **o, size_t *n, const struct pt_popt *src)
{
	struct pt_popt *old = pt_popt_find(*o, *n, src->name), *v;
	char *name = strdup(src->name), *value = strdup(src->value);

	if (!name || !value) {
		free(name);
		free(value);
		return -ENOMEM;
	}
	if (old) {
		free(old->name);
		free(old->value);
		*old = (struct pt_popt){ name, value, src->file, src->line };
		return 0;
	}
	v = realloc(*o, (*n + 1) * sizeof(**o));
	if (!v) {
		free(name);
		free(value);
		return -ENOMEM;
	}
	*o = v;
	v[(*n)++] = (struct pt_popt){ name, value, src->file, src->line };
	return 0;
}

void pt_popt_del(struct pt_popt *o, size_t *n, const char *name)
{
	struct pt_popt *x = pt_popt_find(o, *n, name);

	if (!x)
		return;
	free(x->name);
	free(x->value);
	memmove(x, x + 1, (size_t)(o + *n - (x + 1)) * sizeof(*x));
	(*n)--;
}

static void popts_free(struct pt_popt *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(o[i].name);
		free(o[i].value);
	}
	free(o);
}

void pt_punit_free(struct pt_punit *u)
{
	char **strs[] = { &u->name,	   &u->type,	   &u->devices,
			  &u->drop,	   &u->udev_regex, &u->cpuinfo_regex,
			  &u->uname_regex, &u->script_pre, &u->script_post };

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		free(*strs[i]);
	popts_free(u->opt, u->n);
	memset(u, 0, sizeof(*u));
}

void pt_pconf_free(struct pt_pconf *c)
{
	popts_free(c->main, c->nmain);
	for (size_t i = 0; i < c->n; i++)
		pt_punit_free(&c->u[i]);
	free(c->u);
	memset(c, 0, sizeof(*c));
}

static void take(char **dst, char **src)
{
	free(*dst);
	*dst = *src;
	*src = NULL;
}

static int merge_unit(struct pt_punit *a, struct pt_punit *b)
{
	int r = 0;

	take(&a->type, &b->type);
	take(&a->devices, &b->devices);
	a->enabled = b->enabled;
	if (b->udev_regex)
		take(&a->udev_regex, &b->udev_regex);
	if (b->cpuinfo_regex)
		take(&a->cpuinfo_regex, &b->cpuinfo_regex);
	if (b->uname_regex)
		take(&a->uname_regex, &b->uname_regex);
	if (b->script_pre)
		take(&a->script_pre, &b->script_pre);
	if (b->script_post)
		take(&a->script_post, &b->script_post);
	if (b->drop) { /* TuneD's Unit: re.split(r"\b\s*[,;]\s*", drop) */
		_cleanup_(pt_strv_freep) char **names = pt_regex_split("\\b\\s*[,;]\\s*", b->drop);
		if (!names)
			return -ENOMEM;
		for (size_t i = 0; names[i]; i++)
			pt_popt_del(a->opt, &a->n, names[i]);
	}
	for (size_t i = 0; i < b->n && r >= 0; i++)
		r = pt_popt_set(&a->opt, &a->n, &b->opt[i]);
	pt_punit_free(b);
	return r;
}

/* Merge file @b into @p as TuneD's Merger does (later files override). */
int pt_profile_merge(struct perftune_profile *p, struct pt_pconf *b)
{
	int r = 0;

	for (size_t i = 0; i < b->nmain && r >= 0; i++)
		r = pt_popt_set(&p->main, &p->nmain, &b->main[i]);
	for (size_t i = 0; i < b->n && r >= 0; i++) {
		struct pt_punit *a = NULL, *v;
		for (size_t k = 0; k < p->n; k++)
			if (!strcmp(p->u[k].name, b->u[i].name))
				a = &p->u[k];
		if (a && !b->u[i].replace) {
			r = merge_unit(a, &b->u[i]);
			continue;
		}
		if (a) { /* replace=true: the whole section, in the old one's place */
			pt_punit_free(a);
			*a = b->u[i];
		} else {
			if (!(v = realloc(p->u, (p->n + 1) * sizeof(*v))))
				return -ENOMEM;
			p->u = v;
			v[p->n++] = b->u[i];
		}
		memset(&b->u[i], 0, sizeof(b->u[i]));
	}
	return r;
}

bool pt_is_true(const char *v)
{
	return v && (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
		     !strcasecmp(v, "y") || !strcasecmp(v, "on"));
}

/* TuneD's Unit() takes exactly these as true for enabled= and replace= */
static bool tuned_true(const char *v)
{
	return !strcmp(v, "True") || !strcmp(v, "true") || !strcmp(v, "1");
}

/* TuneD's Unit(): these options describe the unit, they are not plugin options */
int pt_unit_extract(struct pt_punit *u)
{
	static const char *const attrs[] = { "type",	      "devices",
					     "drop",	      "devices_udev_regex",
					     "cpuinfo_regex", "uname_regex",
					     "script_pre",    "script_post" };
	char **dst[] = { &u->type,	    &u->devices,     &u->drop,	     &u->udev_regex,
			 &u->cpuinfo_regex, &u->uname_regex, &u->script_pre, &u->script_post };
	struct pt_popt *o;

	u->enabled = true;
	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++) {
		o = pt_popt_find(u->opt, u->n, attrs[i]);
		if (!o)
			continue;
		*dst[i] = strdup(o->value);
		if (!*dst[i])
			return -ENOMEM;
		pt_popt_del(u->opt, &u->n, attrs[i]);
	}
	if ((o = pt_popt_find(u->opt, u->n, "enabled"))) {
		u->enabled = tuned_true(o->value);
		pt_popt_del(u->opt, &u->n, "enabled");
	}
	if ((o = pt_popt_find(u->opt, u->n, "replace"))) {
		u->replace = tuned_true(o->value);
		pt_popt_del(u->opt, &u->n, "replace");
	}
	if (!u->type && !(u->type = strdup(u->name)))
		return -ENOMEM;
	if (!u->devices && !(u->devices = strdup("*")))
		return -ENOMEM;
	return 0;
}
