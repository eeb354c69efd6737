#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Helpers of the VM tier's guest scripts (guest-tests.sh,
# guest-systemd-tests.sh), sourced by them.  They expect PT (the perftune
# executable), WORK (a scratch directory) and JOURNAL_DIR to be set.

# ------------------------------------------------------------------ helpers
# Each test runs in a subshell with its transcript in $WORK/log; helpers
# print what they do, and fail() ends the test.

# (stderr: the message must show even from inside a command substitution)
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# show FILE PREFIX MAX: print up to MAX lines of FILE, indented.
show() {
	local n
	n=$(wc -l <"$1")
	head -n "$3" "$1" | sed "s/^/$2/"
	((n <= $3)) || echo "$2... ($((n - $3)) more lines)"
}

# pt ARGS...: run perftune; OUT = stdout, ERR = stderr, RC = exit status.
pt() {
	local t0=$EPOCHREALTIME
	echo "\$ perftune $*"
	# (an expected failure must not trip set -e or the ERR trap)
	"$PT" "$@" >"$WORK/out" 2>"$WORK/err" && RC=0 || RC=$?
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { if (b - a > 2) printf "    (slow: %.1fs)\n", b - a }'
	OUT=$(<"$WORK/out")
	ERR=$(<"$WORK/err")
	show "$WORK/out" '    ' 40
	show "$WORK/err" '    stderr: ' 20
	((RC == 0)) || echo "    [exit $RC]"
}
pt_ok() {
	pt "$@"
	((RC == 0)) || fail "perftune $* exited with $RC, expected 0"
}
# pt_fails ARGS...: perftune must fail cleanly (exit 1) and say why.
pt_fails() {
	pt "$@"
	((RC == 1)) || fail "perftune $* exited with $RC, expected 1 (failed, rolled back)"
	[[ -n $ERR ]] || fail "perftune $* failed without a message"
}

eq() {
	[[ $2 == "$3" ]] || fail "$1: got '$2', expected '$3'"
	echo "    ok: $1 = $3"
}

# sched DISK: the active scheduler (the bracketed choice), or the file as is.
sched() {
	local s
	s=$(<"/sys/block/$1/queue/scheduler")
	if [[ $s =~ \[([^]]+)\] ]]; then echo "${BASH_REMATCH[1]}"; else echo "$s"; fi
}
# other_sched DISK: an offered scheduler that is not the active one.
other_sched() {
	local cur s offered
	cur=$(sched "$1")
	offered=$(tr -d '[]' <"/sys/block/$1/queue/scheduler")
	for s in mq-deadline kyber bfq none; do
		[[ $s != "$cur" && " $offered " == *" $s "* ]] && {
			echo "$s"
			return
		}
	done
	fail "$1 offers no second scheduler ($offered)"
}

# The current PM QoS CPU latency target, read from the kernel directly.
pmqos_now() { od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' '; }

# no_transactions: the journal directory holds nothing any more.
no_transactions() {
	pt_ok status --json
	eq "transactions left" "$(tr -d ' \n' <<<"$OUT")" "[]"
	if compgen -G "$JOURNAL_DIR/*.journal" >/dev/null; then
		fail "journal files left: $(ls "$JOURNAL_DIR")"
	fi
}

# wait_output FILE TEXT PID: wait until FILE has TEXT while PID lives.
wait_output() {
	local i
	for ((i = 0; i < 600; i++)); do
		grep -q "$2" "$1" && return 0
		kill -0 "$3" 2>/dev/null || {
			sed 's/^/    | /' "$1"
			fail "process $3 ended before printing '$2'"
		}
		sleep 0.1
	done
	fail "no '$2' from process $3 after 60s"
}

TESTS=0 PASSED=0 FAILED=0
run_test() {
	local name=$1 fn=$2 rc t0=$EPOCHREALTIME
	TESTS=$((TESTS + 1))
	set +e
	(
		set -eE
		trap 'echo "FAIL: status $? from: $BASH_COMMAND (line $LINENO)"' ERR
		"$fn"
	) >"$WORK/log" 2>&1
	rc=$?
	set -e
	# a test that ends without a word (a message sent elsewhere) still says how
	((rc == 0)) || echo "(exit status $rc)" >>"$WORK/log"
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "(%.1fs)\n", b - a }' >>"$WORK/log"
	if ((rc == 0)); then
		PASSED=$((PASSED + 1))
		echo "ok $TESTS - $name"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $TESTS - $name"
	fi
	sed 's/^/#   /' "$WORK/log"
}

