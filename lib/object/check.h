/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What perftune_verify*() found for one setting, as why/verify.c fills it. */
#ifndef PERFTUNE_OBJECT_CHECK_H
#define PERFTUNE_OBJECT_CHECK_H

struct perftune_check {
	const char *key;      /* the concrete key, or the profile's option when it maps to none */
	const char *expected; /* the value expected */
	const char *current;  /* the value now; NULL: not here, skipped */
	const char *reason;   /* why not in force, not here or skipped; NULL or "": none */
	const char *origin;   /* where the expectation comes from: "file:line", a transaction */
	int status;	      /* a PERFTUNE_CHECK_* value */
};

struct perftune_check_iter *pt_check_iter_new(void);
/* Append a copy of @c, its strings too: 0 or -ENOMEM. */
int pt_check_iter_add(struct perftune_check_iter *it, const struct perftune_check *c);

#endif
