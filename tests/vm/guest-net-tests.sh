#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Network devices on real drivers (issue 21): the guest's e1000e NIC
# (NET_E1000E) and virtio-net NIC (NET_VIRTIO, one queue pair), each alone on
# a qemu hub (see run-vm), whose drivers validate what ethtool asks, and a
# netdevsim NIC (NET_NSIM, 4 queue pairs), the kernel's simulated device: every
# ethtool operation (rings with mini and jumbo, channels that make and remove
# real queues, all coalescing parameters, pause, features) under the kernel's
# own validation.  Every
# net key family set through perftune, read back with ethtool (the host's,
# through the guest's root) and perftune get, restored; refusals by perftune
# (past the driver's maximum), by the driver and by the kernel (extack); a
# late failure giving back every NIC setting; TuneD's network-latency and
# network-throughput, and a [net] profile on top, applied and restored; a NIC
# renamed before its restore.  Sourced by guest-tests.sh (one boot); run
# alone it runs only these:
#   tests/vm/run-vm --build-dir build --source-dir . tests/vm/guest-net-tests.sh build/utils/perftune

# net_snapshot: every NIC setting these tests may change, as ethtool and
# sysfs show it.
net_snapshot() {
	local d
	# rings, coalescing, pause, channels and features of every NIC as the
	# kernel's ethtool ioctls give them, in one process (vm-helper nics): five
	# ethtool runs per NIC made a snapshot cost seconds under TCG, and the
	# crash tests take a dozen; each value a test sets is still checked
	# against ethtool's own output (check_both)
	vmh nics "$NET_E1000E" "$NET_VIRTIO" "$NET_NSIM"
	# the files of every NIC in one grep (FILE:VALUE; an unreadable one left
	# out, before and after alike), not a fork per file
	local files=()
	for d in "$NET_E1000E" "$NET_VIRTIO" "$NET_NSIM"; do
		files+=(/sys/class/net/"$d"/{tx_queue_len,gro_flush_timeout,napi_defer_hard_irqs}
			/sys/class/net/"$d"/queues/rx-*/rps_cpus /sys/class/net/"$d"/queues/tx-*/xps_cpus)
	done
	grep -H '' "${files[@]}" 2>/dev/null || true
}

# net_back MESSAGE: the NICs as in $WORK/net.before (else fail with MESSAGE),
# and no transaction left
net_back() {
	net_snapshot >"$WORK/net.after"
	diff -u "$WORK/net.before" "$WORK/net.after" || fail "$1"
	echo "    ok: ethtool and sysfs show every NIC value as before"
	no_transactions
}

# ethtool_current OPT DEV FIELD: FIELD's value in the "Current" part of
# ethtool -g/-l, or anywhere in -c/-k/-a
ethtool_current() {
	ethtool "$1" "$2" | awk -v f="$3" '
		/^Current hardware settings/ { cur = 1 }
		/^Pre-set maximums/ { cur = 0; pre = 1 }
		index($0, f) == 1 && (cur || !pre) { sub(/^[^:]*:[ \t]*/, ""); print; exit }'
}

# flip VALUE: the other of on/off
flip() { if [[ $1 == on* ]]; then echo off; else echo on; fi; }

# check_both LABEL KEY ETHTOOL_OPT FIELD WANT: ethtool and perftune get agree
check_both() {
	eq "$1 (ethtool $3)" "$(ethtool_current "$3" "${2%%.*}" "$4")" "$5"
	pt_ok get "net.$2"
	eq "perftune get net.$2" "$OUT" "$5"
}

