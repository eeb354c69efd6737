#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `perftune status --format prometheus` through the real parser: promtool
# check metrics (Debian's prometheus package), else the Python
# prometheus_client parser. On a small fake tree: an applied transaction,
# one that drifted, a held one (a live `set --hold`), an orphaned one (its
# holder killed -9), a key whose label needs escaping; -o replaces the file
# atomically (a new inode, no temporary file left) in its directory.
# Issue 33 H9: labels are valid UTF-8 whatever bytes a path or a key holds
# (0xff as \xff), and every series is unique (verify K=60 K=10: one sample);
# H1: -o never writes through a link, a FIFO or over a device node.
set -eu
: "${PERFTUNE:?}"
if command -v promtool >/dev/null; then
	parse() { promtool check metrics; }
	parser=promtool
elif python3 -c 'import prometheus_client' 2>/dev/null; then
	parse() {
		python3 -c 'import sys
from prometheus_client.parser import text_string_to_metric_families as p
for f in p(sys.stdin.read()): pass'
	}
	parser=prometheus_client
else
	echo "neither promtool (prometheus) nor python3-prometheus-client: output not parsed"
	[ -z "${CI:-}" ] && exit 77
	exit 1
fi
echo "parser: $parser"
# every series once: a scrape refuses a sample whose labels another one has
# (neither parser checks it); the series is the line up to its value
parse_unique() {
	local in
	in=$(cat)
	printf '%s\n' "$in" | parse || return 1
	dup=$(printf '%s\n' "$in" | grep -v '^#' | sed 's/ [^ ]*$//' | sort | uniq -d)
	[ -z "$dup" ] || { printf 'duplicate series: %s\n' "$dup"; return 1; }
}

