#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs inside the VM, chrooted into the host's root file system (read-only 9p
# under a tmpfs overlay), started by the initramfs /init.  It loads the test
# modules, builds the test devices, writes /run/vm-devices.env, then runs the
# job's guest script with cwd = the source tree and writes its exit code to
# /run/vm-results/rc for run-vm on the host.
#
# Guest hardware (from run-vm's qemu command line): 4 vCPUs, 2 NUMA nodes of
# 1 GiB with 2 CPUs each, one emulated NVMe disk.  Built here:
#   sda..sdd   scsi_debug, 4 hosts, one disk each with its own store,
#              submit_queues=4 (blk-mq with 4 hardware queues)
#   sda1       a partition on the first scsi_debug disk
#   nullb0     null_blk (blk-mq)
#   nvme0n1    qemu's NVMe controller
#   lin        dm-linear (bio-based) over the 2nd and 3rd scsi_debug disks,
#              ext4, mounted on /mnt/lin
#   mpatha     dm-multipath (request-based) over the 4th scsi_debug disk
#   NICs       an e1000e and a virtio-net NIC (1 queue pair), each alone on
#              a qemu hub (they reach nothing), up, without addresses;
#              NET_E1000E and NET_VIRTIO name them
#   netdevsim  a simulated NIC with 4 queue pairs (netdevsim device 1, one
#              port; the module is built by run-vm), up, without addresses;
#              NET_NSIM names it
#   SELinux    enabled (security=selinux), no policy loaded, selinuxfs on
#              /sys/fs/selinux, /etc/selinux/config present (libselinux's
#              is_selinux_enabled() needs both)
set -euo pipefail

RESULTS=/run/vm-results
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# No udevd in the guest: libdevmapper creates the /dev/mapper nodes itself.
export DM_DISABLE_UDEV=1

say() { echo "vm-boot: $*"; }
die() {
	say "FATAL: $*"
	echo "guest-boot: $*" >>"$RESULTS/init-error"
	exit 1
}

# Any unexpected failure of the setup is reported to the host as such.
trap 'rc=$?; [[ -e $RESULTS/rc || $rc == 0 ]] ||
	echo "guest-boot: setup failed (status $rc) near line $LINENO" >>"$RESULTS/init-error"' EXIT

# Job description written by run-vm: VM_SOURCE_DIR, VM_BUILD_DIR, VM_SCRIPT,
# and the script's arguments NUL-separated in job.args.
# shellcheck source=/dev/null
source "$RESULTS/job.env"
mapfile -d '' -t VM_ARGS <"$RESULTS/job.args"

# wait_for PATH [SECONDS]: device probing is asynchronous and nothing (no udev)
# tells us when it is done.
wait_for() {
	local path=$1 tries=$((${2:-20} * 10))
	while [[ ! -e $path ]]; do
		((tries-- > 0)) || die "timed out waiting for $path"
		sleep 0.1
	done
}

load() {
	# The host's kmod with an empty configuration: host modprobe.d options must
	# not change the guest's devices.
	modprobe -C /run/vm-modprobe.d "$@" || die "modprobe $* failed"
}

setup_modules() {
	mkdir -p /run/vm-modprobe.d
	load sd_mod
	load scsi_debug add_host=4 num_tgts=1 max_luns=1 per_host_store=1 \
		submit_queues=4 dev_size_mb=32 delay=0
	load null_blk nr_devices=1 queue_mode=2 submit_queues=2 gb=1
	load nvme
	load kyber-iosched
	load bfq
	load dm_mod
	load dm_multipath
	load dm_round_robin
	load ext4
	load e1000e
	load virtio_net
	load netdevsim
}

# net_dev DRIVER: the interface the driver bound (no udev: ethN names).
net_dev() {
	local d
	for d in /sys/class/net/*; do
		[[ $(readlink "$d/device/driver" 2>/dev/null) == */"$1" ]] && echo "${d##*/}"
	done
	return 0
}

setup_nics() {
	local i n
	for ((i = 0; i < 100; i++)); do
		NET_E1000E=$(net_dev e1000e) NET_VIRTIO=$(net_dev virtio_net)
		[[ -n $NET_E1000E && -n $NET_VIRTIO ]] && break
		sleep 0.1
	done
	[[ -n $NET_E1000E ]] || die "no e1000e network interface"
	[[ -n $NET_VIRTIO ]] || die "no virtio-net network interface"
	ip link set "$NET_E1000E" up || die "cannot bring $NET_E1000E up"
	ip link set "$NET_VIRTIO" up || die "cannot bring $NET_VIRTIO up"
	# netdevsim: "ID PORTS QUEUES" makes device ID with its ports' netdevs
	echo "1 1 4" >/sys/bus/netdevsim/new_device || die "cannot create a netdevsim device"
	for ((i = 0; i < 100; i++)); do
		for n in /sys/bus/netdevsim/devices/netdevsim1/net/*; do
			[[ -e $n ]] && NET_NSIM=${n##*/}
		done
		[[ -n ${NET_NSIM:-} ]] && break
		sleep 0.1
	done
	[[ -n ${NET_NSIM:-} ]] || die "no netdevsim network interface"
	ip link set "$NET_NSIM" up || die "cannot bring $NET_NSIM up"
}

