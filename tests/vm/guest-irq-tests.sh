#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# IRQ affinity and CPU isolation on the guest's real kernel (issue 20): 4 CPUs,
# virtio, NVMe (managed queue IRQs the kernel will not move) and scsi_debug.
# Sourced by guest-tests.sh (one boot); run alone it runs only these:
#   tests/vm/run-vm --build-dir build --source-dir . tests/vm/guest-irq-tests.sh build/utils/perftune
# It also prints the parity figure: options skipped per TuneD profile.

# every value these tests may change, as "name=value" lines
irq_snapshot() {
	local f
	for f in /proc/irq/[0-9]*/smp_affinity_list /proc/irq/default_smp_affinity \
		/sys/devices/virtual/workqueue/cpumask /sys/devices/virtual/workqueue/*/cpumask \
		/sys/bus/workqueue/devices/*/cpumask; do
		if [[ -e $f ]]; then echo "$f=$(<"$f")"; fi
	done
	return 0
}

# movable: the IRQs whose smp_affinity_list the kernel takes back as it is
movable() {
	local f
	for f in /proc/irq/[0-9]*/smp_affinity_list; do
		if echo "$(<"$f")" >"$f" 2>/dev/null; then echo "${f%/smp_affinity_list}"; fi
	done
	return 0
}

test_irq_move_one() {
	local d n cur
	irq_snapshot >"$WORK/irq-before"
	d=$(movable | head -1)
	[[ -n $d ]] || fail "no movable IRQ in the guest"
	n=${d##*/} cur=$(<"$d/smp_affinity_list")
	echo "    IRQ $n ($(find "$d" -mindepth 1 -maxdepth 1 -type d -printf '%f ')): $cur"
	pt_ok set --name vm-irq "irq.$n.cpus=3"
	eq "smp_affinity_list" "$(<"$d/smp_affinity_list")" 3
	pt_ok restore vm-irq
	eq "smp_affinity_list restored" "$(<"$d/smp_affinity_list")" "$cur"
	irq_snapshot >"$WORK/irq-after"
	diff "$WORK/irq-before" "$WORK/irq-after" || fail "IRQ state differs after the restore"
}

# NVMe's queue IRQs are managed: by number an error naming the IRQ, in a selector a skip
test_irq_managed_nvme() {
	local d n=''
	for d in /proc/irq/[0-9]*; do
		if [[ -d $d/nvme0q1 ]]; then n=${d##*/}; fi
	done
	[[ -n $n ]] || fail "no IRQ of nvme0q1"
	pt_fails set "irq.$n.cpus=0"
	[[ $ERR == *"will not move IRQ $n"* ]] || fail "the error does not name IRQ $n"
	pt_ok set --dry-run "irq[nvme0].cpus=0"
	[[ $ERR == *"irq.$n.cpus: the kernel will not move IRQ $n"*skipped* ]] ||
		fail "irq[nvme0] does not say it skips IRQ $n"
	no_transactions
}

# TuneD's cpu-partitioning with isolated_cores=3: IRQs, the default mask and the
# workqueues off CPU 3 in one transaction (with the rest of the profile); restore
test_irq_cpu_partitioning() {
	local d f bad=''
	[[ -e /usr/lib/tuned/cpu-partitioning/tuned.conf ]] || fail "TuneD's profiles are not installed"
	mkdir -p /etc/tuned
	echo "isolated_cores=3" >/etc/tuned/cpu-partitioning-variables.conf
	start_pmd_app
	snapshot >"$WORK/before"
	irq_snapshot >"$WORK/irq-before"
	thread_masks >"$WORK/masks.before"
	pt_ok apply --name vm-cpart cpu-partitioning
	threads_off_cpu3 "$WORK/masks.before"
	for d in $(movable); do
		if has_cpu "$(<"$d/smp_affinity_list")" 3; then bad="$bad ${d##*/}"; fi
	done
	eq "movable IRQs still on CPU 3" "$bad" ""
	if has_cpu "$("$PT" get irq.default.cpus)" 3; then fail "the default IRQ mask holds CPU 3"; fi
	if has_cpu "$("$PT" get workqueue.cpus)" 3; then fail "the workqueue mask holds CPU 3"; fi
	pt_ok restore vm-cpart
	snapshot >"$WORK/after"
	irq_snapshot >"$WORK/irq-after"
	diff "$WORK/before" "$WORK/after" || fail "values differ after the restore"
	diff "$WORK/irq-before" "$WORK/irq-after" || fail "IRQ state differs after the restore"
	masks_back "$WORK/masks.before"
	stop_pmd_app
	rm -f /etc/tuned/cpu-partitioning-variables.conf
	no_transactions
}

# the parity figure: options skipped per TuneD profile (isolated_cores=3 where asked)
# the profiles of latency-critical middleware: isolated_cores and ps_blacklist
# are applied (a precise skip per IRQ the kernel will not move is allowed), and
# the count of skipped options per profile is printed for the parity figure
test_irq_parity_figure() {
	local n c
	for n in cpu-partitioning cpu-partitioning-powersave realtime realtime-virtual-guest \
		realtime-virtual-host; do
		[[ -e /usr/lib/tuned/$n/tuned.conf ]] || fail "TuneD's $n is not installed"
		"$PT" apply --dry-run -v isolated_cores=3 "$n" >"$WORK/out" 2>&1 ||
			fail "$n: dry run exit $?: $(tail -3 "$WORK/out")"
		c=$(grep -c '^skipped:' "$WORK/out" || true)
		printf '    %-28s %3d skipped\n' "$n" "$c"
		grep '^skipped: \[\(scheduler\|irq\|irqbalance\)\]' "$WORK/out" | sed 's/^/      /' || true
		if grep -E '^skipped: \[scheduler\] (isolated_cores|ps_blacklist|ps_whitelist):' "$WORK/out"; then
			fail "$n: [scheduler] isolation options skipped whole"
		fi
	done
}

irq_tests() {
	run_test "irq: one movable IRQ to CPU 3 and back" test_irq_move_one
	run_test "irq: NVMe's managed IRQs refused by number, skipped by a selector" test_irq_managed_nvme
	run_test "irq: cpu-partitioning isolated_cores=3 applied and restored" test_irq_cpu_partitioning
	run_test "irq: isolation profiles apply isolated_cores and ps_blacklist (parity figure)" test_irq_parity_figure
}

# run alone: the guest-tests.sh preamble's helpers, then only these tests
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	# shellcheck source=guest-lib.sh source-path=SCRIPTDIR
	source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"
	snapshot() { irq_snapshot; } # alone: the IRQ side only
	run_alone "${1:-}" irq_tests
fi
