#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# CPU power on the guest's real drivers (issue 19): acpi-cpufreq and acpi_idle,
# bound to tests/vm/cpupower.dsl's _PSS and _CST, so the kernel's cpufreq core
# (policies, governors, min/max clamping, userspace setspeed) and cpuidle core
# (state disable) run under perftune.  Sourced by guest-tests.sh (one boot);
# run alone it runs only these:
#   tests/vm/run-vm --build-dir build --source-dir . tests/vm/guest-cpu-tests.sh build/utils/perftune
# EPP (which only intel_pstate and amd-pstate offer) has no emulation: the
# fake tree tests it.

C=/sys/devices/system/cpu

# every CPU value a test may change, as "name=value" lines
cpu_snapshot() {
	# one grep (FILE:VALUE lines), not a fork per file
	grep -H '' $C/cpu[0-9]*/cpufreq/scaling_{governor,min_freq,max_freq} \
		$C/cpu[0-9]*/cpuidle/state*/disable $C/cpu[0-9]*/power/pm_qos_resume_latency_us 2>/dev/null
	return 0
}

# put_limit FILE KHZ: write a cpufreq limit behind perftune's back and wait
# for it: the policy takes a new limit in a work item (frequency QoS, 5.4+)
put_limit() {
	local i
	echo "\$ echo $2 >$1"
	echo "$2" >"$1"
	for ((i = 0; i < 100; i++)); do
		[[ $(<"$1") == "$2" ]] && return 0
		sleep 0.02
	done
	fail "$1 does not read $2 after 2s"
}

cpu_drivers() {
	local fd id
	fd=$(cat $C/cpu0/cpufreq/scaling_driver 2>/dev/null || echo none)
	id=$(cat $C/cpuidle/current_driver 2>/dev/null || echo none)
	echo "    cpufreq driver: $fd; cpuidle driver: $id"
	[[ $fd == acpi-cpufreq ]] || fail "no acpi-cpufreq in the guest (cpufreq driver: $fd)"
	[[ $id == acpi_idle ]] || fail "no acpi_idle in the guest (cpuidle driver: $id)"
}

cpu_back() { # cpu_back FILE-BEFORE
	cpu_snapshot >"$WORK/cpu-after"
	diff -u "$1" "$WORK/cpu-after" || fail "CPU values not restored"
	echo "    ok: every CPU value back"
	no_transactions
}

test_cpu_property() {
	cpu_drivers
	echo "\$ tests/keyprop/keyprop.sh --describe-every 50"
	PERFTUNE=$PT "$(dirname "${BASH_SOURCE[0]}")/../keyprop/keyprop.sh" --describe-every 50 \
		>"$WORK/keyprop" 2>&1 && rc=0 || rc=$?
	sed 's/^/    | /' "$WORK/keyprop"
	((rc == 0)) || fail "the key property does not hold in the guest"
}

test_cpu_governor_and_limits() {
	local g0 min max
	cpu_drivers
	cpu_snapshot >"$WORK/cpu-before"
	g0=$(<$C/cpu0/cpufreq/scaling_governor)
	pt_ok describe cpu.0.governor
	grep -q "userspace" <<<"$OUT" || fail "describe offers no userspace governor"
	pt_ok set --name vm-gov cpu.all.governor=userspace cpu.0.min_khz=1800000 cpu.1.max_khz=2400000
	for f in $C/cpu[0-9]*/cpufreq/scaling_governor; do eq "$f" "$(<"$f")" userspace; done
	eq "cpu0 scaling_min_freq" "$(<$C/cpu0/cpufreq/scaling_min_freq)" 1800000
	eq "cpu1 scaling_max_freq" "$(<$C/cpu1/cpufreq/scaling_max_freq)" 2400000
	pt_ok get cpu.0-1.governor
	eq "get cpu.0-1.governor" "$OUT" userspace
	# the kernel's own clamping: setspeed below min lands on min (userspace governor)
	echo 1200000 >$C/cpu0/cpufreq/scaling_setspeed
	eq "cpu0 clamped to min by the cpufreq core" "$(<$C/cpu0/cpufreq/scaling_cur_freq)" 1800000
	pt_fails set cpu.0.max_khz=5000000
	grep -q "cpu.0.max_khz" <<<"$ERR" || fail "the error does not name cpu.0.max_khz"
	pt_ok restore vm-gov
	eq "governor restored" "$(<$C/cpu0/cpufreq/scaling_governor)" "$g0"
	cpu_back "$WORK/cpu-before"
}

