#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier, read path: perftune get equals what the kernel files show.
. "$(dirname "$0")/lib.sh"

L=$(new_loop) || { not_ok "losetup"; finish; exit 1; }
Q=/sys/block/$L/queue
eq "get block.$L.scheduler" "$($P get block.$L.scheduler)" "$(sel $Q/scheduler)"
eq "get block.$L.read_ahead_kb" "$($P get block.$L.read_ahead_kb)" "$(cat $Q/read_ahead_kb)"
eq "get block.$L.nr_requests" "$($P get block.$L.nr_requests)" "$(cat $Q/nr_requests)"
eq "get block[/dev/$L].rotational" "$($P get "block[/dev/$L].rotational")" "$(cat $Q/rotational)"
eq "get thp.enabled" "$($P get thp.enabled)" "$(sel /sys/kernel/mm/transparent_hugepage/enabled)"
eq "get thp.defrag" "$($P get thp.defrag)" "$(sel /sys/kernel/mm/transparent_hugepage/defrag)"
eq "get hugepages.nr" "$($P get hugepages.nr)" "$(cat /proc/sys/vm/nr_hugepages)"
eq "get hugepages.2M.nr" "$($P get hugepages.2M.nr)" "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)"
eq "get hugepages.2M.node0.nr" "$($P get hugepages.2M.node0.nr)" "$(cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages)"
eq "get sysctl.vm.swappiness" "$($P get sysctl.vm.swappiness)" "$(cat /proc/sys/vm/swappiness)"
eq "get sysctl.kernel.printk" "$($P get sysctl.kernel.printk)" "$(sysctl -n kernel.printk | tr -s '\t ' ' ')"
eq "get pmqos.cpu_dma_latency_us" "$($P get pmqos.cpu_dma_latency_us)" "$(od -An -t d4 /dev/cpu_dma_latency | tr -d ' ')"
eq "get numa.balancing" "$($P get numa.balancing)" "$(cat /proc/sys/kernel/numa_balancing)"
eq "get three keys" "$($P get block.$L.scheduler thp.enabled sysctl.vm.swappiness)" \
	"block.$L.scheduler = $(sel $Q/scheduler)
thp.enabled = $(sel /sys/kernel/mm/transparent_hugepage/enabled)
sysctl.vm.swappiness = $(cat /proc/sys/vm/swappiness)"

# block[/] resolves to the disk holding the root filesystem
rootdev=$(findmnt -no MAJ:MIN /)
rootdisk=$(basename "$(readlink -f /sys/dev/block/$rootdev)")
[ -e "/sys/class/block/$rootdisk/partition" ] && rootdisk=$(basename "$(dirname "$(readlink -f /sys/dev/block/$rootdev)")")
desc=$($P describe --json 'block[/].scheduler')
eq "block[/] resolves to the root disk" "$(echo "$desc" | sed -n 's/.*"key": "\([^"]*\)".*/\1/p')" "block.$rootdisk.scheduler"

out=$($P get block.nosuch.scheduler 2>&1); rc=$?
eq "unknown device exits 1" "$rc" 1
check "unknown device error names it" grep -q "block.nosuch.scheduler: no such block device" <<<"$out"
$P get 'bad..key' >/dev/null 2>&1; eq "malformed key exits 2 (a usage error)" "$?" 2
$P get >/dev/null 2>&1; eq "usage error exits 2" "$?" 2
$P frobnicate >/dev/null 2>&1; eq "unknown command exits 2" "$?" 2

# renames anywhere on the system race the ".." of sysfs links (../devices/...): the kernel
# asks openat2(RESOLVE_BENEATH) callers to retry (EAGAIN), and a key must still resolve
touch "$WORK/r1"
python3 -c 'import os, sys
d = sys.argv[1]
while True:
    os.rename(d + "/r1", d + "/r2"); os.rename(d + "/r2", d + "/r1")' "$WORK" &
storm=$!
bad=0 gets=200
case $P in *valgrind*) gets=10 ;; esac # (valgrind starts in ~0.5 s)
for _ in $(seq $gets); do $P get block.$L.scheduler >/dev/null 2>>"$WORK/storm.err" || bad=$((bad + 1)); done
kill $storm; wait $storm 2>/dev/null
eq "block key resolves during a rename storm ($gets gets)" "$bad" 0

list=$($P list)
for fam in block.$L. thp. hugepages. sysctl.vm. pmqos. numa. block.zram0 block.vda; do
	check "list shows $fam" grep -q "^$fam" <<<"$list"
done
check "list --json is an array" bash -c "$P list --json thp | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d and all(\"key\" in x for x in d)'"
check "get --json" bash -c "$P get --json thp.enabled | python3 -c 'import json,sys; assert json.load(sys.stdin)[\"thp.enabled\"]'"
check "describe shows choices" bash -c "$P describe thp.enabled | grep -q 'choices:  always madvise never'"
check "--version" bash -c "$P --version | grep -q '^perftune [0-9]'"

# read-only sysctls are listed, marked; --writable leaves them out
check "list marks kernel.ostype read-only" grep -qx "sysctl.kernel.ostype = $(cat /proc/sys/kernel/ostype) (read-only)" <<<"$list"
check "list --writable leaves it out" bash -c "! $P list --writable sysctl.kernel | grep -q ostype"
# a sysctl the kernel refuses to read (an unset stable_secret: EIO) is described, exit 0
ss=/proc/sys/net/ipv6/conf/lo/stable_secret
if [ -e $ss ] && ! cat $ss >/dev/null 2>&1; then
	out=$($P describe sysctl.net.ipv6.conf.lo.stable_secret 2>&1); rc=$?
	eq "describe of an unreadable sysctl exits 0" "$rc" 0
	check "describe says why it is unreadable" grep -qx 'value:    (unreadable: Input/output error)' <<<"$out"
fi
finish
