// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Export as a kernel command line fragment: the keys whose family names a
 * boot parameter (huge pages are only reliably had at boot).  One line; the
 * options this machine skipped follow it as comments.
 */
#include <errno.h>
#include "perftune.h"
#include "shared/buf.h"
#include "core/log.h"
#include "xlist.h"

int pt_export_cmdline(struct perftune_ctx *ctx, const struct xlist *l, struct pt_buf *b)
{
	struct pt_buf o = { 0 };
	int n = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (!l->e[i].nm.boot[0]) {
			pt_log(ctx, PERFTUNE_LOG_NOTICE,
			       "cmdline export: %s has no boot parameter "
			       "(use --format sysctl, udev or tuned)",
			       l->e[i].key);
			continue;
		}
		pt_buf_printf(&o, " %s", l->e[i].nm.boot);
		n++;
	}
	pt_buf_printf(b, "%s\n", o.s ? o.s + 1 : "");
	free(o.s);
	pt_export_skipped(b, l);
	if (o.oom)
		return -ENOMEM;
	return n;
}
