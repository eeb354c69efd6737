#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier: network devices (issue 21) on veth pairs in a network namespace
# this test creates and deletes (no address, no traffic, nothing outside it):
# channels, features, txqueuelen, an RPS mask, GRO flush, NAPI deferral and
# an XPS mask (a veth with two TX queues) set through the ethtool
# netlink family and sysfs, read back with ethtool and ip, restored; a commit
# that fails late gives back what it wrote; a device removed before its
# restore is reported and the rest restored; one deleted and made again under
# its name is left alone, one renamed is restored under its new name (issue 33).
. "$(dirname "$0")/lib.sh"
for t in ip ethtool; do
	command -v $t >/dev/null || { echo "SKIP: $t is not installed"; rm -rf "$WORK"; exit 77; }
done
NS=perftune-test-$$
if ! ip netns add $NS 2>/dev/null; then
	echo "SKIP: cannot create a network namespace"
	rm -rf "$WORK"
	exit 77
fi
RULE=/etc/udev/rules.d/99-perftune-test-$$.rules
trap 'ip netns del $NS 2>/dev/null; rm -f $RULE' EXIT
N="ip netns exec $NS"
if ! $N ip link add va type veth peer name vb 2>/dev/null; then
	echo "SKIP: no veth in this kernel"
	exit 77
fi
$N ip link add vc type veth peer name vd
# two TX queues: XPS needs a multiqueue device
$N ip link add vx numtxqueues 2 numrxqueues 2 type veth peer name vy
PN="$N $P"
state() { # what ethtool and ip report of a device
	$N ethtool -k "$1" | sort
	$N ethtool -l "$1"
	$N sh -c "cat /sys/class/net/$1/tx_queue_len /sys/class/net/$1/queues/rx-*/rps_cpus"
	$N sh -c "cat /sys/class/net/$1/gro_flush_timeout /sys/class/net/$1/napi_defer_hard_irqs"
	$N sh -c "cat /sys/class/net/$1/queues/tx-*/xps_cpus 2>/dev/null || true"
}
VA0=$(state va) VC0=$(state vc) VX0=$(state vx)

# the namespace's devices, and only those
out=$($PN list net)
check "list shows the namespace's veth" grep -q '^net.va.channels.rx = 1$' <<<"$out"
check "list shows a feature" grep -q '^net.va.features.rx-gro = ' <<<"$out"
check "list shows no device outside the namespace" bash -c "! grep -qv '^net\.\(lo\|va\|vb\|vc\|vd\|vx\|vy\)\.' <<<'$out'"
eq "get through netlink" "$($PN get net.va.channels.tx)" 1

# not here: veth has no ring parameters
msg=$($PN get net.va.ring.rx 2>&1)
eq "ring on veth: exit 1" "$?" 1
check "ring on veth: not here, with the reason" grep -q "not here: .*no ring parameters" <<<"$msg"

# set, read back with ethtool and ip, restore
$PN set --name nic net.va.channels.rx=2 net.va.rx.1.rps_cpus=1 net.va.features.rx-gro=on \
	net.va.features.tx-tcp-segmentation=off net.va.txqueuelen=500 >/dev/null
eq "set: exit 0" "$?" 0
eq "channels: ethtool -l" "$($N ethtool -l va | awk '/^RX:/ {v=$2} END {print v}')" 2
eq "features: rx-gro by ethtool -k" "$($N ethtool -k va | awk '/^generic-receive-offload:/ {print $2}')" on
eq "features: tso by ethtool -k" "$($N ethtool -k va | awk '/^\ttx-tcp-segmentation:/ {print $2}')" off
eq "txqueuelen: ip link" "$($N ip -o link show va | sed -n 's/.* qlen \([0-9]*\).*/\1/p')" 500
eq "rps mask of the queue channels made" "$($N cat /sys/class/net/va/queues/rx-1/rps_cpus)" 1
check "status lists the transaction" bash -c "$PN status | grep -q 'net.va.channels.rx: 1 -> 2'"
$PN restore nic >/dev/null
eq "restore: exit 0" "$?" 0
eq "restored: as ethtool and ip saw it before" "$(state va)" "$VA0"

# the rest of the sysfs keys: GRO flush, NAPI deferral, an XPS mask
$PN set --name nic2 net.vx.gro_flush_timeout=20000 net.vx.napi_defer_hard_irqs=2 \
	net.vx.tx.1.xps_cpus=1 >/dev/null
