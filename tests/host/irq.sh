#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier, IRQ affinity and the workqueue mask on the real kernel: one movable IRQ
# moved, read back and restored; an IRQ the kernel will not move refused by number and
# skipped by a selector; a transaction of IRQ, mask, thread affinity (a process of
# the test's own) and sysctl keys that fails at its last write gives every value
# and each thread's own mask back.  A trap puts the IRQ back whatever happens.
. "$(dirname "$0")/lib.sh"

online=$(cat /sys/devices/system/cpu/online)
first=${online%%[-,]*}
# a movable IRQ: its file writable, and the kernel takes its own affinity back
N='' cur='' target=''
for d in /proc/irq/[0-9]*; do
	f=$d/smp_affinity_list
	[ -w "$f" ] && [ "$(stat -c %a "$f")" != 444 ] || continue
	c=$(cat "$f")
	echo "$c" >"$f" 2>/dev/null || continue
	t=$([ "$c" = "$first" ] && echo "$online" || echo "$first")
	[ "$t" != "$c" ] || continue
	N=${d##*/} cur=$c target=$t
	break
done
if [ -z "$N" ]; then
	echo "SKIP: no IRQ of this machine can be moved (one CPU, or all managed)"
	exit 77
fi
F=/proc/irq/$N/smp_affinity_list D=/proc/irq/default_smp_affinity
W=/sys/devices/virtual/workqueue/cpumask
def0=$(cat $D) swap0=$(cat /proc/sys/vm/swappiness) wq0=$(cat $W 2>/dev/null)
ALL0=$(for f in /proc/irq/[0-9]*/smp_affinity_list; do echo "$f $(cat $f)"; done)
putback() {
	echo "$cur" >$F
	while read -r f v; do echo "$v" >"$f" 2>/dev/null; done <<<"$ALL0"
	echo "$def0" >$D
	[ -z "$wq0" ] || echo "$wq0" >$W
}
trap putback EXIT
WATCH+=("$F" "$D")
[ -n "$wq0" ] && WATCH+=("$W")
BEFORE=$(snapshot)
echo "# IRQ $N ($(ls -d /proc/irq/$N/*/ 2>/dev/null | xargs -n1 basename | tr '\n' ' ')): $cur -> $target"

eq "get irq.$N.cpus reads smp_affinity_list" "$($P get irq.$N.cpus)" "$cur"
out=$($P set --name irqt irq.$N.cpus=$target 2>&1)
eq "set irq.$N.cpus exits 0" "$?" 0
check "set prints irq.$N.cpus: old -> new" grep -q "^irq.$N.cpus: $cur -> $target" <<<"$out"
eq "the kernel reads back $target" "$(cat $F)" "$target"
check "status: in force" bash -c "$P status | grep -q 'irq.$N.cpus: $cur -> $target, now $target'"
$P restore irqt >/dev/null
eq "restore gives IRQ $N back its CPUs" "$(cat $F)" "$cur"

# the default mask: a hex file, a CPU list in the key
out=$($P set --name def irq.default.cpus=$first 2>&1)
eq "irq.default.cpus=$first exits 0" "$?" 0
eq "get irq.default.cpus" "$($P get irq.default.cpus)" "$first"
$P restore def >/dev/null
eq "default mask restored" "$(cat $D)" "$def0"

# unmovable IRQs: read-only files since 6.12
M=$(for d in /proc/irq/[0-9]*; do [ "$(stat -c %a $d/smp_affinity_list)" = 444 ] && echo ${d##*/}; done | head -1)
if [ -n "$M" ]; then
	out=$($P set irq.$M.cpus=$first 2>&1); rc=$?
	eq "an unmovable IRQ by number exits 1" "$rc" 1
	check "the error names IRQ $M" grep -q "will not move IRQ $M" <<<"$out"
	out=$($P set --dry-run irq.all.cpus=$online 2>&1)
	eq "irq.all.cpus --dry-run exits 0" "$?" 0
	check "irq.all skips IRQ $M with the reason" grep -q "irq.$M.cpus: the kernel will not move IRQ $M.*skipped" <<<"$out"
else
	echo "# no IRQ with a read-only smp_affinity_list here: unmovable cases not run"
fi

# IRQ, default mask, workqueue mask, a process's threads and sysctls in one
# transaction whose last write fails: dirty_ratio 101 passes staging (a number)
# and the kernel refuses it (0-100).  The process is ours: a main thread on
# every CPU and a second thread that pinned itself to the first CPU.
FIRST=$first python3 -c '
import os, threading, time
def pinned():
    os.sched_setaffinity(0, {int(os.environ["FIRST"])})
    print(threading.get_native_id(), flush=True)
    time.sleep(600)
threading.Thread(target=pinned, daemon=True).start(); time.sleep(600)' >"$WORK/tid" &
TP=$!
trap 'kill $TP 2>/dev/null; putback' EXIT
for _ in $(seq 600); do [ -s "$WORK/tid" ] && break; sleep 0.1; done # up to 60 s: a loaded machine
TT=$(cat "$WORK/tid")
mask() { awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$TP/task/$1/status"; }
m0=$(mask $TP) t0=$(mask "$TT")
eq "the test process's pinned thread is on CPU $first" "$t0" "$first"
last=${online##*[-,]}
keys=(irq.$N.cpus=$target irq.default.cpus=$first proc.$TP.cpus=$last
	sysctl.vm.swappiness=$((swap0 == 7 ? 8 : 7)))
[ -n "$wq0" ] && keys+=(workqueue.cpus=$first)
out=$($P -vv set --name late "${keys[@]}" sysctl.vm.dirty_ratio=101 2>&1); rc=$?
eq "a late kernel refusal exits 1" "$rc" 1
check "it names sysctl.vm.dirty_ratio and the rollback" grep -q "sysctl.vm.dirty_ratio.*rolled back" <<<"$out"
check "the threads were moved before the refusal" grep -q "write proc.$TP.cpus (sched_setaffinity)" <<<"$(sed '/error:/q' <<<"$out")"
eq "late failure: IRQ $N given back" "$(cat $F)" "$cur"
eq "late failure: default mask given back" "$(cat $D)" "$def0"
eq "late failure: swappiness given back" "$(cat /proc/sys/vm/swappiness)" "$swap0"
[ -n "$wq0" ] && eq "late failure: workqueue mask given back" "$(cat $W)" "$wq0"
eq "late failure: the main thread's mask given back" "$(mask $TP)" "$m0"
eq "late failure: the pinned thread's own mask given back" "$(mask "$TT")" "$t0"
kill $TP 2>/dev/null
wait $TP 2>/dev/null
trap putback EXIT
check "no journal left" bash -c "! ls $PERFTUNE_JOURNAL_DIR/*.journal 2>/dev/null"
# TuneD's [scheduler] isolated_cores: every movable IRQ, the default mask and the workqueues
# off the last CPU as one transaction; restore gives every one of them back
last=$(awk -F'[-,]' '{print $NF}' /sys/devices/system/cpu/online)
irqs() { for f in /proc/irq/[0-9]*/smp_affinity_list; do echo "$f=$(cat $f)"; done; }
has_cpu() { # has_cpu LIST CPU: the CPU list holds CPU
	local IFS=, item
	for item in $1; do [ "${item%-*}" -le "$2" ] && [ "${item#*-}" -ge "$2" ] && return 0; done
	return 1
}
mkdir -p "$WORK/iso"
# ps_whitelist keeps the thread side to a process of this test: moving every thread of a
# shared machine would also narrow whatever they start before the restore
cp /bin/sleep "$WORK/ptisosleep"
"$WORK/ptisosleep" 600 &
iso_pid=$!
trap 'kill $iso_pid 2>/dev/null; putback' EXIT
aff0=$(taskset -pc $iso_pid | sed 's/.*: //') init0=$(taskset -pc 1 | sed 's/.*: //')
printf '[scheduler]\nisolated_cores=%s\nps_whitelist=^ptisosleep$\n[irqbalance]\nbanned_cpus=%s\n' "$last" "$last" >"$WORK/iso/tuned.conf"
irqs0=$(irqs)
out=$($P apply --dry-run "$WORK/iso" 2>&1)
check "dry run: banned_cpus skipped as irqbalance's configuration" grep -q "skipped: \[irqbalance\] banned_cpus: .*not a kernel tunable" <<<"$out"
eq "dry run changes no IRQ" "$(irqs)" "$irqs0"
out=$($P apply --name iso "$WORK/iso" 2>&1)
eq "apply isolated_cores=$last exits 0" "$?" 0
moved=0 stuck=''
for f in /proc/irq/[0-9]*/smp_affinity_list; do
	if has_cpu "$(cat $f)" "$last"; then [ -w "$f" ] && [ "$(stat -c %a $f)" != 444 ] && stuck="$stuck $f"; else moved=$((moved + 1)); fi
done
eq "every movable IRQ is off CPU $last" "$stuck" ""
check "IRQs moved ($moved)" test "$moved" -gt 0
off() { if has_cpu "$2" "$last"; then not_ok "$1: $2"; else ok "$1"; fi; }
off "default mask off CPU $last" "$($P get irq.default.cpus)"
[ -n "$wq0" ] && off "workqueue mask off CPU $last" "$($P get workqueue.cpus)"
off "the whitelisted test process is off CPU $last" "$(taskset -pc $iso_pid | sed 's/.*: //')"
eq "a thread ps_whitelist does not name (pid 1) is not moved" "$(taskset -pc 1 | sed 's/.*: //')" "$init0"
$P restore iso >/dev/null
eq "restore: the test process's affinity as found" "$(taskset -pc $iso_pid | sed 's/.*: //')" "$aff0"
eq "restore: every IRQ as found" "$(irqs)" "$irqs0"
eq "restore: default mask as found" "$(cat $D)" "$def0"
[ -n "$wq0" ] && eq "restore: workqueue mask as found" "$(cat $W)" "$wq0"
finish
