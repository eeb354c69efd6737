/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a typed iterator of perftune.h holds: its objects in order, each one
 * allocation (the object's struct and the strings it points to), handed out
 * by its _next() until the end.  Each object's file wraps a store in its own
 * iterator type.
 */
#ifndef PERFTUNE_OBJECT_STORE_H
#define PERFTUNE_OBJECT_STORE_H

#include <stddef.h>

struct pt_store {
	void **obj;
	size_t n, cap;
	size_t pos; /* the index of the object the next pt_store_next() returns */
};

/*
 * A copy of the object @obj of @size bytes, with copies of the strings its
 * fields at the @n byte offsets @strings point to (NULL stays NULL), in one
 * allocation that free() frees.  NULL when out of memory.
 */
void *pt_store_copy(const void *obj, size_t size, const size_t *strings, size_t n);
/* Append @obj (of pt_store_copy(); NULL: it failed), which @s owns now: 0 or -ENOMEM. */
int pt_store_add(struct pt_store *s, void *obj);
/* The next object, or NULL at the end. */
const void *pt_store_next(struct pt_store *s);
/* Sort the objects; @cmp is qsort()'s, given pointers to two object pointers. */
void pt_store_sort(struct pt_store *s, int (*cmp)(const void *a, const void *b));
/* Free the objects; @s itself is the caller's. */
void pt_store_clear(struct pt_store *s);

/* @s, or NULL for "": a note the producer left empty is no note */
static inline const char *pt_store_note(const char *s)
{
	if (s && !s[0])
		return NULL;
	return s;
}

#endif
