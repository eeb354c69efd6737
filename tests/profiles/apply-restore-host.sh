#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host tier: apply TuneD's throughput-performance for real, then restore it:
# every file it touched reads as before.  Its disk settings go to a loop
# device this test creates (a profile that includes throughput-performance and
# narrows [disk] to that device), never to the machine's own disks.
. "$(dirname "$0")/lib.sh"
need_root "writes sysctls and a loop device's queue"
[ -f /usr/lib/tuned/throughput-performance/tuned.conf ] || skip "TuneD's profiles are not installed"
need losetup
need python3
truncate -s 32M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || skip "no loop device available"
CLEANUP+=("losetup -d $LOOP")
DEV=${LOOP#/dev/}
mkdir -p "$TMP/profiles/tp-loop"
cat >"$TMP/profiles/tp-loop/tuned.conf" <<EOC
[main]
summary=throughput-performance with its disk settings on $DEV only
include=throughput-performance

[disk]
devices=$DEV
EOC
export PERFTUNE_PROFILE_PATH=$TMP/profiles:/usr/lib/tuned
# if anything below fails, the machine is still given back
CLEANUP+=("'$PERFTUNE' restore tp >/dev/null 2>&1")

"$PERFTUNE" apply --dry-run --json --name tp tp-loop >"$TMP/plan.json"
json "$TMP/plan.json" '"\n".join(c["key"] for c in d["changes"])' >"$TMP/keys"
grep -qx "block.$DEV.read_ahead_kb" "$TMP/keys" || fail "the plan does not touch $DEV: $(cat "$TMP/keys")"
! grep -q '^block\.vda\|^block\.sd\|^block\.nvme' "$TMP/keys" || fail "the plan touches a real disk"
# the file behind every key, and its content now
: >"$TMP/files"
while read -r key; do
	"$PERFTUNE" describe --json "$key" >"$TMP/desc.json"
	json "$TMP/desc.json" 'd["path"]' >>"$TMP/files"
done <"$TMP/keys"
n=0
while read -r f; do
	cat "$f" >"$TMP/before.$n"
	n=$((n + 1))
done <"$TMP/files"

"$PERFTUNE" apply --name tp tp-loop >"$TMP/applied"
cat "$TMP/applied"
[ "$(cat /sys/block/$DEV/queue/read_ahead_kb)" -ge 4096 ] || fail "readahead=>4096 was not applied"
"$PERFTUNE" status --json >"$TMP/status.json"
json "$TMP/status.json" 'sum(1 for k in d if k["transaction"] == "tp")' | grep -qv '^0$' ||
	fail "no journaled transaction tp"
"$PERFTUNE" restore tp

n=0
while read -r f; do
	# compare contents (cmp would compare /proc's zero st_size first)
	[ "$(cat "$TMP/before.$n")" = "$(cat "$f")" ] || fail "$f: was '$(cat "$TMP/before.$n")', now '$(cat "$f")'"
	n=$((n + 1))
done <"$TMP/files"
"$PERFTUNE" status | grep -q '^tp:' && fail "tp is still journaled"
echo "applied and restored $n files"
