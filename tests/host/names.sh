#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier: names that hold glob and selector characters (issue 33 H5, H13, H12, H6,
# H14) on the real kernel, in namespaces this test makes and deletes: veth pairs named
# "x*" beside "xa", "v=1" and 'v"q' in a private network namespace (their sysctl
# directories under net.ipv4.conf are the namespace's), and a private UTS namespace
# whose kernel.hostname takes a value with blanks and a tab.  Nothing outside them
# changes.
. "$(dirname "$0")/lib.sh"
command -v ip >/dev/null || { echo "SKIP: ip is not installed"; rm -rf "$WORK"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: unshare is not installed"; rm -rf "$WORK"; exit 77; }
NS=perftune-names-$$
if ! ip netns add $NS 2>/dev/null; then
	echo "SKIP: cannot create a network namespace"
	rm -rf "$WORK"
	exit 77
fi
trap 'ip netns del $NS 2>/dev/null' EXIT
N="ip netns exec $NS"
PN="$N $P"
if ! $N ip link add 'x*' type veth peer name xa 2>/dev/null; then
	echo "SKIP: no veth in this kernel"
	exit 77
fi
$N ip link add 'v=1' type veth peer name 'v"q'
C=/proc/sys/net/ipv4/conf
rp() { $N cat "$C/$1/rp_filter"; }
absent() { ! grep -qF "$1" <<<"$2"; }
X0=$(rp 'x*') XA0=$(rp xa)
NEW=$(((X0 + 1) % 3))

# H5: the listed key of x* names x* alone, through set, restore and export
out=$($PN list sysctl.net.ipv4.conf.)
check "list brackets x*" grep -qF 'sysctl.net.ipv4.conf.[x*].rp_filter = ' <<<"$out"
eq "get [x*] reads x*" "$($PN get 'sysctl.net.ipv4.conf.[x*].rp_filter')" "$X0"
$PN set --name glob "sysctl.net.ipv4.conf.[x*].rp_filter=$NEW" >/dev/null
eq "set [x*]: exit 0" "$?" 0
eq "set [x*]: x* changed" "$(rp 'x*')" "$NEW"
eq "set [x*]: xa not changed" "$(rp xa)" "$XA0"
exp=$($PN export --format sysctl glob)
check "sysctl.d export names x* alone" grep -qxF "net.ipv4.conf.x[*].rp_filter = $NEW" <<<"$exp"
msg=$($PN restore glob 2>&1)
eq "restore [x*]: exit 0" "$?" 0
check "restore [x*]: one value written back" grep -q "1 value written back" <<<"$msg"
eq "restore [x*]: x* as before" "$(rp 'x*')" "$X0"
eq "restore [x*]: xa as before" "$(rp xa)" "$XA0"
check "restore [x*]: journal gone" bash -c "! $PN status | grep -q '^glob'"
# the glob still means both
eq "glob x*: both" "$($PN set --dry-run "sysctl.net.ipv4.conf.x*.rp_filter=$NEW" | grep -c ': .* -> ')" 2

# udev export of the devices' queue length: x* by a pattern only it matches; v"q has none
$PN set --name dev 'net[x*].txqueuelen=500' 'net[v"q].txqueuelen=500' >/dev/null
eq "set net[x*], net[v\"q]: exit 0" "$?" 0
eq "net[x*]: xa not changed" "$($N cat /sys/class/net/xa/tx_queue_len)" 1000
exp=$($PN export --format udev dev)
echo "$exp" | sed 's/^/# /'
check "udev export: KERNEL==\"x[*]\"" grep -qF 'KERNEL=="x[*]", TEST=="tx_queue_len", ATTR{tx_queue_len}="500"' <<<"$exp"
check "udev export: no rule for every x-device" absent 'KERNEL=="x*"' "$exp"
check "udev export: v\"q left out with the reason" grep -qF "# not written by a rule: net[v\"q].txqueuelen = 500: its name holds" <<<"$exp"
$PN restore dev >/dev/null
eq "restore dev: exit 0" "$?" 0

# H13: a device named v=1 is listed in a form get takes
out=$($PN list 'net[v')
check "list escapes '=': net[v\\=1]" grep -qF 'net[v\=1].txqueuelen = 1000' <<<"$out"
n=0 bad=0
while read -r key _; do
	n=$((n + 1))
	$PN get "$key" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "# get refuses listed $key"; }
done < <(grep '^net\[v\\=1\]' <<<"$out")
check "get takes every listed key of v=1 ($n)" test "$n" -gt 0 -a "$bad" = 0
$PN set --name eq 'net[v\=1].txqueuelen=700' >/dev/null
eq "set net[v\\=1]: ip link" "$($N ip -o link show 'v=1' | sed -n 's/.* qlen \([0-9]*\).*/\1/p')" 700
check "verify net[v\\=1]: in force" bash -c "$PN verify 'net[v\\=1].txqueuelen=700' | grep -q '^in force'"
check "set net[driver=...]: the selector, not a key 'net[driver'" bash -c "$PN set --dry-run 'net[driver=veth].txqueuelen=700' 2>&1 | grep -qF \"no network device matches 'driver=veth'\""
$PN restore eq >/dev/null
eq "restore net[v\\=1]: as before" "$($N cat '/sys/class/net/v=1/tx_queue_len')" 1000

# H12: a transaction name that reads as an option is refused when made, nothing changed
msg=$($PN set --name=-x 'sysctl.net.ipv4.conf.[x*].rp_filter=2' 2>&1)
eq "set --name=-x: exit 2 (a usage error)" "$?" 2
check "set --name=-x: says why" grep -q "not starting with '.' or '-'" <<<"$msg"
eq "set --name=-x: nothing changed" "$(rp 'x*')" "$X0"

# H6: a selector regex past the bounds is refused at once, naming the key
msg=$($P get 'proc[((a{1,100}){1,100}){1,100}].cpus' 2>&1)
eq "nested counted repetition: exit 2 (a malformed key)" "$?" 2
check "nested counted repetition: names the key" grep -qF 'proc[((a{1,100}){1,100}){1,100}].cpus: not an extended regular expression' <<<"$msg"
msg=$($P get 'proc[(.*){1,32000}].cpus' 2>&1)
eq "(.*){1,32000}: exit 2 (a malformed key)" "$?" 2

ip netns del $NS
check "namespace deleted" bash -c "! ip netns list | grep -qw $NS"

# H14: a value is written as given, blanks and tab inside; in a UTS namespace of its own
V=$'a  b\tc'
got=$(unshare --uts bash -c '"$1" set --name ws "sysctl.kernel.hostname=$2" >/dev/null &&
	cat /proc/sys/kernel/hostname && "$1" restore ws >/dev/null' _ "$P" "$V")
eq "hostname written as given" "$got" "$V"
PROF=$WORK/prof
mkdir -m 0755 "$PROF"
printf '[sysctl]\nkernel.hostname=${f:strip:  a  b\tc  }\n' >"$PROF/tuned.conf"
got=$(unshare --uts bash -c '"$1" apply --name ws "$2" >/dev/null &&
	cat /proc/sys/kernel/hostname && "$1" restore ws >/dev/null' _ "$P" "$PROF")
eq "profile: \${f:strip:...} keeps the blanks inside" "$got" "$V"
check "the host's name is its own" test "$(hostname)" != "$V"
finish
