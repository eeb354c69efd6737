/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hugepages.c: what other files ask of the hugepages family. */
#ifndef PERFTUNE_FAMILY_HUGEPAGES_H
#define PERFTUNE_FAMILY_HUGEPAGES_H

#include <stddef.h>
#include "perftune.h"

void pt_hugepages_boot(struct perftune_ctx *ctx, unsigned long kb, const char *value, char *buf,
		       size_t size);

#endif
