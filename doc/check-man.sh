#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# check-man.sh perftune.8 perftune-profile.5 libperftune.3 [MORE PAGES...]
# The built man pages render without a groff warning; perftune(8) documents
# every command of perftune --help and every key of keys.txt; libperftune(3)
# names every exported symbol.
set -euo pipefail
: "${PERFTUNE:?}" "${SRCDIR:?}"
command -v groff >/dev/null || { echo "SKIP: groff is not installed"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for page in "$@"; do
	[ -s "$page" ] || fail "$page was not built"
	LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>"$tmp/warn" || fail "groff failed on $page"
	[ ! -s "$tmp/warn" ] || fail "$page: $(cat "$tmp/warn")"
	MANWIDTH=100 LC_ALL=C.UTF-8 man -l "$page" 2>/dev/null | col -b >"$tmp/$(basename "$page").txt" ||
		LC_ALL=C.UTF-8 groff -man -Tutf8 "$page" | col -b >"$tmp/$(basename "$page").txt"
	grep -q "^NAME" "$tmp/$(basename "$page").txt" || fail "$page has no NAME section"
	! grep -q '@[A-Z]*@' "$page" || fail "$page has an unreplaced placeholder"
done
man8=$tmp/$(basename "$1").txt man3=$tmp/$(basename "$3").txt
grep -q "perftune - get, set and restore Linux kernel tunables safely" "$man8" || fail "perftune(8) NAME"
# every command of the CLI is documented
"$PERFTUNE" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}' >"$tmp/cmds"
[ "$(wc -l <"$tmp/cmds")" -ge 9 ] || fail "could not read the commands from perftune --help"
while read -r cmd; do
	grep -qE "^ {7}$cmd( |$)" "$man8" || fail "perftune(8) does not document '$cmd'"
done <"$tmp/cmds"
# every key pattern of keys.txt is in the rendered KEYS section
awk -F'\t' '!/^#/ && NF == 5 {print $2}' "$SRCDIR/doc/keys.txt" | while read -r key; do
	grep -qF -- "$key" "$man8" || fail "perftune(8) lacks the key $key"
done
# every exported symbol is named in libperftune(3)
sed -n 's/^[[:space:]]*\(perftune_[a-z_0-9]*\);/\1/p' "$SRCDIR/lib/libperftune.sym" | while read -r sym; do
	grep -qw "$sym" "$man3" || fail "libperftune(3) does not name $sym"
done
echo "man pages render and are complete"