# min above the current max in one transaction: the kernel refuses a min
# above max, so the commit must raise max first (and restore in reverse)
test_cpu_min_above_max() {
	cpu_drivers
	cpu_snapshot >"$WORK/cpu-before"
	put_limit $C/cpu2/cpufreq/scaling_max_freq 1800000 # behind perftune's back: the start
	cpu_snapshot >"$WORK/cpu-start"
	pt_ok set --name vm-order cpu.2.min_khz=2400000 cpu.2.max_khz=3000000
	eq "cpu2 min" "$(<$C/cpu2/cpufreq/scaling_min_freq)" 2400000
	eq "cpu2 max" "$(<$C/cpu2/cpufreq/scaling_max_freq)" 3000000
	pt_ok restore vm-order
	eq "cpu2 max back" "$(<$C/cpu2/cpufreq/scaling_max_freq)" 1800000
	eq "cpu2 min back" "$(<$C/cpu2/cpufreq/scaling_min_freq)" 1200000
	cpu_back "$WORK/cpu-start"
	put_limit $C/cpu2/cpufreq/scaling_max_freq 3000000
	cpu_snapshot >"$WORK/cpu-after"
	diff -u "$WORK/cpu-before" "$WORK/cpu-after" || fail "cpu2 max not put back"
}

test_cpu_idle_by_name_and_latency() {
	cpu_drivers
	cpu_snapshot >"$WORK/cpu-before"
	pt_ok list cpu.0.idle
	grep -q "^cpu.0.idle.C1.disable = 0" <<<"$OUT" || fail "list shows no cpu.0.idle.C1.disable"
	pt_ok set --name vm-idle cpu.all.idle.C1.disable=1
	for f in $C/cpu[0-9]*/cpuidle/state1/disable; do eq "$f" "$(<"$f")" 1; done
	pt_ok get cpu.all.idle.C1.disable
	eq "get reads it back" "$OUT" 1
	pt_ok restore vm-idle
	cpu_back "$WORK/cpu-before"
	# by the kernel's name in brackets, and by id
	pt_ok set --name vm-idle2 "cpu.1.idle[C1].disable=1" cpu.3.idle.state1.disable=1
	eq "cpu1 C1" "$(<$C/cpu1/cpuidle/state1/disable)" 1
	eq "cpu3 C1" "$(<$C/cpu3/cpuidle/state1/disable)" 1
	pt_ok status
	grep -q "cpu.3.idle.C1.disable" <<<"$OUT" || fail "status does not name the key form"
	pt_ok restore vm-idle2
	cpu_back "$WORK/cpu-before"
	# max latency 0: C1 (1 us) and C2 (50 us, disabled at boot) off; POLL stays
	pt_ok set --name vm-lat cpu.all.idle.max_latency_us=0
	for f in $C/cpu[0-9]*/cpuidle/state1/disable $C/cpu[0-9]*/cpuidle/state2/disable; do
		eq "$f" "$(<"$f")" 1
	done
	eq "POLL stays" "$(<$C/cpu0/cpuidle/state0/disable)" 0
	pt_ok get cpu.0.idle.max_latency_us
	eq "max_latency_us reads" "$OUT" 0
	pt_ok restore vm-lat
	eq "C2 back to disabled (its original)" "$(<$C/cpu0/cpuidle/state2/disable)" 1
	cpu_back "$WORK/cpu-before"
	# PM QoS resume latency of one CPU (the limit the cpuidle governor
	# honours for it), and "n/a" (no idle state at all) on another
	pt_ok set --name vm-resume cpu.2.resume_latency_us=20 cpu.3.resume_latency_us=n/a
	eq "cpu2 pm_qos_resume_latency_us" "$(<$C/cpu2/power/pm_qos_resume_latency_us)" 20
	eq "cpu3 pm_qos_resume_latency_us" "$(<$C/cpu3/power/pm_qos_resume_latency_us)" n/a
	pt_ok get cpu.2.resume_latency_us
	eq "get reads it back" "$OUT" 20
	pt_ok restore vm-resume
	cpu_back "$WORK/cpu-before"
}

