#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier, transactions on the real kernel: set, read back, roll back, restore,
# holds, kill -9, stacking. Only loop devices created here are touched.
. "$(dirname "$0")/lib.sh"

A=$(new_loop) && B=$(new_loop) || { not_ok "losetup"; finish; exit 1; }
QA=/sys/block/$A/queue QB=/sys/block/$B/queue
T=/sys/kernel/mm/transparent_hugepage
lat() { od -An -t d4 /dev/cpu_dma_latency | tr -d ' '; }
thp0=$(sel $T/enabled) swap0=$(cat /proc/sys/vm/swappiness) lat0=$(lat)
ra0=$(cat $QA/read_ahead_kb) nr0=$(cat $QA/nr_requests)
other_thp=$([ "$thp0" = never ] && echo madvise || echo never)
near() { [ $(($1 - $2)) -le 10 ] && [ $(($2 - $1)) -le 10 ]; } # iosched times are jiffies

# set + restore by name, with the blk-mq alias
out=$($P set --name t block.$A.scheduler=deadline)
eq "set exits 0" "$?" 0
eq "deadline means mq-deadline" "$(sel $QA/scheduler)" mq-deadline
check "set prints key: old -> new" grep -q "^block.$A.scheduler: none -> mq-deadline" <<<"$out"
check "journal exists, private" bash -c "[ \"\$(stat -c %a $PERFTUNE_JOURNAL_DIR)\" = 700 ] && [ -f $PERFTUNE_JOURNAL_DIR/t.journal ]"
check "status lists it" bash -c "$P status | grep -q 'block.$A.scheduler: none -> mq-deadline, now mq-deadline'"
$P restore t >/dev/null
eq "restore t puts back none" "$(sel $QA/scheduler)" none

# an installer run twice on a machine already in that state, then its uninstall:
# the no-op set is recorded as an empty transaction and its restore succeeds
for run in 1 2; do
	out=$($P set --name myapp sysctl.vm.swappiness=$swap0 block.$A.scheduler=none 2>&1)
	eq "no-op set (run $run) exits 0" "$?" 0
done
check "no-op set: journal myapp recorded" test -f $PERFTUNE_JOURNAL_DIR/myapp.journal
out=$($P restore myapp 2>&1)
eq "restore of the no-op transaction exits 0" "$?" 0
check "restore says nothing was written back" grep -q "restored myapp: 0 values written back" <<<"$out"
eq "no-op set + restore: swappiness as found" "$(cat /proc/sys/vm/swappiness)" "$swap0"
eq "no-op set + restore: scheduler as found" "$(sel $QA/scheduler)" none
out=$($P restore myapp 2>&1); rc=$?
eq "restored means gone: a second restore exits 1" "$rc" 1
check "... naming the transaction" grep -q "no transaction named 'myapp'" <<<"$out"

# all or nothing: a bad second key leaves the first unchanged
out=$($P set block.$A.scheduler=mq-deadline block.$B.scheduler=bogus 2>&1); rc=$?
eq "bad value exits 1" "$rc" 1
check "error names block.$B.scheduler" grep -q "block.$B.scheduler: 'bogus' is not offered" <<<"$out"
eq "first disk unchanged" "$(sel $QA/scheduler)" none

# two devices in one transaction: written side by side (one io_uring wave per key rank, or
# threads), each device's keys in order; a kernel refusal on one device undoes the other.
# Both ways: through io_uring (where the kernel has it), then from threads.
for mode in io_uring threads; do
[ $mode = threads ] && export PERFTUNE_NO_IO_URING=1
$P set --name two block.$A.scheduler=mq-deadline block.$A.iosched.read_expire=250 \
	block.$B.scheduler=mq-deadline block.$B.read_ahead_kb=$((ra0 * 2)) >/dev/null