test_net_e1000e_keys() {
	local E=$NET_E1000E rx tx us rxc gro pa txq nrxc ngro
	eq "$E driver" "$(basename "$(readlink "/sys/class/net/$E/device/driver")")" e1000e
	net_snapshot >"$WORK/net.before"
	rx=$(ethtool_current -g "$E" RX:) tx=$(ethtool_current -g "$E" TX:)
	us=$(ethtool_current -c "$E" rx-usecs:)
	rxc=$(ethtool_current -k "$E" rx-checksumming:)
	gro=$(ethtool_current -k "$E" generic-receive-offload:)
	pa=$(ethtool_current -a "$E" RX:)
	eq "$E pause autonegotiation" "$(ethtool_current -a "$E" Autonegotiate:)" on
	txq=$(<"/sys/class/net/$E/tx_queue_len")
	echo "    before: ring $rx/$tx, rx-usecs $us, rx-checksumming $rxc, gro $gro, pause rx $pa, txqueuelen $txq"
	local nrx=$((rx == 512 ? 1024 : 512)) ntx=$((tx == 1024 ? 512 : 1024)) nus=$((us == 100 ? 200 : 100))
	nrxc=$(flip "$rxc") ngro=$(flip "$gro")
	local ntxq=$((txq + 1000))
	pt_ok set --name vm-nic "net.$E.ring.rx=$nrx" "net.$E.ring.tx=$ntx" \
		"net.$E.coalesce.rx_usecs=$nus" "net.$E.features.rx-checksum=$nrxc" \
		"net.$E.features.rx-gro=$ngro" "net.$E.txqueuelen=$ntxq" \
		"net.$E.rx.0.rps_cpus=5" "net.$E.gro_flush_timeout=20000" "net.$E.napi_defer_hard_irqs=2"
	check_both "ring rx" "$E.ring.rx" -g RX: "$nrx"
	check_both "ring tx" "$E.ring.tx" -g TX: "$ntx"
	check_both "coalesce rx_usecs" "$E.coalesce.rx_usecs" -c rx-usecs: "$nus"
	check_both "rx-checksum" "$E.features.rx-checksum" -k rx-checksumming: "$nrxc"
	check_both "rx-gro" "$E.features.rx-gro" -k generic-receive-offload: "$ngro"
	eq "txqueuelen (ip link)" "$(ip -o link show "$E" | sed -n 's/.* qlen \([0-9]*\).*/\1/p')" "$ntxq"
	pt_ok get "net.$E.txqueuelen"
	eq "perftune get net.$E.txqueuelen" "$OUT" "$ntxq"
	eq "rx-0 rps_cpus" "$(<"/sys/class/net/$E/queues/rx-0/rps_cpus")" 5
	pt_ok get "net.$E.rx.0.rps_cpus"
	eq "perftune get net.$E.rx.0.rps_cpus" "$OUT" 5
	eq "gro_flush_timeout" "$(<"/sys/class/net/$E/gro_flush_timeout")" 20000
	eq "napi_defer_hard_irqs" "$(<"/sys/class/net/$E/napi_defer_hard_irqs")" 2
	pt_ok status
	grep -q "net.$E.ring.rx: $rx -> $nrx" <<<"$OUT" || fail "status does not show the ring change"
	pt_ok restore vm-nic
	net_back "the NICs are not as before"
	# Pause autonegotiation alone: e1000e re-resolves rx/tx pause from the
	# link partner at every link-up (e1000e_config_fc_after_link_up), so a
	# forced rx/tx pause does not outlive the reset a ring or checksum change
	# makes; with autonegotiation on it ignores them (test_net_refusals).
	pt_ok set --name vm-pause-an "net.$E.pause.autoneg=off"
	check_both "pause autoneg" "$E.pause.autoneg" -a Autonegotiate: off
	pt_ok restore vm-pause-an
	check_both "pause autoneg after restore" "$E.pause.autoneg" -a Autonegotiate: on
	eq "pause rx after restore (ethtool -a)" "$(ethtool_current -a "$E" RX:)" "$pa"
	net_back "the NICs are not as before"
}

