#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# resolver.sh SECCOMP_RUN ENOSYS|EPERM PERFTUNE: under the filter the CLI uses
# the user-space resolver and says why, and reads the same values as without it.
set -uo pipefail
run=$1 err=$2 P=$3
fail=0
got=$("$run" --errno "$err" -- "$P" --verbose --version | sed -n 's/^resolver: //p')
case $got in
"user-space (openat2: $err"*) echo "ok - resolver under $err: $got" ;;
*) echo "not ok - resolver under $err: '$got'"; fail=1 ;;
esac
keys=(sysctl.vm.swappiness sysctl.kernel.ostype thp.enabled)
want=$("$P" get "${keys[@]}" 2>&1)
got=$("$run" --errno "$err" -- "$P" get "${keys[@]}" 2>&1)
if [ "$got" = "$want" ]; then echo "ok - same values under $err"
else echo "not ok - under $err: '$got', without: '$want'"; fail=1; fi
case $("$run" --errno "$err" -- "$P" describe sysctl.vm.swappiness) in
*"paths resolved by user-space (openat2: $err"*) echo "ok - describe names the resolver" ;;
*) echo "not ok - describe does not name the resolver"; fail=1 ;;
esac
# a filter that refuses even the fallback's lookups is named, never "no such sysctl"
msg=$("$run" --errno "$err" --refuse-walk -- "$P" get sysctl.vm.swappiness thp.enabled 2>&1)
case $msg in
*"no such"*|*"has no"*) echo "not ok - refusal reported as: $msg"; fail=1 ;;
*"seccomp filter refuses"*) echo "ok - refusal named: $msg" ;;
*) echo "not ok - unexpected: $msg"; fail=1 ;;
esac
exit $fail
