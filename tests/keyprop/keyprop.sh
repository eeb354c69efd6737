#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The key property, on any machine (issue 19): every key `perftune list` prints
# is accepted by `get`, `describe` and `set --dry-run KEY=<its current value>`
# (read-only keys take no set, write-only keys have no value to get or set),
# and `list --json` agrees with `list`.  Read-only: nothing is written.
#   keyprop.sh [--root DIR | --mkroot tests/unit/mkroot.sh] [--describe-every N] [PREFIX]
# --describe-every N describes every cpu.* key but only every Nth other key
# (the VM, where each CLI start costs ~0.5 s under TCG; get and set --dry-run
# still take every key, in one call each).
# Prints `ok N - ...` lines, then `N passed, N failed`.
set -uo pipefail
P=${PERFTUNE:?PERFTUNE must point at the built CLI}
ROOT=/ EVERY=1 PREFIX= ARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--root) ROOT=$2; ARGS=(--root "$2"); shift 2 ;;
	--mkroot) MKROOT=$2; shift 2 ;; # the unit tier's fake machine, made afresh
	--describe-every) EVERY=$2; shift 2 ;;
	*) PREFIX=$1; shift ;;
	esac
done
command -v python3 >/dev/null || { echo "SKIP: python3 reads list --json"; exit 77; }
W=$(mktemp -d /tmp/perftune-keyprop-XXXXXX)
trap 'rm -rf "$W"' EXIT
export PERFTUNE_JOURNAL_DIR=$W/journal LC_ALL=C
if [ -n "${MKROOT:-}" ]; then
	bash "$MKROOT" "$W/root" >/dev/null || exit 1
	ROOT=$W/root ARGS=(--root "$W/root")
fi
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok $((PASS + FAIL)) - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok $((PASS + FAIL)) - $*"; }
pt() { "$P" "${ARGS[@]}" "$@"; }

# a process that exited since the listing: its proc.<pid> key is gone, not broken
gone() { [[ $1 =~ ^proc\.([0-9]+)\. ]] && [ ! -d "$ROOT/proc/${BASH_REMATCH[1]}" ]; }

pt list $PREFIX >"$W/list" 2>"$W/list.err" || { not_ok "list: $(cat "$W/list.err")"; }
pt list --json $PREFIX >"$W/json" 2>"$W/json.err" || { not_ok "list --json: $(cat "$W/json.err")"; }
# one line per key: KEY \t FLAG (rw, ro, wo) \t VALUE, from each listing
python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
with open(w + "/json") as f, open(w + "/items", "w") as o:
    for e in json.load(f):
        v = e.get("value")
        flag = "ro" if e.get("read_only") else ("wo" if v is None else "rw")
        o.write("%s\t%s\t%s\n" % (e["key"], flag, "" if v is None else v))
with open(w + "/list") as f, open(w + "/items.text", "w") as o:
    for line in f:
        line = line.rstrip("\n")
        key, _, v = line.partition(" = ")
        flag = "rw"
        if v.endswith(" (read-only)"):
            v, flag = v[: -len(" (read-only)")], "ro"
        elif v == "(unreadable)":
            v, flag = "", "wo"
        o.write("%s\t%s\t%s\n" % (key, flag, v))
PY
n=$(wc -l <"$W/items")
if [ "$n" -gt 0 ]; then ok "list prints $n keys"; else not_ok "list prints no key"; fi
# values may move between the two listings (counters): keys and flags must
# not; a proc.<pid> key in one listing only is a process that started or
# ended between them
cut -f1,2 "$W/items" >"$W/a"
cut -f1,2 "$W/items.text" >"$W/b"
comm -3 <(cut -f1 "$W/a" | sort) <(cut -f1 "$W/b" | sort) | tr -d '\t' |
	grep -E '^proc\.[0-9]+\.' >"$W/racy"
aside() { awk -F'\t' -v racy="$W/racy" 'BEGIN { while ((getline l <racy) > 0) r[l] } !($1 in r)' "$1"; }
if cmp -s <(aside "$W/a") <(aside "$W/b"); then
	ok "list --json and list agree on $n keys and their flags" \
		"($(wc -l <"$W/racy") keys of processes that came or went between them aside)"