test_net_refusals() {
	local E=$NET_E1000E V=$NET_VIRTIO max
	net_snapshot >"$WORK/net.before"
	max=$(ethtool -g "$E" | awk '/^Pre-set maximums/ { p = 1 } p && /^RX:/ { print $2; exit }')
	echo "    $E: ring rx at most $max (driver)"
	# past the maximum the driver reports: refused before anything is written
	pt_fails set --name vm-ring-big "net.$E.txqueuelen=1234" "net.$E.ring.rx=$((max + 8))"
	grep -q "net.$E.ring.rx" <<<"$ERR" || fail "the message does not name net.$E.ring.rx"
	grep -q "$max" <<<"$ERR" || fail "the message does not give the maximum $max"
	# a value the driver itself refuses (e1000e: rx-usecs 2 is no mode)
	pt_fails set --name vm-usecs "net.$E.ring.tx=$(($(ethtool_current -g "$E" TX:) + 64))" \
		"net.$E.coalesce.rx_usecs=2"
	grep -q "net.$E.coalesce.rx_usecs" <<<"$ERR" || fail "the message does not name net.$E.coalesce.rx_usecs"
	# with pause autonegotiation on, e1000e ignores rx/tx pause: its read back says so
	pt_fails set --name vm-pause "net.$E.pause.rx=$(flip "$(ethtool_current -a "$E" RX:)")"
	grep -q "net.$E.pause.rx: the kernel accepted .* but reads back" <<<"$ERR" ||
		fail "the message does not say that the value did not take"
	# the kernel's own check, with its extack text (0 channels: no RX queue)
	pt_fails set --name vm-chan0 "net.$V.channels.combined=0"
	grep -q "net.$V.channels.combined" <<<"$ERR" || fail "the message does not name the key"
	grep -qi "no RX or TX channel" <<<"$ERR" || fail "the kernel's extack text is not in the message"
	# past the device's channel count (one queue pair on a qemu hub port)
	pt_fails set --name vm-chan2 "net.$V.channels.combined=2"
	grep -q "net.$V.channels.combined" <<<"$ERR" || fail "the message does not name the key"
	net_back "a refused transaction changed a NIC"
}

test_net_late_failure() {
	local E=$NET_E1000E V=$NET_VIRTIO dr w
	net_snapshot >"$WORK/net.before"
	dr=$(</proc/sys/vm/dirty_ratio)
	# Keys without a device go first, then each device's in order: the
	# sysctl, eth1's keys and eth0's first three are written when e1000e
	# refuses rx-usecs 2 (no such mode); its RPS mask (after) is never reached.
	pt -vv set --name vm-late "sysctl.vm.dirty_ratio=$((dr + 5))" "net.$E.txqueuelen=3000" \
		"net.$E.ring.rx=1024" "net.$E.features.rx-gro=off" "net.$E.coalesce.rx_usecs=2" \
		"net.$E.rx.0.rps_cpus=3" "net.$V.txqueuelen=3000" "net.$V.features.rx-gro=off"
	eq "exit status" "$RC" 1
	grep -q "net.$E.coalesce.rx_usecs: kernel refused '2'" <<<"$ERR" ||
		fail "the message does not name net.$E.coalesce.rx_usecs"
	for w in "write proc/sys/vm/dirty_ratio <- $((dr + 5))" \
		"write sys/class/net/$E/tx_queue_len <- 3000" \
		"write net.$E.ring.rx (ethtool netlink) <- 1024" \
		"write net.$E.features.rx-gro (ethtool netlink) <- off"; do
		grep -qF "$w" <<<"$ERR" || fail "no '$w' before the failure"
	done
	echo "    kernel writes before the failure: $(awk '/error:/ { exit } /perftune: write / { n++ } END { print n + 0 }' <<<"$ERR")"
	eq "vm.dirty_ratio" "$(</proc/sys/vm/dirty_ratio)" "$dr"
	net_back "the failed transaction left NIC settings changed"
}