eq "set gro_flush_timeout, napi_defer_hard_irqs, xps_cpus: exit 0" "$?" 0
eq "gro_flush_timeout: sysfs" "$($N cat /sys/class/net/vx/gro_flush_timeout)" 20000
eq "napi_defer_hard_irqs: sysfs" "$($N cat /sys/class/net/vx/napi_defer_hard_irqs)" 2
eq "xps_cpus of tx-1: sysfs" "$($N cat /sys/class/net/vx/queues/tx-1/xps_cpus)" 1
eq "xps_cpus by get" "$($PN get net.vx.tx.1.xps_cpus)" 1
$PN restore nic2 >/dev/null
eq "restore nic2: exit 0" "$?" 0
eq "restored: vx as before" "$(state vx)" "$VX0"

# why: a udev rule of ours that sets the namespace's veth's queue length (removed at exit;
# no udevd sees the namespace's devices)
mkdir -p /etc/udev/rules.d
printf '# perftune host test\nSUBSYSTEM=="net", KERNEL=="vb", ATTR{tx_queue_len}="1"\nSUBSYSTEM=="net", KERNEL=="va", ATTR{tx_queue_len}="777"\n' >"$RULE"
out=$($PN why net.va.txqueuelen 2>&1)
eq "why net.va.txqueuelen exits 0" "$?" 0
check "why names the udev rule that sets it (file:line, value)" grep -q "udev.*$RULE:3.*777" <<<"$out"
check "why does not name the rule of another device" bash -c "! grep -q '$RULE:2' <<<'$out'"
rm -f "$RULE"

# export --format udev: the sysfs settings as rules, the ethtool ones said to be left out
$PN set --name exp net.va.txqueuelen=600 net.va.rx.0.rps_cpus=1 net.va.channels.rx=2 >/dev/null
out=$($PN export --format udev --transaction exp)
echo "$out" | grep -v '^#  ' | sed 's/^/# /'
check "udev: txqueuelen rule" grep -qF 'SUBSYSTEM=="net", KERNEL=="va", TEST=="tx_queue_len", ATTR{tx_queue_len}="600"' <<<"$out"
check "udev: RPS mask rule" grep -qF 'ATTR{queues/rx-0/rps_cpus}="1"' <<<"$out"
check "udev: channels said to be left out" grep -q '^# not written by a rule: net.va.channels.rx = 2: an ethtool setting' <<<"$out"
# export --format tuned: the sysfs files in [sysfs], the ethtool settings in a [net] section
$PN set --name exp2 net.va.features.rx-gro=on net.va.features.tx-tcp-segmentation=off >/dev/null
out=$($PN export --format tuned --transaction exp)
echo "$out" | sed -n '/^\[/,$p' | sed 's/^/# /'
check "tuned: [net_va] section" grep -q '^\[net_va\]$' <<<"$out"
check "tuned: channels=rx 2" grep -qx 'channels=rx 2' <<<"$out"
check "tuned: txqueuelen in [sysfs]" grep -qx '/sys/class/net/va/tx_queue_len=600' <<<"$out"
check "tuned: no device directory as a sysfs file" bash -c "! grep -q '^/sys/class/net/va=' <<<'$out'"
out=$($PN export --format tuned --transaction exp2)
check "tuned: features pairs on one line" grep -qx 'features=rx-gro on tx-tcp-segmentation off' <<<"$out"
$PN restore exp2 >/dev/null
$PN restore exp >/dev/null
eq "export: restored" "$(state va)" "$VA0"

# a commit that fails late (the kernel refuses txqueuelen -1) gives back the channels
msg=$($PN set --name bad net.va.channels.rx=2 net.va.features.rx-gro=on net.va.txqueuelen=-1 2>&1)
eq "failed commit: exit 1" "$?" 1
check "failed commit: names the key" grep -q "net.va.txqueuelen" <<<"$msg"
eq "failed commit: everything given back" "$(state va)" "$VA0"

# a device gone (deleted), and one renamed and then deleted with its peer: reported, the
# rest restored
$PN set --name two net.va.txqueuelen=600 net.vc.txqueuelen=700 net.vd.txqueuelen=800 >/dev/null
$N ip link set vd name ve
$N ip link del vc # takes its peer (now ve) with it
msg=$($PN restore two 2>&1)
eq "restore with devices gone: exit 0" "$?" 0
echo "$msg" | sed 's/^/# /'
check "restore reports the device gone" grep -q "net.vc.txqueuelen" <<<"$msg"
check "restore reports the device renamed" grep -q "net.vd.txqueuelen" <<<"$msg"
eq "restore with devices gone: the rest restored" "$(state va)" "$VA0"
check "journal gone" bash -c "! $PN status | grep -q '^two'"
[ -n "$VC0" ] # read before the deletion: the device existed

