#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A package's life under systemd (issue 36), sourced by
# guest-systemd-tests.sh, whose unit (the built perftune@.service in
# /run/systemd/system) and helpers (prop, sc, wait_held...) it uses.  Run
# alone (the unit tests skipped):
#
#   tests/vm/run-vm --init systemd --build-dir build --source-dir . \
#       tests/vm/guest-systemd-tests.sh build/utils/perftune packages
#
# The example package perftune-example-db (tests/vm/example-db, built on the
# host by build-example-packages with this tree's dh_perftune and RPM
# macros) ships a vendor profile in /usr/lib/perftune/profiles.  For the
# .deb (dpkg) and the .rpm (Debian's rpm, its own database in $WORK):
#   install    -> perftune@perftune-example-db enabled, active, holding, its
#                 values in force;
#   upgrade    -> version 2's values (one changed, one dropped, one new) in
#                 force, while a sampler reads the keys both versions set:
#                 not one sample may see an original (no gap);
#   reboot     -> simulated (the guest's root is a tmpfs overlay that a real
#                 reboot would lose, and run-vm boots once): every perftune@
#                 instance stopped as at shutdown, which gives the kernel its
#                 values back as a reboot does, /run/perftune emptied, then
#                 the perftune@ units multi-user.target wants (the enabled
#                 ones) started as boot starts them -> version 2 in force;
#   removal    -> every value as before the install, the instance inactive
#                 and disabled, no journal left.
# Dependencies: the packages depend on perftune, which the build tree
# provides here (its perftune linked as /usr/sbin/perftune in the guest's
# overlay, the unit installed by guest-systemd-tests.sh): dpkg runs with
# --force-depends, rpm with --nodeps.

PKG=perftune-example-db
PKG_DIR=${PERFTUNE_BUILD_DIR:-}/tests/vm/example-packages
PKG_UNIT=perftune@$PKG.service
# rpm's own database, away from Debian's ~/.rpmdb
RPM=(rpm --dbpath "$WORK/rpmdb")
# dpkg's own database too: the host's, read over 9p under TCG, made each
# dpkg run take 10 to 40 s (the package's dependencies are forced anyway)
DPKG=(dpkg --admindir "$WORK/dpkg")
mkdir -p "$WORK/dpkg/info" "$WORK/dpkg/updates" "$WORK/dpkg/triggers"
: >"$WORK/dpkg/status"
: >"$WORK/dpkg/available"

# pkg_snapshot: every value a version of the profile sets, as NAME=VALUE
pkg_snapshot() {
	local f d
	for f in swappiness dirty_ratio dirty_background_ratio vfs_cache_pressure; do
		echo "vm.$f=$(<"/proc/sys/vm/$f")"
	done
	for d in "${SCSI[@]}"; do echo "scheduler.$d=$(sched "$d")"; done
	echo "pmqos=$(pmqos_now)"
	# force_latency=0 disables idle states too, where it maps to them
	grep -H '' /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state*/disable 2>/dev/null || true
}

# orig NAME: its value before the first install
orig() { sed -n "s/^$1=//p" "$WORK/pkg-before"; }

# pkg_in_force VERSION: that version's profile is what the kernel has
pkg_in_force() {
	local d
	eq "vm.swappiness" "$(</proc/sys/vm/swappiness)" 13
	if [[ $1 == 1 ]]; then
		eq "vm.dirty_ratio" "$(</proc/sys/vm/dirty_ratio)" 17
		eq "vm.dirty_background_ratio" "$(</proc/sys/vm/dirty_background_ratio)" 7
		eq "vm.vfs_cache_pressure (not in version 1)" "$(</proc/sys/vm/vfs_cache_pressure)" "$(orig vm.vfs_cache_pressure)"
	else
		eq "vm.dirty_ratio" "$(</proc/sys/vm/dirty_ratio)" 19
		eq "vm.dirty_background_ratio (dropped by version 2)" "$(</proc/sys/vm/dirty_background_ratio)" "$(orig vm.dirty_background_ratio)"
		eq "vm.vfs_cache_pressure" "$(</proc/sys/vm/vfs_cache_pressure)" 91
	fi
	for d in "${SCSI[@]}"; do eq "$d scheduler" "$(sched "$d")" kyber; done
	eq "PM QoS CPU latency (held)" "$(pmqos_now)" 0
}