test_cpu_tuned_profile() {
	local p=$WORK/vmcpu
	cpu_drivers
	cpu_snapshot >"$WORK/cpu-before"
	mkdir -p "$p"
	printf '[cpu]\ngovernor=performance\nforce_latency=0\n' >"$p/tuned.conf"
	echo "    | $(tr '\n' ' ' <"$p/tuned.conf")"
	pt_ok apply --name vm-tuned "$p"
	for f in $C/cpu[0-9]*/cpufreq/scaling_governor; do eq "$f" "$(<"$f")" performance; done
	for f in $C/cpu[0-9]*/cpuidle/state1/disable; do eq "$f" "$(<"$f")" 1; done
	eq "performance runs at max" "$(<$C/cpu0/cpufreq/scaling_cur_freq)" 3000000
	pt_ok restore vm-tuned
	cpu_back "$WORK/cpu-before"
}

# a fault late in the commit (a sysctl the kernel refuses after the CPU
# writes), then kill -9 in the middle of a commit: everything comes back
test_cpu_fault_and_kill() {
	local pid fd line killed attempt
	cpu_drivers
	cpu_snapshot >"$WORK/cpu-before"
	pt_fails -vv set --name vm-fault cpu.all.governor=powersave cpu.all.idle.C1.disable=1 \
		cpu.all.max_khz=2400000 sysctl.vm.dirty_ratio=101
	grep -q "scaling_governor <- powersave" <<<"$ERR" || fail "no governor write before the fault"
	grep -q "sysctl.vm.dirty_ratio" <<<"$ERR" || fail "the error does not name the failing key"
	cpu_back "$WORK/cpu-before"
	mkfifo "$WORK/cpu.fifo"
	for attempt in 1 2 3 4 5; do
		echo "\$ perftune -vv set --name vm-cpukill cpu.all.governor=powersave cpu.all.min_khz=1800000 cpu.all.idle.C1.disable=1 &   # attempt $attempt"
		"$PT" -vv set --name vm-cpukill cpu.all.governor=powersave cpu.all.min_khz=1800000 \
			cpu.all.idle.C1.disable=1 >"$WORK/cpukill.out" 2>"$WORK/cpu.fifo" &
		pid=$!
		killed=0
		exec {fd}<"$WORK/cpu.fifo"
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
		pt_ok status --json
		if [[ $OUT == *'"committed": false'* ]]; then
			echo "    killed mid-commit (attempt $attempt)"
			pt_ok restore --orphans
			break
		fi
		echo "    the commit finished before the kill landed; restoring and trying again"
		pt_ok restore --orphans
		[[ ! -e $JOURNAL_DIR/vm-cpukill.journal ]] || pt_ok restore vm-cpukill
		((attempt < 5)) || fail "five kills at the first write all landed after the commit"
	done
	cpu_back "$WORK/cpu-before"
}

cpu_tests() {
	run_test "cpu: every listed key usable on the real drivers (key property)" test_cpu_property
	run_test "cpu: governor, min/max on acpi-cpufreq, all-CPU selector, clamping, restore" test_cpu_governor_and_limits
	run_test "cpu: min above the current max in one transaction" test_cpu_min_above_max
	run_test "cpu: acpi_idle states by name, by id, max_latency_us, restore" test_cpu_idle_by_name_and_latency
	run_test "cpu: TuneD [cpu] governor=performance force_latency=0, restore" test_cpu_tuned_profile
	run_test "cpu: fault late in a commit, kill -9 mid-commit, restore" test_cpu_fault_and_kill
}

# run alone: the guest-tests.sh preamble's helpers, then only these tests
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	# shellcheck source=guest-lib.sh source-path=SCRIPTDIR
	source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"
	run_alone "${1:-}" cpu_tests
fi