test_net_virtio_channels_not_here() {
	local E=$NET_E1000E V=$NET_VIRTIO c
	eq "$V driver" "$(basename "$(readlink "/sys/class/net/$V/device/driver")")" virtio_net
	c=$(ethtool_current -l "$V" Combined:)
	check_both "channels combined" "$V.channels.combined" -l Combined: "$c"
	pt_ok set --name vm-chan "net.$V.channels.combined=$c" "net.$V.txqueuelen=1500"
	check_both "channels combined after set" "$V.channels.combined" -l Combined: "$c"
	pt_ok restore vm-chan
	# e1000e has no channel operations: not here, with the reason
	pt get "net.$E.channels.combined"
	eq "exit status of get net.$E.channels.combined" "$RC" 1
	grep -q "not here" <<<"$ERR" || fail "get net.$E.channels.combined: no 'not here': $ERR"
	pt_fails set --name vm-nochan "net.$E.channels.combined=1"
	grep -q "not here" <<<"$ERR" || fail "set net.$E.channels.combined: no 'not here'"
	pt_ok list "net.$E"
	! grep -q "^net\.$E\.channels\." <<<"$OUT" || fail "list shows channels of $E"
	grep -q "^net\.$E\.ring\.rx = " <<<"$OUT" || fail "list does not show net.$E.ring.rx"
	no_transactions
}

