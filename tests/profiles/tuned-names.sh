#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# No shipped profile takes a name TuneD ships: perftune's directory comes
# before /usr/lib/tuned on the search path, so such a profile would shadow
# TuneD's (issue 36: ours once did with virtual-guest, with other values).
# Against the TuneD profiles installed on this machine (package tuned); skips
# without them, unless PERFTUNE_REQUIRE_ALL is set.
set -u
TUNED=${TUNED_PROFILES:-/usr/lib/tuned}
if ! ls "$TUNED"/*/tuned.conf > /dev/null 2>&1; then
	echo "SKIP: no TuneD profiles in $TUNED (apt-get install tuned)"
	[ -n "${PERFTUNE_REQUIRE_ALL:-}" ] && exit 1
	exit 77
fi
rc=0
n=0
for conf in "${SRCDIR:?}"/profiles/*/tuned.conf; do
	name=$(basename "$(dirname "$conf")")
	n=$((n + 1))
	if [ -e "$TUNED/$name/tuned.conf" ]; then
		echo "FAIL: profiles/$name shadows TuneD's $TUNED/$name: rename it"
		rc=1
	fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no profiles in $SRCDIR/profiles"; exit 1; }
[ "$rc" = 0 ] && echo "ok: none of the $n shipped profiles takes a name of the $(ls -d "$TUNED"/*/tuned.conf | wc -l) in $TUNED"
exit $rc
