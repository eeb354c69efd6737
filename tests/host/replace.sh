#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier, a switch without a gap (apply --replace, SIGHUP to a hold) on the
# real kernel: a sampler reads the keys both profiles set in a loop the whole
# time, and may never see one at its original.  Sysctls and PM QoS only; every
# value is put back.
. "$(dirname "$0")/lib.sh"

S=/proc/sys/vm/swappiness D=/proc/sys/vm/dirty_ratio BG=/proc/sys/vm/dirty_background_ratio
lat() { od -An -t d4 /dev/cpu_dma_latency | tr -d ' '; }
s0=$(cat $S) d0=$(cat $D) bg0=$(cat $BG) lat0=$(lat)
# values none of which is an original: A's, B's, B's after an edit
pick() { # pick ORIGINAL CANDIDATE...: the first candidate that is not ORIGINAL
	local o=$1 c; shift
	for c; do [ "$c" != "$o" ] && { echo "$c"; return; }; done
}
sA=$(pick "$s0" 11 12) sB=$(pick "$s0" 21 22) sC=$(pick "$s0" 31 32)
dA=$(pick "$d0" 41 42) dB=$(pick "$d0" 36 37)
bgA=$(pick "$bg0" 7 8)
latA=$(pick "$lat0" 100 101) latB=$(pick "$lat0" 50 51) latC=$(pick "$lat0" 70 71)

profile() { # profile FILE SWAPPINESS DIRTY_RATIO LATENCY|"" [BACKGROUND]
	{
		printf '[main]\nsummary=replace test\n'
		[ -n "$4" ] && printf '[cpu]\nforce_latency=%s\n' "$4"
		printf '[sysctl]\nvm.swappiness=%s\nvm.dirty_ratio=%s\n' "$2" "$3"
		[ -n "${5:-}" ] && printf 'vm.dirty_background_ratio=%s\n' "$5"
	} >"$1"
	chmod 644 "$1"
}
profile "$WORK/a.conf" "$sA" "$dA" "$latA" "$bgA"
profile "$WORK/b.conf" "$sB" "$dB" "$latB"

wait_for() { # wait_for FILE [PATTERN]: until FILE is there (with a line matching PATTERN); 60 s
	for _ in $(seq 600); do
		if [ -z "${2:-}" ]; then [ -e "$1" ] && return 0
		else grep -q "$2" "$1" 2>/dev/null && return 0; fi
		sleep 0.1
	done
	return 1
}

# the sampler: reads the shared keys (and the PM QoS target, unless LAT0 is "-") until
# $WORK/stop appears; writes "samples N originals M" to $WORK/counts
cat >"$WORK/sampler.py" <<'EOF'
import os, struct, sys
work, s0, d0, lat0 = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
samples = originals = 0
lat = os.open("/dev/cpu_dma_latency", os.O_RDONLY) if lat0 != "-" else -1
keys = [(os.open("/proc/sys/vm/swappiness", os.O_RDONLY), s0),
        (os.open("/proc/sys/vm/dirty_ratio", os.O_RDONLY), d0)]
stop = os.path.join(work, "stop")
while True:
    for fd, orig in keys:  # a sysctl file read at offset 0 is read afresh
        if os.pread(fd, 64, 0).decode().strip() == orig:
            originals += 1
    if lat >= 0 and struct.unpack("i", os.pread(lat, 4, 0))[0] == int(lat0):
        originals += 1
    samples += 1
    if samples == 1:
        open(os.path.join(work, "sampling"), "w").close()
    if samples % 256 == 0 and os.path.exists(stop):
        break
with open(os.path.join(work, "counts"), "w") as f:
    f.write("samples %d originals %d\n" % (samples, originals))
EOF

# hold A
$P apply --hold --name web "$WORK/a.conf" >"$WORK/holdA.log" 2>&1 &
holdA=$!
check "apply --hold A" wait_for "$WORK/holdA.log" "^holding transaction 'web'"
eq "A: swappiness" "$(cat $S)" "$sA"
eq "A: PM QoS" "$(lat)" "$latA"

