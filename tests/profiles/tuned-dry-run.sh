#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every profile Debian's tuned package ships, and perftune's own, loads and
# dry-runs with exit 0 and valid JSON; the dry run changes nothing.
# tuned-dry-run.sh fake: on the unit tier's fake machine (any user)
# tuned-dry-run.sh host: on this machine's kernel (root)
. "$(dirname "$0")/lib.sh"
mode=${1:?fake or host}
[ -d /usr/lib/tuned ] || skip "TuneD's profiles are not installed (apt install tuned)"
need python3
root=()
if [ "$mode" = fake ]; then
	fake_root "$TMP/root"
	root=(--root "$TMP/root")
	tree_sum "$TMP/root" >"$TMP/before"
else
	need_root "dry runs against the host kernel read root-only files"
fi
n=0
for f in /usr/lib/tuned/*/tuned.conf "$SRCDIR"/profiles/*/tuned.conf; do
	name=$(basename "$(dirname "$f")")
	if ! "$PERFTUNE" "${root[@]}" apply --dry-run --json "$f" >"$TMP/out.json" 2>"$TMP/err"; then
		fail "$f: exit status $?: $(cat "$TMP/err")"
	fi
	json "$TMP/out.json" 'd["dry_run"] and isinstance(d["changes"], list)' >/dev/null ||
		fail "$name: the JSON is not a dry-run result"
	# and by name, text output, the same exit status
	"$PERFTUNE" "${root[@]}" apply --dry-run "$name" >/dev/null 2>&1 || fail "$name by name"
	n=$((n + 1))
done
echo "$n profiles dry-run with exit 0 ($mode)"
[ "$n" -ge 30 ] || fail "only $n profiles found"
[ ! -e "$PERFTUNE_JOURNAL_DIR" ] || [ -z "$(ls -A "$PERFTUNE_JOURNAL_DIR")" ] ||
	fail "a dry run wrote a journal"
if [ "$mode" = fake ]; then
	tree_sum "$TMP/root" >"$TMP/after"
	diff -u "$TMP/before" "$TMP/after" || fail "a dry run changed the fake machine"
fi
