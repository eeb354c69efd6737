#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The VM test tier (doc/design.md, section 5): the perftune CLI against a real kernel
# that has what the build host lacks — 2 NUMA nodes, SELinux, scsi_debug with
# 4 submit queues, null_blk, NVMe, bio-based dm-linear, request-based
# dm-multipath, an e1000e and a virtio-net NIC — and crash recovery with a
# real kill -9.  Runs inside the guest that run-vm boots (the devices are
# described in /run/vm-devices.env, written by guest-boot.sh):
#
#   tests/vm/run-vm --build-dir BUILD --source-dir SRC tests/vm/guest-tests.sh [PERFTUNE]
#
# Prints "ok N - name" / "not ok N - name" per test (each test's transcript
# follows as "#" lines), then "N passed, N failed"; exits 1 if any failed.
# Every value a test changes is restored by perftune itself, and the last test
# checks that the machine is back where it started.
set -euo pipefail

PT=${1:-${PERFTUNE_BUILD_DIR:-}/utils/perftune}
# a relative path is relative to the build tree (meson passes targets so)
[[ $PT == /* ]] || PT=${PERFTUNE_BUILD_DIR:-.}/$PT
if [[ ! -x $PT ]]; then
	echo "guest-tests: no perftune executable at '$PT'"
	exit 1
fi
if [[ ! -r /run/vm-devices.env ]]; then
	echo "guest-tests: no /run/vm-devices.env: run me through tests/vm/run-vm"
	exit 1
fi
# shellcheck source=/dev/null
source /run/vm-devices.env
read -r -a SCSI <<<"$SCSI_DISKS"
read -r -a LIN_DISKS <<<"$LIN_SLAVES"
read -r -a MPATH_DISKS <<<"$MPATH_SLAVES"
JOURNAL_DIR=${PERFTUNE_JOURNAL_DIR:-/run/perftune}
WORK=$(mktemp -d /run/vm-tests.XXXXXX)
NODE=/sys/devices/system/node
HP2M=hugepages/hugepages-2048kB/nr_hugepages

echo "# guest kernel: $(uname -r)"
echo "# NUMA nodes: $(find $NODE -maxdepth 1 -name 'node[0-9]*' | wc -l)"
echo "# perftune: $PT ($("$PT" --version 2>&1 || true))"

# The helpers (pt, eq, fail, run_test...) are in guest-lib.sh.
# shellcheck source=guest-lib.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"
# CPU power on the real drivers: cpu_tests, cpu_snapshot (issue 19)
# shellcheck source=guest-cpu-tests.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/guest-cpu-tests.sh"
# IRQ affinity and cpu-partitioning: irq_tests (issue 20)
# shellcheck source=guest-irq-tests.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/guest-irq-tests.sh"
# thread affinity and kernel modules: isolation_tests (issue 20)
# shellcheck source=guest-isolation-tests.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/guest-isolation-tests.sh"
# network devices on e1000e and virtio-net: net_tests, net_snapshot (issue 21)
# shellcheck source=guest-net-tests.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/guest-net-tests.sh"

# too_many N: more 2 MiB pages than node N has memory (a few more than its
# whole MemTotal, so that the doomed allocation attempts stay few under TCG).
too_many() {
	local kb
	kb=$(awk '/MemTotal/ { print $4 }' "$NODE/node$1/meminfo")
	echo $((kb / 2048 + 32))
}

# snapshot: every value any test may change, as "name=value" lines.
snapshot() {
	# every file in one grep: a command substitution each (a fork under TCG)
	# made a snapshot cost seconds, and the crash tests take a dozen
	grep -H '' /sys/block/*/queue/scheduler /sys/fs/selinux/avc/cache_threshold \
		/proc/sys/vm/nr_hugepages /sys/kernel/mm/$HP2M /proc/sys/kernel/numa_balancing \
		/proc/sys/vm/dirty_ratio /proc/sys/vm/dirty_background_ratio /proc/sys/vm/swappiness \
		"$NODE"/node[0-9]*/$HP2M 2>/dev/null || true
	echo "pmqos=$(pmqos_now)"
	cpu_snapshot
	net_snapshot
	echo "modules=$(ls /sys/module | tr '\n' ' ')"
}

# ------------------------------------------------------------------ tests

test_list_families() {
	local fam missing=()
	pt_ok list
	for fam in block cpu hugepages module numa pmqos proc selinux sysctl thp; do
		grep -q "^$fam\." "$WORK/out" || missing+=("$fam.")
	done
	# the guest's own devices and NUMA nodes are listed too
	for fam in "block.${SCSI[0]}.scheduler" "block.$NULLB.scheduler" "block.$NVME.scheduler" \
		"block.$MPATH_DM.scheduler" hugepages.2M.node0.nr hugepages.2M.node1.nr \
		selinux.avc.cache_threshold; do
		grep -q "^$fam = " "$WORK/out" || missing+=("$fam")
	done
	((${#missing[@]} == 0)) || fail "'perftune list' lacks: ${missing[*]}"
	echo "    ok: every family and every test device listed"
}

test_selinux_avc() {
	local f=/sys/fs/selinux/avc/cache_threshold
	eq "$f before" "$(<$f)" 512
	pt_ok get selinux.avc.cache_threshold
	eq "get" "$OUT" 512
	pt_ok set --name vm-selinux selinux.avc.cache_threshold=8192
	eq "$f after set" "$(<$f)" 8192
	pt_ok get selinux.avc.cache_threshold
	eq "get after set" "$OUT" 8192
	[[ -f $JOURNAL_DIR/vm-selinux.journal ]] || fail "no journal $JOURNAL_DIR/vm-selinux.journal"
	eq "journal dir mode" "$(stat -c %a "$JOURNAL_DIR")" 700
	pt_ok restore vm-selinux
	eq "$f after restore" "$(<$f)" 512
	pt_ok get selinux.avc.cache_threshold
	eq "get after restore" "$OUT" 512
	[[ ! -e $JOURNAL_DIR/vm-selinux.journal ]] || fail "journal left after restore"
	# enforcing mode is not a tunable
	local enforce
	enforce=$(</sys/fs/selinux/enforce)
	pt_fails set --name vm-selinux-ro selinux.enforce=1
	eq "/sys/fs/selinux/enforce" "$(</sys/fs/selinux/enforce)" "$enforce"
}

test_hugepages_per_node() {
	local n0=$NODE/node0/$HP2M n1=$NODE/node1/$HP2M o0 o1
	o0=$(<"$n0") o1=$(<"$n1")
	pt_ok set --name vm-hp hugepages.2M.node0.nr=$((o0 + 16)) hugepages.2M.node1.nr=$((o1 + 8))
	eq "node0 pages" "$(<"$n0")" $((o0 + 16))
	eq "node1 pages" "$(<"$n1")" $((o1 + 8))
	pt_ok get hugepages.2M.node0.nr
	eq "get node0" "$OUT" $((o0 + 16))
	pt_ok get hugepages.2M.node1.nr
	eq "get node1" "$OUT" $((o1 + 8))
	eq "2M pages in total" "$(</sys/kernel/mm/$HP2M)" $((o0 + o1 + 24))
	# a second transaction on one node leaves the other alone
	pt_ok set --name vm-hp-node1 hugepages.2M.node1.nr=$((o1 + 2))
	eq "node1 pages" "$(<"$n1")" $((o1 + 2))
	eq "node0 pages (untouched)" "$(<"$n0")" $((o0 + 16))
	pt_ok restore vm-hp-node1
	eq "node1 pages after restoring vm-hp-node1" "$(<"$n1")" $((o1 + 8))
	pt_ok restore vm-hp
	eq "node0 pages after restore" "$(<"$n0")" "$o0"
	eq "node1 pages after restore" "$(<"$n1")" "$o1"
}

test_hugepages_too_many_fails() {
	# more pages than node 0 has memory: the kernel allocates less
	local n0=$NODE/node0/$HP2M n1=$NODE/node1/$HP2M o0 o1 ask
	o0=$(<"$n0") o1=$(<"$n1") ask=$(too_many 0)
	pt_fails set --name vm-hp-big hugepages.2M.node1.nr=$((o1 + 4)) "hugepages.2M.node0.nr=$ask"
	grep -q 'hugepages.2M.node0.nr' <<<"$ERR" || fail "the message does not name hugepages.2M.node0.nr"
	eq "node0 pages after the failed commit" "$(<"$n0")" "$o0"
	eq "node1 pages after the failed commit (rolled back)" "$(<"$n1")" "$o1"
	no_transactions
}

test_hugepages_partial() {
	local n0=$NODE/node0/$HP2M n1=$NODE/node1/$HP2M o0 o1 got ask
	o0=$(<"$n0") o1=$(<"$n1") ask=$(too_many 0)
	pt_ok set --allow-partial --name vm-hp-part "hugepages.2M.node0.nr=$ask"
	got=$(<"$n0")
	((got > o0 && got < ask)) || fail "node0 has $got pages: expected a partial allocation"
	echo "    ok: node0 allocated $got of $ask pages"
	grep -Eq "(^|[^0-9])$got([^0-9]|$)" <<<"$OUT$ERR" ||
		fail "the output does not report the $got pages allocated"
	pt_ok get hugepages.2M.node0.nr
	eq "get node0" "$OUT" "$got"
	eq "node1 pages (untouched)" "$(<"$n1")" "$o1"
	pt_ok restore vm-hp-part
	eq "node0 pages after restore" "$(<"$n0")" "$o0"
}

test_schedulers() {
	# one transaction over a scsi_debug disk (4 hw queues), null_blk, NVMe and
	# the request-based multipath device, which has a real scheduler
	local devs=("${SCSI[0]}" "$NULLB" "$NVME" "$MPATH_DM") d args=()
	declare -A orig=() want=()
	eq "hardware queues of ${SCSI[0]}" "$(find "/sys/block/${SCSI[0]}/mq" -mindepth 1 -maxdepth 1 | wc -l)" 4
	for d in "${devs[@]}"; do
		orig[$d]=$(sched "$d")
		want[$d]=$(other_sched "$d")
		args+=("block.$d.scheduler=${want[$d]}")
	done
	local path_orig
	path_orig=$(sched "${MPATH_DISKS[0]}")
	pt_ok set --name vm-sched "${args[@]}"
	for d in "${devs[@]}"; do
		eq "$d scheduler" "$(sched "$d")" "${want[$d]}"
		pt_ok get "block.$d.scheduler"
		eq "get block.$d.scheduler" "$OUT" "${want[$d]}"
	done
	eq "multipath path ${MPATH_DISKS[0]} (untouched)" "$(sched "${MPATH_DISKS[0]}")" "$path_orig"
	pt_ok restore vm-sched
	for d in "${devs[@]}"; do
		eq "$d scheduler after restore" "$(sched "$d")" "${orig[$d]}"
	done
	# blk-mq alias: deadline -> mq-deadline
	local o
	o=$(sched "$NULLB")
	[[ $o != mq-deadline ]] || fail "$NULLB already runs mq-deadline"
	pt_ok set --name vm-alias "block.$NULLB.scheduler=deadline"
	eq "$NULLB scheduler for 'deadline'" "$(sched "$NULLB")" mq-deadline
	pt_ok restore vm-alias
	eq "$NULLB scheduler after restore" "$(sched "$NULLB")" "$o"
}

test_multipath_by_path() {
	local dm=$MPATH_DM o w p
	o=$(sched "$dm") w=$(other_sched "$dm") p=$(sched "${MPATH_DISKS[0]}")
	pt_ok get "block[$MPATH].scheduler"
	eq "get block[$MPATH].scheduler" "$OUT" "$o"
	pt_ok set --name vm-mpath "block[$MPATH].scheduler=$w"
	eq "$dm ($MPATH) scheduler" "$(sched "$dm")" "$w"
	eq "path ${MPATH_DISKS[0]} (request-based dm: not resolved to it)" "$(sched "${MPATH_DISKS[0]}")" "$p"
	pt_ok restore vm-mpath
	eq "$dm scheduler after restore" "$(sched "$dm")" "$o"
}

test_dm_linear_resolves_to_slaves() {
	local s0=${LIN_DISKS[0]} s1=${LIN_DISKS[1]} o w d
	o=$(sched "$s0")
	eq "$s1 scheduler (same as $s0)" "$(sched "$s1")" "$o"
	eq "$LIN_DM scheduler file (bio-based)" "$(</sys/block/"$LIN_DM"/queue/scheduler)" none
	pt_ok get "block[$LIN].scheduler"
	eq "get block[$LIN].scheduler" "$OUT" "$o"
	pt_ok get "block.$LIN_DM.scheduler"
	eq "get block.$LIN_DM.scheduler" "$OUT" "$o"
	pt_ok get "block[$LIN_MNT].scheduler"
	eq "get block[$LIN_MNT].scheduler" "$OUT" "$o"
	pt_ok list "block[$LIN]"
	for d in "$s0" "$s1"; do
		grep -q "^block\.$d\.scheduler = " "$WORK/out" || fail "list block[$LIN] does not show block.$d.scheduler"
	done
	! grep -q "^block\.$LIN_DM\." "$WORK/out" || fail "list block[$LIN] shows the bio-based $LIN_DM itself"

	w=$(other_sched "$s0")
	pt_ok set --name vm-lin "block[$LIN].scheduler=$w"
	eq "$s0 scheduler" "$(sched "$s0")" "$w"
	eq "$s1 scheduler" "$(sched "$s1")" "$w"
	pt_ok get "block[$LIN].scheduler"
	eq "get block[$LIN].scheduler" "$OUT" "$w"
	pt_ok restore vm-lin
	eq "$s0 scheduler after restore" "$(sched "$s0")" "$o"
	eq "$s1 scheduler after restore" "$(sched "$s1")" "$o"

	# a file on the file system on lin means lin's disks
	echo data >"$LIN_MNT/vm-test-file"
	pt_ok set --name vm-lin-path "block[$LIN_MNT/vm-test-file].scheduler=$w"
	eq "$s0 scheduler" "$(sched "$s0")" "$w"
	eq "$s1 scheduler" "$(sched "$s1")" "$w"
	pt_ok restore vm-lin-path
	eq "$s0 scheduler after restore" "$(sched "$s0")" "$o"
	eq "$s1 scheduler after restore" "$(sched "$s1")" "$o"
	rm -f "$LIN_MNT/vm-test-file"
}

test_partition_means_disk() {
	local o w
	o=$(sched "$PART_DISK") w=$(other_sched "$PART_DISK")
	[[ -e /sys/block/$PART_DISK/$PART ]] || fail "no partition $PART"
	pt_ok get "block[/dev/$PART].scheduler"
	eq "get block[/dev/$PART].scheduler" "$OUT" "$o"
	pt_ok set --name vm-part "block[/dev/$PART].scheduler=$w"
	eq "$PART_DISK scheduler" "$(sched "$PART_DISK")" "$w"
	pt_ok restore vm-part
	eq "$PART_DISK scheduler after restore" "$(sched "$PART_DISK")" "$o"
}

test_errors() {
	pt_fails get block.sdzz.scheduler
	grep -q sdzz <<<"$ERR" || fail "the message does not name the device"
	local o
	o=$(sched "$NULLB")
	pt_fails set --name vm-bad "block.$NULLB.scheduler=no-such-scheduler"
	eq "$NULLB scheduler (unchanged)" "$(sched "$NULLB")" "$o"
	pt set --name vm-usage no-equals-sign
	eq "exit status of a usage error" "$RC" 2
	no_transactions
}

test_numa_balancing() {
	local f=/proc/sys/kernel/numa_balancing o w
	o=$(<$f)
	w=$((o == 0 ? 1 : 0))
	pt_ok set --name vm-numa numa.balancing=$w
	eq "$f" "$(<$f)" "$w"
	pt_ok get numa.balancing
	eq "get numa.balancing" "$OUT" "$w"
	pt_ok restore vm-numa
	eq "$f after restore" "$(<$f)" "$o"
}

# pages of a process on node N, from /proc/PID/numa_maps
node_pages() {
	awk -v n="N$2=" '{ for (i = 1; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1) } END { print s + 0 }' "/proc/$1/numa_maps"
}

test_proc_numa_nodes() {
	local node1cpus allowed mems pid before0 after0 after1
	# a process with 64 MiB touched on both nodes (interleaved), then left running
	# (the sizes of these tests: a page migrated or faulted under TCG costs)
	"$PT" exec --nodes 0-1 --interleave -- "$(dirname "$PT")/../tests/vm/vm-helper" touch 64 >"$WORK/mem.out" &
	pid=$! SLEEPER=$!
	trap 'kill "$SLEEPER" 2>/dev/null || true' EXIT
	for _ in $(seq 100); do grep -q ready "$WORK/mem.out" && break; sleep 0.2; done
	allowed=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/$pid/status)
	mems=$(awk '/^Mems_allowed_list/ { print $2 }' /proc/$pid/status)
	node1cpus=$(<"$NODE/node1/cpulist")
	before0=$(node_pages $pid 0)
	[ "$before0" -gt 6000 ] || fail "the test process has only $before0 pages on node 0 before the move"
	pt_ok get "proc.$pid.numa_nodes"
	eq "get proc.$pid.numa_nodes" "$OUT" 0-1
	pt_ok set --name vm-proc "proc.$pid.numa_nodes=1"
	eq "CPUs of pid $pid on node 1" "$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/$pid/status)" "$node1cpus"
	for t in /proc/$pid/task/*; do
		eq "CPUs of thread ${t##*/} on node 1" "$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status")" "$node1cpus"
	done
	# cpusets are left alone (DESIGN: only affinity and pages move), so the
	# nodes the process may allocate from stay what they were
	eq "Mems_allowed_list of pid $pid (cpuset untouched)" "$(awk '/^Mems_allowed_list/ { print $2 }' /proc/$pid/status)" "$mems"
	after0=$(node_pages $pid 0) after1=$(node_pages $pid 1)
	echo "pages on node 0: $before0 before, $after0 after the move; on node 1: $after1"
	[ "$after0" -lt $((before0 / 10)) ] || fail "pages stayed on node 0 ($after0 of $before0)"
	pt_ok get "proc.$pid.numa_nodes"
	eq "get proc.$pid.numa_nodes" "$OUT" 1
	pt_ok restore vm-proc
	eq "CPUs of pid $pid after restore" "$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/$pid/status)" "$allowed"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

# A process with the default (local) memory policy: after the move its
# existing pages are on node 1 and what it allocates next lands there too,
# because it now runs on node 1's CPUs.
test_proc_numa_nodes_new_memory() {
	local pid n0 n1 m0 m1
	# 32 MiB touched now, 32 more on SIGUSR1 ("more")
	"$PT" exec --nodes 0 -- "$(dirname "$PT")/../tests/vm/vm-helper" touch 32 >"$WORK/new.out" &
	pid=$! SLEEPER=$!
	trap 'kill "$SLEEPER" 2>/dev/null || true' EXIT
	for _ in $(seq 100); do grep -q ready "$WORK/new.out" && break; sleep 0.2; done
	n0=$(node_pages $pid 0) n1=$(node_pages $pid 1)
	echo "started on node 0: $n0 pages on node 0, $n1 on node 1"
	[ "$n0" -gt 7000 ] || fail "the test process has only $n0 pages on node 0"
	pt_ok set --name vm-new "proc.$pid.numa_nodes=1"
	m0=$(node_pages $pid 0) m1=$(node_pages $pid 1)
	echo "after the move: $m0 pages on node 0, $m1 on node 1"
	[ "$m0" -lt $((n0 / 10)) ] || fail "pages stayed on node 0 ($m0 of $n0)"
	kill -USR1 "$pid"
	for _ in $(seq 100); do grep -q more "$WORK/new.out" && break; sleep 0.2; done
	grep -q more "$WORK/new.out" || fail "the process did not allocate more memory"
	n0=$(node_pages $pid 0) n1=$(node_pages $pid 1)
	echo "after allocating 32 MiB more: $n0 pages on node 0, $n1 on node 1"
	[ "$n1" -gt $((m1 + 7000)) ] || fail "the new memory did not land on node 1 ($m1 -> $n1 pages)"
	[ "$n0" -lt $((m0 + 1500)) ] || fail "the new memory went to node 0 ($m0 -> $n0 pages)"
	pt_ok restore vm-new
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

test_exec_nodes() {
	pt_ok exec --nodes 1 -- awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status
	eq "exec --nodes 1 runs on node 1's CPUs" "$OUT" "$(<"$NODE/node1/cpulist")"
	pt_ok exec --nodes 1 --membind -- awk '/^Mems_allowed_list/ { print $2 }' /proc/self/status
	pt_ok exec --nodes 1 --membind -- "$(dirname "$PT")/../tests/vm/vm-helper" touch 8 --maps
	local n0 n1
	# (no N0= at all is the expected case: awk, not grep, which would fail)
	n1=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^N1=/) s += substr($i, 4) } END { print s + 0 }' "$WORK/out")
	n0=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^N0=/) s += substr($i, 4) } END { print s + 0 }' "$WORK/out")
	echo "exec --nodes 1 --membind: $n1 pages on node 1, $n0 on node 0"
	[ "$n1" -gt 1800 ] || fail "exec --membind 1: only $n1 pages on node 1"
	pt_fails exec --nodes 7 -- true
}