# pkg_all_back: every value as before the install
pkg_all_back() {
	pkg_snapshot >"$WORK/pkg-after"
	diff -u "$WORK/pkg-before" "$WORK/pkg-after" || fail "values not as before the install"
	echo "    ok: every value as before the install"
}

# pkg_held VERSION: the instance enabled, active and holding VERSION's values
pkg_held() {
	eq "systemctl is-enabled $UNIT" "$(systemctl is-enabled "$UNIT" 2>&1 || true)" enabled
	wait_held
	eq "ActiveState" "$(prop ActiveState)" active
	pkg_in_force "$1"
	[[ -f $JOURNAL_DIR/$PKG.journal ]] || fail "no journal $JOURNAL_DIR/$PKG.journal"
}

# run_pkg_tool COMMAND...: a package manager's run, shown; fails the test if it fails
run_pkg_tool() {
	echo "\$ $*"
	progress "$*"
	timeout "$WAIT" "$@" >"$WORK/pkg.out" 2>&1 || {
		sed 's/^/    /' "$WORK/pkg.out"
		fail "$* failed"
	}
	progress "$1 returned"
	sed 's/^/    /' "$WORK/pkg.out"
}

# pkg_file VERSION: the package file of $PKG_FMT
pkg_file() {
	if [[ $PKG_FMT == deb ]]; then
		echo "$PKG_DIR/${PKG}_$1-1_all.deb"
	else
		echo "$PKG_DIR/$PKG-$1-1.noarch.rpm"
	fi
}

# sampler STOP OUT: read the keys both versions set until STOP exists, then
# write to OUT the number of samples and, per key, how many read its
# original (bash builtins only: no fork per sample).  A millisecond's pause
# between samples (read -t on a FIFO nobody writes): a busy loop took a vCPU
# from the upgrade it watches and made dpkg's run 5 times longer.
sampler() {
	local stop=$1 out=$2 n=0 i v tick
	mkfifo "$WORK/tick"
	exec {tick}<>"$WORK/tick"
	local -a files=(/proc/sys/vm/swappiness /proc/sys/vm/dirty_ratio) want=() hits=()
	want=("$(orig vm.swappiness)" "$(orig vm.dirty_ratio)")
	for i in "${SCSI[@]}"; do
		files+=("/sys/block/$i/queue/scheduler")
		want+=("[$(orig "scheduler.$i")]")
	done
	for i in "${!files[@]}"; do hits[i]=0; done
	while [[ ! -e $stop ]]; do
		for i in "${!files[@]}"; do
			read -r v <"${files[i]}" || v=
			# a scheduler file lists them all: the original in brackets is active
			if [[ $v == "${want[i]}" || ($v == *"${want[i]}"* && ${want[i]} == \[*) ]]; then
				hits[i]=$((hits[i] + 1))
			fi
		done
		n=$((n + 1))
		read -r -t 0.001 -u "$tick" _ || true
	done
	exec {tick}<&-
	rm -f "$WORK/tick"
	{
		echo "samples $n"
		for i in "${!files[@]}"; do echo "${files[i]} ${want[i]} ${hits[i]}"; done
	} >"$out"
}

# ------------------------------------------------------------------ tests

test_pkg_setup() {
	local f d
	[[ ! -e $PKG_DIR/SKIP ]] || fail "no example packages: $(<"$PKG_DIR/SKIP")"
	for f in "$PKG_DIR"/{"$PKG"_{1,2}.0-1_all.deb,"$PKG"-{1,2}.0-1.noarch.rpm}; do
		[[ -r $f ]] || fail "no $f (built by the example-packages target)"
	done
	for f in "$PKG_DIR"/*; do echo "    ${f##*/} ($(stat -c %s "$f") bytes)"; done
	[[ ! -e /usr/sbin/perftune ]] || fail "/usr/sbin/perftune exists: not the build tree's"
	# the guest's overlay only: the packages' scriptlets call perftune
	ln -s "$PT" /usr/sbin/perftune
	echo "    /usr/sbin/perftune -> $PT (the guest's overlay)"
	# a build machine's (or container image's) policy-rc.d that forbids
	# starting services (exit 101) belongs to the host, not to this booted
	# system: deb-systemd-invoke would not start or stop the instance
	if [[ -e /usr/sbin/policy-rc.d ]]; then
		echo "    the host's /usr/sbin/policy-rc.d removed from the guest's overlay:"
		sed 's/^/    | /' /usr/sbin/policy-rc.d | head -n 5
		rm /usr/sbin/policy-rc.d
	fi
	for d in "${SCSI[@]}"; do
		[[ " $(tr -d '[]' <"/sys/block/$d/queue/scheduler") " == *" kyber "* ]] ||
			fail "$d offers no kyber: $(<"/sys/block/$d/queue/scheduler")"
	done
	pkg_snapshot >"$WORK/pkg-before"
	sed 's/^/    before: /' "$WORK/pkg-before"
	# the profile's values must change something, or the test proves nothing
	[[ $(orig vm.swappiness) != 13 && $(orig vm.dirty_ratio) != 1[79] &&
		$(orig vm.dirty_background_ratio) != 7 && $(orig vm.vfs_cache_pressure) != 91 &&
		$(orig pmqos) != 0 ]] || fail "an original equals the example profile's value"
	for d in "${SCSI[@]}"; do [[ $(orig "scheduler.$d") != kyber ]] || fail "$d is on kyber already"; done
	mkdir -p "$WORK/rpmdb"
	"${RPM[@]}" --initdb
}