eq "two devices ($mode): A's scheduler" "$(sel $QA/scheduler)" mq-deadline
check "two devices: A's iosched after its scheduler" near "$(cat $QA/iosched/read_expire)" 250
eq "two devices: B's scheduler" "$(sel $QB/scheduler)" mq-deadline
eq "two devices: B's read_ahead_kb" "$(cat $QB/read_ahead_kb)" $((ra0 * 2))
$P restore two >/dev/null
eq "two devices restored: A" "$(sel $QA/scheduler)" none
eq "two devices restored: B" "$(sel $QB/scheduler)" none
eq "two devices restored: B's read_ahead_kb" "$(cat $QB/read_ahead_kb)" "$ra0"
out=$($P set block.$A.scheduler=mq-deadline block.$B.io_poll=1 2>&1); rc=$?
eq "kernel refusal on one of two devices exits 1" "$rc" 1
check "the refusal names block.$B.io_poll and the rollback" grep -q "block.$B.io_poll.*rolled back" <<<"$out"
eq "the other device is given back" "$(sel $QA/scheduler)" none
check "no journal left" bash -c "! ls $PERFTUNE_JOURNAL_DIR/*.journal 2>/dev/null"
done
unset PERFTUNE_NO_IO_URING

# several families in one transaction, with iosched parameters after their scheduler
$P set --name multi block.$A.scheduler=mq-deadline block.$A.iosched.read_expire=250 \
	block.$A.read_ahead_kb=$((ra0 * 4)) block.$A.nr_requests=32 thp.enabled=$other_thp \
	hugepages.2M.nr=8 sysctl.vm.swappiness=7 >/dev/null
eq "multi: scheduler" "$(sel $QA/scheduler)" mq-deadline
check "multi: iosched.read_expire (jiffy-rounded)" near "$(cat $QA/iosched/read_expire)" 250
eq "multi: read_ahead_kb x4" "$(cat $QA/read_ahead_kb)" $((ra0 * 4))
eq "multi: nr_requests" "$(cat $QA/nr_requests)" 32
eq "multi: thp" "$(sel $T/enabled)" "$other_thp"
eq "multi: huge pages allocated" "$(cat /proc/sys/vm/nr_hugepages)" 8
eq "multi: swappiness" "$(cat /proc/sys/vm/swappiness)" 7
$P restore multi >/dev/null
eq "multi restored: scheduler" "$(sel $QA/scheduler)" none
eq "multi restored: read_ahead_kb" "$(cat $QA/read_ahead_kb)" "$ra0"
eq "multi restored: nr_requests" "$(cat $QA/nr_requests)" "$nr0"
eq "multi restored: thp" "$(sel $T/enabled)" "$thp0"
eq "multi restored: huge pages" "$(cat /proc/sys/vm/nr_hugepages)" 0
eq "multi restored: swappiness" "$(cat /proc/sys/vm/swappiness)" "$swap0"

# iosched parameter under an unchanged scheduler, restored under it
echo mq-deadline >$QB/scheduler
exp0=$(cat $QB/iosched/read_expire)
$P set --name io block.$B.iosched.read_expire=123 >/dev/null
check "iosched param set (jiffy-rounded)" near "$(cat $QB/iosched/read_expire)" 123
$P restore io >/dev/null
eq "iosched param restored" "$(cat $QB/iosched/read_expire)" "$exp0"
echo none >$QB/scheduler

# dry run writes nothing
out=$($P set --dry-run block.$A.scheduler=kyber sysctl.vm.swappiness=$swap0)
check "dry-run lists the change" grep -q "^block.$A.scheduler: none -> kyber$" <<<"$out"
check "dry-run lists unchanged" grep -q "swappiness: $swap0 -> $swap0 (unchanged)" <<<"$out"
eq "dry-run wrote nothing" "$(sel $QA/scheduler)" none
check "dry-run journaled nothing" bash -c "! ls $PERFTUNE_JOURNAL_DIR/*.journal 2>/dev/null"

# PM QoS: needs a hold; held while the process lives, released after
out=$($P set pmqos.cpu_dma_latency_us=0 2>&1); rc=$?
eq "pmqos without --hold exits 1" "$rc" 1
check "pmqos error explains the hold" grep -q "needs a holding transaction" <<<"$out"
$P set --name q --hold pmqos.cpu_dma_latency_us=11 sysctl.vm.swappiness=3 >"$WORK/hold.out" &
h=$!
for _ in $(seq 50); do grep -q holding "$WORK/hold.out" 2>/dev/null && break; sleep 0.1; done
eq "held request seen by another process" "$(lat)" 11
check "status says held" bash -c "$P status | grep -q '^q: held pid $h'"
out=$($P restore q 2>&1); rc=$?
eq "restore of a live hold is refused" "$rc" 1
check "refusal names the holder" grep -q "held by process $h" <<<"$out"
kill -TERM $h; wait $h; rc=$?
eq "SIGTERM: holder exits 0" "$rc" 0
eq "SIGTERM: request released" "$(lat)" "$lat0"
eq "SIGTERM: swappiness rolled back" "$(cat /proc/sys/vm/swappiness)" "$swap0"
check "SIGTERM: journal removed" bash -c "[ ! -e $PERFTUNE_JOURNAL_DIR/q.journal ]"

