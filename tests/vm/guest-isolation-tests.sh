#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Thread affinity and kernel modules on the guest's kernel (issue 20): TuneD's
# [scheduler] isolated_cores=3 with a ps_blacklist moves every movable thread
# off CPU 3 except the blacklisted ones and gives each its own mask back; a
# module (dummy, in the initramfs, not loaded) loaded through libkmod by a
# [modules] section and unloaded at restore.  Sourced by guest-tests.sh (one
# boot); run alone it runs only these:
#   tests/vm/run-vm --build-dir build --source-dir . tests/vm/guest-isolation-tests.sh build/utils/perftune

# every thread's mask: "pid/tid mask" lines, sorted for join(1).  A thread
# that exits between the glob and the read is left out: under pipefail its
# awk's failure would end the caller (with the ERR trap's message going into
# the caller's output file, not the test log).
thread_masks() {
	local t k
	for t in /proc/[0-9]*/task/[0-9]*; do
		k=${t#/proc/}
		awk -v t="${k%%/*}/${t##*/}" '/^Cpus_allowed_list/ { print t, $2 }' "$t/status" 2>/dev/null || true
	done | LC_ALL=C sort
}

# PF_NO_SETAFFINITY (0x04000000) in the 9th field of a thread's stat
unmovable() {
	local flags
	flags=$(sed 's/.*) //' "$1/stat" 2>/dev/null | awk '{ print $7 }') || return 1 # exited
	if [[ -n $flags ]] && (((flags & 0x04000000) != 0)); then return 0; fi
	return 1
}

# CPU 3 in a list such as 0-3,5
has3() {
	python3 -c "import sys; c=set(); [c.update(range(int(a.split('-')[0]), int(a.split('-')[-1]) + 1)) for a in sys.argv[1].split(',')]; sys.exit(0 if 3 in c else 1)" "$1"
}

test_isolated_cores_threads() {
	local pid tid t bad=0 moved=0 cpus
	cpus=$(nproc)
	((cpus >= 4)) || fail "the guest has $cpus CPUs, the test needs 4"
	# an application with a poll-mode thread named like OVS's, that must stay on 3
	python3 -c '
import threading, time, ctypes, os
def pmd():
    ctypes.CDLL(None).prctl(15, b"pmd-c03/id:8", 0, 0, 0)  # PR_SET_NAME
    os.sched_setaffinity(0, {3})
    print(threading.get_native_id(), flush=True)
    time.sleep(600)
threading.Thread(target=pmd).start(); time.sleep(600)' >"$WORK/pmd.tid" &
	pid=$! SLEEPER=$!
	trap 'kill "$SLEEPER" 2>/dev/null || true' EXIT
	for _ in $(seq 100); do [[ -s $WORK/pmd.tid ]] && break; sleep 0.1; done
	tid=$(<"$WORK/pmd.tid")
	thread_masks >"$WORK/masks.before"
	mkdir -p "$WORK/iso"
	printf '[scheduler]\nisolated_cores=3\nps_blacklist=.*pmd.*;^DPDK\n' >"$WORK/iso/tuned.conf"
	pt_ok apply --name vm-iso "$WORK/iso"
	# the threads that were there before (kernel threads begun since start on all CPUs)
	while read -r t _; do
		t=/proc/${t%%/*}/task/${t#*/}
		[[ -r $t/comm ]] || continue
		[[ $(<"$t/comm") =~ pmd|^DPDK ]] && continue
		unmovable "$t" && continue
		local m
		m=$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status" 2>/dev/null) || continue
		[[ -n $m ]] || continue
		if has3 "$m"; then
			echo "    thread ${t##*/} ($(<"$t/comm")) may still run on 3: $m"
			bad=$((bad + 1))
		else
			moved=$((moved + 1))
		fi
	done <"$WORK/masks.before"
	echo "    $moved threads off CPU 3, $bad on it"
	((moved > 20)) || fail "only $moved threads checked"
	((bad == 0)) || fail "$bad movable, not blacklisted threads may still run on CPU 3"
	eq "the blacklisted pmd thread stays on 3" "$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/$pid/task/$tid/status)" 3
	eq "its process's main thread moved" "$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/$pid/status)" 0-2
	pt_ok restore vm-iso
	thread_masks >"$WORK/masks.after"
	# the threads alive before and after: each has its own mask back
	join "$WORK/masks.before" "$WORK/masks.after" | awk '$2 != $3 { print "    thread " $1 ": " $2 " before, " $3 " after"; n++ } END { exit n > 0 }' ||
		fail "some threads did not get their own mask back"
	echo "    ok: $(join "$WORK/masks.before" "$WORK/masks.after" | wc -l) threads have their masks as before"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

test_module_through_profile() {
	[[ ! -d /sys/module/dummy ]] || fail "dummy is loaded already"
	pt_ok get module.dummy.loaded
	eq "dummy not loaded" "$OUT" 0
	mkdir -p "$WORK/mod"
	printf '[modules]\ndummy=+r numdummies=2\n' >"$WORK/mod/tuned.conf"
	pt_ok apply --name vm-mod "$WORK/mod"
	[[ -d /sys/module/dummy ]] || fail "dummy was not loaded"
	# numdummies is not in sysfs (mode 0): the devices it made say it was passed
	eq "two dummy devices (numdummies=2 from the profile)" "$(ls -d /sys/class/net/dummy* | wc -l)" 2
	pt_ok restore vm-mod
	[[ ! -d /sys/module/dummy ]] || fail "dummy is still loaded after the restore"
	echo "    ok: unloaded at restore"
	# by key; one loaded before (dm_mod, used by the dm devices) is never unloaded
	pt_ok set --name vm-mod2 module.dummy.loaded=1 module.dm_mod.loaded=1
	pt_ok restore vm-mod2
	[[ ! -d /sys/module/dummy ]] || fail "dummy is still loaded"
	[[ -d /sys/module/dm_mod ]] || fail "dm_mod, loaded before, was unloaded"
	pt_fails set module.dm_mod.loaded=0
	[[ $ERR == *"in use"* ]] || fail "unloading dm_mod in use: '$ERR'"
}

isolation_tests() {
	run_test "isolated_cores=3 with ps_blacklist: threads off CPU 3 but the blacklisted, restored" test_isolated_cores_threads
	run_test "[modules] dummy=+r loads it through libkmod, restore unloads it" test_module_through_profile
}

# run alone: the guest-tests.sh preamble's helpers, then only these tests
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	# shellcheck source=guest-lib.sh source-path=SCRIPTDIR
	source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"
	run_alone "${1:-}" isolation_tests
fi
