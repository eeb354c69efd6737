#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# perftune run: a sysctl and a PM QoS request held while CMD runs, read inside
# CMD, given back after; CMD's exit status; signals passed on; kill -9 of
# perftune (CMD dies, an orphan that restore --orphans gives back); nested
# runs; bad input refused before anything changes.  On the real kernel (host
# tier), and with MKROOT on a fake machine (unit tier, lib.sh).
. "$(dirname "$0")/lib.sh"

SW=$R/proc/sys/vm/swappiness
lat() { od -An -t d4 -N 4 "$R/dev/cpu_dma_latency" | tr -d ' '; }
swap0=$(cat $SW) lat0=$(lat)
a=$((swap0 == 10 ? 11 : 10)) b=$((swap0 == 20 ? 21 : 20))
# a request below the machine's: reading the file gives the smallest request in force
q=$((lat0 > 100 ? 77 : lat0))
# the kernel ends a request with its fd; a fake machine's file keeps the last one written
lat_back() { [ -n "$R" ] || eq "$1" "$(lat)" "$lat0"; }
export SW WORK R
# CMD's look at the values, a script: valgrind (the sanitize tier runs the CLI
# under it) drops exported shell functions from the environment it passes on
inside="$WORK/inside.sh"
cat >"$inside" <<'EOF'
echo "$(cat "$SW") $(od -An -t d4 -N 4 "$R/dev/cpu_dma_latency" | tr -d ' ')" >"$WORK/inside"
EOF

# held while CMD runs, read inside it, given back after
$P run -n r1 sysctl.vm.swappiness=$a pmqos.cpu_dma_latency_us=$q -- bash "$inside"
eq "run exits with CMD's status 0" "$?" 0
eq "CMD sees the sysctl and the PM QoS request" "$(cat "$WORK/inside")" "$a $q"
eq "sysctl given back" "$(cat $SW)" "$swap0"
lat_back "PM QoS request given back"
check "no journal left" bash -c "$P status | grep -qx 'no transactions'"

eq "CMD reads perftune's stdin" "$(echo in | $P run sysctl.vm.swappiness=$a -- cat)" in

# CMD's exit status, and 128+N when signal N killed it
$P run sysctl.vm.swappiness=$a -- sh -c 'exit 3'
eq "CMD exits 3: perftune exits 3" "$?" 3
$P run sysctl.vm.swappiness=$a -- sh -c 'kill -KILL $$'
eq "CMD killed by SIGKILL: perftune exits 137" "$?" 137
eq "sysctl given back after CMD was killed" "$(cat $SW)" "$swap0"

# SIGTERM to perftune goes to CMD, which decides how it ends
rm -f "$WORK/ready" "$WORK/got"
$P run sysctl.vm.swappiness=$a -- bash -c \
	'trap "echo TERM >$WORK/got; exit 7" TERM; : >$WORK/ready; while :; do sleep 0.1; done' &
pid=$!
for _ in $(seq 600); do [ -e "$WORK/ready" ] && break; sleep 0.1; done # up to 60 s: a loaded machine
kill -TERM $pid
wait $pid
eq "SIGTERM passed on: CMD's trap's exit status" "$?" 7
eq "CMD got SIGTERM" "$(cat "$WORK/got" 2>/dev/null)" TERM
eq "sysctl given back after SIGTERM" "$(cat $SW)" "$swap0"

# kill -9 of perftune: CMD dies with it, the journal is an orphan
rm -f "$WORK/cpid"
$P run -n k9 sysctl.vm.swappiness=$a pmqos.cpu_dma_latency_us=$q -- \
	bash -c 'echo $$ >$WORK/cpid; exec sleep 1000' &
pid=$!
for _ in $(seq 600); do [ -s "$WORK/cpid" ] && break; sleep 0.1; done # up to 60 s: a loaded machine
cpid=$(cat "$WORK/cpid")
{ kill -KILL $pid; wait $pid; } 2>/dev/null # no "Killed" line from bash
gone() { ! [ -e /proc/$cpid ] || [ "$(awk '{print $3}' /proc/$cpid/stat 2>/dev/null)" = Z ]; }
for _ in $(seq 600); do gone && break; sleep 0.1; done # up to 60 s: a loaded machine
check "CMD died with perftune (PR_SET_PDEATHSIG)" gone
check "status shows the orphan" bash -c "$P status | grep -q '^k9: ORPHANED'"
eq "the orphan's sysctl still in force" "$(cat $SW)" "$a"
check "restore --orphans" bash -c "$P restore --orphans >/dev/null"
eq "sysctl back after restore --orphans" "$(cat $SW)" "$swap0"
lat_back "PM QoS back after restore --orphans"

# nested runs stack: the inner one's original is the outer one's value
$P run -n outer sysctl.vm.swappiness=$a -- \
	$P run -n inner sysctl.vm.swappiness=$b pmqos.cpu_dma_latency_us=$q -- bash -c \
	"bash $inside; $P status >$WORK/status"
eq "nested run exits 0" "$?" 0
eq "the inner run's values inside" "$(cat "$WORK/inside")" "$b $q"
check "both held inside" bash -c "grep -q '^outer: held' $WORK/status && grep -q '^inner: held' $WORK/status"
eq "nested: sysctl as found" "$(cat $SW)" "$swap0"
lat_back "nested: PM QoS as found"

# bad input: refused before anything changes, CMD not run
refused() { # refused NAME STATUS MESSAGE ARGS...
	local name=$1 want=$2 msg=$3 out rc
	shift 3
	rm -f "$WORK/ran"
	out=$($P run "$@" 2>&1)
	rc=$?
	eq "$name: exit status" "$rc" "$want"
	check "$name: names the reason" grep -qF -- "$msg" <<<"$out"
	check "$name: CMD not run" test ! -e "$WORK/ran"
	eq "$name: nothing changed" "$(cat $SW)" "$swap0"
}
mkdir -p "$WORK/bad"
printf '[sysctl]\nvm.swappiness=%s\nvm.dirty_ratio=lots\n' "$a" >"$WORK/bad/tuned.conf"
refused "no --" 2 "run needs '--'" sysctl.vm.swappiness=$a touch "$WORK/ran"
refused "not found" 127 "no-such-cmd: command not found" sysctl.vm.swappiness=$a -- no-such-cmd
refused "not executable" 126 "not an executable file" sysctl.vm.swappiness=$a -- "$WORK/bad/tuned.conf"
refused "bad value" 1 "nothing was changed" sysctl.vm.swappiness=$a sysctl.vm.dirty_ratio=lots -- touch "$WORK/ran"
refused "bad profile" 1 "dirty_ratio" "$WORK/bad" -- touch "$WORK/ran"
check "no journal after the refusals" bash -c "$P status | grep -qx 'no transactions'"
finish
