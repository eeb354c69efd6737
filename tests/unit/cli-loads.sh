#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# cli-loads.sh BUILD_DIR MKROOT — the libraries only some keys need are opened
# on first use (lib/shared/dlopen.c): libperftune has no DT_NEEDED on them, and
# the CLI maps none of them (LD_DEBUG=files) for --version and for a get and a
# set of a sysctl, on the fake machine (nothing of this kernel is written).  A
# module key must map libkmod: the check sees a load when there is one.
set -euo pipefail
build=${1:?usage: cli-loads.sh BUILD_DIR MKROOT}
mkroot=${2:?usage: cli-loads.sh BUILD_DIR MKROOT}
perftune=$build/utils/perftune
mapfile -t sonames < <(sed -n 's/^#define PT_SONAME_[A-Z0-9_]* "\(.*\)"$/\1/p' "$build/lib/shared/dl-sonames.h")
[ ${#sonames[@]} -ge 6 ] || { echo "FAIL: the SONAMEs of dl-sonames.h: ${sonames[*]}"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$mkroot" "$tmp/root" >/dev/null
failed=0

needed=$(readelf -d "$build/lib/libperftune.so.1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for so in "${sonames[@]}"; do
	if grep -qxF "$so" <<< "$needed"; then
		echo "FAIL: libperftune.so.1 has DT_NEEDED $so"
		failed=1
	fi
done
echo "libperftune.so.1 needs: $(echo $needed)"

# the SONAMEs of @sonames that `perftune ARGS...` maps, one line
maps() {
	LD_DEBUG=files "$perftune" --root "$tmp/root" --journal-dir "$tmp/journal" "$@" \
		>"$tmp/out" 2>"$tmp/ld" || true
	for so in "${sonames[@]}"; do
		grep -qF "file=$so " "$tmp/ld" && printf '%s ' "$so"
	done
	return 0
}
for cmd in "--version" "get sysctl.vm.swappiness" "set sysctl.vm.swappiness=10"; do
	# shellcheck disable=SC2086  # the words of the command
	got=$(maps $cmd)
	if [ -n "$got" ]; then
		echo "FAIL: perftune $cmd maps $got"
		failed=1
	else
		echo "ok: perftune $cmd maps none of ${sonames[*]}"
	fi
done
[ "$(cat "$tmp/root/proc/sys/vm/swappiness")" = 10 ] || { echo "FAIL: the set did not write the fake tree"; failed=1; }
got=$(maps get module.dummy.loaded)
kmod=$(printf '%s\n' "${sonames[@]}" | grep '^libkmod\.')
if [[ " $got " == *" $kmod "* ]]; then
	echo "ok: perftune get module.dummy.loaded maps $got"
else
	echo "FAIL: perftune get module.dummy.loaded does not map $kmod (maps '$got')"
	failed=1
fi
exit $failed
