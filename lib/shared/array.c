// SPDX-License-Identifier: LGPL-2.1-or-later
/* Growable arrays and NULL-terminated string vectors, written once for every file. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "shared/array.h"

int pt_grow_(void **v, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap = *cap ? *cap : first;
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	/* said here, not by reallocarray(): ASan aborts on an overflowing count */
	if (size && ncap > SIZE_MAX / size)
		return -ENOMEM;
	nv = reallocarray(*v, ncap, size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

char *pt_strdup_or_null(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;

	*oom |= s && !d;
	return d;
}

char *pt_strv_add(char ***v, size_t *n, const char *s)
{
	char **nv = reallocarray(*v, *n + 2, sizeof(*nv));

	if (!nv)
		return NULL;
	*v = nv;
	if (!(nv[*n] = strdup(s)))
		return NULL; /* still terminated: nv[*n] is the NULL */
	nv[++*n] = NULL;
	return nv[*n - 1];
}

void pt_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void pt_free_v(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}
