/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kmod.c: kernel modules through libkmod, loaded on first use. */
#ifndef PERFTUNE_SHARED_KMOD_H
#define PERFTUNE_SHARED_KMOD_H

#include <stddef.h>
#include "perftune.h"

/*
 * Kernel modules (shared/kmod.c, libkmod): FIND 0 in modules.dep, 1 built in,
 * -ENOENT; DEPS: the modules a load brings in that are not loaded, in @out;
 * LOAD with @options (modprobe.d's too; -EPERM with the command in @out when
 * modprobe.d has an install command for it: nothing is ever executed); UNLOAD
 * that one module.  Swappable for the unit tier; -EOPNOTSUPP under a root that
 * is not the host's.
 */
enum { PT_KMOD_FIND, PT_KMOD_DEPS, PT_KMOD_LOAD, PT_KMOD_UNLOAD };
int pt_kmod_real(int op, const char *name, const char *options, char *out, size_t size);
int pt_kmod_need(struct perftune_ctx *ctx, const char *key); /* libkmod, for the host */

#endif