# kill -9 of a holder: the journal stays, restore --orphans returns every key
$P set --name k --hold pmqos.cpu_dma_latency_us=5 block.$A.scheduler=bfq thp.enabled=$other_thp \
	sysctl.vm.swappiness=2 >"$WORK/k.out" &
h=$!
for _ in $(seq 50); do grep -q holding "$WORK/k.out" 2>/dev/null && break; sleep 0.1; done
kill -9 $h; wait $h 2>/dev/null
eq "kill -9: PM QoS released by the kernel" "$(lat)" "$lat0"
eq "kill -9: values still in place" "$(sel $QA/scheduler)" bfq
check "status says orphaned" bash -c "$P status | grep -q '^k: ORPHANED'"
check "status --json marks orphaned" bash -c "$P status --json | python3 -c 'import json,sys; assert all(e[\"orphaned\"] for e in json.load(sys.stdin))'"
$P restore --orphans >/dev/null
eq "orphans restored: scheduler" "$(sel $QA/scheduler)" none
eq "orphans restored: thp" "$(sel $T/enabled)" "$thp0"
eq "orphans restored: swappiness" "$(cat /proc/sys/vm/swappiness)" "$swap0"

# kill -9 in the middle of a commit (before it finished): still restorable
for i in 1 2 3; do
	$P set --name mid block.$A.scheduler=kyber block.$B.scheduler=kyber thp.enabled=$other_thp \
		sysctl.vm.swappiness=4 sysctl.vm.dirty_ratio=33 >/dev/null &
	h=$!; sleep 0.0$i; kill -9 $h 2>/dev/null; wait $h 2>/dev/null
	$P restore --orphans >/dev/null
	# a commit that finished before the kill is applied, not orphaned: restore it by name
	[ -e "$PERFTUNE_JOURNAL_DIR/mid.journal" ] && $P restore mid >/dev/null
done
eq "mid-commit kills restored: scheduler A" "$(sel $QA/scheduler)" none
eq "mid-commit kills restored: scheduler B" "$(sel $QB/scheduler)" none
eq "mid-commit kills restored: swappiness" "$(cat /proc/sys/vm/swappiness)" "$swap0"

# two live transactions on one key, restored in both orders
for order in "a b" "b a"; do
	$P set --name a sysctl.vm.swappiness=21 block.$A.scheduler=kyber >/dev/null
	$P set --name b sysctl.vm.swappiness=22 block.$A.scheduler=bfq >/dev/null
	for n in $order; do $P restore $n >/dev/null; done
	eq "stacked ($order): swappiness" "$(cat /proc/sys/vm/swappiness)" "$swap0"
	eq "stacked ($order): scheduler" "$(sel $QA/scheduler)" none
done

# drift: changed behind our back, reported, restored anyway
$P set --name d sysctl.vm.swappiness=13 >/dev/null
echo 14 >/proc/sys/vm/swappiness
check "status reports drift" bash -c "$P status | grep -q 'swappiness: $swap0 -> 13, now 14 DRIFT'"
out=$($P restore d 2>&1)
check "restore warns of drift" grep -q "drifted" <<<"$out"
eq "drifted key restored" "$(cat /proc/sys/vm/swappiness)" "$swap0"

# re-apply changes only what differs
$P set --name r sysctl.vm.swappiness=15 sysctl.vm.dirty_ratio=30 >/dev/null
out=$($P -v set --name r sysctl.vm.swappiness=15 sysctl.vm.dirty_ratio=31 2>&1)
check "re-apply: unchanged key reported" grep -q "swappiness: 15 -> 15 (unchanged)" <<<"$out"
$P restore r >/dev/null
eq "re-apply restored to the first original" "$(cat /proc/sys/vm/dirty_ratio)" 20

