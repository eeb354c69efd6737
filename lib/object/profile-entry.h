/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A profile perftune_profile_list() finds, as profile.c fills it. */
#ifndef PERFTUNE_OBJECT_PROFILE_ENTRY_H
#define PERFTUNE_OBJECT_PROFILE_ENTRY_H

struct perftune_profile_entry {
	const char *name;
	const char *path;	     /* of its tuned.conf */
	const char *summary;	     /* its [main] summary=, or NULL */
	const char *error;	     /* why it cannot be read; NULL or "": it can */
	const char *variables;	     /* the ${name}s it uses, space-separated, or NULL */
	const char *unset_variables; /* those defined nowhere, or NULL */
};

struct perftune_profile_entry_iter *pt_profile_entry_iter_new(void);
/* Append a copy of @e, its strings too: 0 or -ENOMEM. */
int pt_profile_entry_iter_add(struct perftune_profile_entry_iter *it,
			      const struct perftune_profile_entry *e);

#endif