# The keys of the crash tests: PM QoS (needs a hold), schedulers, sysctls.
crash_keys() {
	local d w
	CRASH_KEYS=(pmqos.cpu_dma_latency_us=0)
	for d in "${SCSI[@]}" "$NULLB" "$NVME"; do
		w=$(other_sched "$d")
		CRASH_KEYS+=("block.$d.scheduler=$w")
	done
	CRASH_KEYS+=("sysctl.vm.dirty_ratio=$(($(</proc/sys/vm/dirty_ratio) + 5))"
		"sysctl.vm.dirty_background_ratio=$(($(</proc/sys/vm/dirty_background_ratio) + 3))"
		"sysctl.vm.swappiness=$(($(</proc/sys/vm/swappiness) + 7))")
}

test_crash_after_commit() {
	local pid w dr
	w=$(other_sched "$NULLB")
	dr=$(($(</proc/sys/vm/dirty_ratio) + 5))
	snapshot >"$WORK/before"
	echo "\$ perftune set --hold --name vm-crash pmqos.cpu_dma_latency_us=0 block.$NULLB.scheduler=$w sysctl.vm.dirty_ratio=$dr &"
	"$PT" set --hold --name vm-crash pmqos.cpu_dma_latency_us=0 "block.$NULLB.scheduler=$w" \
		"sysctl.vm.dirty_ratio=$dr" >"$WORK/hold.out" 2>&1 &
	pid=$!
	wait_output "$WORK/hold.out" "holding" "$pid"
	sed 's/^/    | /' "$WORK/hold.out"
	eq "PM QoS latency while held" "$(pmqos_now)" 0
	eq "$NULLB scheduler" "$(sched "$NULLB")" "$w"
	eq "vm.dirty_ratio" "$(</proc/sys/vm/dirty_ratio)" "$dr"
	pt_ok status
	grep -q "vm-crash" <<<"$OUT" || fail "status does not show vm-crash"
	echo "\$ kill -9 $pid"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	# the kernel drops the PM QoS request with the fd; the rest stays
	eq "PM QoS latency after kill -9" "pmqos=$(pmqos_now)" "$(grep '^pmqos=' "$WORK/before")"
	eq "$NULLB scheduler after kill -9" "$(sched "$NULLB")" "$w"
	pt_ok status --json
	grep -q '"orphaned": true' <<<"$OUT" || fail "status does not show vm-crash as orphaned"
	pt_ok restore --orphans
	snapshot >"$WORK/after"
	diff -u "$WORK/before" "$WORK/after" || fail "values not restored"
	echo "    ok: every value back"
	no_transactions
}

