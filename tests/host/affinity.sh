#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier, thread affinity on the real kernel: a test process of two threads
# (one of them on its own mask) moved and given back thread by thread, and a
# transaction of affinity, sysctl and block keys that fails late restores all;
# a process whose pid another has by the restore is left alone (issue 33).
. "$(dirname "$0")/lib.sh"

[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs"; finish; exit 77; }
# a process of two threads that sleeps: the second one's id on stdout
python3 -c '
import threading, time, os
t = threading.Thread(target=lambda: (print(threading.get_native_id(), flush=True), time.sleep(600)))
t.start(); time.sleep(600)' >"$WORK/tid" &
PID=$!
for _ in $(seq 50); do [ -s "$WORK/tid" ] && break; sleep 0.1; done
TID=$(cat "$WORK/tid")
mask() { awk '/^Cpus_allowed_list/ {print $2}' /proc/$PID/task/$1/status; } # the kernel's list
ALL=$(mask $PID)
taskset -pc 1 "$TID" >/dev/null
eq "two threads" "$(ls /proc/$PID/task | wc -l)" 2
eq "get shows each thread's own" "$($P get proc.$PID.cpus)" "@$PID=$ALL $TID=1"

out=$($P set --name aff proc.$PID.cpus=0 2>&1)
eq "set exits 0" "$?" 0
eq "main thread moved" "$(mask $PID)" 0
eq "second thread moved" "$(mask $TID)" 0
check "status lists it" bash -c "$P status | grep -q 'proc.$PID.cpus: .* -> 0, now 0'"
$P restore aff >/dev/null
eq "restore: main thread's own mask" "$(mask $PID)" "$ALL"
eq "restore: second thread's own mask" "$(mask $TID)" 1

# TuneD's isolated_cores: each thread keeps its CPUs inside 0, or gets 0
$P set --name within proc.$PID.cpus='&0' >/dev/null
eq "&0: main thread on 0" "$(mask $PID)" 0
eq "&0: second thread (on 1 only) gets 0" "$(mask $TID)" 0
$P restore within >/dev/null
eq "&0 restored: main" "$(mask $PID)" "$ALL"
eq "&0 restored: second" "$(mask $TID)" 1

# a per-CPU kernel thread is refused by name (ksoftirqd/0 is PF_NO_SETAFFINITY)
KS=$(pgrep -x ksoftirqd/0 | head -1)
if [ -n "$KS" ]; then
	out=$($P set proc.$KS.cpus=0 2>&1); rc=$?
	eq "a per-CPU kernel thread: exit 1" "$rc" 1
	check "... says the kernel will not move it" grep -q "kernel thread bound to its CPUs" <<<"$out"
else
	ok "no ksoftirqd/0 visible here (pid namespace): nothing to refuse"
fi

# late failure: the threads and the sysctl are written, the loop device refuses io_poll
A=$(new_loop) || { not_ok "losetup"; finish; exit 1; }
swap0=$(cat /proc/sys/vm/swappiness)
out=$($P set --name late proc.$PID.cpus=0 sysctl.vm.swappiness=$((swap0 == 1 ? 2 : 1)) \
	block.$A.io_poll=1 2>&1); rc=$?
eq "late failure exits 1" "$rc" 1
check "names the refused key" grep -q "block.$A.io_poll" <<<"$out"
eq "late failure: main thread given back" "$(mask $PID)" "$ALL"
eq "late failure: second thread given back" "$(mask $TID)" 1
eq "late failure: swappiness given back" "$(cat /proc/sys/vm/swappiness)" "$swap0"

# issue 33 (H4): the process exits and another gets its pid (in a pid namespace of the
# test's own, where ns_last_pid hands the pid out again): restore leaves the newcomer alone
out=$(PERFTUNE_JOURNAL_DIR=$PERFTUNE_JOURNAL_DIR unshare --pid --fork --mount-proc bash -c '
	sleep 1000 & V=$!
	"$1" set --name reuse proc.$V.cpus=0 >/dev/null || echo "set failed"
	kill $V; wait $V 2>/dev/null
	sleep 0.05 # a start time in another clock tick (10 ms) than the one gone
	echo $((V - 1)) >/proc/sys/kernel/ns_last_pid
	taskset -c 1 sleep 1000 & W=$!
	echo "pids $V $W"
	msg=$("$1" restore reuse 2>&1); echo "rc=$?"
	echo "mask=$(taskset -pc $W | awk "{print \$NF}")"
	echo "$msg"
	kill $W' _ "$P" 2>&1)
echo "$out" | sed 's/^/# /'
read -r V W < <(sed -n 's/^pids //p' <<<"$out")
eq "pid reused by the newcomer" "${W:-none}" "${V:-unset}"
eq "restore with the pid reused exits 0" "$(sed -n 's/^rc=//p' <<<"$out")" 0
eq "the newcomer keeps its own mask" "$(sed -n 's/^mask=//p' <<<"$out")" 1
check "restore says the pid is another process's now" \
	grep -q "proc.$V.cpus: skipped, gone: .*pid $V is another process now (started at" <<<"$out"
check "no journal left" bash -c "! ls $PERFTUNE_JOURNAL_DIR/reuse.journal 2>/dev/null"

# a process that exits before restore: reported, not fatal
$P set --name gone proc.$PID.cpus=0 >/dev/null
kill $PID; wait $PID 2>/dev/null
out=$($P restore gone 2>&1)
eq "restore after the process exited exits 0" "$?" 0
check "no journal left" bash -c "! ls $PERFTUNE_JOURNAL_DIR/gone.journal 2>/dev/null"
finish