# issue 33 (H4): a device deleted and made again under its name (another ifindex): the
# newcomer keeps its own value, the original is reported gone with its device
$N ip link add vc type veth peer name vd
$PN set --name re net.vc.txqueuelen=700 >/dev/null
IDX=$($N cat /sys/class/net/vc/ifindex)
$N ip link del vc
$N ip link add vc type veth peer name vd
$N ip link set vc txqueuelen 900
check "vc made again has another ifindex" test "$($N cat /sys/class/net/vc/ifindex)" != "$IDX"
check "status says the device is gone" bash -c "$PN status | grep -q 'net.vc.txqueuelen: .*network device vc is gone'"
# export: no rule for the newcomer that only has the name; the key said to be left out
out=$($PN export --format udev --transaction re)
echo "$out" | grep -v '^#  ' | sed 's/^/# /'
check "export of a device gone: no rule for the newcomer" bash -c '! grep -qF KERNEL==\"vc\" <<<"$1"' - "$out"
check "export of a device gone: said to be left out" grep -q '^# skipped here: net.vc.txqueuelen = 700: .*network device vc is gone' <<<"$out"
msg=$($PN restore re 2>&1)
eq "restore onto a device made again: exit 0" "$?" 0
echo "$msg" | sed 's/^/# /'
eq "the newcomer keeps its own txqueuelen" "$($N cat /sys/class/net/vc/tx_queue_len)" 900
check "restore says the device is gone, by its ifindex" grep -q "network device vc is gone (no device has ifindex $IDX now" <<<"$msg"
check "journal gone" bash -c "! $PN status | grep -q '^re:'"

# issue 33 (H11): a device renamed: the originals follow its ifindex to its new name
# (a sysfs file and an ethtool setting), and a newcomer under the old name is left alone
QL=$($N cat /sys/class/net/vc/tx_queue_len) RX=$($N ethtool -l vc | awk '/^RX:/ {v=$2} END {print v}')
$PN set --name ren net.vc.txqueuelen=600 net.vc.channels.rx=2 >/dev/null
$N ip link set vc name vr
$N ip link add vc type veth peer name vq
$N ip link set vc txqueuelen 800
check "status says where the device is now" bash -c "$PN status | grep -q 'net.vc.txqueuelen: .*network device vc is vr now (ifindex [0-9]*): restore gives it back as net.vr.txqueuelen'"
# export: the settings under the name the device goes by now, never the newcomer's
out=$($PN export --format udev --transaction ren)
echo "$out" | grep -v '^#  ' | sed 's/^/# /'
check "export of a renamed device: its rule under its new name" grep -qF 'SUBSYSTEM=="net", KERNEL=="vr", TEST=="tx_queue_len", ATTR{tx_queue_len}="600"' <<<"$out"
check "export of a renamed device: no rule for the newcomer" bash -c '! grep -qF KERNEL==\"vc\" <<<"$1"' - "$out"
out=$($PN export --format tuned --transaction ren)
check "export --format tuned of a renamed device: [net_vr]" grep -q '^\[net_vr\]$' <<<"$out"
check "export --format tuned of a renamed device: its sysfs file" grep -qx '/sys/class/net/vr/tx_queue_len=600' <<<"$out"
msg=$($PN restore ren 2>&1)
eq "restore of a renamed device: exit 0" "$?" 0
echo "$msg" | sed 's/^/# /'
eq "renamed: its txqueuelen given back under its new name" "$($N cat /sys/class/net/vr/tx_queue_len)" "$QL"
eq "renamed: its channels given back (ethtool -l)" "$($N ethtool -l vr | awk '/^RX:/ {v=$2} END {print v}')" "$RX"
eq "the newcomer under the old name keeps its own" "$($N cat /sys/class/net/vc/tx_queue_len)" 800
check "restore says where it gave them back" grep -q "net.vc.channels.rx: network device vc is vr now .*given back as net.vr.channels.rx" <<<"$msg"
check "journal gone" bash -c "! $PN status | grep -q '^ren:'"

ip netns del $NS
check "namespace deleted" bash -c "! ip netns list | grep -qw $NS"
finish