# everything the TuneD network profiles may change
prof_snapshot() {
	local f d
	net_snapshot
	for f in net/core/busy_read net/core/busy_poll net/ipv4/tcp_fastopen net/ipv4/tcp_rmem \
		net/ipv4/tcp_wmem net/core/somaxconn kernel/numa_balancing vm/dirty_ratio \
		vm/dirty_background_ratio vm/swappiness; do
		echo "$f=$(</proc/sys/$f)"
	done
	echo "thp=$(</sys/kernel/mm/transparent_hugepage/enabled)"
	for d in /sys/block/*/queue/read_ahead_kb; do echo "$d=$(<"$d")"; done
	echo "pmqos=$(pmqos_now)"
	if declare -F cpu_snapshot >/dev/null; then cpu_snapshot; fi
}

test_net_tuned_profiles() {
	local p
	[[ -e /usr/lib/tuned/network-latency/tuned.conf ]] || fail "TuneD's profiles are not installed"
	prof_snapshot >"$WORK/prof.before"
	for p in network-latency network-throughput; do
		pt_ok apply --name "vm-$p" "$p"
		case $p in
		network-latency)
			eq "net.core.busy_read" "$(</proc/sys/net/core/busy_read)" 50
			eq "net.core.busy_poll" "$(</proc/sys/net/core/busy_poll)" 50
			eq "net.ipv4.tcp_fastopen" "$(</proc/sys/net/ipv4/tcp_fastopen)" 3
			;;
		network-throughput)
			eq "net.ipv4.tcp_rmem" "$(tr -s '\t ' ' ' </proc/sys/net/ipv4/tcp_rmem)" "4096 87380 16777216"
			eq "net.ipv4.tcp_wmem" "$(tr -s '\t ' ' ' </proc/sys/net/ipv4/tcp_wmem)" "4096 16384 16777216"
			;;
		esac
		pt_ok restore "vm-$p"
		prof_snapshot >"$WORK/prof.after"
		diff -u "$WORK/prof.before" "$WORK/prof.after" || fail "$p: not every value as found"
		echo "    ok: $p restored, every value as found"
	done
	no_transactions
}

test_net_profile_section() {
	local E=$NET_E1000E V=$NET_VIRTIO rx us
	prof_snapshot >"$WORK/prof.before"
	rx=$(ethtool_current -g "$E" RX:) us=$(ethtool_current -c "$E" rx-usecs:)
	local nrx=$((rx == 512 ? 1024 : 512)) nus=$((us == 100 ? 200 : 100))
	mkdir -p "$WORK/netprof"
	cat >"$WORK/netprof/tuned.conf" <<-EOF
		[main]
		include=network-latency
		[nic]
		type=net
		devices=$E
		ring=rx $nrx
		coalesce=rx-usecs $nus
		features=gro off
		[vnic]
		type=net
		devices=$V
		features=gro off
		channels=combined 1
	EOF
	pt_ok apply --name vm-netprof "$WORK/netprof"
	check_both "ring rx" "$E.ring.rx" -g RX: "$nrx"
	check_both "coalesce rx_usecs" "$E.coalesce.rx_usecs" -c rx-usecs: "$nus"
	eq "$E gro (ethtool -k)" "$(ethtool_current -k "$E" generic-receive-offload:)" off
	eq "$V gro (ethtool -k)" "$(ethtool_current -k "$V" generic-receive-offload:)" off
	eq "net.core.busy_poll (included network-latency)" "$(</proc/sys/net/core/busy_poll)" 50
	pt_ok restore vm-netprof
	prof_snapshot >"$WORK/prof.after"
	diff -u "$WORK/prof.before" "$WORK/prof.after" || fail "not every value as found"
	echo "    ok: every value as found"
	no_transactions
}

test_net_renamed() {
	local E=$NET_E1000E V=$NET_VIRTIO rx txq vtxq vgro nrx
	net_snapshot >"$WORK/net.before"
	rx=$(ethtool_current -g "$E" RX:) txq=$(<"/sys/class/net/$E/tx_queue_len")
	vtxq=$(<"/sys/class/net/$V/tx_queue_len") vgro=$(ethtool_current -k "$V" generic-receive-offload:)
	nrx=$((rx == 512 ? 1024 : 512))
	pt_ok set --name vm-ren "net.$E.ring.rx=$nrx" "net.$E.txqueuelen=$((txq + 7))" \
		"net.$V.txqueuelen=$((vtxq + 9))" "net.$V.features.rx-gro=off"
	echo "\$ ip link set $E down; ip link set $E name ptren0; ip link set ptren0 up"
	ip link set "$E" down
	ip link set "$E" name ptren0
	ip link set ptren0 up
	pt restore vm-ren
	# put the renamed NIC back whatever the restore did
	ip link set ptren0 down
	ip link set ptren0 name "$E"
	ip link set "$E" up
	eq "exit status of the restore" "$RC" 0
	# issue 33 (H11): the originals follow the NIC's ifindex to its new name
	grep -q "net.$E.ring.rx: network device $E is ptren0 now .*given back as net.ptren0.ring.rx" <<<"$ERR" ||
		fail "the restore does not say where net.$E.ring.rx went: $ERR"
	eq "$V txqueuelen restored" "$(<"/sys/class/net/$V/tx_queue_len")" "$vtxq"
	eq "$V rx-gro restored (ethtool -k)" "$(ethtool_current -k "$V" generic-receive-offload:)" "$vgro"
	eq "$E (renamed) ring rx given back under its new name" "$(ethtool_current -g "$E" RX:)" "$rx"
	eq "$E (renamed) txqueuelen given back" "$(<"/sys/class/net/$E/tx_queue_len")" "$txq"
	net_back "the NICs are not as before"
}

# nsim_field OPT FIELD: ethtool_current on the netdevsim NIC, first word
nsim_field() { ethtool_current "$1" "$NET_NSIM" "$2" | awk '{ print $1 }'; }

test_net_nsim_keys() {
	local N=$NET_NSIM k v
	eq "$N driver" "$(basename "$(readlink "/sys/class/net/$N/device/driver")")" netdevsim
	net_snapshot >"$WORK/net.before"
	eq "$N channels" "$(nsim_field -l Combined:)" 4
	# every net key family on one device, in one transaction
	local -A want=(
		[ring.rx]=1024 [ring.tx]=2048 [ring.rx_mini]=64 [ring.rx_jumbo]=128
		[channels.combined]=2
		[coalesce.rx_usecs]=50 [coalesce.rx_frames]=16 [coalesce.tx_usecs]=40
		[coalesce.adaptive_rx]=on
		[features.hw-tc-offload]=on [features.rx-gro]=off
		[pause.rx]=on [pause.tx]=on
		[txqueuelen]=2500 [gro_flush_timeout]=30000 [napi_defer_hard_irqs]=3
		[rx.0.rps_cpus]=6 [rx.1.rps_cpus]=9 [tx.1.xps_cpus]=4
	)
	local args=()
	for k in "${!want[@]}"; do args+=("net.$N.$k=${want[$k]}"); done
	pt_ok set --name vm-nsim "${args[@]}"
	for k in "${!want[@]}"; do
		pt_ok get "net.$N.$k"
		eq "perftune get net.$N.$k" "$OUT" "${want[$k]}"
	done
	# the kernel's view, through ethtool and sysfs
	eq "ring rx (ethtool -g)" "$(nsim_field -g RX:)" 1024
	eq "ring tx (ethtool -g)" "$(nsim_field -g TX:)" 2048
	eq "ring rx mini (ethtool -g)" "$(nsim_field -g 'RX Mini:')" 64
	eq "ring rx jumbo (ethtool -g)" "$(nsim_field -g 'RX Jumbo:')" 128
	eq "channels (ethtool -l)" "$(nsim_field -l Combined:)" 2
	eq "queues after 2 channels" "$(cd "/sys/class/net/$N/queues" && echo rx-*)" "rx-0 rx-1"
	eq "rx-usecs (ethtool -c)" "$(nsim_field -c rx-usecs:)" 50
	eq "rx-frames (ethtool -c)" "$(nsim_field -c rx-frames:)" 16
	eq "tx-usecs (ethtool -c)" "$(nsim_field -c tx-usecs:)" 40
	eq "adaptive rx (ethtool -c)" "$(nsim_field -c 'Adaptive RX:')" on
	eq "hw-tc-offload (ethtool -k)" "$(nsim_field -k hw-tc-offload:)" on
	eq "gro (ethtool -k)" "$(nsim_field -k generic-receive-offload:)" off
	eq "pause rx (ethtool -a)" "$(nsim_field -a RX:)" on
	eq "pause tx (ethtool -a)" "$(nsim_field -a TX:)" on
	eq "txqueuelen (ip link)" "$(ip -o link show "$N" | sed -n 's/.* qlen \([0-9]*\).*/\1/p')" 2500
	eq "rx-1 rps_cpus" "$(<"/sys/class/net/$N/queues/rx-1/rps_cpus")" 9
	eq "tx-1 xps_cpus" "$(<"/sys/class/net/$N/queues/tx-1/xps_cpus")" 4
	pt_ok restore vm-nsim
	eq "channels after restore (ethtool -l)" "$(nsim_field -l Combined:)" 4
	net_back "netdevsim is not as before"
}

