/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* parallel.c: a fan-out over threads. */
#ifndef PERFTUNE_IO_PARALLEL_H
#define PERFTUNE_IO_PARALLEL_H

#include <stddef.h>

/* Run fn(i, ud) for i in [0, n) on up to @max threads (at most PT_THREADS_MAX);
 * returns when all are done. */
#define PT_THREADS_MAX 256 /* a thread per device: a scheduler switch on 256 disks at once */
int pt_parallel(size_t n, size_t max, void (*fn)(size_t i, void *ud), void *ud);

#endif
