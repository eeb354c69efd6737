#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier: the udev rules that export writes, run by udev itself on a loop
# device this test creates (udevadm test applies ATTR{} assignments), and the
# sysctl.d file of a real transaction parsed by sysctl --dry-run.
. "$(dirname "$0")/lib.sh"
need_root "creates a loop device and runs udevadm test"
need losetup
need udevadm
need unshare
truncate -s 32M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || skip "no loop device available"
CLEANUP+=("losetup -d $LOOP")
DEV=${LOOP#/dev/}
Q=/sys/block/$DEV/queue
sched0=$(sed 's/.*\[\(.*\)\].*/\1/' "$Q/scheduler") ra0=$(cat "$Q/read_ahead_kb") rot=$(cat "$Q/rotational")
CLEANUP+=("echo $sched0 >$Q/scheduler; echo $ra0 >$Q/read_ahead_kb")
CLEANUP+=("'$PERFTUNE' restore ex >/dev/null 2>&1")
scheduler() { sed 's/.*\[\(.*\)\].*/\1/' "$Q/scheduler"; }
grep -qw mq-deadline "$Q/scheduler" && grep -qw kyber "$Q/scheduler" || skip "mq-deadline and kyber not offered"

# run udev's rule engine on our loop device with only RULES, in a private mount
# namespace whose /run/udev and /dev are scratch (udevadm test writes there)
udev_test() {
	mkdir -p "$TMP/rules" "$TMP/empty"
	cp "$1" "$TMP/rules/60-perftune.rules"
	unshare -m sh -ec "
		mount --make-rprivate /
		mount --bind '$TMP/empty' /usr/lib/udev/rules.d
		[ -d /lib/udev/rules.d ] && mount --bind '$TMP/empty' /lib/udev/rules.d
		mkdir -p /etc/udev/rules.d && mount --bind '$TMP/rules' /etc/udev/rules.d
		mount -t tmpfs tmpfs /run
		mount -t tmpfs tmpfs /dev
		udevadm test --action=change /sys/block/$DEV" >"$TMP/udev.log" 2>&1 ||
		fail "udevadm test: $(tail -5 "$TMP/udev.log")"
	grep -q '60-perftune.rules' "$TMP/udev.log" || fail "udev did not read the rules: $(cat "$TMP/udev.log")"
}

# 1. a transaction's rules: KERNEL=="loopN"
"$PERFTUNE" set --name ex "block.$DEV.scheduler=mq-deadline" "block.$DEV.read_ahead_kb=512" >/dev/null
"$PERFTUNE" export --format udev -o "$TMP/ex.rules" ex
"$PERFTUNE" export --format sysctl -o "$TMP/ex.conf" ex
"$PERFTUNE" restore ex >/dev/null
[ "$(scheduler)" = "$sched0" ] && [ "$(cat "$Q/read_ahead_kb")" = "$ra0" ] || fail "restore ex"
grep -qx "ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"$DEV\", TEST==\"queue/scheduler\", ATTR{queue/scheduler}=\"mq-deadline\"" \
	"$TMP/ex.rules" || fail "rules: $(cat "$TMP/ex.rules")"
grep -qx "ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"$DEV\", TEST==\"queue/read_ahead_kb\", ATTR{queue/read_ahead_kb}=\"512\"" \
	"$TMP/ex.rules" || fail "rules: $(cat "$TMP/ex.rules")"
udev_test "$TMP/ex.rules"
[ "$(scheduler)" = mq-deadline ] || fail "udev did not set the scheduler: $(cat "$Q/scheduler")"
[ "$(cat "$Q/read_ahead_kb")" = 512 ] || fail "udev did not set read_ahead_kb"
echo "$sched0" >"$Q/scheduler"
echo "$ra0" >"$Q/read_ahead_kb"
grep -q '^# not a sysctl: block' "$TMP/ex.conf" || fail "sysctl export of block keys: $(cat "$TMP/ex.conf")"

# 2. a profile's pattern rule, by rotational: matches with our value, not with the other
mkdir -p "$TMP/p/rot" "$TMP/p/other"
printf '[disk-x]\ntype=disk\ndevices=loop*\nrotational=%s\nelevator=kyber\n' "$rot" >"$TMP/p/rot/tuned.conf"
printf '[disk-x]\ntype=disk\ndevices=loop*\nrotational=%s\nelevator=kyber\n' $((1 - rot)) >"$TMP/p/other/tuned.conf"
"$PERFTUNE" export --format udev -o "$TMP/rot.rules" "$TMP/p/rot"
grep -q "KERNEL==\"loop\*\", ATTR{queue/rotational}==\"$rot\", TEST==\"queue/scheduler\", ATTR{queue/scheduler}=\"kyber\"" "$TMP/rot.rules" ||
	fail "pattern rule: $(cat "$TMP/rot.rules")"
sed "s/rotational}==\"$rot\"/rotational}==\"$((1 - rot))\"/" "$TMP/rot.rules" >"$TMP/other.rules"
udev_test "$TMP/other.rules"
[ "$(scheduler)" = "$sched0" ] || fail "a rule for rotational=$((1 - rot)) matched a rotational=$rot disk"
udev_test "$TMP/rot.rules"
[ "$(scheduler)" = kyber ] || fail "the rotational=$rot rule did not set kyber: $(cat "$Q/scheduler")"
echo "$sched0" >"$Q/scheduler"

# 3. the guard: a pattern also meets devices without the attribute (zram has no
# scheduler); the rule's TEST keeps udev from failing on them at every event
sed 's|queue/scheduler|queue/nosuch|g' "$TMP/rot.rules" >"$TMP/guarded.rules"
sed 's|, TEST=="queue/nosuch"||' "$TMP/guarded.rules" >"$TMP/unguarded.rules"
udev_test "$TMP/unguarded.rules"
grep -i 'nosuch' "$TMP/udev.log" | grep -qi 'fail\|error' ||
	fail "udev did not complain about a missing attribute: the check below proves nothing: $(cat "$TMP/udev.log")"
udev_test "$TMP/guarded.rules"
! grep -i 'nosuch' "$TMP/udev.log" | grep -qi 'fail\|error' ||
	fail "a guarded rule still failed on a missing attribute: $(grep -i nosuch "$TMP/udev.log")"
echo "udev rules from export apply as written"
