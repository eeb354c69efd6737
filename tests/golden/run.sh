#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Golden files: the CLI's human and JSON output of each case in ./cases, on a
# fresh fake machine, compared with NAME.out.  UPDATE_GOLDEN=1 rewrites them.
# Outputs are made independent of where the test runs: the temp dir becomes
# @TMP@, the source dir @SRCDIR@, the version @VERSION@, the kernel's path
# resolver @RESOLVER@.
set -euo pipefail
: "${PERFTUNE:?set by meson}" "${SRCDIR:?set by meson}"
G=$SRCDIR/tests/golden
TMP=$(mktemp -d /tmp/perftune-golden-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export LC_ALL=C PERFTUNE_PROFILE_PATH=$G/profiles:$SRCDIR/profiles
unset PERFTUNE_JOURNAL_DIR PERFTUNE_ROOT
bash "$SRCDIR/tests/unit/mkroot.sh" "$TMP/root" >/dev/null
for d in sda sdb sdc nvme0n1 dm-0 dm-1 zram0; do # fixed disks, as profiles' [disk] wants
	echo 0 >"$TMP/root/sys/block/$d/removable"
done
version=$("$PERFTUNE" --version | awk '{print $NF}')

normalize() {
	# the resolver depends on the kernel (openat2, or its fallback under seccomp)
	sed -e "s|$TMP|@TMP@|g" -e "s|$SRCDIR|@SRCDIR@|g" \
		-e "s|perftune $version\\b|perftune @VERSION@|g" \
		-e 's/paths resolved by [^;"]*/paths resolved by @RESOLVER@/g'
}

failed=0 n=0
set -f # keys such as block.sd* are not globs here
while read -r name args; do
	case $name in '#'* | '') continue ;; esac
	# shellcheck disable=SC2086 # the arguments split on blanks
	set -- $args
	rc=0
	# under umockdev, as the unit tier: libudev, libnuma and libcpupower see the fake
	# machine too (a /dev path, a mount point, NUMA node facts), not this host
	UMOCKDEV_DIR=$TMP/root LD_PRELOAD=libumockdev-preload.so.0 \
		"$PERFTUNE" --root "$TMP/root" --journal-dir "$TMP/journal" "$@" \
		>"$TMP/stdout" 2>"$TMP/stderr" || rc=$?
	{
		echo "\$ perftune $args"
		cat "$TMP/stdout"
		if [ -s "$TMP/stderr" ]; then
			echo "[stderr]"
			cat "$TMP/stderr"
		fi
		echo "[exit $rc]"
	} | normalize >"$TMP/$name.out"
	n=$((n + 1))
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$TMP/$name.out" "$G/$name.out"
	elif ! diff -u "$G/$name.out" "$TMP/$name.out"; then
		echo "FAIL: $name: the output differs from tests/golden/$name.out (above)" >&2
		failed=$((failed + 1))
	fi
done <"$G/cases"
set +f
# a golden file without its case is a case that was lost
for f in "$G"/*.out; do
	name=$(basename "$f" .out)
	grep -q "^$name " "$G/cases" || {
		echo "FAIL: $f has no case in tests/golden/cases" >&2
		failed=$((failed + 1))
	}
done
if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
	echo "rewrote $n golden files in $G"
	exit 0
fi
[ "$failed" = 0 ] || { echo "$failed of $n golden cases differ (UPDATE_GOLDEN=1 rewrites them)"; exit 1; }
echo "$n golden cases match"
