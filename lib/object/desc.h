/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A description of one tunable (perftune_describe()), as a family's describe op fills it. */
#ifndef PERFTUNE_OBJECT_DESC_H
#define PERFTUNE_OBJECT_DESC_H

#include <stdbool.h>
#include "macro.h"

struct perftune_ctx;
struct perftune_desc;
struct pt_tunable;

/* a description of @t: its key, its absolute path and note; NULL when out of memory */
struct perftune_desc *pt_desc_new(const struct pt_tunable *t);
void pt_desc_set_value(struct perftune_desc *d, const char *v);
/* the value cannot be read, and @why (strerror text, "write-only trigger") */
void pt_desc_set_unreadable(struct perftune_desc *d, const char *why);
void pt_desc_set_choices(struct perftune_desc *d, const char *choices);
void pt_desc_set_range(struct perftune_desc *d, long long min, long long max);
void pt_desc_set_unit(struct perftune_desc *d, const char *unit);
void pt_desc_set_writable(struct perftune_desc *d, bool w, const char *reason);
void pt_desc_add_info(struct perftune_desc *d, const char *fmt, ...) _printf_(2, 3);
/* the value as @t's family reads it, writable: 0, or read()'s -errno */
int pt_desc_read_writable(struct perftune_ctx *ctx, const struct pt_tunable *t,
			  struct perftune_desc *d);

#endif
