# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the host-tier tests: assertions, loop devices we create, and a check
# that the machine is left exactly as it was found.
set -uo pipefail
P=${PERFTUNE:?PERFTUNE must point at the built CLI}
PASS=0 FAIL=0
export PERFTUNE_JOURNAL_DIR=$(mktemp -d /tmp/perftune-host-XXXXXX)/journal
WORK=$(dirname "$PERFTUNE_JOURNAL_DIR")

# MKROOT=tests/unit/mkroot.sh (the unit tier): the same cases on a fake machine in
# $R, which is empty on the host; nothing of this kernel is read or written
R=
if [ -n "${MKROOT:-}" ]; then
	R=$WORK/root
	"$MKROOT" "$R" >/dev/null
	P="$P --root $R"
elif [ "$(id -u)" != 0 ]; then
	echo "SKIP: the host tier needs root (real kernel files, loop devices)"
	[ "${PERFTUNE_REQUIRE_ALL:-}" = 1 ] && exit 1
	exit 77
fi

ok() { PASS=$((PASS + 1)); echo "ok $((PASS + FAIL)) - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok $((PASS + FAIL)) - $*"; }
check() { # check NAME CMD...
	local name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
eq() { # eq NAME GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: got '$2', want '$3'"; fi
}
sel() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$1"; } # the bracketed choice of a file

# the files these tests may touch, for the final comparison
WATCH=(/sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
	/proc/sys/vm/nr_hugepages /proc/sys/vm/swappiness /proc/sys/vm/dirty_ratio
	/proc/sys/vm/dirty_background_ratio /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	/sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us)
snapshot() { for f in "${WATCH[@]}"; do printf '%s=%s\n' "$f" "$(cat "$R$f")"; done; [ -n "$R" ] || od -An -t d4 /dev/cpu_dma_latency; }
BEFORE=$(snapshot)

new_loop() { # attach a loop device to a file of ours; prints its name
	local img dev
	img=$(mktemp "$WORK/disk-XXXXXX.img")
	truncate -s 64M "$img"
	dev=$(losetup -f --show "$img") || return 1
	echo "$dev" >>"$WORK/loops" # runs in $(...): remember it in a file
	basename "$dev"
}

finish() {
	local after
	$P restore --all --force >/dev/null 2>&1
	for d in $(cat "$WORK/loops" 2>/dev/null); do
		n=$(basename "$d")
		echo none >"/sys/block/$n/queue/scheduler" 2>/dev/null
		losetup -d "$d"
	done
	after=$(snapshot)
	if [ "$after" = "$BEFORE" ]; then ok "machine left as found"; else
		not_ok "machine left as found"; diff <(echo "$BEFORE") <(echo "$after")
	fi
	rm -rf "$WORK"
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ]
}
