#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A look at the VM test guest, for checking the harness by hand (not a test):
#   tests/vm/run-vm --build-dir build --source-dir . tests/vm/smoke.sh
set -uo pipefail

section() { printf '\n== %s\n' "$*"; }

section "kernel"
uname -r
cat /proc/cmdline
section "NUMA nodes"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "${n##*/}: cpus $(<"$n/cpulist"), $(awk '/MemTotal/ { print $4, $5 }' "$n/meminfo")"
done
section "block devices"
lsblk
section "schedulers"
grep . /sys/block/*/queue/scheduler
section "hardware queues"
for d in /sys/block/*/mq; do
	echo "$(basename "$(dirname "$d")"): $(find "$d" -mindepth 1 -maxdepth 1 | wc -l)"
done
section "device mapper"
dmsetup table
section "SELinux"
echo "enforce: $(</sys/fs/selinux/enforce), avc/cache_threshold: $(</sys/fs/selinux/avc/cache_threshold)"
section "/run/vm-devices.env"
cat /run/vm-devices.env
if [[ -x ${PERFTUNE_BUILD_DIR:-}/utils/perftune ]]; then
	section "perftune list (families)"
	"$PERFTUNE_BUILD_DIR/utils/perftune" list | cut -d. -f1 | sort | uniq -c
fi
exit 0
