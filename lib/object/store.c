// SPDX-License-Identifier: LGPL-2.1-or-later
/* The store behind the typed iterators: objects in one allocation each, in order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "shared/array.h"
#include "object/store.h"

/* the string the field at byte @off of @obj points to */
static const char *field(const void *obj, size_t off)
{
	const char *const *f = (const void *)((const char *)obj + off);

	return *f;
}

void *pt_store_copy(const void *obj, size_t size, const size_t *strings, size_t n)
{
	size_t total = size;
	char *copy, *at;

	for (size_t i = 0; i < n; i++)
		if (field(obj, strings[i]))
			total += strlen(field(obj, strings[i])) + 1;
	copy = malloc(total);
	if (!copy)
		return NULL;
	memcpy(copy, obj, size);
	at = copy + size;
	for (size_t i = 0; i < n; i++) {
		const char **f = (void *)(copy + strings[i]);
		size_t len;

		if (!*f)
			continue;
		len = strlen(*f) + 1;
		memcpy(at, *f, len);
		*f = at;
		at += len;
	}
	return copy;
}

int pt_store_add(struct pt_store *s, void *obj)
{
	if (!obj)
		return -ENOMEM;
	if (pt_grow(&s->obj, &s->cap, s->n + 1, 64) < 0) {
		free(obj);
		return -ENOMEM;
	}
	s->obj[s->n++] = obj;
	return 0;
}

const void *pt_store_next(struct pt_store *s)
{
	if (s->pos == s->n)
		return NULL;
	return s->obj[s->pos++];
}

void pt_store_sort(struct pt_store *s, int (*cmp)(const void *a, const void *b))
{
	if (s->n)
		qsort(s->obj, s->n, sizeof(*s->obj), cmp);
}

void pt_store_clear(struct pt_store *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->obj[i]);
	free(s->obj);
	*s = (struct pt_store){ 0 };
}
