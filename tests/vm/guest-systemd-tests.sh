#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The shipped unit systemd/perftune@.service under a real systemd (issue 24):
# run-vm --init systemd boots the guest with systemd as PID 1, and its job
# unit runs guest-boot.sh, which runs this script:
#
#   tests/vm/run-vm --init systemd --build-dir BUILD --source-dir SRC \
#       tests/vm/guest-systemd-tests.sh [PERFTUNE [unit|packages]]
#
# The second argument runs one group alone: "unit" (the tests below) or
# "packages" (a package's life under systemd, guest-package-tests.sh);
# without it, both.
#
# The unit is installed into /run/systemd/system as built (BUILD/systemd/
# perftune@.service), with only the path of perftune in Exec*= changed to the
# build tree's.  A test profile in /etc/perftune/profiles (the guest's tmpfs
# overlay) changes two sysctls, the scheduler of a scsi_debug disk and the
# PM QoS CPU latency (force_latency: only in force while held), the e1000e
# NIC's gro (ethtool netlink) and loads the dummy module (libkmod).  Tests:
# start applies and holds, stop restores, kill -9 of the holder leaves the
# restore to ExecStopPost, and systemd-analyze security of the unit.
#
# Output as guest-tests.sh: "ok N - name" / "not ok N - name", transcripts as
# "#" lines, then "N passed, N failed"; exits 1 if any failed.
set -euo pipefail