# channels before the queue masks they make: rx-3 and tx-3 exist only once the
# channel count is raised in the same transaction; restore gives channels back
# first (rx-3 goes with them, its mask needs no write)
test_net_nsim_channels_order() {
	local N=$NET_NSIM
	net_snapshot >"$WORK/net.before"
	pt_ok set --name vm-ch2 "net.$N.channels.combined=2"
	[[ ! -e /sys/class/net/$N/queues/rx-3 ]] || fail "rx-3 is still there with 2 channels"
	pt_ok -vv set --name vm-ch4 "net.$N.rx.3.rps_cpus=a" "net.$N.tx.3.xps_cpus=8" \
		"net.$N.channels.combined=4"
	grep -n "perftune: write " <<<"$ERR" | sed 's/^/    /'
	local ch rx3
	ch=$(grep -n "write net.$N.channels.combined (ethtool netlink) <- 4" <<<"$ERR" | cut -d: -f1)
	rx3=$(grep -n "write sys/class/net/$N/queues/rx-3/rps_cpus <- a" <<<"$ERR" | cut -d: -f1)
	[[ -n $ch && -n $rx3 ]] || fail "no channel or rx-3 write logged"
	((ch < rx3)) || fail "the rx-3 mask was written before the channels that make rx-3"
	eq "channels (ethtool -l)" "$(nsim_field -l Combined:)" 4
	eq "rx-3 rps_cpus" "$(<"/sys/class/net/$N/queues/rx-3/rps_cpus")" a
	eq "tx-3 xps_cpus" "$(<"/sys/class/net/$N/queues/tx-3/xps_cpus")" 8
	pt_ok restore vm-ch4
	eq "channels after restoring vm-ch4" "$(nsim_field -l Combined:)" 2
	pt_ok restore vm-ch2
	eq "rx-3 rps_cpus, made anew" "$(<"/sys/class/net/$N/queues/rx-3/rps_cpus")" 0
	net_back "netdevsim is not as before"
}

