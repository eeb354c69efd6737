#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# perftune compare on the fake machine: bad input refused before any change,
# A/A false positives, a known effect found with the right sign and a CI that
# covers it, CMD failure, SIGINT/SIGTERM and kill -9 (restore --orphans), the
# log, --json and --plot.  No timing assertions: the measure is the fake
# workload's printed metric (seeded noise), never the clock.
set -uo pipefail
: "${PERFTUNE:?set by meson}" "${WORKLOAD:?set by meson}" "${SRCDIR:?set by meson}"
TMP=$(mktemp -d /tmp/perftune-compare-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
export LC_ALL=C
bash "$SRCDIR/tests/unit/mkroot.sh" "$TMP/root" >/dev/null
F=$TMP/root/sys/kernel/mm/transparent_hugepage/enabled
# the fake file holds "always [madvise] never" and, after a write, the bare value
# written (a plain file does not bracket): compare the value that is selected
thp_now() { local v; v=$(cat "$F"); [[ $v == *\[* ]] && { v=${v#*[}; v=${v%%]*}; }; echo "$v"; }
ORIG=$(thp_now)
J=$TMP/journal
P() { "$PERFTUNE" --root "$TMP/root" --journal-dir "$J" "$@"; }
M='result: ([0-9.]+)'
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok $((PASS + FAIL)) - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok $((PASS + FAIL)) - $*"; }
check() { local n=$1; shift; if "$@"; then ok "$n"; else not_ok "$n"; fi; }
eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: got '$2', want '$3'"; fi; }
# the fake THP file as found, and no transaction journal left (the commit lock
# file .lock stays: it is the journal directory's, not a transaction's)
untouched() { [ "$(thp_now)" = "$ORIG" ] && [ -z "$(ls "$J" 2>/dev/null)" ]; }
# perftune in the background: exec, so that $! is perftune itself, not a subshell
PX() { exec "$PERFTUNE" --root "$TMP/root" --journal-dir "$J" "$@"; }
# wait_for PID: its exit status, or 124 after 60 s (then it is killed): never hangs
wait_for() {
	local pid=$1
	for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; wait "$pid" 2>/dev/null; return 124; fi
	wait "$pid" 2>/dev/null
}
# no process of this test's workload with counter file NAME is left
no_workload() { ! pgrep -f "$TMP/counter-$1" >/dev/null; }
# wait until the workload has made DIR/hanging (a tuned run hangs there), at most 30 s
hanging() { for _ in $(seq 300); do [ -e "$TMP/hanging" ] && return 0; sleep 0.1; done; return 1; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# workload RATIO SD SEED [extra]: tuned (thp.enabled=always) takes RATIO times as long
work() { local r=$1 sd=$2 seed=$3; shift 3; echo "$WORKLOAD $F always $r 100 $sd $TMP/counter-$seed $seed $*"; }

# --- bad input: a clear error, exit != 0, nothing changed -------------------
bad() { # bad NAME WANT_RC WANT_MESSAGE ARGS...
	local name=$1 want=$2 msg=$3 rc=0; shift 3
	P compare --log "$TMP/bad.log" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$msg" "$TMP/err" && untouched; then ok "refused: $name"
	else not_ok "refused: $name (exit $rc, want $want)"; cat "$TMP/err"; fi
}
bad "no --" 2 "needs '--'" thp.enabled=always /bin/true
bad "empty CMD" 2 "needs a CMD" thp.enabled=always --
bad "empty CMD string" 2 "needs a CMD" thp.enabled=always -- ''
bad "CMD not found" 2 "no-such-cmd-xyz.*not found" thp.enabled=always -- no-such-cmd-xyz
bad "CMD path not executable" 2 "no such executable" thp.enabled=always -- "$TMP/nothing"
bad "rounds < 3" 2 "--rounds '2'" --rounds 2 thp.enabled=always -- /bin/true
bad "rounds not a number" 2 "--rounds 'x'" --rounds x thp.enabled=always -- /bin/true
bad "regex without a group" 2 "needs exactly one" --metric 'result: [0-9.]+' thp.enabled=always -- /bin/true
bad "regex with two groups" 2 "2 capture groups" --metric '(a)(b)' thp.enabled=always -- /bin/true
bad "invalid regex" 2 "--metric '(\['" --metric '([' thp.enabled=always -- /bin/true
bad "invalid key" 1 "no.such.key" no.such.key=1 -- /bin/true
bad "invalid value" 1 "thp.enabled" thp.enabled=bogus -- /bin/true
bad "not KEY=VALUE" 2 "is not KEY=VALUE" thp.enabled -- /bin/true
bad "no change" 2 "neither" -- /bin/true
bad "profile and keys" 2 "both" --profile x thp.enabled=always -- /bin/true
bad "missing profile" 1 "nothing was changed" --profile no-such-profile-xyz -- /bin/true
bad "plot type" 2 "must end in .svg or .png" --plot "$TMP/p.pdf" thp.enabled=always -- /bin/true
# never matching: named after the first run, which is a baseline run
# shellcheck disable=SC2046 # the workload's arguments split on blanks
bad "regex never matching" 1 "never-(\[0-9\]+).*matched nothing.*first run" --metric 'never-([0-9]+)' \
	thp.enabled=always -- $(work 1 0.1 0)
check "the never-matching regex was found after one run" [ "$(cat "$TMP/counter-0")" = 1 ]

# --- the files compare writes (issue 33 H1, H2) -------------------------------
# never through a link, never a FIFO (which hung): refused before anything runs
echo victim >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/link.log"
ln -s "$TMP/victim" "$TMP/link.svg"
mkfifo "$TMP/fifo.log"
bad "--log a symbolic link" 1 "--log $TMP/link.log: it is a symbolic link.*nothing was changed" \
	--log "$TMP/link.log" thp.enabled=always -- /bin/true
bad "--plot a symbolic link" 1 "--plot $TMP/link.svg: it is a symbolic link" \
	--plot "$TMP/link.svg" thp.enabled=always -- /bin/true
check "the links' target is untouched" [ "$(cat "$TMP/victim")" = victim ]
rc=0
timeout 60 "$PERFTUNE" --root "$TMP/root" --journal-dir "$J" compare --log "$TMP/fifo.log" \
	thp.enabled=always -- /bin/true >/dev/null 2>"$TMP/err" || rc=$?
eq "--log a FIFO: refused at once (exit 1, not a hang: 124)" "$rc" 1
check "--log a FIFO: the message says so" grep -q "it is a FIFO" "$TMP/err"
check "--log a FIFO: nothing changed" untouched
# an existing file of ours is replaced (a new file renamed over it); /dev/null is written
echo "old contents" >"$TMP/own.log"
# shellcheck disable=SC2046
P compare --rounds 3 --warmup 0 --metric "$M" --log "$TMP/own.log" thp.enabled=always \
	-- $(work 0.8 0.05 own) >/dev/null 2>"$TMP/err"
check "--log an existing file of ours: replaced by CMD's output" \
	bash -c "grep -q '=== round 1 (baseline run) ===' '$TMP/own.log' && ! grep -q 'old contents' '$TMP/own.log'"
check "--log: no temporary file left beside it" bash -c "! ls '$TMP' | grep -q perftune-"
# shellcheck disable=SC2046
P compare --rounds 3 --warmup 0 --metric "$M" --log /dev/null thp.enabled=always \
	-- $(work 0.8 0.05 null) >/dev/null 2>"$TMP/err"
eq "--log /dev/null: written in place (a character device, not replaced)" \
	"$? $(stat -c %F /dev/null)" "0 character special file"
# gnuplot missing: how to install it, exit 2 before anything runs
PERFTUNE_GNUPLOT=$TMP/no-gnuplot bad "--plot without gnuplot" 2 \
	"--plot needs gnuplot: apt-get install gnuplot-nox (or dnf install gnuplot)" \
	--plot "$TMP/p.svg" thp.enabled=always -- /bin/true
# gnuplot reads no init file of the caller's: not $HOME/.gnuplot, not
# $XDG_CONFIG_HOME/gnuplot/gnuplotrc, nothing from GNUPLOT_LIB (H2: as root,
# the HOME of another user ran its system() as uid 0)
mkdir -p "$TMP/home/.config/gnuplot" "$TMP/gplib"
for f in "$TMP/home/.gnuplot" "$TMP/home/.config/gnuplot/gnuplotrc" "$TMP/gplib/gnuplotrc"; do
	printf 'system("echo %s >>%s")\n' "$f" "$TMP/init-ran" >"$f"
done
# shellcheck disable=SC2046
HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/.config GNUPLOT_LIB=$TMP/gplib P compare --rounds 3 \
	--warmup 0 --metric "$M" --log "$TMP/t.log" --plot "$TMP/home.svg" thp.enabled=always \
	-- $(work 0.8 0.05 home) >/dev/null 2>"$TMP/err"
check "--plot: drawn with the caller's HOME and XDG_CONFIG_HOME set" grep -q "<svg" "$TMP/home.svg"
check "--plot: no init file of the caller's ran ($(cat "$TMP/init-ran" 2>/dev/null))" \
	[ ! -e "$TMP/init-ran" ]

# --- A/A: the change compared with itself -----------------------------------
# thp.enabled=madvise is the machine's value already: 40 experiments, seeded noise
fp=0
for seed in $(seq 1 40); do
	# shellcheck disable=SC2046
	P compare --json --seed "$seed" --metric "$M" --log "$TMP/aa.log" thp.enabled=madvise \
		-- $(work 0.8 0.1 "aa$seed") >"$TMP/aa.json" 2>/dev/null || { fp=99; break; }
	[ "$(json "$TMP/aa.json" 'd["verdict"]')" = "no difference" ] || fp=$((fp + 1))
done
echo "# A/A: $fp of 40 experiments reported a difference"
# 5% of 40 is 2; P(X > 5) for X ~ Binomial(40, 0.05) is 0.014
check "A/A: false positives ($fp/40) within 5% + sampling slack" [ "$fp" -le 5 ]
check "A/A left the machine as found" untouched

# --- a known effect: tuned takes 0.8 times as long --------------------------
# shellcheck disable=SC2046
P compare --json --metric "$M" --log "$TMP/k.log" thp.enabled=always -- $(work 0.8 0.05 k1) \
	>"$TMP/k.json" 2>"$TMP/err"
check "known effect: the experiment ran" [ -s "$TMP/k.json" ]
eq "known effect -20%: verdict" "$(json "$TMP/k.json" 'd["verdict"]')" better
eq "known effect -20%: the CI covers -20 and excludes 0" \
	"$(json "$TMP/k.json" 'd["ci95"][0] <= -20 <= d["ci95"][1] < 0')" True
eq "--json has the issue's fields" "$(json "$TMP/k.json" 'sorted(k for k in ["baseline","tuned","change_pct","ci95","p_value","verdict","metric","rounds"] if k in d)==sorted(["baseline","tuned","change_pct","ci95","p_value","verdict","metric","rounds"]) and all(x in d[s] for s in ("baseline","tuned") for x in ("n","median","samples"))')" True
eq "--json: 10 samples per state" "$(json "$TMP/k.json" '(d["baseline"]["n"], len(d["tuned"]["samples"]), d["rounds"])')" "(10, 10, 10)"
eq "--json: the metric is the regex" "$(json "$TMP/k.json" 'd["metric"]')" "$M"
check "known effect left the machine as found" untouched
# the tuned runs saw the change, the baseline runs did not (the workload logs what it read)
eq "CMD's stderr is in the log: 11 baseline runs, 11 tuned" \
	"$(grep -c 'is madvise' "$TMP/k.log") $(grep -c 'is always' "$TMP/k.log")" "11 11"
check "CMD's stdout is in the log, and not on the terminal" \
	grep -q "result: " "$TMP/k.log"
# a worse effect, and the same effect seen as higher-is-better
# shellcheck disable=SC2046
P compare --json --metric "$M" --log "$TMP/k.log" thp.enabled=always -- $(work 1.25 0.05 k2) >"$TMP/w.json" 2>/dev/null
eq "known effect +25%, lower is better: worse, CI covers +25" \
	"$(json "$TMP/w.json" 'd["verdict"], d["ci95"][0] <= 25 <= d["ci95"][1]')" "worse True"
# shellcheck disable=SC2046
P compare --json --higher-is-better --metric "$M" --log "$TMP/k.log" thp.enabled=always \
	-- $(work 1.25 0.05 k3) >"$TMP/h.json" 2>/dev/null
eq "known effect +25%, --higher-is-better: better" \
	"$(json "$TMP/h.json" 'd["verdict"], d["higher_is_better"]')" "better True"
# coverage of the CI over 20 seeded experiments (95% nominal)
cover=0
for seed in $(seq 1 20); do
	# shellcheck disable=SC2046
	P compare --json --seed "$seed" --metric "$M" --log "$TMP/k.log" thp.enabled=always \
		-- $(work 0.8 0.05 "c$seed") >"$TMP/c.json" 2>/dev/null
	[ "$(json "$TMP/c.json" 'd["ci95"][0] <= -20 <= d["ci95"][1] and d["verdict"] == "better"')" = True ] &&
		cover=$((cover + 1))
done
echo "# known effect: the CI covered -20% and the verdict was 'better' in $cover of 20"
check "known effect: CI covers the truth in >= 16 of 20 experiments ($cover)" [ "$cover" -ge 16 ]

# --- text report, random order, a profile -----------------------------------
# shellcheck disable=SC2046
P compare --rounds 6 --warmup 0 --order random --metric "$M" --log "$TMP/t.log" \
	thp.enabled=always -- $(work 0.5 0.02 t1) >"$TMP/t.out" 2>&1
check "text report: per-state lines, change, p-value, verdict" \
	grep -q "^baseline *6 " "$TMP/t.out" && grep -q "^tuned *6 " "$TMP/t.out" &&
	grep -q "^change of the median: -50.0% (95% CI" "$TMP/t.out" &&
	grep -q "Mann-Whitney U = 0, two-sided p = 0.0022 (exact)" "$TMP/t.out" &&
	grep -q "^verdict: better" "$TMP/t.out"
check "random order: the first run is a baseline run" \
	[ "$(sed -n 1p "$TMP/t.log")" = "=== round 1 (baseline run) ===" ]
mkdir -p "$TMP/prof/thp-on"
# shellcheck disable=SC2016 # ${thp} is the profile's variable, not the shell's
printf '[main]\nsummary=THP on\n[vm]\ntransparent_hugepages=${thp}\n[variables]\nthp=never\n' >"$TMP/prof/thp-on/tuned.conf"
# shellcheck disable=SC2046
PERFTUNE_PROFILE_PATH=$TMP/prof P compare --json --rounds 5 --profile thp-on -v thp=always \
	--metric "$M" --log "$TMP/t.log" -- $(work 0.5 0.02 p1) >"$TMP/p.json" 2>"$TMP/err"
eq "--profile with -v VAR=VALUE: better" "$(json "$TMP/p.json" 'd["verdict"]' 2>&1)" better
check "--profile left the machine as found" untouched

# --- --metric over any output size (issue 33 H10) ---------------------------
# the first run prints "result: 1", 2 GiB of NUL bytes (a hole in the memfd
# that takes CMD's output: no memory, no disk) and "result: 7"; the others
# only the two lines.  Before, a read stopped at 2 GiB: the first run gave 1
cat >"$TMP/big.py" <<'EOF'
import os, sys
first = not os.path.exists(sys.argv[1])
open(sys.argv[1], "a").close()
os.write(1, b"result: 1\n")
if first:
    os.lseek(1, (2 << 30) + 4096, os.SEEK_CUR)
os.write(1, b"\nresult: 7\n")
EOF
P compare --json --rounds 3 --warmup 0 --metric 'result: ([0-9]+)' --log /dev/null \
	thp.enabled=always -- python3 "$TMP/big.py" "$TMP/big.first" >"$TMP/big.json" 2>"$TMP/err"
eq "--metric: the last line after 2 GiB of output" \
	"$(json "$TMP/big.json" 'd["baseline"]["samples"][0], d["tuned"]["samples"]' 2>&1)" "7 [7, 7, 7]"
check "--metric after 2 GiB: machine as found" untouched

# --- options anywhere before -- (as version 1 took them) ---------------------
# shellcheck disable=SC2046
P compare thp.enabled=always --json --rounds 3 --warmup 0 --metric "$M" --log "$TMP/t.log" \
	-- $(work 0.8 0.05 after) >"$TMP/after.json" 2>"$TMP/err"
eq "options after KEY=VALUE: taken" "$(json "$TMP/after.json" 'd["rounds"], d["baseline"]["n"]' 2>&1)" "3 3"
# shellcheck disable=SC2046
POSIXLY_CORRECT=1 P compare --rounds 3 thp.enabled=always --warmup 0 --json --metric "$M" \
	--log "$TMP/t.log" -- $(work 0.8 0.05 posix) >"$TMP/after.json" 2>"$TMP/err"
eq "options after KEY=VALUE, POSIXLY_CORRECT set: taken" \
	"$(json "$TMP/after.json" 'd["warmup"], d["tuned"]["n"]' 2>&1)" "0 3"
bad "an option after -- is CMD's" 2 "CMD '--rounds': command not found" thp.enabled=always -- --rounds 3

# --- the progress line: on a terminal only ----------------------------------
if command -v script >/dev/null; then
	# shellcheck disable=SC2046
	script -qec "$(printf '%q ' "$PERFTUNE" --root "$TMP/root" --journal-dir "$J" compare --rounds 3 \
		--metric "$M" --log "$TMP/t.log" thp.enabled=always -- $(work 0.8 0.05 tty))" /dev/null \
		>"$TMP/tty.out" 2>&1 </dev/null
	check "progress on a terminal: warmup, round i/N and an ETA" \
		grep -q "warmup 1/1, ETA .*round 3/3, ETA [0-9]*:[0-9][0-9]" <(tr '\r' '\n' <"$TMP/tty.out" | tr -d '\n')
	check "no progress line when stderr is not a terminal" bash -c "! grep -q ETA '$TMP/t.out'"
else
	not_ok "script(1) (util-linux) is needed for the terminal test"
fi

# --- CMD failing: abort, restore, exit 1, naming the round -------------------
rc=0
# shellcheck disable=SC2046
P compare --metric "$M" --log "$TMP/f.log" thp.enabled=always -- $(work 0.8 0.05 f1 fail-at 7) \
	>/dev/null 2>"$TMP/err" || rc=$?
eq "CMD failing: exit 1" "$rc" 1
check "CMD failing: the error names the round" grep -q "CMD failed in round 3 (tuned run): exit status 3" "$TMP/err"
check "CMD failing: machine restored" untouched

# --- signals during a tuned run ----------------------------------------------
# (set -m: job control, so that the background perftune does not inherit an
# ignored SIGINT from this non-interactive shell, as a terminal's Ctrl-C would not)
set -m
for sig in INT TERM; do
	rm -f "$TMP/hanging"
	# shellcheck disable=SC2046
	PX compare --warmup 0 --metric "$M" --log "$TMP/s.log" thp.enabled=always \
		-- $(work 0.8 0.05 "s$sig" hang "$TMP") >/dev/null 2>"$TMP/err" &
	pid=$!
	check "SIG$sig: a tuned run started" hanging
	eq "SIG$sig: the tuned run sees the change" "$(cat "$F")" always
	kill -"$sig" "$pid"
	rc=0
	wait_for "$pid" || rc=$?
	eq "SIG$sig: exit 1" "$rc" 1
	check "SIG$sig: the message names the run" grep -q "interrupted by signal .* in round 1 (tuned run); the machine is restored" "$TMP/err"
	check "SIG$sig: machine restored, no journal left" untouched
	check "SIG$sig: CMD was ended" no_workload "s$sig"
done

# --- kill -9 of perftune: the journal is an orphan, restore --orphans -------
rm -f "$TMP/hanging"
# shellcheck disable=SC2046
PX compare --warmup 0 --metric "$M" --log "$TMP/s.log" thp.enabled=always \
	-- $(work 0.8 0.05 kill hang "$TMP") >/dev/null 2>&1 &
pid=$!
check "kill -9: a tuned run started" hanging
kill -9 "$pid"
wait_for "$pid" 2>/dev/null
set +m
for _ in $(seq 50); do no_workload kill && break; sleep 0.1; done
check "kill -9: CMD died with perftune (PDEATHSIG)" no_workload kill
eq "kill -9: the tuned value is still in force" "$(cat "$F")" always
P status >"$TMP/status" 2>&1
check "kill -9: status shows the transaction orphaned" grep -q "^compare-$pid: ORPHANED" "$TMP/status"
P restore --orphans >/dev/null
check "kill -9: restore --orphans gives the machine back" untouched

# --- plots ----------------------------------------------------------------
# shellcheck disable=SC2046
P compare --rounds 5 --metric "$M" --log "$TMP/t.log" --plot "$TMP/p.svg" thp.enabled=always \
	-- $(work 0.8 0.05 g1) >"$TMP/out" 2>"$TMP/err"
check "--plot SVG: an SVG with both states and the CI" \
	grep -q "<svg" "$TMP/p.svg" && grep -q "baseline (n=5)" "$TMP/p.svg" &&
	grep -q "95% CI" "$TMP/p.svg" && grep -q "result: (\[0-9.\]+), lower is better" "$TMP/p.svg"
# every sample drawn (pt 7 is gnuplot's #gpPt6): 5 + 5, and the two key entries
eq "--plot SVG: all 10 samples are drawn" "$(grep -o "href='#gpPt6'" "$TMP/p.svg" | wc -l | awk '{print ($1 >= 12)}')" 1
# shellcheck disable=SC2046
P compare --rounds 5 --log "$TMP/t.log" --plot "$TMP/w.svg" thp.enabled=always -- $(work 0.8 0.05 g3) >"$TMP/out" 2>"$TMP/err"
check "--plot SVG of wall times: drawn, axis labelled" grep -q "wall time (s), lower is better" "$TMP/w.svg"
# shellcheck disable=SC2046
P compare --rounds 5 --metric "$M" --log "$TMP/t.log" --plot "$TMP/p.png" thp.enabled=always \
	-- $(work 0.8 0.05 g2) >"$TMP/out" 2>"$TMP/err"
check "--plot PNG: a PNG file" [ "$(head -c 4 "$TMP/p.png" | tail -c 3)" = PNG ]
check "plots left the machine as found" untouched

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