test_pkg_install() {
	if [[ $PKG_FMT == deb ]]; then
		run_pkg_tool "${DPKG[@]}" --force-depends -i "$(pkg_file 1.0)"
	else
		run_pkg_tool "${RPM[@]}" -i --nodeps "$(pkg_file 1.0)"
	fi
	pkg_held 1
	unit_log
}

# A disk added under the held unit (issue 35's hotplug): a scsi_debug host
# more, whose disk the profile's devices=sd* selects, gets its elevator
# from the holder; removal gives it back (test_pkg_remove), then the host
# goes.
SDEBUG=/sys/bus/pseudo/drivers/scsi_debug
test_pkg_hotplug() {
	local d new='' end=$((SECONDS + WAIT))
	[[ $(prop ActiveState) == active ]] || fail "$UNIT is not running (the install failed)"
	echo "\$ echo 1 >$SDEBUG/add_host"
	progress "scsi_debug add_host"
	echo 1 >"$SDEBUG/add_host"
	while [[ -z $new ]] && ((SECONDS < end)); do
		for d in /sys/block/sd*; do
			d=${d##*/}
			[[ " ${SCSI[*]} " == *" $d "* ]] || new=$d
		done
		[[ -n $new ]] || sleep 0.2
	done
	[[ -n $new ]] || fail "no new disk after add_host"
	echo "$new" >"$WORK/hot-disk"
	echo "    new disk: $new (model $(<"/sys/block/$new/device/model"))"
	progress "waiting for $new to get kyber"
	while [[ $(sched "$new") != kyber ]] && ((SECONDS < end)); do sleep 0.2; done
	unit_log
	eq "$new scheduler (added under the held unit)" "$(sched "$new")" kyber
	pt_ok status
	grep -q "block\.$new\.scheduler.*HOTPLUG" <<<"$OUT" || fail "status shows no HOTPLUG key for $new"
	pkg_in_force 1
}

test_pkg_upgrade() {
	local t0
	[[ $(prop ActiveState) == active ]] || fail "$UNIT is not running (the install failed)"
	rm -f "$WORK/sampler.stop"
	sampler "$WORK/sampler.stop" "$WORK/sampler.out" &
	local spid=$!
	t0=$EPOCHREALTIME
	if [[ $PKG_FMT == deb ]]; then
		run_pkg_tool "${DPKG[@]}" --force-depends -i "$(pkg_file 2.0)"
	else
		run_pkg_tool "${RPM[@]}" -U --nodeps "$(pkg_file 2.0)"
	fi
	# the reload or restart may still be under way when the tool returns:
	# sample until version 2's changed value is in force
	local end=$((SECONDS + WAIT))
	while [[ $(</proc/sys/vm/dirty_ratio) != 19 ]] && ((SECONDS < end)); do sleep 0.2; done
	touch "$WORK/sampler.stop"
	wait "$spid"
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "    sampled %.1fs from the upgrade on\n", b - a }'
	sed 's/^/    sampler: /' "$WORK/sampler.out"
	unit_log
	pkg_held 2
	local n seen
	n=$(awk '$1 == "samples" { print $2 }' "$WORK/sampler.out")
	seen=$(awk '$1 != "samples" { s += $3 } END { print s + 0 }' "$WORK/sampler.out")
	((n > 0)) || fail "the sampler took no sample"
	echo "    $n samples, $seen readings of an original"
	((seen == 0)) || fail "a gap: $seen readings of an original during the upgrade ($(prop ExecReload | grep -q path= && echo 'ExecReload=' || echo 'no ExecReload=: a restart'))"
}

