/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cpumask.c: files of CPU masks whose keys take CPU lists (irq, workqueue). */
#ifndef PERFTUNE_FAMILY_CPUMASK_H
#define PERFTUNE_FAMILY_CPUMASK_H

#include "core/key.h"

enum {
	PT_CPUMASK_HEX = 1 << 0, /* t->kind: the file holds a hex mask ("f"), not a list ("0-3") */
	PT_CPUMASK_NARROW = 1 << 1, /* t->kind: the kernel may keep fewer of the CPUs written */
};
/* the online CPUs (sys/devices/system/cpu/online) into a PT_CPUS_BYTES mask */
int pt_cpus_online(struct perftune_ctx *ctx, unsigned char *mask);
/* @in, a CPU list with an online CPU, into @m (PT_CPUS_BYTES); errors name the key */
int pt_cpumask_parse(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		     unsigned char *m);
/*
 * Hex mask @in ("0000000f", TuneD's 8-digit groups) as wide as the kernel
 * shows the mask file @path ("f", "00,0000000f"), so that it reads back as
 * written; @in as it is where @path is no such file or @in no hex mask.
 */
void pt_cpumask_width(struct perftune_ctx *ctx, const char *path, const char *in, char *out,
		      size_t size);
int pt_cpumask_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size);
int pt_cpumask_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size);
int pt_cpumask_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     int *hold_fd);
int pt_cpumask_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		      const char *got);
int pt_cpumask_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d);

#endif