python3 "$WORK/sampler.py" "$WORK" "$s0" "$d0" "$lat0" &
sampler=$!
check "sampler started" wait_for "$WORK/sampling"

# switch to B held by a new process: the old holder ends, writing nothing
$P apply --hold --replace web "$WORK/b.conf" >"$WORK/holdB.log" 2>&1 &
holdB=$!
check "apply --hold --replace web B" wait_for "$WORK/holdB.log" "^holding transaction 'web'"
wait $holdA
eq "the replaced holder exits 0" "$?" 0
check "... saying it restored nothing" grep -q "not held here any more (replaced): nothing restored" "$WORK/holdA.log"
eq "B: swappiness straight to B's" "$(cat $S)" "$sB"
eq "B: dirty_ratio straight to B's" "$(cat $D)" "$dB"
eq "B: dirty_background_ratio (only A had it) back to its original" "$(cat $BG)" "$bg0"
eq "B: PM QoS" "$(lat)" "$latB"
check "B: the key only A had is reported as given back" grep -q "^sysctl.vm.dirty_background_ratio: $bgA -> $bg0 (given back" "$WORK/holdB.log"
check "status: web held by the new holder" bash -c "$P status | grep -q '^web: held pid $holdB'"

# edit B, reload the hold in place (what systemctl reload sends)
profile "$WORK/b.conf" "$sC" "$dB" "$latC"
kill -HUP $holdB
check "SIGHUP reloads the hold" wait_for "$WORK/holdB.log" "^reloaded transaction 'web'"
eq "reload: swappiness to the edited value" "$(cat $S)" "$sC"
eq "reload: PM QoS to the edited value" "$(lat)" "$latC"
# a profile that no longer validates keeps what is in force
printf '[sysctl]\nvm.swappiness=bogus\n' >"$WORK/b.conf"
kill -HUP $holdB
check "a bad edit is refused on reload" wait_for "$WORK/holdB.log" "reload of 'web' failed"
eq "bad edit: swappiness as it was" "$(cat $S)" "$sC"
eq "bad edit: PM QoS as it was" "$(lat)" "$latC"

touch "$WORK/stop"
wait $sampler
read -r _ samples _ originals <"$WORK/counts"
echo "# no-gap sampler: samples $samples, originals seen $originals"
check "the sampler took samples" test "$samples" -gt 0
eq "no original value was ever seen during the switch and the reloads" "$originals" 0

kill -TERM $holdB
wait $holdB
eq "the holder gives everything back on SIGTERM" "$?" 0
eq "after: swappiness" "$(cat $S)" "$s0"
eq "after: dirty_ratio" "$(cat $D)" "$d0"
eq "after: dirty_background_ratio" "$(cat $BG)" "$bg0"
eq "after: PM QoS" "$(lat)" "$lat0"

# for comparison only (not asserted: the gap may fall between two samples): the
# switch as restore + apply, which passes every key through its original
rm -f "$WORK/stop" "$WORK/sampling" "$WORK/counts"
profile "$WORK/ca.conf" "$sA" "$dA" "" "$bgA" # no force_latency: without a hold it would
profile "$WORK/cb.conf" "$sB" "$dB" ""	      # disable idle states
$P apply --name web "$WORK/ca.conf" >/dev/null
python3 "$WORK/sampler.py" "$WORK" "$s0" "$d0" - &
sampler=$!
wait_for "$WORK/sampling"
for _ in 1 2 3 4 5; do
	$P restore web >/dev/null && $P apply --name web "$WORK/cb.conf" >/dev/null
	$P restore web >/dev/null && $P apply --name web "$WORK/ca.conf" >/dev/null
done
touch "$WORK/stop"
wait $sampler
$P restore web >/dev/null
read -r _ samples _ originals <"$WORK/counts"
echo "# restore + apply instead (10 switches, not asserted): samples $samples, originals seen $originals"

finish
