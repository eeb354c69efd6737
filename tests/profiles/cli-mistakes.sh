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
