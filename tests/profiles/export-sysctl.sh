#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The sysctl.d files that export writes are what procps reads: sysctl --dry-run
# parses each one against this kernel's /proc/sys (names must exist; nothing is
# written) and echoes every setting with the value the file gives.
. "$(dirname "$0")/lib.sh"
need sysctl
sysctl --dry-run -n kernel.ostype >/dev/null 2>&1 || skip "this sysctl has no --dry-run (procps-ng >= 4)"
profiles=("$SRCDIR"/profiles/*/tuned.conf)
[ -d /usr/lib/tuned ] && profiles+=(/usr/lib/tuned/{throughput-performance,oracle,sap-hana,network-throughput}/tuned.conf)
checked=0
for f in "${profiles[@]}"; do
	out=$TMP/$(basename "$(dirname "$f")").conf
	"$PERFTUNE" export --format sysctl -v hugepages=16 -o "$out" "$f" 2>"$TMP/err" ||
		fail "export $f: $(cat "$TMP/err")"
	sysctl --dry-run -p "$out" >"$TMP/sysctl.out" 2>"$TMP/sysctl.err" ||
		fail "sysctl --dry-run -p rejects the export of $f: $(cat "$TMP/sysctl.err")"
	[ ! -s "$TMP/sysctl.err" ] || fail "sysctl complains about $f: $(cat "$TMP/sysctl.err")"
	# every "name = value" of the file comes back from sysctl's parser unchanged
	while IFS= read -r line; do
		case $line in '#'* | '') continue ;; esac
		name=${line%% = *} value=${line#* = }
		name=${name//\//.}
		grep -qxF "$name = $value" "$TMP/sysctl.out" ||
			fail "$f: sysctl parsed '$line' differently: $(cat "$TMP/sysctl.out")"
		checked=$((checked + 1))
	done <"$out"
done
echo "$checked settings of ${#profiles[@]} exports parsed by sysctl --dry-run"
[ "$checked" -ge 5 ] || fail "too few settings exported ($checked)"
# the database profile's huge pages become vm.nr_hugepages
grep -qx 'vm.nr_hugepages = 16' "$TMP/database.conf" || fail "database: no vm.nr_hugepages"