test_pkg_reboot() {
	local u wants=()
	[[ $(prop ActiveState) == active ]] || fail "$UNIT is not running (an earlier step failed)"
	# shutdown: every instance stopped (each restores: the kernel's values
	# come back, as after a real reboot)
	sc stop 'perftune@*.service'
	pkg_all_back
	rm -rf /run/perftune
	# boot: systemd reads the enablement links afresh (dpkg's postinst
	# enables with --no-reload: PID 1 has not seen the link yet)
	sc daemon-reload
	# boot: what multi-user.target wants, of ours (the enabled instances)
	read -r -a wants <<<"$(systemctl show -P Wants multi-user.target)"
	for u in "${wants[@]}"; do [[ $u == perftune@* ]] && echo "    multi-user.target wants $u"; done
	[[ " ${wants[*]} " == *" $UNIT "* ]] || fail "multi-user.target does not want $UNIT (not enabled?)"
	for u in "${wants[@]}"; do [[ $u == perftune@* ]] && sc start "$u"; done
	pkg_held 2
}

test_pkg_remove() {
	if [[ $PKG_FMT == deb ]]; then
		run_pkg_tool "${DPKG[@]}" --purge "$PKG"
	else
		run_pkg_tool "${RPM[@]}" -e "$PKG"
	fi
	unit_log
	eq "ActiveState after removal" "$(prop ActiveState)" inactive
	eq "systemctl is-enabled $UNIT" "$(systemctl is-enabled "$UNIT" 2>&1 || true)" disabled
	if compgen -G "/etc/systemd/system/*.wants/$UNIT" >/dev/null; then
		fail "links left: $(echo /etc/systemd/system/*.wants/"$UNIT")"
	fi
	[[ ! -e /usr/lib/perftune/profiles/$PKG ]] || fail "/usr/lib/perftune/profiles/$PKG left"
	pkg_all_back
	no_transactions
	if [[ -s $WORK/hot-disk ]]; then
		local hot
		hot=$(<"$WORK/hot-disk")
		# a scsi_debug disk of the same module parameters starts as the others did
		eq "$hot scheduler (added under the hold) after removal" "$(sched "$hot")" "$(orig "scheduler.${SCSI[0]}")"
		echo "\$ echo -1 >$SDEBUG/add_host"
		echo -1 >"$SDEBUG/add_host"
		rm "$WORK/hot-disk"
	fi
}

# package_tests: the life of the .deb, then of the .rpm
package_tests() {
	# (PROFILE and UNIT: the names guest-systemd-tests.sh's helpers wait for)
	# shellcheck disable=SC2034
	PROFILE=$PKG UNIT=$PKG_UNIT
	run_test "example package: built, originals noted" test_pkg_setup
	for PKG_FMT in deb rpm; do
		run_test "$PKG_FMT: install -> $UNIT enabled, active, in force" test_pkg_install
		# once is enough: the holder is the same for both
		[[ $PKG_FMT == rpm ]] ||
			run_test "scsi_debug add_host under the held unit -> the new disk gets its elevator" test_pkg_hotplug
		run_test "$PKG_FMT: upgrade to 2.0 -> new values in force, no original seen" test_pkg_upgrade
		run_test "$PKG_FMT: reboot (simulated) -> in force again" test_pkg_reboot
		run_test "$PKG_FMT: removal -> every value back, disabled, no journal" test_pkg_remove
	done
}