# A holder killed in the middle of its commit: kill -9 at its first kernel
# write (perftune -vv logs each write before it is done).  The kill races
# with the rest of the commit (the other devices' threads go on), so an
# attempt whose commit finished before the signal landed is cleaned up and
# tried again; the test fails if no attempt of five is caught mid-commit.
test_crash_mid_commit() {
	local attempt pid fd line killed changed
	crash_keys
	snapshot >"$WORK/before"
	mkfifo "$WORK/mid.fifo"
	for attempt in 1 2 3 4 5; do
		echo "\$ perftune -vv set --hold --name vm-mid ${CRASH_KEYS[*]} &   # attempt $attempt"
		"$PT" -vv set --hold --name vm-mid "${CRASH_KEYS[@]}" >"$WORK/mid.out" 2>"$WORK/mid.fifo" &
		pid=$!
		killed=0
		exec {fd}<"$WORK/mid.fifo"
		while IFS= read -r -t 60 -u "$fd" line; do
			echo "    | $line"
			if [[ $line == *"write "* ]]; then
				kill -9 "$pid"
				killed=1
				break
			fi
		done
		exec {fd}<&-
		wait "$pid" 2>/dev/null || true
		((killed)) || fail "perftune -vv logged no write; cannot kill it mid-commit"
		echo "    killed pid $pid at its first write"
		pt_ok status --json
		[[ $OUT == *'"committed": false'* ]] && break
		echo "    the commit finished before the kill landed; restoring and trying again"
		pt_ok restore --orphans
		snapshot >"$WORK/after"
		diff -u "$WORK/before" "$WORK/after" || fail "values not restored after a late kill"
		no_transactions
		((attempt < 5)) || fail "five kills at the first write all landed after the commit"
	done
	snapshot >"$WORK/mid"
	changed=$(diff "$WORK/before" "$WORK/mid" | grep -c '^>' || true)
	echo "    values changed when killed: $changed"
	pt_ok restore --orphans
	snapshot >"$WORK/after"
	diff -u "$WORK/before" "$WORK/after" || fail "values not restored"
	echo "    ok: every value back"
	no_transactions
}

