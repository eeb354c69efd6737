#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier, kernel modules through libkmod: a harmless module that is not
# loaded now (dummy) loaded and unloaded again; a module loaded before is never
# unloaded.  On a kernel that cannot load modules here (a container, a kernel
# without a module tree: this project's own CI machines), what a user of such
# a machine gets instead: the module keys refused with the reason before
# anything is written, a [modules] option skipped with it; the VM tier loads
# and unloads real modules.
. "$(dirname "$0")/lib.sh"

DEP=/lib/modules/$(uname -r)/modules.dep
M=dummy
if [ ! -e /proc/modules ] || [ ! -s "$DEP" ]; then
	echo "# this kernel ($(uname -r)) cannot load modules here: no /proc/modules or no $DEP"
	echo "# (loading and unloading are tested in the VM tier); checking the refusals"
	sw=$(cat /proc/sys/vm/swappiness)
	for cmd in get describe; do
		out=$($P $cmd module.$M.loaded 2>&1)
		eq "$cmd exits 1" "$?" 1
		check "$cmd names the key and the reason" grep -q "module.$M.loaded: no module $M for this kernel" <<<"$out"
	done
	out=$($P set --name mod sysctl.vm.swappiness=$((sw == 60 ? 59 : 60)) module.$M.loaded=1 2>&1)
	eq "set of a sysctl and a module exits 1" "$?" 1
	check "set names the module key" grep -q "module.$M.loaded: no module $M" <<<"$out"
	eq "the sysctl is not changed" "$(cat /proc/sys/vm/swappiness)" "$sw"
	check "no journal written" test -z "$(ls -A "$PERFTUNE_JOURNAL_DIR" 2>/dev/null)"
	mkdir -p "$WORK/modprof"
	printf '[modules]\n%s=+r numdummies=2\n[sysctl]\nvm.swappiness=%s\n' $M "$sw" >"$WORK/modprof/tuned.conf"
	out=$($P apply --dry-run "$WORK/modprof" 2>&1)
	eq "apply --dry-run of a [modules] profile exits 0" "$?" 0
	check "the [modules] option is skipped with the reason" \
		grep -q "^skipped: \[modules\] $M: module.$M.loaded: no module $M for this kernel" <<<"$out"
	out=$($P list module 2>&1)
	eq "list module exits 0" "$?" 0
	eq "list module lists no key" "$out" ""
	finish
	exit
fi
if [ -d /sys/module/$M ] || ! grep -q "/$M.ko" "$DEP"; then
	echo "SKIP: $M is loaded already or not in $DEP: no harmless module to load"
	rm -rf "$WORK"
	exit 77
fi
eq "get: not loaded" "$($P get module.$M.loaded)" 0
out=$($P set --name mod module.$M.loaded="1 numdummies=0" 2>&1)
eq "load exits 0" "$?" 0
check "loaded" test -d /sys/module/$M
eq "get: loaded" "$($P get module.$M.loaded)" 1
$P restore mod >/dev/null
eq "restore exits 0" "$?" 0
check "unloaded by the restore" test ! -d /sys/module/$M
# a module loaded before is left alone
OLD=$(awk '$3 == 0 {print $1; exit}' /proc/modules)
if [ -n "$OLD" ]; then
	$P set --name old module.$OLD.loaded=1 >/dev/null
	$P restore old >/dev/null
	check "$OLD, loaded before, still loaded" test -d /sys/module/$OLD
fi
finish
