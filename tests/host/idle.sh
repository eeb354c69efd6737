#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier: idle states of this machine's real cpuidle driver (issue 19).  A
# state disabled by its key, by its kernel name and by idle.max_latency_us,
# read back and restored; the same inside a transaction that fails late (a
# sysctl the kernel refuses after the idle writes).  Every state's disable
# file is saved first and put back by an EXIT trap, whatever happens.
#
# First, on every machine, what a user gets where the kernel has no cpuidle
# driver (issue 32): every idle key refused with the reason, none listed, a
# transaction holding one writes nothing.  A machine without a driver shows
# it as it is; on one with a driver, each perftune call runs in a private
# mount namespace where the cpuidle directories are empty tmpfs mounts and
# current_driver says "none", as such a kernel's sysfs does.  The idle states
# themselves are proven on a real driver in the VM tier (guest-cpu-tests.sh)
# and, where this machine has one, below.
. "$(dirname "$0")/lib.sh"
CI=/sys/devices/system/cpu/cpuidle
S0=/sys/devices/system/cpu/cpu0/cpuidle
HAVE_IDLE=1
if [ ! -d $CI ] || [ ! -d $S0/state0 ]; then HAVE_IDLE=0; fi
echo "# cpuidle driver: $(cat $CI/current_driver 2>/dev/null || echo 'absent')"

# run "$@" as on a kernel without a cpuidle driver
without_cpuidle() {
	if [ $HAVE_IDLE = 0 ]; then
		"$@"
		return
	fi
	unshare -m --propagation private bash -c '
		set -e
		mount -t tmpfs -o size=16k,mode=0755 perftune-test '$CI'
		echo none >'$CI'/current_driver
		for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle; do
			mount -t tmpfs -o size=4k,mode=0755 perftune-test "$d"
		done
		exec "$@"' bash "$@"
}
if [ $HAVE_IDLE = 1 ]; then
	check "no driver: the namespace hides every state" \
		without_cpuidle bash -c "! ls -d /sys/devices/system/cpu/cpu*/cpuidle/state* 2>/dev/null"
fi
NOIDLE="no cpuidle states on this machine"
lacks() { ! grep -qF -- "$1" <<<"$2"; }              # lacks TEXT OUTPUT
says() { grep -F -- "$1" <<<"$3" | grep -qF -- "$2"; } # says KEY REASON OUTPUT: on one line
out=$(without_cpuidle $P list cpu 2>&1); rc=$?
eq "no driver: list cpu succeeds" "$rc" 0
check "no driver: list prints no idle key" lacks .idle. "$out"
for k in cpu.0.idle.max_latency_us cpu.all.idle.max_latency_us cpu.0.idle.POLL.disable; do
	out=$(without_cpuidle $P get $k 2>&1); rc=$?
	check "no driver: get $k fails (exit $rc)" test "$rc" -ne 0
	check "no driver: get $k names the key and the reason" says "$k" "$NOIDLE" "$out"
done
out=$(without_cpuidle $P describe cpu.0.idle.max_latency_us 2>&1); rc=$?
check "no driver: describe fails (exit $rc)" test "$rc" -ne 0
check "no driver: describe says why" says cpu.0.idle.max_latency_us "$NOIDLE" "$out"
# a transaction with a sysctl and an idle limit: refused before anything is written
sw0=$(cat /proc/sys/vm/swappiness)
out=$(without_cpuidle $P set --name idle-none sysctl.vm.swappiness=$(((sw0 + 7) % 100)) \
	cpu.all.idle.max_latency_us=0 2>&1); rc=$?
eq "no driver: set of an idle limit fails" "$rc" 1
check "no driver: set names the key and the reason" \
	says cpu.all.idle.max_latency_us "$NOIDLE" "$out"
check "no driver: set says nothing was changed" grep -qF "nothing was changed" <<<"$out"
eq "no driver: swappiness untouched" "$(cat /proc/sys/vm/swappiness)" "$sw0"
check "no driver: no journal" bash -c "[ ! -e $PERFTUNE_JOURNAL_DIR/idle-none.journal ]"
if [ $HAVE_IDLE = 1 ]; then
	check "no driver: the namespace's mounts stayed in it" test -d $S0/state0
else
	echo "# no cpuidle driver here: the idle states themselves are tested in the VM tier"
	echo "# (tests/vm/guest-cpu-tests.sh on acpi_idle)"
	finish
	exit
fi

# every state's disable file, put back on exit (the test's own restores come first)
SAVED=$WORK/idle.saved
for f in /sys/devices/system/cpu/cpu*/cpuidle/state*/disable; do
	printf '%s %s\n' "$f" "$(cat "$f")"