scsi_debug_disks() {
	local d
	for d in /sys/block/sd*; do
		[[ -e $d ]] || continue
		[[ $(<"$d/device/model") == scsi_debug* ]] && echo "${d##*/}"
	done
}

setup_disks() {
	local i disks=()
	for ((i = 0; i < 100; i++)); do
		mapfile -t disks < <(scsi_debug_disks)
		((${#disks[@]} >= 4)) && break
		sleep 0.1
	done
	((${#disks[@]} >= 4)) || die "expected 4 scsi_debug disks, found: ${disks[*]:-none}"
	for i in "${disks[@]}"; do wait_for "/dev/$i"; done
	wait_for /sys/block/nullb0
	wait_for /dev/nullb0
	wait_for /sys/block/nvme0n1
	wait_for /dev/nvme0n1

	PART_DISK=${disks[0]}
	LIN_SLAVES=("${disks[1]}" "${disks[2]}")
	MPATH_SLAVES=("${disks[3]}")

	# One partition on the first disk.
	echo 'start=2048, type=83' | sfdisk --quiet --no-reread --wipe always "/dev/$PART_DISK" >/dev/null ||
		die "sfdisk /dev/$PART_DISK failed"
	blockdev --rereadpt "/dev/$PART_DISK" || die "cannot re-read the partition table of $PART_DISK"
	PART=${PART_DISK}1
	wait_for "/sys/block/$PART_DISK/$PART"
	wait_for "/dev/$PART"

	# dm-linear "lin" (bio-based) over two disks, ext4 on it, mounted.
	local s1 s2
	s1=$(blockdev --getsz "/dev/${LIN_SLAVES[0]}")
	s2=$(blockdev --getsz "/dev/${LIN_SLAVES[1]}")
	dmsetup create lin --noudevsync --table "0 $s1 linear /dev/${LIN_SLAVES[0]} 0
$s1 $s2 linear /dev/${LIN_SLAVES[1]} 0" || die "dmsetup create lin failed"
	wait_for /dev/mapper/lin
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/mapper/lin ||
		die "mkfs.ext4 /dev/mapper/lin failed"
	mkdir -p /mnt/lin
	mount -t ext4 /dev/mapper/lin /mnt/lin || die "cannot mount /dev/mapper/lin"

	# dm-multipath "mpatha" (request-based) with one path, round-robin.
	local sm
	sm=$(blockdev --getsz "/dev/${MPATH_SLAVES[0]}")
	dmsetup create mpatha --noudevsync --table \
		"0 $sm multipath 0 0 1 1 round-robin 0 1 1 /dev/${MPATH_SLAVES[0]} 1" ||
		die "dmsetup create mpatha failed"
	wait_for /dev/mapper/mpatha

	LIN_DM=$(basename "$(readlink -f /dev/mapper/lin)")
	MPATH_DM=$(basename "$(readlink -f /dev/mapper/mpatha)")
	# dmsetup without udev makes device nodes, not symlinks: find dm-N in sysfs.
	local d
	for d in /sys/block/dm-*; do
		case $(<"$d/dm/name") in
		lin) LIN_DM=${d##*/} ;;
		mpatha) MPATH_DM=${d##*/} ;;
		esac
	done
	SCSI_DISKS=("${disks[@]}")
}

setup_selinux() {
	[[ -e /sys/fs/selinux/enforce ]] || die "SELinux is not enabled in the guest kernel (no selinuxfs)"
	# libselinux's is_selinux_enabled() = selinuxfs mounted read-write AND
	# /etc/selinux/config exists; no policy needs to be loaded.  Without a
	# policy the kernel allows everything, and avc/cache_threshold (512 by
	# default) is readable and writable.  This writes into the overlay only.
	if [[ ! -e /etc/selinux/config ]]; then
		mkdir -p /etc/selinux
		printf 'SELINUX=permissive\nSELINUXTYPE=default\n' >/etc/selinux/config
	fi
}

write_devices_env() {
	local nodes
	nodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)
	cat >/run/vm-devices.env <<-EOF
		# Test devices of the perftune VM, written by tests/vm/guest-boot.sh.
		SCSI_DISKS="${SCSI_DISKS[*]}"
		PART=$PART
		PART_DISK=$PART_DISK
		NULLB=nullb0
		NVME=nvme0n1
		LIN=/dev/mapper/lin
		LIN_DM=$LIN_DM
		LIN_SLAVES="${LIN_SLAVES[*]}"
		LIN_MNT=/mnt/lin
		MPATH=/dev/mapper/mpatha
		MPATH_DM=$MPATH_DM
		MPATH_SLAVES="${MPATH_SLAVES[*]}"
		NUMA_NODES=$nodes
		NET_E1000E=$NET_E1000E
		NET_VIRTIO=$NET_VIRTIO
		NET_NSIM=$NET_NSIM
	EOF
}

teardown() {
	[[ ${VM_INIT:-shell} != systemd ]] || return 0
	umount /mnt/lin 2>/dev/null || true
	dmsetup remove --noudevsync mpatha 2>/dev/null || true
	dmsetup remove --noudevsync lin 2>/dev/null || true
}

# setup_scsi_only: the scsi_debug disks alone, for the tests under systemd
# (VM_INIT=systemd), where udevd probes every new device and the full setup
# takes a minute more under TCG.
setup_scsi_only() {
	local i disks=()
	mkdir -p /run/vm-modprobe.d
	load sd_mod
	load scsi_debug add_host=2 num_tgts=1 max_luns=1 per_host_store=1 \
		submit_queues=2 dev_size_mb=8 delay=0
	load kyber-iosched
	load bfq
	for ((i = 0; i < 100; i++)); do
		mapfile -t disks < <(scsi_debug_disks)
		((${#disks[@]} >= 2)) && break
		sleep 0.1
	done
	((${#disks[@]} >= 2)) || die "expected 2 scsi_debug disks, found: ${disks[*]:-none}"
	for i in "${disks[@]}"; do wait_for "/dev/$i"; done
	cat >/run/vm-devices.env <<-EOF
		# Test devices of the perftune VM under systemd, written by tests/vm/guest-boot.sh.
		SCSI_DISKS="${disks[*]}"
	EOF
}

# setup_e1000e_only: the e1000e NIC for the unit's [net] test under systemd
# (issue 36), NET_E1000E in /run/vm-devices.env.  udevd may rename it
# (enp0s5): its name is read once udevd has settled.
setup_e1000e_only() {
	local i
	load e1000e
	for ((i = 0; i < 100; i++)); do
		udevadm settle --timeout=30 2>/dev/null || true
		NET_E1000E=$(net_dev e1000e)
		[[ -n $NET_E1000E ]] && break
		sleep 0.1
	done
	[[ -n $NET_E1000E ]] || die "no e1000e network interface"
	ip link set "$NET_E1000E" up || die "cannot bring $NET_E1000E up"
	echo "NET_E1000E=$NET_E1000E" >>/run/vm-devices.env
}

# setup_cpu: the real drivers tests/vm/cpupower.dsl gives the guest (issue 19).
# acpi_idle's C2 is a SystemIO port read, a busy loop under TCG: it starts
# disabled (the tests change and restore it like any state).
setup_cpu() {
	local m d
	mkdir -p /run/vm-modprobe.d
	for m in acpi-cpufreq cpufreq_userspace cpufreq_powersave cpufreq_ondemand \
		cpufreq_conservative; do
		modprobe -C /run/vm-modprobe.d "$m" 2>/dev/null || true
	done
	for d in /sys/devices/system/cpu/cpu*/cpuidle/state*; do
		[[ $(<"$d/name") == C2 ]] && echo 1 >"$d/disable"
	done
	echo "cpufreq driver: $(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver 2>/dev/null ||
		echo none)"
	echo "cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null ||
		echo none)"
	for d in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
		[[ -e $d ]] && echo "cpuidle ${d##*/}: $(<"$d/name") latency $(<"$d/latency") us$(
			[[ $(<"$d/disable") == 1 ]] && echo ', disabled')"
	done
	return 0
}

say "started after $(cut -d' ' -f1 /proc/uptime)s of guest uptime (PID 1: $(</proc/1/comm))"
setup_cpu
if [[ ${VM_INIT:-shell} == systemd ]]; then
	setup_scsi_only
	setup_e1000e_only
else
	setup_modules
	setup_disks
	setup_nics
	setup_selinux
	write_devices_env
fi
# Automatic NUMA balancing off: after the tests that move a process's pages
# to node 1, it migrated the shared libraries' pages back page by page at
# the next processes' faults, which under TCG made the next test's first
# perftune runs take 30-130 s.  The numa.balancing test sets and restores
# it from whatever it finds.
echo 0 >/proc/sys/kernel/numa_balancing 2>/dev/null || true
# From here on only panics reach the console: the script's output stays readable.
dmesg -n 1 || true

say "guest setup done after $(cut -d' ' -f1 /proc/uptime)s of guest uptime"
say "running $VM_SCRIPT ${VM_ARGS[*]}"
export PERFTUNE_SOURCE_DIR=$VM_SOURCE_DIR PERFTUNE_BUILD_DIR=$VM_BUILD_DIR PERFTUNE_VM=1
set +e
(cd "$VM_SOURCE_DIR" && "$VM_SCRIPT" "${VM_ARGS[@]}") 2>&1 | tee "$RESULTS/script.log"
rc=${PIPESTATUS[0]}
set -e
teardown
echo "$rc" >"$RESULTS/rc"
sync
say "guest script exited with $rc"
