// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Key components from kernel names.  A key is components joined by dots; a
 * plain component uses the key alphabet (letters, digits and "_-:,+@"), and
 * '*' '?' make it a glob.  Kernel names may hold anything else (the haltpoll
 * driver's idle state "haltpoll idle", "eth0.100", "cciss!c0d0", an interface
 * named "x*" or "v=1"), so every family that builds a key from a kernel name
 * goes through here, and `list` only prints keys that `get` parses back into
 * the same name.  Two forms, documented in perftune(8) and doc/design.md:
 *  - PT_KEYFORM_BRACKET for names that are file names looked up as written
 *    (sysctl directories, block and network devices): "[eth0.100]", a literal
 *    name, never a glob ("[x*]" is the one directory named x*); '\', '[',
 *    ']' and '=' are escaped with '\', a byte outside printable ASCII is
 *    "\xHH" (key.c undoes both);
 *  - PT_KEYFORM_MAP for names that are not paths (idle states are found by
 *    their "name" file): every character outside the alphabet becomes '_'.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "shared/keyname.h"
#include "shared/util.h"

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

/* "[name]", escaped as key.c reads it back: 1, or -ENAMETOOLONG */
static int bracket(char *out, size_t size, const char *name)
{
	size_t o = 1;

	if (size < 3)
		return -ENAMETOOLONG;
	out[0] = '[';
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		char e[8];
		size_t n;
		if (*c < 0x20 || *c > 0x7e)
			n = (size_t)snprintf(e, sizeof(e), "\\x%02x", *c);
		else
			n = (size_t)snprintf(e, sizeof(e), "%s%c", strchr("\\[]=", *c) ? "\\" : "",
					     *c);
		if (o + n + 2 > size)
			return -ENAMETOOLONG;
		memcpy(out + o, e, n);
		o += n;
	}
	out[o++] = ']';
	out[o] = '\0';
	return 1;
}

int pt_key_comp(char *out, size_t size, const char *name, enum pt_keyform form)
{
	size_t n = strlen(name), i;

	if (pt_key_plain(name)) {
		if (pt_snprintf(out, size, "%s", name) < 0)
			return -ENAMETOOLONG;
		return 0;
	}
	if (form == PT_KEYFORM_BRACKET) {
		if (n)
			return bracket(out, size, name);
		return -EINVAL;
	}
	if (n + 1 > size || !n) {
		if (n)
			return -ENAMETOOLONG;
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		out[i] = pt_key_char(name[i]) ? name[i] : '_';
	out[n] = '\0';
	return 1;
}

int pt_key_dev(char *out, size_t size, const char *family, const char *name)
{
	char c[PERFTUNE_KEY_MAX];
	int r = pt_key_comp(c, sizeof(c), name, PT_KEYFORM_BRACKET);

	if (r < 0)
		return r;
	if (pt_snprintf(out, size, "%s%s%s", family, r ? "" : ".", c) < 0)
		return -ENAMETOOLONG;
	return 0;
}
