/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every part of the library shares: the size of a value.  Each module has its own header. */
#ifndef PERFTUNE_INTERNAL_H
#define PERFTUNE_INTERNAL_H

#include "perftune.h"

#define PT_VAL PERFTUNE_VALUE_MAX /* a value, as text, with its NUL */

#endif
