#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier, kernel modules through libkmod: a harmless module that is not
# loaded now (dummy) loaded and unloaded again; a module loaded before is never
# unloaded.  Needs loadable modules: a container's kernel has none.
. "$(dirname "$0")/lib.sh"

DEP=/lib/modules/$(uname -r)/modules.dep
if [ ! -e /proc/modules ] || [ ! -s "$DEP" ]; then
	echo "SKIP: this kernel ($(uname -r)) cannot load modules here: no /proc/modules or no $DEP (a container or a kernel without modules); the VM tier loads them"
	rm -rf "$WORK"
	exit 77
fi
M=dummy
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
