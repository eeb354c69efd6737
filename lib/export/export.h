/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What export.c and fmt.c share. */
#ifndef PERFTUNE_EXPORT_H
#define PERFTUNE_EXPORT_H

#include "profile/profile-internal.h"

struct xent {
	char *key, *value, *hint; /* hint: udev match for a pattern rule, or NULL */
};

struct xlist {
	struct xent *e;
	size_t n;
	char *title; /* "transaction 'x'" or "profile 'y' (path)" */
	char *summary;
};

bool pt_prefix(const char *s, const char *p);
/* sysctl.vm.dirty_ratio -> vm.dirty_ratio (hugepages.nr, numa.balancing too) */
bool pt_sysctl_name(const char *key, char *out, size_t size);
/* block.sda.scheduler -> "sda", "queue/scheduler", order 0 (1 attributes, 2 iosched) */
bool pt_block_attr(const char *key, char *dev, size_t dsize, char *attr, size_t asize,
		   int *order);
void pt_export_header(struct pt_buf *b, const struct xlist *l, const char *how);
int pt_fmt_udev(struct perftune_ctx *ctx, const struct xlist *l, struct pt_buf *b);
int pt_fmt_tuned(struct perftune_ctx *ctx, const struct xlist *l, struct pt_buf *b);

#endif
