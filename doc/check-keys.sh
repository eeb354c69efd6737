#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# keys.txt, the source of perftune(8)'s key reference, against the library:
# the same families, and every example key resolves on the fake machine.
set -euo pipefail
: "${PERFTUNE:?}" "${SRCDIR:?}" "${MKROOT:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
keys=$SRCDIR/doc/keys.txt
bash "$MKROOT" "$tmp/root" >/dev/null
# the families the library knows, from its own error message
lib=$({ "$PERFTUNE" --root "$tmp/root" get nosuchfamily.x 2>&1 || true; } | sed -n "s/.*unknown family 'nosuchfamily' (\(.*\)).*/\1/p" |
	tr -d ' ' | tr ',' '\n' | sort)
[ -n "$lib" ] || fail "the library no longer lists its families in the unknown-family error"
doc=$(awk -F'\t' '!/^#/ && NF == 5 {print $1}' "$keys" | sort -u)
[ "$lib" = "$doc" ] || fail "families: library has [$(echo $lib)], keys.txt has [$(echo $doc)]"
n=0
while IFS=$'\t' read -r fam pattern file example text; do
	case $fam in '#'* | '') continue ;; esac
	[ -n "$text" ] || fail "keys.txt: $pattern has no description"
	[ "$example" = - ] && continue
	[ "${example%%[.[]*}" = "$fam" ] || fail "keys.txt: example $example is not of family $fam"
	"$PERFTUNE" --root "$tmp/root" get "$example" >/dev/null 2>"$tmp/err" ||
		fail "keys.txt: example $example does not resolve: $(cat "$tmp/err")"
	n=$((n + 1))
done <"$keys"
echo "$n example keys resolve; families agree"
