#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The journal through the CLI on the fake machine (issue 27, holes B, C, D): a
# record cut short is never restored, the journal directory is never a symlink
# however spelled, a FIFO never hangs status, restore --orphans or get.
. "$(dirname "$0")/lib.sh"
fake_root "$TMP/root"
P=("$PERFTUNE" --root "$TMP/root")
JD=$PERFTUNE_JOURNAL_DIR
mkdir -m 0700 "$JD"

expect() { # expect STATUS PATTERN CMD...: exit status and a stderr pattern (20 s at most)
	local want=$1 pat=$2 rc=0
	shift 2
	timeout 20 "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" != 124 ] || fail "$*: hung"
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want: $(cat "$TMP/err")"
	[ -z "$pat" ] || grep -q -- "$pat" "$TMP/err" || fail "$*: stderr lacks '$pat': $(cat "$TMP/err")"
}
val() { tr -d '\n' <"$TMP/root/proc/sys/vm/$1"; }

# B: the issue's reproducer, a value cut short by an interrupted append, after a whole record
printf 'perftune-journal 1\nname t1\nboot %s\nflags 0\npid 4194303 123\norig 1 sysctl.vm.dirty_background_ratio\t10\norig 2 sysctl.vm.swappiness\t6' \
	"$(cat /proc/sys/kernel/random/boot_id)" >"$JD/t1.journal"
chmod 0600 "$JD/t1.journal"
echo 5 >"$TMP/root/proc/sys/vm/dirty_background_ratio"
echo 10 >"$TMP/root/proc/sys/vm/swappiness"
expect 0 "journal t1: last record cut short" "${P[@]}" restore --orphans
[ "$(val swappiness)" = 10 ] || fail "a value cut short was written back: swappiness $(val swappiness)"
[ "$(val dirty_background_ratio)" = 10 ] || fail "the whole record before the cut was not restored"
[ ! -e "$JD/t1.journal" ] || fail "the orphan's journal is still there"

# C: the journal directory is never a symlink, however it is spelled
mkdir -m 0700 "$TMP/real"
ln -s "$TMP/real" "$TMP/jlink"
for d in "$TMP/jlink" "$TMP/jlink/" "$TMP/jlink/." "$TMP/jlink/./"; do
	expect 1 "is a symlink or not a directory" "${P[@]}" --journal-dir "$d" set --name c sysctl.vm.swappiness=11
	[ "$(val swappiness)" = 10 ] || fail "--journal-dir $d: the value was changed"
done
[ -z "$(ls -A "$TMP/real")" ] || fail "something was written through the link: $(ls -A "$TMP/real")"
expect 1 "PERFTUNE_JOURNAL_DIR 'rel/journal': not an absolute path" \
	env PERFTUNE_JOURNAL_DIR=rel/journal "${P[@]}" status
expect 1 "PERFTUNE_JOURNAL_DIR 'rel/journal': not an absolute path" \
	env PERFTUNE_JOURNAL_DIR=rel/journal "${P[@]}" set --name r sysctl.vm.swappiness=12
[ "$(val swappiness)" = 10 ] || fail "a relative PERFTUNE_JOURNAL_DIR changed a value"
[ ! -e rel ] || fail "a relative journal directory was created"

# D: a FIFO named *.journal is skipped with a warning; a FIFO for a kernel file is refused
mkfifo -m 0600 "$JD/fifo.journal"
expect 0 "fifo.journal is not a regular file, skipped" "${P[@]}" status
expect 0 "fifo.journal is not a regular file, skipped" "${P[@]}" restore --orphans
expect 0 "" "${P[@]}" set --name after sysctl.vm.swappiness=13 # the lock was let go
expect 0 "" "${P[@]}" restore after
[ "$(val swappiness)" = 10 ] || fail "swappiness not restored: $(val swappiness)"
rm "$TMP/root/proc/sys/vm/dirty_ratio"
mkfifo "$TMP/root/proc/sys/vm/dirty_ratio"
expect 1 "sysctl.vm.dirty_ratio: cannot read /proc/sys/vm/dirty_ratio: not a regular file" \
	"${P[@]}" get sysctl.vm.dirty_ratio
echo "ok"
