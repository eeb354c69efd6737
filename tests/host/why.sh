#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier, why and verify on the real machine: a sysctl.d file and a udev
# rule for a loop device made here (both removed afterwards) are named by
# `why`; `verify` of a profile before and after `apply`; set warns about the
# sysctl.d file that will put its key back, reading it once for all the keys
# (strace); a NUL byte ends a line; a value changed behind our back shows as
# `differs` with that file.
. "$(dirname "$0")/lib.sh"

A=$(new_loop) || { not_ok "losetup"; finish; exit 1; }
CONF=/etc/sysctl.d/99-perftune-hosttest-$$.conf
RULE=/etc/udev/rules.d/99-perftune-hosttest-$$.rules
trap 'rm -f "$CONF" "$RULE"' EXIT
swap0=$(cat /proc/sys/vm/swappiness)
mine=$((swap0 == 33 ? 34 : 33)) boot=$((swap0 == 44 ? 45 : 44))
echo "vm.swappiness = $boot" >"$CONF"
printf 'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="%s", ENV{DEVTYPE}=="disk", ATTR{queue/scheduler}="mq-deadline"\n' \
	"$A" >"$RULE"

out=$($P why sysctl.vm.swappiness)
eq "why exits 0" "$?" 0
check "why names the sysctl.d file and line" grep -q "sysctl.d    $CONF:1: $boot  \[wins\]" <<<"$out"
out=$($P why --json sysctl.vm.swappiness)
check "why --json: the file as a source" grep -q "\"location\": \"$CONF:1\", \"value\": \"$boot\"" <<<"$out"
out=$($P why block.$A.scheduler)
check "why names the udev rule for $A (ENV{DEVTYPE} from libudev)" grep -q "udev        $RULE:1: mq-deadline" <<<"$out"
out=$($P why block.$A.read_ahead_kb)
check "a rule for another attribute is not a source" grep -q "nothing else on this machine sets it" <<<"$out"

# the warning scan reads each sysctl.d file once for all the keys set, and /proc once (to
# find a tuned that re-applies the file); both were read again for every key
# (LeakSanitizer cannot run under ptrace: an ASan build's leak check is off here)
out=$(ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=openat,openat2,open -o "$WORK/strace" \
	$P set --dry-run sysctl.vm.swappiness=$mine "sysctl.vm.dirty_ratio=$(cat /proc/sys/vm/dirty_ratio)" \
	"sysctl.vm.dirty_background_ratio=$(cat /proc/sys/vm/dirty_background_ratio)" 2>&1)
eq "set --dry-run of three sysctls exits 0" "$?" 0
check "it warns about the sysctl.d file" grep -q "warning: sysctl.vm.swappiness: sysctl.d $CONF:1 puts back $boot" <<<"$out"
# (opened in its directory: the name alone, or the whole path)
eq "the sysctl.d file is opened once for three keys" \
	"$(grep -cE "\"(/etc/sysctl.d/)?${CONF##*/}\"" "$WORK/strace")" 1
eq "init's comm is read once for three keys" "$(grep -cE '"(/proc/)?1/comm"' "$WORK/strace")" 1

# a NUL byte ends a line, as systemd-sysctl reads it: the line after it is found (H7)
printf 'vm.dirty_ratio = 21\0vm.swappiness = %s\n' "$boot" >"$CONF"
out=$($P why sysctl.vm.swappiness)
check "why finds the line after a NUL byte" grep -q "sysctl.d    $CONF:2: $boot  \[wins\]" <<<"$out"
echo "vm.swappiness = $boot" >"$CONF"

# verify of a profile before and after apply
mkdir -p "$WORK/prof/hosttest"
printf '[main]\nsummary=host test\n[sysctl]\nvm.swappiness=%s\n[bootloader]\ncmdline=perftune_hosttest=1\n[script]\nscript=x.sh\n' \
	"$mine" >"$WORK/prof/hosttest/tuned.conf"
out=$($P verify "$WORK/prof/hosttest"); rc=$?
eq "verify before apply exits 1" "$rc" 1
check "verify: differs before apply" grep -q "^differs      sysctl.vm.swappiness = $mine (now $swap0" <<<"$out"
check "verify: the boot parameter needs a reboot" grep -q "^needs reboot \[bootloader\] cmdline = perftune_hosttest=1" <<<"$out"
check "verify: the script is skipped" grep -q "^skipped      \[script\] script" <<<"$out"
err=$($P apply --name hv "$WORK/prof/hosttest" 2>&1 >/dev/null)
eq "apply exits 0" "$?" 0
check "apply warns that the sysctl.d file puts the key back" \
	grep -q "warning: sysctl.vm.swappiness: sysctl.d $CONF:1 puts back $boot" <<<"$err"
