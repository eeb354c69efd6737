#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier, hotplug under a hold (issue 35): a loop device made and attached
# after `apply --hold` of a profile whose [disk] section selects it by name gets
# the profile's scheduler and read-ahead, status shows it, and the end of the
# hold gives them back; a veth made inside a private network namespace after
# `set --hold net.vh*.txqueuelen=...` (run inside it: a network device's
# uevents reach the namespace that owns it) gets its txqueuelen and gives it
# back. Only the loop device and the namespace made here are touched.
. "$(dirname "$0")/lib.sh"

for t in losetup ip python3; do
	command -v $t >/dev/null || { echo "SKIP: $t is not installed"; rm -rf "$WORK"; exit 77; }
done
NS=perftune-hp-$$
HOLD=
LOOPN=
# LOOP_CTL_ADD / LOOP_CTL_REMOVE on /dev/loop-control: a loop device of a number of our own
loopctl() { python3 -c 'import fcntl, os, sys
fd = os.open("/dev/loop-control", os.O_RDWR)
print(fcntl.ioctl(fd, int(sys.argv[1], 0), int(sys.argv[2])))' "$@"; }
cleanup() {
	[ -n "$HOLD" ] && kill "$HOLD" 2>/dev/null && wait "$HOLD" 2>/dev/null
	if [ -n "$LOOPN" ]; then
		losetup -d /dev/loop$LOOPN 2>/dev/null
		loopctl 0x4C81 "$LOOPN" >/dev/null 2>&1
	fi
	ip netns del $NS 2>/dev/null
}
trap cleanup EXIT

# wait_for CMD...: until CMD succeeds, 60 s at most (a bound for a loaded machine)
wait_for() {
	for _ in $(seq 1200); do "$@" && return 0; sleep 0.05; done
	return 1
}
holding() { grep -q '^holding transaction' "$1"; }

# ---- a loop device added after apply --hold ----
if [ ! -e /dev/loop-control ]; then
	echo "SKIP: no /dev/loop-control"
	exit 77
fi
for n in $(seq 200 299); do [ -e /sys/block/loop$n ] || { LOOPN=$n; break; }; done
L=loop$LOOPN
mkdir -p "$WORK/hp"
cat >"$WORK/hp/tuned.conf" <<EOF
[main]
summary=hotplug test
[disk]
devices=$L
elevator=kyber|bfq|none
readahead=4096
EOF
$P apply --hold --name hp "$WORK/hp/tuned.conf" >"$WORK/hold.out" 2>&1 &
HOLD=$!
check "apply --hold of a profile that selects no device yet holds" wait_for holding "$WORK/hold.out"
loopctl 0x4C80 "$LOOPN" >/dev/null
eq "LOOP_CTL_ADD made $L" "$(cat /sys/block/$L/dev 2>/dev/null | cut -d: -f1)" 7
img=$(mktemp "$WORK/disk-XXXXXX.img")
truncate -s 16M "$img"
wait_for test -b /dev/$L || mknod /dev/$L b 7 "$LOOPN"
check "losetup attaches $L" losetup /dev/$L "$img"
tuned() { [ "$(cat /sys/block/$L/queue/read_ahead_kb)" = 4096 ]; }
check "the device added gets the profile's read-ahead" wait_for tuned
sched=$(sel /sys/block/$L/queue/scheduler)
check "... and the first scheduler of kyber|bfq|none it offers" grep -qx 'kyber\|bfq\|none' <<<"$sched"
# its original is what the bind gave it (the kernel sizes read-ahead by the backing file)
ra0=$(sed -n "s/.*'hp': $L added: block.$L.read_ahead_kb: \([0-9]*\) -> 4096$/\1/p" "$WORK/hold.out")
sc0=$(sed -n "s/.*'hp': $L added: block.$L.scheduler: \([a-z-]*\) -> $sched$/\1/p" "$WORK/hold.out")
check "the hold logs the device tuned, one line per key" test -n "$ra0" -a -n "$sc0"
st=$($P status)
check "status shows it HOTPLUG" grep -q "block.$L.read_ahead_kb: $ra0 -> 4096, now 4096 HOTPLUG" <<<"$st"
kill -TERM $HOLD
wait $HOLD
eq "the hold ends: exit 0" "$?" 0
HOLD=
eq "its read-ahead given back" "$(cat /sys/block/$L/queue/read_ahead_kb)" "$ra0"
eq "its scheduler given back" "$(sel /sys/block/$L/queue/scheduler)" "$sc0"
check "no journal left" bash -c "! ls $PERFTUNE_JOURNAL_DIR/hp.journal 2>/dev/null"

# ---- a veth made in a private network namespace after set --hold ----
if ! ip netns add $NS 2>/dev/null; then
	echo "SKIP: cannot create a network namespace (the disk part ran)"
	finish
	exit $?
fi
N="ip netns exec $NS"
# a glob matches at least one device when it is set: a pair there before the hold
if $N ip link add vha type veth peer name vhb 2>/dev/null; then
	qlen() { $N cat /sys/class/net/$1/tx_queue_len; }
	$N $P set --hold --name hpn 'net.vh*.txqueuelen=1234' >"$WORK/holdn.out" 2>&1 &
	HOLD=$!
	check "set --hold in the namespace holds" wait_for holding "$WORK/holdn.out"
	eq "the pair there before has it" "$(qlen vha)" 1234
	$N ip link add vh0 type veth peer name vh1
	netdone() { [ "$(qlen vh0)" = 1234 ] && [ "$(qlen vh1)" = 1234 ]; }
	check "both veth ends added get the txqueuelen" wait_for netdone
	check "status in the namespace shows them" bash -c "$N $P status | grep -q 'net.vh1.txqueuelen: 1000 -> 1234, now 1234 HOTPLUG'"
	$N ip link del vh1 # and vh0 with it: removed, nothing to give back
	$N ip link add vh2 type veth peer name vh3
	vh2done() { [ "$(qlen vh2)" = 1234 ]; }
	check "a pair added after one was removed is tuned too" wait_for vh2done
	kill -TERM $HOLD
	wait $HOLD
	eq "the namespace's hold ends: exit 0" "$?" 0
	HOLD=
	eq "vh2's txqueuelen given back" "$(qlen vh2)" 1000
	eq "vha's txqueuelen given back" "$(qlen vha)" 1000
	check "the removed pair is not an error" bash -c "! grep -q 'error' $WORK/holdn.out"
else
	echo "# no veth in this kernel: the net part is skipped"
fi
finish