done >"$SAVED"
# (after finish, which checked the machine and removed $WORK, nothing is left to put back)
put_back() { [ -f "$SAVED" ] || return 0; while read -r f v; do echo "$v" >"$f" 2>/dev/null; done <"$SAVED"; }
idle_state() { cat /sys/devices/system/cpu/cpu*/cpuidle/state*/disable | tr -d '\n'; }
trap 'put_back' EXIT
IDLE0=$(idle_state)

# the deepest enabled state of CPU 0 (highest exit latency), its kernel name and key
deep= lat=-1
for d in $S0/state*; do
	l=$(cat $d/latency)
	[ "$(cat $d/disable)" = 0 ] && [ "$l" -gt "$lat" ] && { deep=$d lat=$l; }
done
[ -n "$deep" ] || { echo "SKIP: every idle state of CPU 0 is disabled already"; exit 77; }
kname=$(cat $deep/name)
# the documented key form: characters outside the key alphabet become '_'
kform=$(printf %s "$kname" | tr -c 'A-Za-z0-9_:,+@-' '_')
echo "# deepest state of cpu0: $(basename $deep) '$kname' (exit latency $lat us), key form $kform"
key=cpu.0.idle.$kform.disable
if $P list cpu.0.idle | grep -q "^$key = "; then ok "list prints $key"; else
	# a collision of key forms names it by id instead
	key=cpu.0.idle.$(basename $deep).disable
	check "list prints $key (key form shared)" bash -c "$P list cpu.0.idle | grep -q '^$key = '"
fi
check "describe shows the kernel's name" bash -c "$P describe $key | grep -qF \"kernel name '$kname'\""

# 1. by key
$P set --name idle-key "$key=1" >/dev/null
eq "by key: disabled" "$(cat $deep/disable)" 1
eq "by key: get reads it back" "$($P get "$key")" 1
$P restore idle-key >/dev/null
eq "by key: restored" "$(cat $deep/disable)" 0

# 2. by the kernel's name, in brackets (quoted: it may hold blanks)
$P set --name idle-name "cpu.0.idle[$kname].disable=1" >/dev/null
eq "by kernel name: disabled" "$(cat $deep/disable)" 1
eq "by kernel name: get through the key form" "$($P get "$key")" 1
check "status names the key form" bash -c "$P status | grep -qF '$key'"
$P restore idle-name >/dev/null
eq "by kernel name: restored" "$(cat $deep/disable)" 0

# 3. idle.max_latency_us below the deepest latency: every deeper state of every CPU off
max=$((lat - 1))
if [ "$max" -ge 0 ]; then
	$P set --name idle-lat cpu.all.idle.max_latency_us=$max >/dev/null
	bad=0
	for d in /sys/devices/system/cpu/cpu*/cpuidle/state*; do
		want=$(grep -x "$d/disable 1" "$SAVED" >/dev/null && echo 1 || echo 0)
		[ "$(cat $d/latency)" -gt "$max" ] && want=1
		[ "$(cat $d/disable)" = "$want" ] || { bad=1; echo "# $d: disable $(cat $d/disable), want $want"; }
	done
	eq "max_latency_us=$max: exactly the deeper states disabled" "$bad" 0
	got=$($P get cpu.0.idle.max_latency_us)
	check "max_latency_us reads back <= $max (got $got)" test "$got" -le "$max"
	$P restore idle-lat >/dev/null
	eq "max_latency_us: every state restored" "$(idle_state)" "$IDLE0"
else
	ok "# SKIP max_latency_us: the deepest state has exit latency 0"
fi

# 4. a transaction that fails late: the idle writes come first, then the
# kernel refuses vm.dirty_ratio=101 (range 0..100): all rolled back, exit 1
dr0=$(cat /proc/sys/vm/dirty_ratio)
out=$($P -vv set --name idle-late "$key=1" cpu.all.idle.max_latency_us=0 \
	sysctl.vm.dirty_ratio=101 2>&1); rc=$?
eq "late failure: exit 1" "$rc" 1
# -vv logs each write: the idle state before the sysctl, and its rollback after
order=$(grep -oE "cpu0/cpuidle/$(basename $deep)/disable <- [01]|vm/dirty_ratio <- 101" <<<"$out" |
	sed 's/.* <- //' | tr '\n' ' ')
eq "late failure: idle written, sysctl refused, idle written back" "$order" "1 101 0 "
check "late failure: names the failing key" grep -q "sysctl.vm.dirty_ratio" <<<"$out"
eq "late failure: every idle state rolled back" "$(idle_state)" "$IDLE0"
eq "late failure: dirty_ratio unchanged" "$(cat /proc/sys/vm/dirty_ratio)" "$dr0"
check "late failure: no journal left" bash -c "[ ! -e $PERFTUNE_JOURNAL_DIR/idle-late.journal ]"

put_back
eq "idle states as found" "$(idle_state)" "$IDLE0"
finish
