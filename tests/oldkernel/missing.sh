#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
echo "SKIP: libseccomp-dev is missing: the old-kernel tier cannot run"
[ "${PERFTUNE_REQUIRE_ALL:-}" = 1 ] && exit 1
exit 77