# Best effort: holders killed after growing delays, wherever they are.
test_crash_timed_kills() {
	local delay pid where mid=0 committed=0 early=0
	crash_keys
	snapshot >"$WORK/before"
	for delay in 0.02 0.05 0.1 0.2 0.3 0.5; do
		"$PT" set --hold --name vm-timed "${CRASH_KEYS[@]}" >"$WORK/timed.out" 2>&1 &
		pid=$!
		sleep "$delay"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		pt_ok status --json
		if [[ $OUT == *'"committed": false'* ]]; then
			mid=$((mid + 1)) where="mid-commit"
		elif [[ $OUT == *'"committed": true'* ]]; then
			committed=$((committed + 1)) where="after commit"
		else
			early=$((early + 1)) where="before any key was journaled"
		fi
		echo "    killed after ${delay}s: $where"
		# a journal without keys yet is an orphan to clean up as well
		if compgen -G "$JOURNAL_DIR/*.journal" >/dev/null; then
			pt_ok restore --orphans
		fi
		snapshot >"$WORK/after"
		diff -u "$WORK/before" "$WORK/after" || fail "values not restored after a kill at ${delay}s"
		no_transactions
	done
	echo "    kills: $early before any key was journaled, $mid mid-commit, $committed after commit; all restored"
}

