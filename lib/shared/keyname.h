/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keyname.c: key components from kernel names (perftune(8) KEYS). */
#ifndef PERFTUNE_SHARED_KEYNAME_H
#define PERFTUNE_SHARED_KEYNAME_H

#include <stdbool.h>
#include <stddef.h>

enum pt_keyform {
	PT_KEYFORM_BRACKET, /* a name looked up as written: "[eth0.100]", "[x*]", "[v\=1]" */
	PT_KEYFORM_MAP,	    /* a name matched by content: "haltpoll idle" -> "haltpoll_idle" */
};
bool pt_key_char(char c);	  /* in the alphabet of a plain component (no glob) */
bool pt_key_plain(const char *s); /* non-empty, only pt_key_char() */
/* @name as a key component in @out: 0 as is, 1 bracketed (escaped) or mapped, -EINVAL empty */
int pt_key_comp(char *out, size_t size, const char *name, enum pt_keyform form);
/* "@family.@name" or "@family[@name]" (PT_KEYFORM_BRACKET) in @out: 0, -ENAMETOOLONG, -EINVAL */
int pt_key_dev(char *out, size_t size, const char *family, const char *name);

#endif
