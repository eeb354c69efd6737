#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# test-standalone.sh GO MODDIR VERSION — the Go module on its own, as a user
# outside this repository has it (`go get`, a tarball, a vendored copy):
#   1. copy MODDIR (bindings/go) to a temporary directory, nothing else;
#   2. go test -short ./... there, offline (GOPROXY=off, GOFLAGS=-mod=mod), with
#      libperftune found by pkg-config ($PKG_CONFIG_PATH, as meson's go suite
#      sets it) and no $PERFTUNE_CLI: every test passes, and the only skips
#      are the host tests (-short: the real kernel) and the checks against
#      the perftune program ($PERFTUNE_CLI unset);
#   3. a program of another module that requires github.com/libperftune/perftune-go
#      through a replace directive onto the copy (bindings/go/README.md) builds
#      and reads sysctl.vm.swappiness as /proc has it.
# The environment (GOCACHE, GOPROXY, GOTOOLCHAIN, PKG_CONFIG_PATH) comes from
# meson's go suite; GOPATH and the module cache are the temporary directory's.
set -uo pipefail

GO=${1:?usage: test-standalone.sh GO MODDIR VERSION}
MODDIR=$(cd "${2:?MODDIR}" && pwd)
VERSION=${3:?VERSION}
MODPATH=github.com/libperftune/perftune-go

say() { printf '%s\n' "$*"; }
ok() { say "ok: $*"; }
die() {
	say "FAIL: $*"
	exit 1
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/perftune-go.XXXXXX") || die "mktemp"
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
cp -r "$MODDIR" "$TMP/perftune-go" || die "copying $MODDIR"
export GOPATH=$TMP/gopath GOMODCACHE=$TMP/gopath/pkg/mod GOPROXY=off GOFLAGS=-mod=mod
unset PERFTUNE_CLI LD_LIBRARY_PATH
grep -qx "module $MODPATH" "$TMP/perftune-go/go.mod" || die "go.mod does not declare module $MODPATH"

# 2. the module's own tests
(cd "$TMP/perftune-go" && "$GO" test -short -v -count=1 ./...) > "$TMP/test.log" 2>&1
rc=$?
grep -E '^(--- FAIL|FAIL|ok|panic)' "$TMP/test.log"
if [ "$rc" != 0 ]; then
	grep -B2 -A20 -E '^--- FAIL|^panic' "$TMP/test.log" | head -n 80
	die "go test ./... in a copy of the module alone exits $rc"
fi
passed=$(grep -c -- '^ *--- PASS' "$TMP/test.log")
# a skip is allowed for the two reasons above only: anything else a test could
# not find on its own (a file outside the module) is a failure. go test -v
# prints the reason on the line before "--- SKIP".
bad=$(grep -B1 -- '^ *--- SKIP' "$TMP/test.log" | grep -vE -- '^ *--- SKIP|^--$' |
	grep -vE 'not with -short|PERFTUNE_CLI is not set')
skipped=$(grep -c -- '^ *--- SKIP' "$TMP/test.log")
if [ -n "$bad" ]; then
	grep -B1 -- '^ *--- SKIP' "$TMP/test.log"
	die "tests skipped in the copy for a reason other than -short or \$PERFTUNE_CLI: $bad"
fi
[ "$passed" -gt 0 ] || die "no test passed"
ok "go test -short ./... in a copy of the module: $passed passed, $skipped skipped (host tests, perftune program)"

# 3. a module outside this repository that depends on it
mkdir -p "$TMP/app"
cat > "$TMP/app/go.mod" <<GOMOD
module example.com/app

go 1.19

require $MODPATH v$VERSION

replace $MODPATH => ../perftune-go
GOMOD
cat > "$TMP/app/main.go" <<'GOSRC'
package main

import (
	"fmt"
	"os"

	perftune "github.com/libperftune/perftune-go"
)

func main() {
	ctx, err := perftune.Open()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer ctx.Close()
	v, err := ctx.Get("sysctl.vm.swappiness")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(perftune.Version(), v)
}
GOSRC
out=$(cd "$TMP/app" && "$GO" build -o app . 2>&1) || die "go build of a module requiring $MODPATH (replace => the copy): $out"
out=$("$TMP/app/app" 2>&1) || die "the program: $out"
want="$VERSION $(cat /proc/sys/vm/swappiness)"
[ "$out" = "$want" ] || die "the program printed '$out', want '$want'"
ok "a module requiring $MODPATH v$VERSION (replace => the copy) builds and prints: $out"
