#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Go binding's tier as one test (meson test go-test): go vet, the tests
# (compiled first, run under the real-kernel lock: the host tests write loop
# devices), then the module on its own (test-standalone.sh).  One after the
# other so that they share the build cache (GOCACHE): run side by side, as
# three meson tests, each compiled the same packages again (issue 32: CI time).
#   run-tests.sh GO MODDIR VERSION REAL_KERNEL [GO TEST FLAGS...]
set -uo pipefail
GO=${1:?usage: run-tests.sh GO MODDIR VERSION REAL_KERNEL [FLAGS...]} MODDIR=${2:?} VERSION=${3:?}
REAL_KERNEL=${4:?}
shift 4
cd "$MODDIR" || exit 1
rc=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perftune-gotest.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

echo "== go vet ./..."
"$GO" vet ./... || rc=1

echo "== go test $* (compiled, then run under the real-kernel lock)"
if "$GO" test "$@" -c -o "$tmp/perftune.test" .; then
	"$REAL_KERNEL" "$tmp/perftune.test" -test.v -test.count=1 >"$tmp/test.log" 2>&1 || rc=1
	cat "$tmp/test.log"
	grep -q '^PASS$' "$tmp/test.log" || rc=1
else
	rc=1
fi

echo "== the module on its own (test-standalone.sh)"
bash "$MODDIR/test-standalone.sh" "$GO" "$MODDIR" "$VERSION" || rc=1
exit $rc