test_back_to_start() {
	snapshot >"$WORK/end"
	diff -u "$WORK/start" "$WORK/end" || fail "the guest is not back where the tests started"
	echo "    ok: every value as before the tests"
	no_transactions
}

snapshot >"$WORK/start"
run_test "list shows every family and the guest's devices" test_list_families
run_test "selinux.avc.cache_threshold 512 -> 8192 -> restored" test_selinux_avc
run_test "huge pages set per NUMA node, independently, restored" test_hugepages_per_node
run_test "more huge pages than a node has: fails, rolls back" test_hugepages_too_many_fails
run_test "more huge pages than a node has, --allow-partial: reports what was allocated" test_hugepages_partial
run_test "schedulers on scsi_debug, null_blk, NVMe, dm-multipath; alias" test_schedulers
run_test "block[/dev/mapper/mpath] (request-based) is the dm device itself" test_multipath_by_path
run_test "block[/dev/mapper/lin] and a path on it resolve to the slave disks" test_dm_linear_resolves_to_slaves
run_test "block[/dev/PART] means its disk" test_partition_means_disk
run_test "errors: unknown device, bad value, usage" test_errors
run_test "numa.balancing set and restored" test_numa_balancing
run_test "proc.PID.numa_nodes moves a process to node 1 and back" test_proc_numa_nodes
run_test "proc.PID.numa_nodes: memory allocated after the move lands on node 1" test_proc_numa_nodes_new_memory
run_test "exec --nodes 1 runs a command on node 1" test_exec_nodes
run_test "crash: hold killed -9 after commit, restore --orphans" test_crash_after_commit
run_test "crash: hold killed -9 mid-commit, restore --orphans" test_crash_mid_commit
run_test "crash: holds killed -9 at timed points, restore --orphans" test_crash_timed_kills
cpu_tests
irq_tests
isolation_tests
net_tests
run_test "the guest is back where it started" test_back_to_start

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
