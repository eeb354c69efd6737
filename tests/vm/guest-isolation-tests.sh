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

test_isolated_cores_threads() {
	local cpus
	cpus=$(nproc)
	((cpus >= 4)) || fail "the guest has $cpus CPUs, the test needs 4"
	start_pmd_app
	thread_masks >"$WORK/masks.before"
	mkdir -p "$WORK/iso"
	printf '[scheduler]\nisolated_cores=3\nps_blacklist=.*pmd.*;^DPDK\n' >"$WORK/iso/tuned.conf"
	pt_ok apply --name vm-iso "$WORK/iso"
	threads_off_cpu3 "$WORK/masks.before"
	pt_ok restore vm-iso
	masks_back "$WORK/masks.before"
	stop_pmd_app
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