out=$($P set --dry-run --json sysctl.vm.swappiness=$mine 2>/dev/null)
eq "set --dry-run --json exits 0" "$?" 0
check "set --json lists the warning: the sysctl.d file, its line and value" \
	python3 -c 'import json, sys
w = json.loads(sys.argv[1])["warnings"]
sys.exit(not any(x["key"] == "sysctl.vm.swappiness" and x["kind"] == "sysctl.d"
                 and x["location"] == sys.argv[2] + ":1" and x["value"] == sys.argv[3] for x in w))' "$out" "$CONF" "$boot"
out=$($P verify hv); rc=$?
eq "verify of the transaction after apply exits 0" "$rc" 0
check "verify: in force" grep -q "^in force     sysctl.vm.swappiness = $mine" <<<"$out"
out=$($P verify --json "$WORK/prof/hosttest"); rc=$?
eq "verify of the profile after apply: 1 (the reboot is still due)" "$rc" 1
check "verify --json: in force and needs reboot" \
	grep -q "\"in force\": 1, \"differs\": 0, \"clamped\": 0, \"not here\": 0, \"needs reboot\": 1, \"skipped\": 1" <<<"$out"

# systemd-sysctl runs again behind our back
echo "$boot" >/proc/sys/vm/swappiness
out=$($P verify hv); rc=$?
eq "verify after a change behind our back exits 1" "$rc" 1
check "differs, and names the sysctl.d file" \
	grep -q "^differs      sysctl.vm.swappiness = $mine (now $boot, expected $mine; set by sysctl.d $CONF:1)" <<<"$out"
$P restore --force hv >/dev/null 2>&1
eq "restore puts swappiness back" "$(cat /proc/sys/vm/swappiness)" "$swap0"

# KEY=VALUE with the blk-mq alias, before and after set
out=$($P verify block.$A.scheduler=deadline); rc=$?
eq "verify scheduler before set exits 1" "$rc" 1
$P set --name sched block.$A.scheduler=mq-deadline >/dev/null 2>&1
$P verify block.$A.scheduler=deadline >/dev/null
eq "verify deadline = [mq-deadline] after set exits 0" "$?" 0
$P restore sched >/dev/null

# bad input: unknown key, missing profile, unreadable file (named, not fatal)
$P verify nosuch.key=1 >/dev/null 2>&1
eq "unknown key: exit 2" "$?" 2
$P verify "$WORK/prof/nosuch" >/dev/null 2>&1
eq "missing profile: exit 2" "$?" 2
mkdir -p "/etc/sysctl.d/98-perftune-hosttest-$$.conf"
out=$($P why sysctl.vm.swappiness 2>&1)
rmdir "/etc/sysctl.d/98-perftune-hosttest-$$.conf"
check "an unreadable sysctl.d entry is named" grep -q "98-perftune-hosttest-$$.conf: cannot read" <<<"$out"
check "and the others are still read" grep -q "$CONF:1: $boot" <<<"$out"

# clamped: max_sectors_kb past the loop device's max_hw_sectors_kb
Q=/sys/block/$A/queue
hw=$(cat $Q/max_hw_sectors_kb) ms0=$(cat $Q/max_sectors_kb)
if echo $((hw * 2)) >$Q/max_sectors_kb 2>/dev/null; then
	echo "# this kernel takes max_sectors_kb=$((hw * 2)) and holds $(cat $Q/max_sectors_kb) (a newer kernel)"
	echo "$ms0" >$Q/max_sectors_kb
	out=$($P set --name clamp block.$A.max_sectors_kb=$((hw * 2)) 2>&1)
	eq "set past the hardware's limit exits 1" "$?" 1
	check "it names the limit" grep -q "block.$A.max_sectors_kb: the kernel holds at most max_hw_sectors_kb = $hw (asked $((hw * 2)))" <<<"$out"
	eq "max_sectors_kb as before" "$(cat $Q/max_sectors_kb)" "$ms0"
	out=$($P verify block.$A.max_sectors_kb=$((hw * 2)))
	eq "verify of it exits 1" "$?" 1
	check "verify: clamped, with the limit" grep -q "^clamped      block.$A.max_sectors_kb = $((hw * 2)) (.*at most max_hw_sectors_kb = $hw" <<<"$out"
else
	echo "# this kernel refuses max_sectors_kb past max_hw_sectors_kb (an older kernel): nothing is clamped"
	out=$($P set --name clamp block.$A.max_sectors_kb=$((hw * 2)) 2>&1)
	eq "set past the hardware's limit exits 1" "$?" 1
	check "the kernel's refusal is named" grep -q "block.$A.max_sectors_kb: kernel refused" <<<"$out"
fi
finish
