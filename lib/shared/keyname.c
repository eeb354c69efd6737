// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Key components from kernel names.  A key is components joined by dots; a
 * plain component uses the key alphabet (letters, digits and "_-:,+@"), and
 * '*' '?' make it a glob.  Kernel names may hold anything else (the haltpoll
 * driver's idle state "haltpoll idle", "eth0.100", "cciss!c0d0"), so every
 * family that builds a key from a kernel name goes through here, and `list`
 * only prints keys that `get` parses.  Two forms, documented in perftune(8):
 *  - PT_KEYFORM_BRACKET for names that are file names looked up as written
 *    (sysctl directories, block devices): "[eth0.100]";
 *  - PT_KEYFORM_MAP for names that are not paths (idle states are found by
 *    their "name" file): every character outside the alphabet becomes '_'.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include "internal.h"

bool pt_key_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("_-:,+@", c));
}

bool pt_key_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!pt_key_char(*s))
			return false;
	return true;
}

int pt_key_comp(char *out, size_t size, const char *name, enum pt_keyform form)
{
	size_t n = strlen(name), i;

	if (pt_key_plain(name))
		return pt_snprintf(out, size, "%s", name) < 0 ? -ENAMETOOLONG : 0;
	if (form == PT_KEYFORM_BRACKET) {
		for (i = 0; i < n; i++)
			if (!isprint((unsigned char)name[i]) || strchr("[]", name[i]))
				return -EINVAL; /* no key can name it */
		if (!n)
			return -EINVAL;
		return pt_snprintf(out, size, "[%s]", name) < 0 ? -ENAMETOOLONG : 1;
	}
	if (n + 1 > size || !n)
		return n ? -ENAMETOOLONG : -EINVAL;
	for (i = 0; i < n; i++)
		out[i] = pt_key_char(name[i]) ? name[i] : '_';
	out[n] = '\0';
	return 1;
}
