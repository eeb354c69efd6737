#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Build a fake machine under $1 for the unit tier (kmod's rootfs-pristine idea):
# SCSI multi-queue disks with partitions, NVMe, a bio-based dm device over two
# disks, a request-based dm-multipath device, zram, 2 NUMA nodes, 4 CPUs with
# cpufreq/EPP and cpuidle states whose names differ by CPU, THP, huge pages
# 2M/1G, SELinux AVC, PM QoS, sysctls, and traps (symlinks out of /sys).
# libudev/libnuma/libcpupower see it through umockdev (UMOCKDEV_DIR=$1).
set -euo pipefail
R=${1:?usage: mkroot.sh DIR}
mkdir -p "$R"
cd "$R"

# w FILE TEXT: no process but for a directory not made yet (~250 files: most of the script's time)
w() {
	local d=${1%/*}
	[ "$d" = "$1" ] || [ -d "$d" ] || mkdir -p "$d"
	printf '%s\n' "$2" >"$1"
}

mkdir -p sys/block sys/class/block sys/dev/block dev/mapper proc/self etc
w etc/passwd "root:x:0:0:do not read me:/root:/bin/sh"

# blockdev PATH_IN_DEVICES NAME MAJ MIN TYPE [PARENT_DISK]
blockdev() {
	local dir=$1 name=$2 maj=$3 min=$4 type=$5 parent=${6:-}
	local d="sys/devices/$dir"
	mkdir -p "$d"
	w "$d/uevent" "MAJOR=$maj
MINOR=$min
DEVNAME=$name
DEVTYPE=$type"
	w "$d/dev" "$maj:$min"
	local up; up=$(echo "$d" | sed 's|[^/]*|..|g')
	ln -sfn "$up/class/block" "$d/subsystem"
	ln -sfn "../../${d#sys/}" "sys/class/block/$name"
	ln -sfn "../../${d#sys/}" "sys/dev/block/$maj:$min"
	[ "$type" = disk ] && ln -sfn "../${d#sys/}" "sys/block/$name"
	: >"dev/$name"
	return 0
}

queue() { # queue DEVDIR SCHEDULER_LINE ROTATIONAL
	local q="sys/devices/$1/queue"
	w "$q/scheduler" "$2"
	w "$q/read_ahead_kb" 128
	w "$q/nr_requests" 64
	w "$q/rotational" "$3"
	w "$q/rq_affinity" 1
	w "$q/nomerges" 0
	w "$q/add_random" 0
	w "$q/max_sectors_kb" 512
	w "$q/wbt_lat_usec" 2000
	w "$q/hw_sector_size" 512
	chmod 0444 "$q/hw_sector_size"
	case "$2" in *"[mq-deadline]"*)
		w "$q/iosched/read_expire" 500
		w "$q/iosched/write_expire" 5000
		w "$q/iosched/fifo_batch" 16
		w "$q/iosched/front_merges" 1 ;;
	esac
}

H=pci0000:00/0000:00:05.0/host0/target0:0:0
for i in 0 1 2; do
	n=$(printf "\\x$(printf %x $((97 + i)))")
	blockdev "$H/0:0:0:$i/block/sd$n" "sd$n" 8 $((16 * i)) disk
	queue "$H/0:0:0:$i/block/sd$n" "[mq-deadline] kyber bfq none" 1
done
blockdev "$H/0:0:0:0/block/sda/sda1" sda1 8 1 partition
blockdev "$H/0:0:0:0/block/sda/sda2" sda2 8 2 partition

N=pci0000:00/0000:00:06.0/nvme/nvme0
blockdev "$N/nvme0n1" nvme0n1 259 0 disk
queue "$N/nvme0n1" "[none] mq-deadline kyber bfq" 0
blockdev "$N/nvme0n1/nvme0n1p1" nvme0n1p1 259 1 partition

# dm-0 "lin": bio-based dm-linear over sdb and sdc, the kernel ignores its scheduler
blockdev virtual/block/dm-0 dm-0 253 0 disk
queue virtual/block/dm-0 "none" 0
w sys/devices/virtual/block/dm-0/dm/name lin
mkdir -p sys/devices/virtual/block/dm-0/slaves
ln -sfn "../../../$H/0:0:0:1/block/sdb" sys/devices/virtual/block/dm-0/slaves/sdb
ln -sfn "../../../$H/0:0:0:2/block/sdc" sys/devices/virtual/block/dm-0/slaves/sdc
ln -sfn ../dm-0 dev/mapper/lin

# dm-1 "mpatha": request-based dm-multipath over sda2, a real scheduler of its own
blockdev virtual/block/dm-1 dm-1 253 1 disk
queue virtual/block/dm-1 "[mq-deadline] kyber bfq none" 0
w sys/devices/virtual/block/dm-1/dm/name mpatha
mkdir -p sys/devices/virtual/block/dm-1/slaves
ln -sfn "../../../$H/0:0:0:0/block/sda/sda2" sys/devices/virtual/block/dm-1/slaves/sda2
ln -sfn ../dm-1 dev/mapper/mpatha

blockdev virtual/block/zram0 zram0 252 0 disk
queue virtual/block/zram0 "none" 0

# a symlink out of /sys, and a device whose queue escapes: both must be refused
ln -sfn /etc sys/block/evil
mkdir -p sys/kernel/mm
ln -sfn ../../../etc/passwd sys/kernel/mm/escape

w proc/self/mountinfo "21 1 254:0 / / rw - ext4 /dev/vda rw
22 21 8:2 / /var/lib/mysql rw - xfs /dev/sda2 rw
23 21 253:0 / /data rw - ext4 /dev/mapper/lin rw
24 21 0:25 / /tmp rw - tmpfs tmpfs rw
25 21 259:1 / /srv/nvme rw - ext4 /dev/nvme0n1p1 rw"

# THP and huge pages
T=sys/kernel/mm/transparent_hugepage
w $T/enabled "always [madvise] never"
w $T/defrag "always defer defer+madvise [madvise] never"
w $T/khugepaged/defrag 1
w $T/khugepaged/pages_to_scan 4096
w $T/hpage_pmd_size 2097152
chmod 0444 $T/hpage_pmd_size
for kb in 2048 1048576; do
	w sys/kernel/mm/hugepages/hugepages-${kb}kB/nr_hugepages 0
	w sys/kernel/mm/hugepages/hugepages-${kb}kB/nr_overcommit_hugepages 0
	w sys/kernel/mm/hugepages/hugepages-${kb}kB/free_hugepages 0
done
w proc/sys/vm/nr_hugepages 0
w proc/meminfo "MemTotal:       4194304 kB
Hugepagesize:       2048 kB"

# 2 NUMA nodes, CPUs 0-1 and 2-3
w sys/devices/system/node/online 0-1
w sys/devices/system/node/possible 0-1
w sys/devices/system/node/has_cpu 0-1
w sys/devices/system/node/has_memory 0-1
w sys/devices/system/node/has_normal_memory 0-1
for n in 0 1; do
	d=sys/devices/system/node/node$n
	w $d/cpulist "$((2 * n))-$((2 * n + 1))"
	w $d/cpumap "$(printf %x $((3 << (2 * n))))"
	w $d/meminfo "Node $n MemTotal:       2097152 kB
Node $n MemFree:        1048576 kB"
	w $d/distance "$([ $n = 0 ] && echo '10 20' || echo '20 10')"
	for kb in 2048 1048576; do
		w $d/hugepages/hugepages-${kb}kB/nr_hugepages 0
		w $d/hugepages/hugepages-${kb}kB/free_hugepages 0
	done
done

# 4 CPUs; idle state names differ: cpu0-1 POLL C1 C1E C6, cpu2-3 POLL C1 C3 (and more on cpu3)
C=sys/devices/system/cpu
w $C/online 0-3
w $C/present 0-3
w $C/possible 0-3
w $C/cpufreq/boost 1
for c in 0 1 2 3; do
	f=$C/cpu$c/cpufreq
	w $C/cpu$c/online 1
	w $f/scaling_governor powersave
	w $f/scaling_available_governors "performance powersave"
	w $f/scaling_driver intel_pstate
	w $f/scaling_min_freq 800000
	w $f/scaling_max_freq 3000000
	w $f/cpuinfo_min_freq 800000
	w $f/cpuinfo_max_freq 3500000
	w $f/scaling_cur_freq 1200000
	w $f/energy_performance_preference balance_performance
	w $f/energy_performance_available_preferences "default performance balance_performance balance_power power"
	w $C/cpu$c/power/pm_qos_resume_latency_us 0
	w $C/cpu$c/topology/physical_package_id 0
	# cpu3 adds names outside the key alphabet (haltpoll's "haltpoll idle") and
	# three that map to one key form (C1.E, C1 E twice: named state4..6); ~ is a blank
	case $c in
	0 | 1) states="POLL:0 C1:2 C1E:10 C6:133" ;;
	2) states="POLL:0 C1:1 C3:80" ;;
	3) states="POLL:0 C1:1 C3:80 haltpoll~idle:1 C1.E:2 C1~E:2 C1~E:2" ;;
	esac
	k=0
	for s in $states; do
		d=$C/cpu$c/cpuidle/state$k
		s=$(printf %s "$s" | tr '~' ' ')
		w $d/name "${s%%:*}"
		w $d/latency "${s##*:}"
		w $d/disable 0
		w $d/desc "${s%%:*} idle"
		k=$((k + 1))
	done
done
w $C/cpuidle/current_driver intel_idle

w sys/fs/selinux/avc/cache_threshold 512
w sys/fs/selinux/enforce 1
printf '\x00\x94\x35\x77' >dev/cpu_dma_latency # 2000000000: no constraint

w proc/sys/vm/swappiness 60
w proc/sys/vm/dirty_ratio 20
w proc/sys/vm/dirty_background_ratio 10
w proc/sys/kernel/numa_balancing 1
w proc/sys/kernel/printk "4	4	1	7"
w proc/sys/kernel/ostype Linux
chmod 0444 proc/sys/kernel/ostype
w proc/sys/vm/drop_caches 0
chmod 0200 proc/sys/vm/drop_caches
w proc/sys/net/ipv4/conf/eth0.100/rp_filter 1
w proc/sys/net/ipv4/conf/eth0/rp_filter 2
w "proc/sys/net/ipv4/conf/wg#1/rp_filter" 1 # a name outside the key alphabet: [wg#1]
w proc/sys/kernel/random/boot_id "00000000-0000-0000-0000-000000000001"

# IRQs (/proc/irq): movable ones with handlers, a managed one the kernel will not move (its
# file read-only, as since 6.12; "managed" tells the simulated kernel to answer EIO)
w proc/irq/default_smp_affinity f
irq() { # irq N HANDLER AFFINITY EFFECTIVE
	w "proc/irq/$1/smp_affinity_list" "$3"
	w "proc/irq/$1/effective_affinity_list" "$4"
	chmod 0444 "proc/irq/$1/effective_affinity_list"
	mkdir -p "proc/irq/$1/$2"
}
irq 0 timer 0-3 0
irq 24 eth0-TxRx-0 0-3 0
irq 25 eth0-TxRx-1 1 1
irq 26 nvme0q0 0-3 0
irq 27 nvme0q1 0 0
chmod 0444 proc/irq/27/smp_affinity_list
: >proc/irq/27/managed
irq 28 virtio2-input.0 0-3 0
irq 29 eth10 0-3 0
# workqueues: the unbound mask, and one workqueue visible in sysfs
w sys/devices/virtual/workqueue/cpumask f
w sys/devices/virtual/workqueue/writeback/cpumask f
