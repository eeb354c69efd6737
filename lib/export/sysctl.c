// SPDX-License-Identifier: LGPL-2.1-or-later
/* Export as a sysctl.d(5) file: the keys whose family names a sysctl. */
#include "xlist.h"

int pt_export_sysctl(struct perftune_ctx *ctx, const struct xlist *l, struct pt_buf *b)
{
	int n = 0;

	pt_export_header(b, l,
			 "Install as /etc/sysctl.d/60-perftune.conf, or load with sysctl -p FILE.");
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].nm.sysctl[0]) {
			pt_buf_printf(b, "%s = %s\n", l->e[i].nm.sysctl, l->e[i].value);
			n++;
		}
	for (size_t i = 0; i < l->n; i++)
		if (!l->e[i].nm.sysctl[0]) {
			pt_buf_printf(b, "# not a sysctl: %s = %s\n", l->e[i].key, l->e[i].value);
			pt_log(ctx, PERFTUNE_LOG_INFO, "sysctl export: %s is not a sysctl",
			       l->e[i].key);
		}
	pt_export_skipped(b, l);
	return n;
}