test_net_nsim_refusals() {
	local N=$NET_NSIM dr
	net_snapshot >"$WORK/net.before"
	# past the maximum netdevsim reports (4096): refused before anything is written
	pt_fails set --name vm-nsim-big "net.$N.txqueuelen=1234" "net.$N.ring.rx=4097"
	grep -q "net.$N.ring.rx" <<<"$ERR" || fail "the message does not name net.$N.ring.rx"
	grep -q 4096 <<<"$ERR" || fail "the message does not give the maximum 4096"
	pt_fails set --name vm-nsim-ch5 "net.$N.channels.combined=5"
	grep -q "net.$N.channels.combined" <<<"$ERR" || fail "the message does not name the key"
	grep -qE '(^|[^0-9])4([^0-9]|$)' <<<"${ERR//net.$N./}" || fail "the message does not give the maximum 4"
	# netdevsim refuses pause autonegotiation (it has no link settings): the
	# channels, ring and coalescing written before it are given back
	dr=$(</proc/sys/vm/dirty_ratio)
	pt -vv set --name vm-nsim-late "sysctl.vm.dirty_ratio=$((dr + 5))" \
		"net.$N.channels.combined=3" "net.$N.ring.rx=512" "net.$N.coalesce.rx_usecs=7" \
		"net.$N.features.rx-gro=off" "net.$N.pause.autoneg=on" "net.$N.rx.2.rps_cpus=3"
	eq "exit status" "$RC" 1
	grep -q "net.$N.pause.autoneg" <<<"$ERR" || fail "the message does not name net.$N.pause.autoneg"
	grep -qF "write net.$N.channels.combined (ethtool netlink) <- 3" <<<"$ERR" ||
		fail "the channels were not written before the refusal"
	echo "    kernel writes before the failure: $(awk '/error:/ { exit } /perftune: write / { n++ } END { print n + 0 }' <<<"$ERR")"
	eq "vm.dirty_ratio" "$(</proc/sys/vm/dirty_ratio)" "$dr"
	net_back "a refused transaction changed netdevsim"
}

net_tests() {
	run_test "net: e1000e ring, coalesce, features, pause, txqueuelen, RPS, GRO/NAPI set, read back, restored" test_net_e1000e_keys
	run_test "net: past the driver's maximum, refused by the driver, by the kernel (extack): nothing changed" test_net_refusals
	run_test "net: a sysctl and NIC keys, e1000e refusing late: every setting given back" test_net_late_failure
	run_test "net: channels on virtio-net; e1000e has none: not here" test_net_virtio_channels_not_here
	run_test "net: TuneD network-latency and network-throughput applied and restored" test_net_tuned_profiles
	run_test "net: a [net] profile on e1000e and virtio-net applied and restored" test_net_profile_section
	run_test "net: a NIC renamed before its restore is given back under its new name" test_net_renamed
	run_test "net: netdevsim, every key family (ring, channels, coalesce, pause, features, sysfs, RPS/XPS) set, read back, restored" test_net_nsim_keys
	run_test "net: netdevsim, channels before the queue masks they make, and back first" test_net_nsim_channels_order
	run_test "net: netdevsim, past its maximum refused; a late driver refusal gives back every setting" test_net_nsim_refusals
}

# run alone: the guest-tests.sh preamble's helpers, then only these tests
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	# shellcheck source=/dev/null
	source /run/vm-devices.env
	# shellcheck source=guest-lib.sh source-path=SCRIPTDIR
	source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"
	echo "# NICs: $NET_E1000E (e1000e), $NET_VIRTIO (virtio-net), $NET_NSIM (netdevsim)"
	run_alone "${1:-}" net_tests
fi
