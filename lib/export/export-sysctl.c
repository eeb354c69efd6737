// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Export as a sysctl.d(5) file: the keys whose family names a sysctl.  A name is
 * written so that it means that one sysctl: systemd-sysctl takes "*?[" in a name as a
 * glob (each goes in a bracket of its own, "x[*]"), and a line ends its name at the
 * first '=' (no escape: such a name is left out, with the reason).
 */
#include <string.h>
#include "perftune.h"
#include "shared/buf.h"
#include "core/log.h"
#include "xlist.h"

/* @e's sysctl.d name in @out, or NULL with the reason in *@why */
static const char *sysctl_name(const struct xent *e, char *out, size_t size, const char **why)
{
	*why = "not a sysctl";
	if (!e->nm.sysctl[0])
		return NULL;
	*why = "its name holds '=' (or is too long), which a sysctl.d line cannot name";
	if (strchr(e->nm.sysctl, '=') || pt_glob_literal(e->nm.sysctl, out, size) < 0)
		return NULL;
	return out;
}

int pt_export_sysctl(struct perftune_ctx *ctx, const struct xlist *l, struct pt_buf *b)
{
	char name[4 * PERFTUNE_KEY_MAX];
	const char *why;
	int n = 0;

	pt_export_header(b, l,
			 "Install as /etc/sysctl.d/60-perftune.conf, or load with sysctl -p FILE.");
	for (size_t i = 0; i < l->n; i++)
		if (sysctl_name(&l->e[i], name, sizeof(name), &why)) {
			pt_buf_printf(b, "%s = %s\n", name, l->e[i].value);
			n++;
		}
	for (size_t i = 0; i < l->n; i++)
		if (!sysctl_name(&l->e[i], name, sizeof(name), &why)) {
			pt_buf_printf(b, "# %s: %s = %s\n", why, l->e[i].key, l->e[i].value);
			pt_log(ctx, PERFTUNE_LOG_INFO, "sysctl export: %s: %s", l->e[i].key, why);
		}
	pt_export_skipped(b, l);
	return n;
}
