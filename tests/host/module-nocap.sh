#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier: a profile with [modules] applied by a process without
# CAP_SYS_MODULE (a unit with ProtectKernelModules=yes or
# CapabilityBoundingSet=~CAP_SYS_MODULE) fails, naming the capability, and
# changes nothing: no module loaded or unloaded, the profile's other keys as
# they were, no journal.  The same profile with the capability is accepted,
# so the refusal is the capability's.  setpriv (util-linux) drops it from the
# bounding set before perftune runs, as systemd does for a unit.
. "$(dirname "$0")/lib.sh"

M=dummy
if ! command -v setpriv >/dev/null; then
	echo "SKIP: no setpriv (util-linux) to drop CAP_SYS_MODULE"
	rm -rf "$WORK"
	exit 77
fi
if [ -d /sys/module/$M ]; then
	echo "SKIP: $M is loaded already: the profile would not need to load it"
	rm -rf "$WORK"
	exit 77
fi
nocap() { setpriv --bounding-set -sys_module --inh-caps -sys_module -- "$@"; }
eff=$(nocap awk '/^CapEff/ { print $2 }' /proc/self/status)
eq "setpriv drops CAP_SYS_MODULE (bit 16)" "$(((0x$eff >> 16) & 1))" 0

state() { # what must not change: loaded modules, the profile's sysctls
	ls /sys/module
	cat /proc/modules 2>/dev/null | awk '{ print $1 }'
	cat /proc/sys/vm/swappiness /proc/sys/vm/dirty_ratio
}
unchanged() { # NAME: state() as before, else the difference
	local d
	if d=$(diff <(echo "$before") <(state)); then ok "$1"; else not_ok "$1: $(echo $d)"; fi
}
sw=$(cat /proc/sys/vm/swappiness) dr=$(cat /proc/sys/vm/dirty_ratio)
mkdir -p "$WORK/modprof"
# the sysctls first: a failure after writing them would need a rollback
printf '[sysctl]\nvm.swappiness=%s\nvm.dirty_ratio=%s\n[modules]\n%s=+r numdummies=2\n' \
	$((sw == 60 ? 59 : 60)) $((dr == 20 ? 21 : 20)) $M >"$WORK/modprof/tuned.conf"
before=$(state)

out=$(nocap "$P" apply --name nocap "$WORK/modprof" 2>&1)
eq "apply without CAP_SYS_MODULE exits 1" "$?" 1
check "the error names the module key" grep -q "module\.$M\.loaded" <<<"$out"
check "the error names CAP_SYS_MODULE" grep -q "may not load modules (no CAP_SYS_MODULE" <<<"$out"
check "the error names the unit's setting" grep -q "perftune@.service" <<<"$out"
unchanged "no module loaded or unloaded, no sysctl changed"
check "no journal written" test -z "$(ls -A "$PERFTUNE_JOURNAL_DIR" 2>/dev/null)"
echo "$out" | sed 's/^/# /'

out=$(nocap "$P" apply --dry-run --hold --name nocap "$WORK/modprof" 2>&1)
eq "the dry run without CAP_SYS_MODULE exits 1 too" "$?" 1

out=$("$P" apply --dry-run --name nocap "$WORK/modprof" 2>&1)
eq "with CAP_SYS_MODULE the dry run exits 0" "$?" 0
check "and says nothing of the capability" bash -c '! grep -q CAP_SYS_MODULE <<<"$1"' _ "$out"
unchanged "the dry run changed nothing"
finish