T=$(mktemp -d)
HOLD=
cleanup() {
	[ -n "$HOLD" ] && kill "$HOLD" 2>/dev/null && wait "$HOLD" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
R=$T/root
mkdir -p "$R/proc/sys/vm" "$R/proc/sys/kernel" "$R/sys/block/fake0/queue" "$R/dev" \
	"$R/sys/kernel/we\"i\\rd" "$T/out"
echo 60 >"$R/proc/sys/vm/swappiness"
echo 20 >"$R/proc/sys/vm/dirty_ratio"
echo 0 >"$R/proc/sys/kernel/sched_autogroup_enabled"
echo '[none] mq-deadline' >"$R/sys/block/fake0/queue/scheduler"
echo 5 >"$R/sys/kernel/we\"i\\rd/val"
pt() { "$PERFTUNE" --root "$R" --journal-dir "$T/j" "$@"; }
fail() {
	printf 'FAIL: %s\n' "$*"
	exit 1
}
# has METRIC-LINE: the exact sample is in the last output
has() { grep -qxF "$1" "$T/out/m.prom" || fail "no line '$1' in:$(echo; cat "$T/out/m.prom")"; }

# nothing journaled: every family is there, with zero counts
pt status --format prometheus -o "$T/out/m.prom"
parse_unique <"$T/out/m.prom"
has 'perftune_holds 0'
has 'perftune_transactions{state="applied"} 0'
has '# TYPE perftune_tunable_in_force gauge'
ino1=$(stat -c %i "$T/out/m.prom")

pt set --name applied block.fake0.scheduler=mq-deadline 'sysfs[/sys/kernel/we"i\rd/val]=6' >/dev/null
pt set --name drifted sysctl.vm.dirty_ratio=10 >/dev/null
echo 33 >"$R/proc/sys/vm/dirty_ratio"
"$PERFTUNE" --root "$R" --journal-dir "$T/j" set --hold --name orphan \
	sysctl.kernel.sched_autogroup_enabled=1 >/dev/null &
pid=$!
i=0
until pt status | grep -q '^orphan: held'; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the hold did not start"; sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null || true
"$PERFTUNE" --root "$R" --journal-dir "$T/j" set --hold --name held sysctl.vm.swappiness=10 >/dev/null &
HOLD=$!
i=0
until pt status | grep -q '^held: held'; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the hold did not start"; sleep 0.1
done

printf 'garbage\n' >"$T/j/bad.journal" # a journal status cannot read
chmod 0600 "$T/j/bad.journal"
pt status --format prometheus -o "$T/out/m.prom"
parse <"$T/out/m.prom"
[ "$(stat -c %i "$T/out/m.prom")" != "$ino1" ] || fail "-o did not replace the file (same inode)"
[ "$(ls "$T/out")" = m.prom ] || fail "files left beside the output: $(ls "$T/out")"
pt status --format prometheus | cmp - "$T/out/m.prom" || fail "-o and stdout differ"
has 'perftune_tunable_in_force{key="block.fake0.scheduler",transaction="applied"} 1'
has 'perftune_tunable_in_force{key="sysfs[/sys/kernel/we\"i\\rd/val]",transaction="applied"} 1'
has 'perftune_tunable_in_force{key="sysctl.vm.dirty_ratio",transaction="drifted"} 0'
has 'perftune_tunable_drift{key="sysctl.vm.dirty_ratio",transaction="drifted"} 1'
has 'perftune_transaction_held{transaction="held"} 1'
has 'perftune_transaction_orphaned{transaction="orphan"} 1'
has 'perftune_transaction_orphaned{transaction="held"} 0'
has 'perftune_holds 1'
has 'perftune_orphaned_journals 1'
has 'perftune_transactions{state="applied"} 2'
has 'perftune_keys{state="in_force"} 4'
has 'perftune_keys{state="drift"} 1'
has 'perftune_journal_unreadable{transaction="bad"} 1'
has 'perftune_journal_unreadable{transaction="applied"} 0'
has 'perftune_transactions{state="unreadable"} 1'
rm "$T/j/bad.journal"

# verify: a transaction that drifted, through the parser; exit 1 as the other formats
rc=0
pt verify --format prometheus -o "$T/out/v.prom" drifted || rc=$?
[ $rc = 1 ] || fail "verify of a drifted transaction: exit $rc, want 1"
parse <"$T/out/v.prom"
grep -qxF 'perftune_verify_in_force{verified="drifted",key="sysctl.vm.dirty_ratio",origin="transaction drifted"} 0' "$T/out/v.prom" ||
	fail "verify metrics: $(cat "$T/out/v.prom")"
grep -qxF 'perftune_verify_not_in_force{verified="drifted"} 1' "$T/out/v.prom" || fail "verify not_in_force"
pt verify --format prometheus 'sysfs[/sys/kernel/we"i\rd/val]=6' | parse_unique

# H9: a profile path holding bytes that are not UTF-8 (0xff, a cut sequence)
# beside UTF-8 (e acute): valid UTF-8 labels (verified, origin), the stray
# bytes as \xHH
bad=$(printf 'p\377\303(\303\251')
mkdir -p "$T/$bad"
printf '[sysctl]\nvm.dirty_ratio=33\n' >"$T/$bad/tuned.conf"
pt verify --format prometheus -o "$T/out/v.prom" "$T/$bad/tuned.conf" || fail "verify of a profile in force: exit $?"
parse_unique <"$T/out/v.prom" || fail "verify metrics of a non-UTF-8 profile path: $(cat -v "$T/out/v.prom")"
want=$(printf '%s/p\\\\xff\\\\xc3(\303\251/tuned.conf' "$T") # the label's text, escaped
grep -qF "verified=\"$want\",key=\"sysctl.vm.dirty_ratio\",origin=\"$want:2\"} 1" "$T/out/v.prom" ||
	fail "the path's bytes as \\xHH: $(cat -v "$T/out/v.prom")"
# H9: one key checked thrice in one verification (held at 10): one sample, 0
# as one check differs; each check counted
pt verify --format prometheus sysctl.vm.swappiness=10 sysctl.vm.swappiness=60 \
	sysctl.vm.swappiness=10 >"$T/out/v.prom" && fail "verify of two values of one key: exit 0"
parse_unique <"$T/out/v.prom" || fail "verify K=10 K=60 K=10: $(cat "$T/out/v.prom")"
[ "$(grep -c '^perftune_verify_in_force{' "$T/out/v.prom")" = 1 ] || fail "verify K=10 K=60 K=10: not one sample"
grep -qxF 'perftune_verify_in_force{verified="settings",key="sysctl.vm.swappiness",origin=""} 0' "$T/out/v.prom" ||
	fail "verify K=10 K=60 K=10: $(cat "$T/out/v.prom")"
grep -qxF 'perftune_verify_checks{verified="settings",state="in_force"} 2' "$T/out/v.prom" ||
	fail "verify K=10 K=60 K=10: each check counted: $(cat "$T/out/v.prom")"
rm "$T/out/v.prom"

# H1: -o refuses a symbolic link and a FIFO (before: the link replaced, its
# target's name gone), naming the file, exit 1; nothing written through them
echo victim >"$T/victim"
ln -s "$T/victim" "$T/out/link.prom"
mkfifo "$T/out/fifo.prom"
for f in link fifo; do
	rc=0
	timeout 30 "$PERFTUNE" --root "$R" --journal-dir "$T/j" status --format prometheus \
		-o "$T/out/$f.prom" 2>"$T/err" || rc=$?
	[ $rc = 1 ] || fail "-o a $f: exit $rc, want 1"
	grep -q "$f.prom: it is a" "$T/err" || fail "-o a $f: $(cat "$T/err")"
done
[ -L "$T/out/link.prom" ] && [ -p "$T/out/fifo.prom" ] && [ "$(cat "$T/victim")" = victim ] ||
	fail "-o replaced or wrote through a link or a FIFO"
rm "$T/out/link.prom" "$T/out/fifo.prom"
# a character device is written in place (before: /dev/null itself was replaced
# by a regular file); root only: mknod
if [ "$(id -u)" = 0 ]; then
	mknod "$T/out/null" c 1 3
	pt status --format prometheus -o "$T/out/null" || fail "-o a character device: exit $?"
	[ -c "$T/out/null" ] || fail "-o replaced a character device by $(stat -c %F "$T/out/null")"
	rm "$T/out/null"
fi

# a directory that cannot be written: an error naming the file, exit 1, the old file kept
chmod 0555 "$T/out"
if [ "$(id -u)" != 0 ]; then
	if pt status --format prometheus -o "$T/out/m.prom" 2>"$T/err"; then fail "wrote to a read-only dir"; fi
	grep -q "m.prom" "$T/err" || fail "error does not name the file: $(cat "$T/err")"
fi
chmod 0755 "$T/out"
pt status --format prometheus -o "$T/nodir/m.prom" 2>"$T/err" && fail "wrote to a missing dir"
grep -q "nodir/m.prom" "$T/err" || fail "error does not name the file: $(cat "$T/err")"
pt status -o "$T/out/x.prom" 2>/dev/null && fail "-o without --format prometheus accepted"
[ ! -e "$T/out/x.prom" ] || fail "a refused call wrote"

kill "$HOLD"
wait "$HOLD" 2>/dev/null || true
HOLD=
pt restore --orphans >/dev/null
pt restore applied >/dev/null
pt restore drifted >/dev/null
pt status --format prometheus -o "$T/out/m.prom"
has 'perftune_transactions{state="held"} 0'
has 'perftune_orphaned_journals 0'
echo "ok: status --format prometheus passes $parser"
