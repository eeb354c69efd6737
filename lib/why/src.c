// SPDX-License-Identifier: LGPL-2.1-or-later
/* The list of sources that the scanners fill and why.c orders: below them all. */
#include <stdio.h>
#include <string.h>
#include "why-internal.h"

static const char *const kind_names[PT_SRC_KINDS] = {
	[PT_SRC_CMDLINE] = "cmdline", [PT_SRC_SYSCTL] = "sysctl.d", [PT_SRC_UDEV] = "udev",
	[PT_SRC_TUNED] = "tuned",     [PT_SRC_DAEMON] = "daemon",   [PT_SRC_TX] = "transaction",
};

const char *pt_src_kind_name(enum pt_src_kind kind)
{
	return kind < PT_SRC_KINDS ? kind_names[kind] : "?";
}

struct pt_src *pt_src_add(struct pt_srcs *v, enum pt_src_kind kind, const struct pt_tunable *t)
{
	struct pt_src *s;

	if (pt_grow(&v->s, &v->cap, v->n + 1, 8) < 0)
		return NULL;
	s = &v->s[v->n++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	snprintf(s->key, sizeof(s->key), "%s", t->key);
	return s;
}
