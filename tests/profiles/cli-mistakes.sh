#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Common mistakes, tried as a new user would, on the fake machine: each gets
# the right exit status and an answer that says what to do, and nothing is
# changed.
. "$(dirname "$0")/lib.sh"
need python3
fake_root "$TMP/root"
rm "$TMP/root/sys/block/zram0/queue/scheduler" # as on a real zram device
P=("$PERFTUNE" --root "$TMP/root")
tree_sum "$TMP/root" >"$TMP/pristine"

run() { # run CMD...: stdout in $TMP/out, stderr in $TMP/err, the exit status in $rc
	rc=0
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
}
expect() { # expect STATUS PATTERN CMD...: exit status and a stderr pattern
	local want=$1 pat=$2
	shift 2
	run "$@"
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want: $(cat "$TMP/err")"
	[ -z "$pat" ] || grep -q -- "$pat" "$TMP/err" || fail "$*: stderr lacks '$pat': $(cat "$TMP/err")"
}

# a malformed key, or a mistake for a key this machine has, is a usage error (2)
# in every command that takes keys, never "not here" for verify; a typo says
# the key meant; a key absent here is a failure (1), "not here" for verify
for cmd in get describe why "set --dry-run" verify; do
	case $cmd in set* | verify) eq="=1" ;; *) eq="" ;; esac
	# shellcheck disable=SC2086 # $cmd: a command and its options
	expect 2 "^perftune: bad..key: empty component" "${P[@]}" $cmd "bad..key$eq"
	# shellcheck disable=SC2086
	expect 2 "did you mean sysctl.vm.swappiness?" "${P[@]}" $cmd "sysctl.vm.swapiness$eq"
	# shellcheck disable=SC2086
	expect 2 "unknown family 'vm'.*; did you mean sysctl.vm.swappiness?" "${P[@]}" $cmd "vm.swappiness$eq"
	! grep -q "not here" "$TMP/out" || fail "$cmd vm.swappiness$eq: 'not here': $(cat "$TMP/out")"
done
# a bracketed name is literal in every family now (issue 33 H5): list 'sysctl[x]'
# is the prefix of a sysctl named x, which this tree lacks: nothing listed, as
# for any prefix that names nothing, and no error
expect 0 "" "${P[@]}" list 'sysctl[x]'
[ ! -s "$TMP/out" ] || fail "list 'sysctl[x]' listed: $(cat "$TMP/out")"
expect 1 "^perftune: sysctl.vm.nosuch: no such sysctl$" "${P[@]}" get sysctl.vm.nosuch
expect 0 "" "${P[@]}" verify sysctl.vm.nosuch=1
grep -q "^not here  *sysctl.vm.nosuch = 1" "$TMP/out" || fail "verify of an absent sysctl: $(cat "$TMP/out")"
# a value the key does not take is a failure of set (exit 1), as before
expect 1 "nothing was changed" "${P[@]}" set sysctl.vm.swappiness=abc
expect 2 "^perftune: vm.swappiness: " "${P[@]}" set sysctl.vm.swappiness=1 vm.swappiness=1
! grep -q "nothing was changed" "$TMP/err" || fail "a usage error is no failure: $(cat "$TMP/err")"

# a glob over disks one of which lacks the attribute: the others are read,
# the one without it is said (text and JSON); exit 0
expect 0 "^perftune: not here: block.zram0.scheduler: " "${P[@]}" get 'block.*.scheduler'
grep -q '^block.sda.scheduler = mq-deadline$' "$TMP/out" || fail "glob: sda not read: $(cat "$TMP/out")"
grep -q '^block.nvme0n1.scheduler = none$' "$TMP/out" || fail "glob: nvme0n1 not read: $(cat "$TMP/out")"
! grep -q zram0 "$TMP/out" || fail "glob: zram0 on stdout: $(cat "$TMP/out")"
expect 0 "not here: block.zram0.scheduler" "${P[@]}" get --json 'block.*.scheduler'
got=$(json "$TMP/out" '(d["block.sda.scheduler"], d["block.zram0.scheduler"])')
[ "$got" = "('mq-deadline', None)" ] || fail "glob --json: $(cat "$TMP/out")"
# a key of which nothing can be read fails, as before
expect 1 "^perftune: block.zram0.scheduler: " "${P[@]}" get block.zram0.scheduler
expect 1 "^perftune: block.zram0.scheduler: " "${P[@]}" get 'block.z*.scheduler'
tree_sum "$TMP/root" | diff -u "$TMP/pristine" - || fail "a get changed the machine"
# those that have it agree: their value once, as for any key
echo "none [mq-deadline]" >"$TMP/root/sys/block/nvme0n1/queue/scheduler"
expect 0 "not here: block.zram0.scheduler" "${P[@]}" get 'block.*.scheduler'
[ "$(cat "$TMP/out")" = mq-deadline ] || fail "glob of agreeing disks: $(cat "$TMP/out")"
echo "common mistakes answered"
