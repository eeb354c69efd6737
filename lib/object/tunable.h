/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A tunable of perftune_list() and perftune_get_each(), as lookup.c fills it. */
#ifndef PERFTUNE_OBJECT_TUNABLE_H
#define PERFTUNE_OBJECT_TUNABLE_H

struct perftune_tunable {
	const char *key;   /* the concrete key */
	const char *value; /* NULL: it cannot be read */
	const char *note;  /* a remark, or why there is no value; NULL or "": none */
	unsigned flags;	   /* PERFTUNE_TUNABLE_*; other bits are dropped */
};

struct perftune_tunable_iter *pt_tunable_iter_new(void);
/* Append a copy of @t, its strings too: 0 or -ENOMEM. */
int pt_tunable_iter_add(struct perftune_tunable_iter *it, const struct perftune_tunable *t);
/* Put the tunables in key order, numbers by value ("cpu.2" before "cpu.10"). */
void pt_tunable_iter_sort(struct perftune_tunable_iter *it);

#endif