else
	not_ok "list --json and list disagree:"
	diff <(cut -f1,2 "$W/items.text") <(cut -f1,2 "$W/items") | head -20
fi
bad=$(cut -f1 "$W/items" | grep -c '[[:space:]]')
if [ "$bad" = 0 ]; then ok "no key holds a blank"; else
	not_ok "$bad keys hold a blank:"; cut -f1 "$W/items" | grep '[[:space:]]' | head
fi

# get: every readable key in one call (get goes on past a failing key, naming each)
mapfile -t readable < <(awk -F'\t' '$2 != "wo" {print $1}' "$W/items")
pt get "${readable[@]}" >/dev/null 2>"$W/get.err"
: >"$W/get.bad"
while read -r line; do
	k=${line#perftune: }
	k=${k%%: *}
	gone "$k" || echo "$line" >>"$W/get.bad"
done <"$W/get.err"
if [ -s "$W/get.bad" ]; then
	not_ok "get refuses $(wc -l <"$W/get.bad") of ${#readable[@]} listed keys:"
	head -20 "$W/get.bad"
else
	ok "get accepts all ${#readable[@]} readable keys"
fi

# describe: one call per key
nd=0 i=0
: >"$W/desc.bad"
while IFS=$'\t' read -r k flag v; do
	if [[ $k != cpu.* ]]; then
		i=$((i + 1))
		[ $((i % EVERY)) = 0 ] || continue
	fi
	nd=$((nd + 1))
	pt describe "$k" >/dev/null 2>"$W/e" || gone "$k" || echo "$k: $(cat "$W/e")" >>"$W/desc.bad"
done <"$W/items"
what="$nd keys"
[ "$EVERY" = 1 ] || what="$nd keys (every cpu.* key, every ${EVERY}th other key)"
if [ -s "$W/desc.bad" ]; then
	not_ok "describe refuses $(wc -l <"$W/desc.bad") of $what:"
	head -20 "$W/desc.bad"
else
	ok "describe accepts $what"
fi

# set --dry-run KEY=<current value>: one transaction of every writable key; on
# a refusal each key alone, to name every one.  PM QoS needs a holding set.
dry() { # dry KEY=VALUE...
	local hold=()
	[[ $1 == pmqos.* ]] && hold=(--hold)
	pt set --dry-run "${hold[@]}" "$@" >/dev/null 2>"$W/e"
}
mapfile -t sets < <(awk -F'\t' '$2 == "rw" && $1 !~ /^pmqos\./ {print $1 "=" $3}' "$W/items")
mapfile -t holds < <(awk -F'\t' '$2 == "rw" && $1 ~ /^pmqos\./ {print $1 "=" $3}' "$W/items")
# keys of processes that ended since the listing (the listing's own perftune
# among them) leave the batch, and again for each one that ends meanwhile: a
# batch that fails for another reason is tried key by key (one CLI run each,
# minutes in the VM), never for a process gone
live() { local kv out=(); for kv in "${sets[@]}"; do gone "$kv" || out+=("$kv"); done; sets=("${out[@]}"); }
: >"$W/set.bad"
live
tries=0
while [ ${#sets[@]} -gt 0 ] && ! dry "${sets[@]}"; do
	k=$(sed -n 's/^perftune: \([^:]*\): .*/\1/p' "$W/e" | head -1)
	tries=$((tries + 1))
	if [ $tries -le 20 ] && [ -n "$k" ] && gone "$k"; then live; continue; fi
	for kv in "${sets[@]}"; do
		dry "$kv" || gone "$kv" || echo "$kv: $(head -1 "$W/e")" >>"$W/set.bad"
	done
	break
done
for kv in "${holds[@]}"; do
	dry "$kv" || echo "$kv: $(head -1 "$W/e")" >>"$W/set.bad"
done
nset=$((${#sets[@]} + ${#holds[@]}))
if [ -s "$W/set.bad" ]; then
	not_ok "set --dry-run refuses $(wc -l <"$W/set.bad") of $nset writable keys at their own value:"
	head -20 "$W/set.bad"
else
	ok "set --dry-run accepts all $nset writable keys at their own value"
fi
echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