# issue 27 A: a failed re-apply under an existing name leaves the transaction as it was
# (values, no holder, applied), untouched by restore --orphans; serial, waves, threads
for mode in serial io_uring threads; do
[ $mode = threads ] && export PERFTUNE_NO_IO_URING=1
if [ $mode = serial ]; then
	$P set --name probe block.$A.read_ahead_kb=256 >/dev/null
	out=$($P set --name probe block.$A.nr_requests=100000 2>&1); rc=$?
else
	$P set --name probe block.$A.read_ahead_kb=256 block.$B.read_ahead_kb=256 >/dev/null
	out=$($P set --name probe block.$A.read_ahead_kb=512 block.$B.read_ahead_kb=512 \
		block.$B.nr_requests=100000 2>&1); rc=$?
fi
eq "re-apply refused by the kernel ($mode) exits 1" "$rc" 1
check "re-apply ($mode): rolled back" grep -q "rolled back" <<<"$out"
eq "re-apply ($mode): A keeps the applied value" "$(cat $QA/read_ahead_kb)" 256
check "re-apply ($mode): status applied, not orphaned" bash -c \
	"$P status | grep -q '^probe' && ! $P status | grep -qi orphan"
$P restore --orphans >/dev/null 2>&1
eq "re-apply ($mode): restore --orphans leaves it" "$(cat $QA/read_ahead_kb)" 256
$P restore probe >/dev/null
eq "re-apply ($mode): restore gives back the original" "$(cat $QA/read_ahead_kb)" "$ra0"
eq "re-apply ($mode): B's original too" "$(cat $QB/read_ahead_kb)" "$ra0"
done
unset PERFTUNE_NO_IO_URING

# NUMA placement (one node here: moves between nodes are in the VM tier)
sleep 300 & sp=$!
nodes=$(cat /sys/devices/system/node/online)
eq "get proc.PID.numa_nodes" "$($P get proc.$sp.numa_nodes)" "$nodes"
check "list shows the process" bash -c "$P list proc.$sp. | grep -q '^proc.$sp.numa_nodes = $nodes'"
out=$($P set proc.$sp.numa_nodes=$nodes)
check "placing on the nodes it has is unchanged" grep -q "proc.$sp.numa_nodes: $nodes -> $nodes (unchanged)" <<<"$out"
out=$($P set proc.$sp.numa_nodes=5 2>&1); rc=$?
eq "a node that does not exist exits 1" "$rc" 1
check "names the missing node" grep -q "proc.$sp.numa_nodes: no NUMA node 5 on this machine" <<<"$out"
kill $sp; wait $sp 2>/dev/null
out=$($P set proc.$sp.numa_nodes=0 2>&1); rc=$?
eq "an exited process exits 1" "$rc" 1
check "says there is no such process" grep -q "no process $sp" <<<"$out"
eq "exec --nodes runs on the nodes' CPUs" "$($P exec --nodes 0 -- awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)" \
	"$(cat /sys/devices/system/node/node0/cpulist)"
eq "exec --membind binds memory" "$($P exec --nodes 0 --membind -- awk '/^Mems_allowed_list/ { print $2 }' /proc/self/status)" 0
$P exec --nodes 9 -- true 2>/dev/null; eq "exec on a missing node exits 1" "$?" 1
$P exec --nodes 0 2>/dev/null; eq "exec without a command exits 2" "$?" 2

# per-CPU PM QoS resume latency of the real CPU 0, and back
RL=/sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us
if [ -w $RL ]; then
	rl0=$(cat $RL)
	$P set --name rl cpu.0.resume_latency_us=20 >/dev/null
	eq "cpu.0.resume_latency_us set" "$(cat $RL)" 20
	eq "get reads it back" "$($P get cpu.0.resume_latency_us)" 20
	$P restore rl >/dev/null
	eq "cpu.0.resume_latency_us restored" "$(cat $RL)" "$rl0"
	out=$($P set cpu.0.resume_latency_us=soon 2>&1); rc=$?
	eq "a bad resume latency exits 1" "$rc" 1
	check "names the key" grep -q "^perftune: cpu.0.resume_latency_us: " <<<"$out"
else
	not_ok "this machine has no writable $RL"
fi

# a huge page request the kernel cannot meet
out=$($P set hugepages.1G.nr=100000 2>&1); rc=$?
eq "impossible huge pages exit 1" "$rc" 1
check "partial allocation named" grep -q "asked for 100000 huge pages, the kernel allocated" <<<"$out"
eq "1G pages released" "$(cat /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages)" 0
finish
