#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CLI's hold follows devices added (issue 35) on the fake machine: apply
# --hold of a profile under --root, disks made in the tree and their events
# written to its FIFO (run/perftune-uevents, tests/unit/README.md); the hold
# logs the disk it tuned, status shows it HOTPLUG and the one that refused
# REFUSED (text and --json), and SIGTERM gives everything back.
#   cli-hotplug.sh BUILDDIR MKROOT
set -uo pipefail
B=${1:?BUILDDIR} MKROOT=${2:?mkroot.sh}
P=$B/utils/perftune
W=$(mktemp -d /tmp/perftune-cli-hotplug-XXXXXX)
R=$W/root J=$W/journal hold=
trap '[ -n "$hold" ] && kill "$hold" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
fail=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }
check() { local n=$1; shift; if "$@"; then ok "$n"; else not_ok "$n"; fi; }
wait_for() { for _ in $(seq 200); do "$@" && return 0; sleep 0.05; done; return 1; }

if [ -d "$B/tests/unit/unit-root" ]; then cp -a "$B/tests/unit/unit-root" "$R"; else bash "$MKROOT" "$R" >/dev/null; fi
pt() { "$P" --root "$R" --journal-dir "$J" "$@"; }
# add_disk NAME MINOR SCHEDULER: a virtual disk, as the kernel adds one
add_disk() {
	local d=$R/sys/devices/virtual/block/$1
	mkdir -p "$d/queue"
	printf 'MAJOR=7\nMINOR=%s\nDEVNAME=%s\nDEVTYPE=disk\n' "$2" "$1" >"$d/uevent"
	echo "7:$2" >"$d/dev"
	echo 0 >"$d/removable"
	echo "$((500 + $2))" >"$d/diskseq"
	echo "$3" >"$d/queue/scheduler"
	echo 128 >"$d/queue/read_ahead_kb"
	echo 0 >"$d/queue/rotational"
	ln -s "../devices/virtual/block/$1" "$R/sys/block/$1"
	ln -s "../../devices/virtual/block/$1" "$R/sys/class/block/$1"
}
printf '[main]\nsummary=hotplug\n[disk]\ndevices=vd*\nelevator=kyber\n' >"$W/tuned.conf"

# ---- a profile's hold: its rules select the disk added ----
"$P" --root "$R" --journal-dir "$J" apply --hold --name hp "$W/tuned.conf" >"$W/out" 2>&1 &
hold=$!
check "apply --hold of a profile selecting no disk yet holds" wait_for grep -q '^holding' "$W/out"
add_disk vda 40 "[mq-deadline] kyber none"
add_disk vdb 41 "[mq-deadline] none"
add_disk sdz 42 "[mq-deadline] kyber none"
printf 'add block vda\nadd block vdb\nadd block sdz\n' >"$R/run/perftune-uevents"
check "the hold logs the disk tuned" \
	wait_for grep -q "^perftune: transaction 'hp': vda added: block.vda.scheduler: mq-deadline -> kyber$" "$W/out"
check "... and, as apply prints it, the option skipped on the one that lacks it" \
	wait_for grep -q "^perftune: profile .*: vdb added: skipped: \[disk\] elevator: .*'kyber' is not offered" "$W/out"
st=$(pt status)
check "status: the disk added is HOTPLUG" \
	grep -q '^  block.vda.scheduler: mq-deadline -> kyber, now kyber HOTPLUG$' <<<"$st"
check "status: a disk the profile does not select is not there" bash -c "! grep -q 'sdz\|vdb' <<<'$st'"
js=$(pt status --json)
check "status --json: hotplug" grep -q '"key": "block.vda.scheduler".*"hotplug": true, "refused": false' <<<"$js"
kill -TERM "$hold"
wait "$hold"
rc=$?
check "SIGTERM ends the hold: exit 0" test "$rc" = 0
hold=
check "vda given back" grep -qx 'mq-deadline' "$R/sys/block/vda/queue/scheduler"

# ---- a glob's hold: the disk added that refuses is listed ----
"$P" --root "$R" --journal-dir "$J" set --hold --name hg 'block.sd*.scheduler=kyber' >"$W/out2" 2>&1 &
hold=$!
check "set --hold of a glob holds" wait_for grep -q '^holding' "$W/out2"
add_disk sdy 43 "[mq-deadline] none"
printf 'add block sdy\n' >"$R/run/perftune-uevents"
refused() { pt status | grep -q '^  block.sdy: REFUSED'; }
check "the disk that refuses is listed REFUSED" wait_for refused
st=$(pt status) js=$(pt status --json)
check "... with the reason" grep -q "^  block.sdy: REFUSED - block.sdy.scheduler: 'kyber' is not offered" <<<"$st"
check "status --json: refused" \
	grep -q '"key": "block.sdy", "original": null, .*"hotplug": false, "refused": true' <<<"$js"
check "the hold warns of the refusal" grep -q "^perftune: warning: transaction 'hg': block.sdy added, not tuned: " "$W/out2"
check "sdz, there before the hold, has it" grep -qx kyber "$R/sys/block/sdz/queue/scheduler"
kill -TERM "$hold"
wait "$hold"
rc=$?
check "SIGTERM ends the second hold: exit 0" test "$rc" = 0
hold=
check "sdz given back" grep -qx mq-deadline "$R/sys/block/sdz/queue/scheduler"
check "sdy untouched" grep -qx '\[mq-deadline\] none' "$R/sys/block/sdy/queue/scheduler"
check "no journal left" bash -c "! ls $J/*.journal 2>/dev/null | grep -q ."
exit $fail
