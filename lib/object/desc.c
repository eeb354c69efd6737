// SPDX-License-Identifier: LGPL-2.1-or-later
/* struct perftune_desc: the description of one tunable (perftune_describe()). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "core/key.h"
#include "object/desc.h"
#include "family/family.h"

struct perftune_desc {
	char *key, *path, *value, *choices, *unit, *reason, *info;
	char *unreadable; /* why value is NULL */
	bool has_range, writable;
	long long min, max;
};

/* *@dst becomes a copy of @src (NULL: none); out of memory, none */
static void set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = NULL;
	if (src)
		*dst = strdup(src);
}

/* @path as the kernel's absolute path ("/sys/..."); NULL when out of memory */
static char *absolute(const char *path)
{
	char *abs;

	if (path[0] == '/')
		return strdup(path);
	abs = malloc(strlen(path) + 2);
	if (abs) {
		abs[0] = '/';
		strcpy(abs + 1, path);
	}
	return abs;
}

struct perftune_desc *pt_desc_new(const struct pt_tunable *t)
{
	struct perftune_desc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	set_str(&d->key, t->key);
	if (t->path[0])
		d->path = absolute(t->path);
	if (t->note[0])
		pt_desc_add_info(d, "%s", t->note);
	return d;
}

void pt_desc_set_value(struct perftune_desc *d, const char *v)
{
	set_str(&d->value, v);
}

void pt_desc_set_unreadable(struct perftune_desc *d, const char *why)
{
	set_str(&d->value, NULL);
	set_str(&d->unreadable, why);
}

void pt_desc_set_choices(struct perftune_desc *d, const char *c)
{
	set_str(&d->choices, c);
}

void pt_desc_set_unit(struct perftune_desc *d, const char *u)
{
	set_str(&d->unit, u);
}

void pt_desc_set_range(struct perftune_desc *d, long long min, long long max)
{
	d->has_range = true;
	d->min = min;
	d->max = max;
}

/* @reason: why not, kept only when not writable */
void pt_desc_set_writable(struct perftune_desc *d, bool w, const char *reason)
{
	d->writable = w;
	if (w)
		reason = NULL;
	set_str(&d->reason, reason);
}

int pt_desc_read_writable(struct perftune_ctx *ctx, const struct pt_tunable *t,
			  struct perftune_desc *d)
{
	const struct pt_family *fam = t->fam;
	char v[PT_VAL];
	int r = fam->read(ctx, t, v, sizeof(v));

	if (r < 0)
		return r;
	pt_desc_set_value(d, v);
	pt_desc_set_writable(d, true, NULL);
	return 0;
}

/* one more line of info, after a "; " */
void pt_desc_add_info(struct perftune_desc *d, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	size_t old = 0;
	char *n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (d->info)
		old = strlen(d->info);
	n = realloc(d->info, old + strlen(line) + 3);
	if (!n)
		return;
	if (old) {
		strcpy(n + old, "; ");
		old += 2;
	}
	strcpy(n + old, line);
	d->info = n;
}

PERFTUNE_EXPORT const char *perftune_desc_key(const struct perftune_desc *d)
{
	if (!d)
		return NULL;
	return d->key;
}

PERFTUNE_EXPORT const char *perftune_desc_value(const struct perftune_desc *d)
{
	if (!d)
		return NULL;
	return d->value;
}

PERFTUNE_EXPORT const char *perftune_desc_path(const struct perftune_desc *d)
{
	if (!d)
		return NULL;
	return d->path;
}

PERFTUNE_EXPORT const char *perftune_desc_choices(const struct perftune_desc *d)
{
	if (!d)
		return NULL;
	return d->choices;
}

PERFTUNE_EXPORT const char *perftune_desc_unit(const struct perftune_desc *d)
{
	if (!d)
		return NULL;
	return d->unit;
}

PERFTUNE_EXPORT const char *perftune_desc_reason(const struct perftune_desc *d)
{
	if (!d)
		return NULL;
	return d->reason;
}

PERFTUNE_EXPORT const char *perftune_desc_info(const struct perftune_desc *d)
{
	if (!d)
		return NULL;
	return d->info;
}

PERFTUNE_EXPORT const char *perftune_desc_unreadable(const struct perftune_desc *d)
{
	if (!d)
		return NULL;
	return d->unreadable;
}

PERFTUNE_EXPORT bool perftune_desc_writable(const struct perftune_desc *d)
{
	return d && d->writable;
}

PERFTUNE_EXPORT bool perftune_desc_range(const struct perftune_desc *d, long long *min,
					 long long *max)
{
	if (!d || !d->has_range)
		return false;
	if (min)
		*min = d->min;
	if (max)
		*max = d->max;
	return true;
}

PERFTUNE_EXPORT void perftune_desc_free(struct perftune_desc *d)
{
	if (!d)
		return;
	pt_free_all(d->key, d->path, d->value, d->choices, d->unit, d->reason, d->info,
		    d->unreadable, d);
}
