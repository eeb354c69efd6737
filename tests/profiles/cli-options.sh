#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Options after the operands, as GNU tools take them, in every command: each
# command run with its options before and after its operands prints the same
# and exits 0 both ways; "--" ends the options; exec's options end at CMD.
. "$(dirname "$0")/lib.sh"
fake_root "$TMP/root"
P=("$PERFTUNE" --root "$TMP/root")
mkdir -p "$TMP/p/vars"
printf '[variables]\nsw=5\n[sysctl]\nvm.swappiness=${sw}\n' >"$TMP/p/vars/tuned.conf"
export PERFTUNE_PROFILE_PATH=$TMP/p:$SRCDIR/profiles

# same "OPTIONS" "OPERANDS" [COMMAND]: COMMAND OPTIONS OPERANDS and COMMAND OPERANDS OPTIONS
same() {
	local cmd=$1 opts=$2 ops=$3 rc1=0 rc2=0
	# shellcheck disable=SC2086 # the words split on blanks
	"${P[@]}" $cmd $opts $ops >"$TMP/before" 2>"$TMP/err1" || rc1=$?
	# shellcheck disable=SC2086
	"${P[@]}" $cmd $ops $opts >"$TMP/after" 2>"$TMP/err2" || rc2=$?
	[ "$rc1" = 0 ] || fail "$cmd $opts $ops: exit $rc1: $(cat "$TMP/err1")"
	[ "$rc2" = 0 ] || fail "$cmd $ops $opts (options last): exit $rc2: $(cat "$TMP/err2")"
	[ -s "$TMP/before" ] || fail "$cmd $opts $ops printed nothing"
	diff -u "$TMP/before" "$TMP/after" || fail "$cmd: options after the operands print otherwise"
	n=$((n + 1))
}
n=0
same list "--json --writable" sysctl.vm
same get --json "sysctl.vm.swappiness thp.enabled"
same describe --json block.sda.scheduler
same set "--dry-run --json --name opts" "sysctl.vm.swappiness=10 thp.enabled=never"
same apply "--dry-run --json --name opts -v sw=7" vars
same apply "--dry-run --var sw=7" vars
same export "--format sysctl --var sw=7" vars
same export "--format tuned --profile" throughput
same verify "--json -v sw=60" vars
same verify "--format prometheus" "sysctl.vm.swappiness=60 thp.enabled=madvise"
same why --json sysctl.vm.swappiness
same list-profiles --json ""
same status --json ""
# restore: one transaction for each order
"${P[@]}" set --name r1 sysctl.vm.swappiness=11 >/dev/null
"${P[@]}" set --name r2 sysctl.vm.swappiness=12 >/dev/null
"${P[@]}" restore --force r2 >"$TMP/before" || fail "restore --force r2"
"${P[@]}" restore r1 --force >"$TMP/after" || fail "restore r1 --force: options last"
[ "$(sed 's/r1/r2/' "$TMP/after")" = "$(cat "$TMP/before")" ] ||
	fail "restore: $(cat "$TMP/before") / $(cat "$TMP/after")"
[ "$(cat "$TMP/root/proc/sys/vm/swappiness")" = 60 ] || fail "restore r1 --force left swappiness"

# "--" ends the options: what follows is an operand even if it starts with '-'
rc=0
"${P[@]}" get -- --json >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "get -- --json: exit $rc, expected 2 (a malformed key)"
grep -q "^perftune: --json: " "$TMP/err" || fail "get -- --json: not taken as a key: $(cat "$TMP/err")"

# exec: its options end at CMD, with or without "--"; CMD's own options are CMD's
out=$("${P[@]}" exec --nodes 0 -- echo --nodes 1) || fail "exec -- CMD --nodes"
[ "$out" = "--nodes 1" ] || fail "exec --nodes 0 -- echo --nodes 1 printed '$out'"
out=$("${P[@]}" exec --nodes 0 echo -n --preferred) || fail "exec CMD -n"
[ "$out" = "--preferred" ] || fail "exec --nodes 0 echo -n --preferred printed '$out'"

# -v: the global --verbose before the command, --var VAR=VALUE after it; the error says so
rc=0
"${P[@]}" apply --dry-run vars -v >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "apply vars -v: exit $rc"
grep -q "\-v after 'apply' is --var VAR=VALUE; -v before it is --verbose" "$TMP/err" ||
	fail "apply vars -v: $(cat "$TMP/err")"
rc=0
"${P[@]}" set -v sysctl.vm.swappiness=1 >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "set -v: exit $rc"
grep -q "verbose goes before the command: perftune -v set" "$TMP/err" || fail "set -v: $(cat "$TMP/err")"
[ "$(cat "$TMP/root/proc/sys/vm/swappiness")" = 60 ] || fail "set -v changed swappiness"
out=$("${P[@]}" -v apply --dry-run vars --var sw=9 2>&1) || fail "-v apply --var: $out"
grep -q '^sysctl.vm.swappiness: 60 -> 9$' <<<"$out" || fail "-v apply --var sw=9: $out"

# each command's --help describes every option it has (those bash completion
# offers), each listed option is offered, and -v after the command is --var
# and says --verbose goes before it
comp=$SRCDIR/completion/perftune
for cmd in list get describe set restore status apply list-profiles export exec verify why; do
	"${P[@]}" "$cmd" --help >"$TMP/all" || fail "$cmd --help"
	grep -q "^The global options --root DIR, --journal-dir DIR and -v, --verbose go" "$TMP/all" ||
		fail "$cmd --help does not say where the global options go"
	sed '/^The global options/,$d' "$TMP/all" >"$TMP/help" # the command's own
	offered=$(sed -n "s/^\t\(.*| \)\{0,1\}$cmd\( |.*\)\{0,1\}) opts=\"\(.*\)\" ;;$/\3/p" "$comp")
	[ -n "$offered" ] || fail "completion offers no options for $cmd"
	for o in $offered; do
		grep -qE -- "(^|[ |\[])$o([ ,|=]|\]|$)" "$TMP/help" || fail "$cmd --help does not describe $o"
	done
	# the options of the usage and of the option lines ("  -o, --output FILE  ...")
	for o in $(sed -n '1,/^$/p; s/^  \(-[a-z], \)\{0,1\}\(--[a-z-]*\).*/\2/p' "$TMP/help" |
		grep -oE -- '(^|[ [|])--[a-z-]+' | tr -d ' [|' | sort -u); do
		grep -qw -- "$o" <<<"$offered" || fail "$cmd --help has $o, which completion does not offer"
	done
	if grep -q -- "--var" <<<"$offered"; then
		grep -q -- "-v, --var VAR=VALUE" "$TMP/help" || fail "$cmd --help: no -v, --var line"
		grep -q "Not --verbose" "$TMP/help" || fail "$cmd --help does not tell -v from --verbose"
	fi
done
echo "$n commands take their options after the operands; -- and exec's CMD kept apart;"
echo "every command's --help describes its options"
