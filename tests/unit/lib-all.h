/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every internal header of the library, for the unit tests and the fuzz targets, which
 * reach into any module.  lib/ files include only the headers they use (lib-includes.py).
 */
#ifndef PERFTUNE_TESTS_LIB_ALL_H
#define PERFTUNE_TESTS_LIB_ALL_H

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "core/lookup.h"
#include "core/suggest.h"
#include "engine/batch.h"
#include "engine/holder.h"
#include "engine/identity.h"
#include "engine/journal.h"
#include "engine/restore.h"
#include "family/cpumask.h"
#include "family/family.h"
#include "family/file.h"
#include "family/hugepages.h"
#include "family/proc.h"
#include "io/attr.h"
#include "io/parallel.h"
#include "io/beneath.h"
#include "io/uring.h"
#include "io/walk.h"
#include "net/ethtool.h"
#include "net/netdev.h"
#include "net/nl.h"
#include "object/change.h"
#include "object/check.h"
#include "object/desc.h"
#include "object/profile-entry.h"
#include "object/profile-item.h"
#include "object/source.h"
#include "object/status.h"
#include "object/store.h"
#include "object/tunable.h"
#include "profile/regex.h"
#include "shared/array.h"
#include "shared/buf.h"
#include "shared/cpulist.h"
#include "shared/keyname.h"
#include "shared/kmod.h"
#include "shared/util.h"

#endif