# run_alone PERFTUNE FUNCTION...: a guest script run by itself (run-vm SCRIPT
# PERFTUNE) rather than sourced by guest-tests.sh: set what the helpers expect,
# run each FUNCTION (a group of run_test calls) and fail unless all passed.
run_alone() {
	PT=${1:-${PERFTUNE_BUILD_DIR:-}/utils/perftune}
	[[ $PT == /* ]] || PT=${PERFTUNE_BUILD_DIR:-.}/$PT
	JOURNAL_DIR=${PERFTUNE_JOURNAL_DIR:-/run/perftune}
	WORK=$(mktemp -d /run/vm-tests.XXXXXX)
	shift
	for fn; do "$fn"; done
	echo "$PASSED passed, $FAILED failed"
	((FAILED == 0))
}

# ------------------------------------------------------------ thread masks
# has_cpu LIST CPU: the CPU list holds CPU
has_cpu() {
	local IFS=, item
	for item in $1; do
		if ((${item%-*} <= $2 && ${item#*-} >= $2)); then return 0; fi
	done
	return 1
}

# vmh ARGS: tests/vm/vm-helper of the build tree (beside utils/ of $PT): the
# workloads and the thread walk in C, where python3 and a few awk processes a
# thread took TCG minutes
vmh() {
	"$(dirname "$PT")/../tests/vm/vm-helper" "$@"
}

# every movable thread's mask: "pid/tid mask" lines, sorted for join(1).  A
# thread that exits while it is read is left out by vm-helper, and so is one
# the kernel does not let user space move (PF_NO_SETAFFINITY, 0x04000000 in
# its stat flags): perftune never writes those, and the kernel moves some
# itself (a workqueue's rescuer goes to the CPUs of the pool it helps: "0
# before, 3 after" under load)
thread_masks() {
	vmh threads | awk 'int($3 / 67108864) % 2 == 0 { print $1, $2 }' | LC_ALL=C sort
}

# start_pmd_app: an application with a poll-mode thread named like OVS's
# (pmd-c03/id:8) pinned to CPU 3, where TuneD's ps_blacklist keeps it;
# APP_PID and APP_TID name them.  stop_pmd_app ends it.
start_pmd_app() {
	# (the program itself in the background, not vmh: $! must be its pid;
	# the file of an earlier call removed first, or the wait below could
	# read its thread id before the new one's redirection empties it)
	rm -f "$WORK/pmd.tid"
	"$(dirname "$PT")/../tests/vm/vm-helper" pmd >"$WORK/pmd.tid" &
	APP_PID=$!
	trap 'kill "$APP_PID" 2>/dev/null || true' EXIT
	for _ in $(seq 600); do [[ -s $WORK/pmd.tid ]] && break; sleep 0.1; done
	APP_TID=$(<"$WORK/pmd.tid")
	[[ -n $APP_TID ]] || fail "the pmd thread did not start"
}
stop_pmd_app() {
	kill "$APP_PID"
	wait "$APP_PID" 2>/dev/null || true
}

# threads_off_cpu3 MASKS_BEFORE: every thread alive since MASKS_BEFORE that the
# kernel lets move (no PF_NO_SETAFFINITY, 0x04000000, in its stat flags) and
# that is not blacklisted (pmd, DPDK) is off CPU 3; the pmd thread of
# start_pmd_app stays on 3 and its main thread moved
threads_off_cpu3() {
	local t m flags comm bad=0 moved=0
	local -A before=()
	while read -r t _; do before[$t]=1; done <"$1"
	while read -r t m flags comm; do
		[[ -n ${before[$t]:-} ]] || continue
		[[ $comm =~ pmd|PMD|^DPDK ]] && continue
		(((flags & 0x04000000) == 0)) || continue
		if has_cpu "$m" 3; then
			echo "    thread ${t#*/} ($comm) may still run on 3: $m"
			bad=$((bad + 1))
		else
			moved=$((moved + 1))
		fi
	done < <(vmh threads)
	echo "    $moved threads off CPU 3, $bad on it"
	((moved > 20)) || fail "only $moved threads checked"
	((bad == 0)) || fail "$bad movable, not blacklisted threads may still run on CPU 3"
	eq "the blacklisted pmd thread stays on 3" "$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$APP_PID/task/$APP_TID/status")" 3
	eq "its process's main thread moved" "$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$APP_PID/status")" 0-2
}

# masks_back MASKS_BEFORE: the threads alive before and now have their own masks back
masks_back() {
	thread_masks >"$WORK/masks.after"
	join "$1" "$WORK/masks.after" | awk '$2 != $3 { print "    thread " $1 ": " $2 " before, " $3 " after"; n++ } END { exit n > 0 }' ||
		fail "some threads did not get their own mask back"
	echo "    ok: $(join "$1" "$WORK/masks.after" | wc -l) threads have their masks as before"
}