PT=${1:-${PERFTUNE_BUILD_DIR:-}/utils/perftune}
[[ $PT == /* ]] || PT=${PERFTUNE_BUILD_DIR:-.}/$PT
if [[ ! -x $PT ]]; then
	echo "guest-systemd-tests: no perftune executable at '$PT'"
	exit 1
fi
if [[ ! -r /run/vm-devices.env ]]; then
	echo "guest-systemd-tests: no /run/vm-devices.env: run me through tests/vm/run-vm --init systemd"
	exit 1
fi
# shellcheck source=/dev/null
source /run/vm-devices.env
read -r -a SCSI <<<"$SCSI_DISKS"
JOURNAL_DIR=/run/perftune
WORK=$(mktemp -d /run/vm-tests.XXXXXX)
GROUP=${2:-all}
# shellcheck source=guest-lib.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"
# shellcheck source=guest-package-tests.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/guest-package-tests.sh"

PROFILE=vm-systemd
UNIT=perftune@$PROFILE.service
UNIT_DIR=/run/systemd/system
BUILT_UNIT=${PERFTUNE_BUILD_DIR:-}/systemd/perftune@.service
DISK=${SCSI[0]}

echo "# guest kernel: $(uname -r)"
echo "# PID 1: $(cat /proc/1/comm), $(systemctl --version | head -n 1)"
echo "# perftune: $PT ($("$PT" --version 2>&1 || true))"

# snapshot: every value the test profile changes.
snapshot() {
	local f
	for f in /proc/sys/vm/swappiness /proc/sys/vm/dirty_ratio; do
		echo "$f=$(<"$f")"
	done
	echo "scheduler.$DISK=$(sched "$DISK")"
	echo "pmqos=$(pmqos_now)"
	echo "gro.$NET_E1000E=$(gro_now)"
	echo "module.dummy=$(dummy_now)"
	for f in /proc/sys/vm/nr_hugepages /proc/sys/kernel/numa_balancing \
		"$THP" "$AVC" /proc/irq/default_smp_affinity "$WQ_MASK" \
		/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do
		echo "$f=$(<"$f")"
	done
	# every IRQ's mask ([scheduler] isolated_cores moves the movable ones)
	for f in /proc/irq/[0-9]*/smp_affinity_list; do echo "$f=$(<"$f")"; done
}

# The other families' files (every family a profile can hold, issue 36).
THP=/sys/kernel/mm/transparent_hugepage/enabled
AVC=/sys/fs/selinux/avc/cache_threshold
WQ_MASK=/sys/devices/virtual/workqueue/cpumask
GOV=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
ISOLATED=3
# thp_now: the mode in brackets
thp_now() { sed 's/.*\[\(.*\)\].*/\1/' "$THP"; }
# cpu_in_mask FILE CPU: whether a hex mask (commas between words) has CPU
cpu_in_mask() { (((16#$(tr -d ',\n' <"$1") >> $2) & 1)); }

# gro_now: generic-receive-offload of the e1000e NIC (ethtool -k), on or off
gro_now() { ethtool -k "$NET_E1000E" | sed -n 's/^generic-receive-offload: \([a-z]*\).*/\1/p'; }
# dummy_now: whether the dummy module (in the initramfs, not loaded at boot) is
dummy_now() { if [[ -d /sys/module/dummy ]]; then echo loaded; else echo absent; fi; }

# prop NAME: a property of the unit (systemctl show).
prop() { systemctl show -P "$1" "$UNIT"; }

# sc ARGS...: run systemctl, show it; fails the test if systemctl does.
sc() {
	echo "\$ systemctl $*"
	progress "systemctl $*"
	timeout "$WAIT" systemctl "$@" 2>&1 | sed 's/^/    /'
	return "${PIPESTATUS[0]}"
}

# unit_log: the unit's journal since the last start (for transcripts).
unit_log() {
	journalctl --no-pager -o cat -u "$UNIT" -n 30 2>&1 | sed 's/^/    journal| /' || true
}

# Waits are in seconds, not tries: under TCG on a busy machine one round of
# systemctl + perftune + python3 can take seconds.
WAIT=180

# progress TEXT: a line on the console at once (a test's transcript shows only
# when it ends), so that a hung step can be told in the console log.
# (with the guest's uptime: the console log then says what each step cost)
progress() {
	local up _
	read -r up _ </proc/uptime
	echo "vm-systemd-tests: [${up}s] $*" >/dev/console 2>/dev/null || true
}

# wait_state STATE...: wait until the unit's ActiveState is one of STATE.
wait_state() {
	local s end=$((SECONDS + WAIT))
	progress "waiting for $UNIT to be $*"
	while ((SECONDS < end)); do
		s=$(prop ActiveState)
		[[ " $* " == *" $s "* ]] && return 0
		sleep 0.2
	done
	unit_log
	fail "$UNIT is still '$s' after ${WAIT}s, expected: $*"
}

# wait_held: wait until the unit's main process holds the transaction (perftune
# status: held by the unit's MainPID); fails if the unit stops instead.
wait_held() {
	local pid end=$((SECONDS + WAIT))
	progress "waiting for $UNIT to hold $PROFILE"
	while ((SECONDS < end)); do
		pid=$(prop MainPID)
		case $(prop ActiveState) in
		failed | inactive)
			unit_log
			fail "$UNIT ended ($(prop ActiveState), result $(prop Result)) instead of holding"
			;;
		esac
		# status --json: a row (a line) per key; awk, not python3, whose
		# start-up alone takes seconds under TCG on a busy machine.  Held
		# and committed: the journal holds its keys from the first one,
		# before the slower writes (a scheduler switch) are done
		if ((pid > 0)) && "$PT" status --json 2>/dev/null |
			awk -v t="\"transaction\": \"$PROFILE\"," -v p="\"pid\": $pid," -v h='"held": true,' \
				-v c='"committed": true,' '
				index($0, t) { n++; if (!index($0, p) || !index($0, h) || !index($0, c)) bad++ }
				END { exit !(n > 0 && !bad) }'; then
			HOLDER=$pid
			return 0
		fi
		sleep 0.2
	done
	unit_log
	fail "$UNIT does not hold transaction $PROFILE after ${WAIT}s"
}

# in_force: the profile's values are what the kernel has now.
in_force() {
	eq "vm.swappiness" "$(</proc/sys/vm/swappiness)" "$WANT_SWAPPINESS"
	eq "vm.dirty_ratio" "$(</proc/sys/vm/dirty_ratio)" "$WANT_DIRTY"
	eq "$DISK scheduler" "$(sched "$DISK")" "$WANT_SCHED"
	eq "PM QoS CPU latency (held)" "$(pmqos_now)" 0
	eq "$NET_E1000E gro (ethtool netlink: AF_NETLINK)" "$(gro_now)" "$WANT_GRO"
	eq "dummy module (libkmod: ProtectKernelModules=no, @module)" "$(dummy_now)" loaded
	eq "THP ([vm])" "$(thp_now)" "$WANT_THP"
	eq "huge pages (vm.nr_hugepages: hugepages.nr)" "$(</proc/sys/vm/nr_hugepages)" "$WANT_HP"
	eq "NUMA balancing (kernel.numa_balancing)" "$(</proc/sys/kernel/numa_balancing)" "$WANT_NUMAB"
	eq "SELinux AVC cache threshold ([selinux])" "$(<"$AVC")" "$WANT_AVC"
	eq "cpu0 governor ([cpu] governor: cpufreq)" "$(<"$GOV")" "$WANT_GOV"
	if cpu_in_mask /proc/irq/default_smp_affinity "$ISOLATED"; then
		fail "default IRQ mask $(</proc/irq/default_smp_affinity) still has CPU $ISOLATED"
	fi
	if cpu_in_mask "$WQ_MASK" "$ISOLATED"; then
		fail "workqueue mask $(<"$WQ_MASK") still has CPU $ISOLATED"
	fi
	echo "    ok: default IRQ mask $(</proc/irq/default_smp_affinity), workqueue mask $(<"$WQ_MASK"): no CPU $ISOLATED"
}

# all_back: every value as before the test started, no journal left.
all_back() {
	snapshot >"$WORK/after"
	diff -u "$WORK/before" "$WORK/after" || fail "values not restored"
	echo "    ok: every value back"
	no_transactions
}

# ------------------------------------------------------------------ setup
# The test profile, and the unit with the build tree's perftune.
setup() {
	[[ $(</proc/1/comm) == systemd ]] || {
		echo "guest-systemd-tests: PID 1 is $(</proc/1/comm), not systemd"
		exit 1
	}
	[[ -r $BUILT_UNIT ]] || {
		echo "guest-systemd-tests: no $BUILT_UNIT (built with -Dsystemdsystemunitdir=no?)"
		exit 1
	}
	WANT_SWAPPINESS=$(($(</proc/sys/vm/swappiness) + 7))
	WANT_DIRTY=$(($(</proc/sys/vm/dirty_ratio) + 5))
	WANT_SCHED=$(other_sched "$DISK")
	if [[ $(gro_now) == on ]]; then WANT_GRO=off; else WANT_GRO=on; fi
	[[ $(dummy_now) == absent ]] || fail "dummy is loaded before the test"
	if [[ $(thp_now) == never ]]; then WANT_THP=madvise; else WANT_THP=never; fi
	WANT_HP=$(($(</proc/sys/vm/nr_hugepages) + 4))
	WANT_NUMAB=$((!$(</proc/sys/kernel/numa_balancing)))
	WANT_AVC=$(($(<"$AVC") == 8192 ? 4096 : 8192))
	WANT_GOV=
	for g in $(<"${GOV%/*}/scaling_available_governors"); do
		[[ $g == "$(<"$GOV")" ]] || { WANT_GOV=$g; break; }
	done
	[[ -n $WANT_GOV ]] || fail "cpu0 offers no governor but $(<"$GOV")"
	mkdir -p "/etc/perftune/profiles/$PROFILE"
	cat >"/etc/perftune/profiles/$PROFILE/tuned.conf" <<-EOF
		[main]
		summary=perftune VM tier: the unit under systemd

		[sysctl]
		vm.swappiness=$WANT_SWAPPINESS
		vm.dirty_ratio=$WANT_DIRTY
		vm.nr_hugepages=$WANT_HP
		kernel.numa_balancing=$WANT_NUMAB

		[vm]
		transparent_hugepages=$WANT_THP

		[selinux]
		avc_cache_threshold=$WANT_AVC

		[disk]
		devices=$DISK
		elevator=$WANT_SCHED

		[cpu]
		force_latency=0
		governor=$WANT_GOV

		# IRQs, the default IRQ mask, workqueues and threads off CPU $ISOLATED
		[scheduler]
		isolated_cores=$ISOLATED

		# the unit as shipped holds every family (issue 36): ethtool over
		# generic netlink, a module through libkmod
		[net]
		devices=$NET_E1000E
		features=gro $WANT_GRO

		[modules]
		dummy=+r
	EOF
	mkdir -p "$UNIT_DIR"
	sed -E "s|^(Exec[A-Za-z]+=-?)[^ ]*/perftune |\\1$PT |" "$BUILT_UNIT" >"$UNIT_DIR/perftune@.service"
	echo "# the unit as installed (diff against the built one):"
	diff "$BUILT_UNIT" "$UNIT_DIR/perftune@.service" | sed 's/^/#   /' || true
	systemctl daemon-reload
	snapshot >"$WORK/before"
	sed 's/^/# before: /' "$WORK/before"
}

# ------------------------------------------------------------------ tests

test_unit_loads() {
	eq "LoadState of $UNIT" "$(prop LoadState)" loaded
	eq "ExecStart of $UNIT" "$(systemctl show -P ExecStart "$UNIT" | grep -o "path=[^ ;]*" | head -n 1)" "path=$PT"
	pt_ok apply --dry-run "$PROFILE"
}

# The library under the unit's seccomp filters: RestrictSUIDSGID=yes makes
# systemd answer openat2 with ENOSYS (issue 24); the library needs a fallback
# (a user-space resolver) to find any tunable there.  Probe each directive in
# a oneshot service of its own (systemctl speaks to PID 1 over its private
# socket; systemd-run would need D-Bus, which this boot does not start), to
# say which directive breaks what.
# The seccomp-based directives of the unit: RestrictSUIDSGID alone (known to
# break openat2), then all the others together (one service each: every
# service costs seconds of sandbox setup under TCG).
PROBES=('' RestrictSUIDSGID=yes
	'SystemCallFilter=@system-service
SystemCallFilter=~@privileged
SystemCallFilter=@module
SystemCallErrorNumber=EPERM
RestrictNamespaces=yes
MemoryDenyWriteExecute=yes
LockPersonality=yes
RestrictRealtime=yes
RestrictAddressFamilies=AF_UNIX AF_NETLINK
SystemCallArchitectures=native')

test_probe_filters() {
	local i d u units=()
	# one service per directive, all started at once (a daemon-reload and a
	# start each would take minutes under TCG)
	for i in "${!PROBES[@]}"; do
		u=perftune-probe-$i.service
		units+=("$u")
		rm -f "$WORK/probe-$i.out"
		printf '[Service]\nType=oneshot\nExecStart=%s get sysctl.vm.swappiness\nExecStart=%s --version --verbose\nStandardOutput=append:%s\n%s\n' \
			"$PT" "$PT" "$WORK/probe-$i.out" "${PROBES[$i]}" >"$UNIT_DIR/$u"
	done
	systemctl daemon-reload
	progress "${#PROBES[@]} probes"
	timeout "$WAIT" systemctl start "${units[@]}" 2>/dev/null || true
	: >"$WORK/broken"
	for i in "${!PROBES[@]}"; do
		d=${PROBES[$i]} u=perftune-probe-$i.service
		echo "\$ perftune get sysctl.vm.swappiness   # in a service with ${d:-no directive}" | tr '\n' ' '
		echo
		if [[ $(systemctl show -P Result "$u") == success ]]; then
			echo "    ok: $(grep -v '^root:' "$WORK/probe-$i.out" | tr '\n' ' ')"
		else
			journalctl --no-pager -o cat -u "$u" -n 3 2>&1 | sed 's/^/    journal| /' || true
			echo "    BROKEN by ${d:-nothing (no directive at all)}"
			[[ -n $d ]] || fail "perftune fails in a plain systemd service"
			echo "$d" >>"$WORK/broken"
		fi
		rm -f "$UNIT_DIR/$u"
	done
	systemctl reset-failed 'perftune-probe-*' 2>/dev/null || true
	systemctl daemon-reload
	# a library that says it has a second resolver must cope with all of them
	if [[ -s $WORK/broken ]] && "$PT" --version --verbose 2>&1 | grep -qi resolver; then
		"$PT" --version --verbose 2>&1 | sed 's/^/    /'
		fail "this perftune has a fallback resolver and still breaks under: $(tr '\n' ' ' <"$WORK/broken")"
	fi
}

# wait_journal TEXT: wait until the unit's journal has TEXT, or it ended.
wait_journal() {
	local end=$((SECONDS + WAIT))
	progress "waiting for '$1' from $UNIT"
	while ((SECONDS < end)); do
		journalctl --no-pager -o cat -u "$UNIT" 2>/dev/null | grep -qF -- "$1" && return 0
		case $(prop ActiveState) in failed | inactive) return 0 ;; esac
		sleep 0.5
	done
	unit_log
	fail "no '$1' from $UNIT after ${WAIT}s"
}

# The unit as shipped, unless a directive above breaks the library: then the
# shipped unit must be seen not to tune (it either fails, or holds while every
# key is skipped as missing: openat2 -> ENOSYS reads as "no such sysctl"),
# and the rest of the tests run with a drop-in that turns off only what broke,
# printed here.
test_shipped_unit() {
	if [[ ! -s $WORK/broken ]]; then
		echo "    the library copes with every directive of the unit: nothing to drop"
		return 0
	fi
	echo "    directives that break the library: $(tr '\n' ' ' <"$WORK/broken")"
	sc start "$UNIT" || true
	wait_journal "holding transaction"
	unit_log
	echo "    $UNIT: $(prop ActiveState) ($(prop SubState)), result $(prop Result)"
	snapshot >"$WORK/shipped"
	if ! diff -u "$WORK/before" "$WORK/shipped"; then
		fail "the shipped unit changed values although a directive breaks the library"
	fi
	echo "    the shipped unit changed nothing"
	sc stop "$UNIT" || true
	systemctl reset-failed "$UNIT" 2>/dev/null || true
	all_back
	mkdir -p "$UNIT_DIR/perftune@.service.d"
	{
		echo "# written by tests/vm/guest-systemd-tests.sh: these directives break the"
		echo "# library (openat2 without a fallback, issue 24)"
		echo "[Service]"
		sed -E 's/^(SystemCallFilter|RestrictAddressFamilies|SystemCallArchitectures|SystemCallErrorNumber)=.*/\1=/; s/^(RestrictSUIDSGID|RestrictNamespaces|MemoryDenyWriteExecute|LockPersonality|RestrictRealtime)=.*/\1=no/' "$WORK/broken" | sort -u
	} >"$UNIT_DIR/perftune@.service.d/50-vm-test.conf"
	sed 's/^/    drop-in| /' "$UNIT_DIR/perftune@.service.d/50-vm-test.conf"
	systemctl daemon-reload
}

test_start_holds() {
	local t0=$EPOCHREALTIME
	sc start "$UNIT"
	wait_held
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "    held %.1fs after systemctl start\n", b - a }'
	eq "ActiveState" "$(prop ActiveState)" active
	eq "SubState" "$(prop SubState)" running
	sc status --no-pager --lines=5 "$UNIT" || true
	pt_ok status
	grep -q "$PROFILE" <<<"$OUT" || fail "perftune status does not show $PROFILE"
	in_force
	[[ -f $JOURNAL_DIR/$PROFILE.journal ]] || fail "no journal $JOURNAL_DIR/$PROFILE.journal"
}

test_stop_restores() {
	[[ $(prop ActiveState) == active ]] || fail "$UNIT is not running (the previous test failed)"
	sc stop "$UNIT"
	eq "ActiveState after stop" "$(prop ActiveState)" inactive
	eq "Result after stop" "$(prop Result)" success
	unit_log
	all_back
}

test_kill9_execstoppost() {
	sc start "$UNIT"
	wait_held
	in_force
	echo "\$ kill -9 $HOLDER   # the unit's main process"
	kill -9 "$HOLDER"
	wait_state failed inactive
	eq "Result after kill -9" "$(prop Result)" signal
	unit_log
	all_back
	sc reset-failed "$UNIT"
}

test_security() {
	local how=''
	echo "\$ systemd-analyze security $UNIT"
	if ! timeout "$WAIT" systemd-analyze security --no-pager "$UNIT" >"$WORK/sec" 2>&1; then
		sed 's/^/    /' "$WORK/sec"
		# without D-Bus: the unit file as installed (the drop-in not applied)
		how=" (offline, on the unit file)"
		cp "$UNIT_DIR/perftune@.service" "$WORK/$UNIT"
		echo "\$ systemd-analyze security --offline=true $WORK/$UNIT"
		(cd "$WORK" && timeout "$WAIT" systemd-analyze security --no-pager --offline=true "$UNIT") >"$WORK/sec" 2>&1 || true
	fi
	grep -E '✗|Overall' "$WORK/sec" | sed 's/^/    /'
	grep -q "Overall exposure level for $UNIT" "$WORK/sec" || {
		sed 's/^/    /' "$WORK/sec"
		fail "no exposure level from systemd-analyze security$how"
	}
}

unit_tests() {
	run_test "the unit loads, with the build tree's perftune" test_unit_loads
	run_test "the library under each seccomp directive of the unit" test_probe_filters
	run_test "the shipped unit as is" test_shipped_unit
	run_test "systemctl start: applies and holds" test_start_holds
	run_test "systemctl stop: restores every value" test_stop_restores
	run_test "kill -9 of the holder: ExecStopPost restores" test_kill9_execstoppost
	run_test "systemd-analyze security" test_security
}

setup
case $GROUP in
all)
	unit_tests
	package_tests
	;;
unit) unit_tests ;;
packages) package_tests ;;
*)
	echo "guest-systemd-tests: unknown group '$GROUP' (unit, packages)"
	exit 1
	;;
esac

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
