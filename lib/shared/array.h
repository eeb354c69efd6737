/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* array.c: growable arrays, string vectors. */
#ifndef PERFTUNE_SHARED_ARRAY_H
#define PERFTUNE_SHARED_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Room for @need elements in the array *@v of *@cap allocated ones: it grows by
 * doubling, from @first.  0, or -ENOMEM with *@v and *@cap unchanged.
 */
int pt_grow_(void **v, size_t *cap, size_t need, size_t size, size_t first);
#define pt_grow(v, cap, need, first) pt_grow_((void **)(v), (cap), (need), sizeof(**(v)), (first))
/* a copy of @s, NULL for NULL; a failed copy sets *@oom (many copies, one check) */
char *pt_strdup_or_null(const char *s, bool *oom);
/*
 * Append a copy of @s to the NULL-terminated vector *@v of *@n strings: the
 * copy, or NULL when out of memory (the vector is then still terminated).
 */
char *pt_strv_add(char ***v, size_t *n, const char *s);
void pt_strv_free(char **v); /* each string and the vector; NULL is fine */
static inline void pt_strv_freep(char ***v)
{
	pt_strv_free(*v);
}
/* free() each of the pointers given */
#define pt_free_all(...)                                                                           \
	pt_free_v((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))
void pt_free_v(void *const *p, size_t n);

#endif
