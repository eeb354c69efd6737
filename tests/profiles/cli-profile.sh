#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CLI on the fake machine: exit codes, errors that name the file and line,
# nothing changed on error, --json of every read command, apply + restore,
# export -o.
. "$(dirname "$0")/lib.sh"
need python3
fake_root "$TMP/root"
P=("$PERFTUNE" --root "$TMP/root")
mkdir -p "$TMP/p/broken" "$TMP/p/runs"
printf '[main]\nsummary=broken\n[sysctl]\nvm.swappiness\n' >"$TMP/p/broken/tuned.conf"
printf '[sysctl]\nvm.swappiness=3\n[script]\nscript=/bin/touch %s/ran\n' "$TMP" >"$TMP/p/runs/tuned.conf"
export PERFTUNE_PROFILE_PATH=$TMP/p:$SRCDIR/profiles:/usr/lib/tuned
tree_sum "$TMP/root" >"$TMP/pristine"

expect() { # expect STATUS PATTERN CMD...: exit status and a stderr pattern
	local want=$1 pat=$2 rc=0
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want: $(cat "$TMP/err")"
	[ -z "$pat" ] || grep -q -- "$pat" "$TMP/err" || fail "$*: stderr lacks '$pat': $(cat "$TMP/err")"
}
expect 2 "apply takes one PROFILE" "${P[@]}" apply
expect 2 "bad option" "${P[@]}" apply --bogus throughput
expect 2 "VAR=VALUE" "${P[@]}" apply -v novalue throughput
expect 2 "format" "${P[@]}" export throughput
expect 2 "list-profiles takes no operands" "${P[@]}" list-profiles extra
expect 1 "profile 'nope' not found" "${P[@]}" apply nope
expect 1 "broken/tuned.conf:4: expected 'name = value'" "${P[@]}" apply broken
expect 1 "nothing was changed" "${P[@]}" apply broken
expect 1 "\[script\] script.*skipped (strict)" "${P[@]}" apply --strict runs
tree_sum "$TMP/root" | diff -u "$TMP/pristine" - || fail "a failed apply changed the machine"
[ ! -e "$TMP/ran" ] || fail "a profile's script was executed"

# apply, status, restore: every value back as it was (the fake tree has no kernel
# to re-bracket selection files, so compare what perftune reads, not the bytes)
"${P[@]}" list >"$TMP/values-before"
expect 0 "" "${P[@]}" apply --name tp throughput
grep -q '^sysctl.vm.dirty_ratio: 20 -> 40$' "$TMP/out" || fail "apply output: $(cat "$TMP/out")"
grep -q '^block.sda.read_ahead_kb: 128 -> 512$' "$TMP/out" || fail "readahead x4: $(cat "$TMP/out")"
[ "$(cat "$TMP/root/proc/sys/vm/swappiness")" = 10 ] || fail "swappiness not written"
expect 0 "" "${P[@]}" status --json
json "$TMP/out" 'len([k for k in d if k["transaction"] == "tp"])' | grep -qv '^0$' || fail "status --json"
expect 0 "" "${P[@]}" export --format tuned -o "$TMP/tp.conf" tp
grep -q '^vm.dirty_ratio=40$' "$TMP/tp.conf" || fail "export -o of a transaction: $(cat "$TMP/tp.conf")"
expect 0 "" "${P[@]}" restore tp
"${P[@]}" list | diff -u "$TMP/values-before" - || fail "restore left a difference"
expect 0 "" "${P[@]}" apply --dry-run runs
grep -q '^skipped: \[script\] script: runs a program' "$TMP/out" || fail "dry-run skip line: $(cat "$TMP/out")"

# --json on every read command parses
for cmd in "list sysctl.vm" "get sysctl.vm.swappiness thp.enabled" "describe block.sda.scheduler" \
	"status" "list-profiles" "apply --dry-run throughput"; do
	verb=${cmd%% *} args=${cmd#"$verb"}
	# shellcheck disable=SC2086
	"${P[@]}" "$verb" --json $args >"$TMP/j" 2>"$TMP/err" || fail "$cmd --json: $(cat "$TMP/err")"
	python3 -m json.tool "$TMP/j" >/dev/null || fail "$cmd --json is not JSON: $(cat "$TMP/j")"
done
# read-only sysctls are listed, marked; --writable leaves them out
expect 0 "" "${P[@]}" list sysctl.kernel
grep -qx 'sysctl.kernel.ostype = Linux (read-only)' "$TMP/out" || fail "list read-only: $(cat "$TMP/out")"
grep -qx 'sysctl.kernel.printk = 4 4 1 7' "$TMP/out" || fail "list writable: $(cat "$TMP/out")"
expect 0 "" "${P[@]}" list --writable sysctl.kernel
! grep -q ostype "$TMP/out" || fail "list --writable shows a read-only sysctl: $(cat "$TMP/out")"
grep -q '^sysctl.kernel.printk = ' "$TMP/out" || fail "list --writable lost printk: $(cat "$TMP/out")"
expect 0 "" "${P[@]}" list --json sysctl.kernel
[ "$(json "$TMP/out" '{i["key"]: i["read_only"] for i in d}["sysctl.kernel.ostype"]')" = True ] ||
	fail "list --json read_only: $(cat "$TMP/out")"
expect 0 "" "${P[@]}" list --json --writable sysctl.kernel
[ "$(json "$TMP/out" 'all(not i["read_only"] for i in d) and len(d) > 0')" = True ] ||
	fail "list --json --writable: $(cat "$TMP/out")"

# a key whose file refuses reads is described as unreadable, with the reason, exit 0
expect 0 "" "${P[@]}" describe sysctl.vm.drop_caches
grep -qx 'value:    (unreadable: write-only trigger)' "$TMP/out" || fail "describe unreadable: $(cat "$TMP/out")"
expect 0 "" "${P[@]}" describe --json sysctl.vm.drop_caches
[ "$(json "$TMP/out" '(d["value"], d["unreadable"])')" = "(None, 'write-only trigger')" ] ||
	fail "describe --json unreadable: $(cat "$TMP/out")"
expect 0 "" "${P[@]}" list-profiles --json
for n in throughput latency database ssd throughput-guest; do
	json "$TMP/out" "[p['summary'] for p in d if p['name'] == '$n'][0]" | grep -q . ||
		fail "list-profiles has no summary for $n"
done
echo "CLI behaves"
