#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The bash completion, called as bash calls it (COMP_WORDS, COMP_CWORD):
# commands, options, option values, keys of the fake machine, profiles.
. "$(dirname "$0")/lib.sh"
fake_root "$TMP/root"
export PERFTUNE_PROFILE_PATH=$SRCDIR/profiles
# shellcheck source=/dev/null
. "$SRCDIR/completion/perftune"
complete -p perftune | grep -q _perftune || fail "no completion registered for perftune"

complete_words() { # complete_words WORD... : complete the last word
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_perftune
	printf '%s\n' "${COMPREPLY[@]}" | sort
}
has() { # has WORD COMPLETION... (no pipe into grep -q: under pipefail its early exit
	# can fail printf with SIGPIPE, and the word is then "not offered" though it is)
	local w=$1 x
	shift
	for x in "$@"; do [ "$x" = "$w" ] && return 0; done
	return 1
}
check() { # check "WORDS" EXPECTED... (each expected must be offered)
	local words=$1 e
	shift
	# shellcheck disable=SC2086
	mapfile -t got < <(complete_words "$PERFTUNE" --root "$TMP/root" $words)
	for e in "$@"; do
		has "$e" "${got[@]}" || fail "'$words': '$e' not offered (got: ${got[*]})"
	done
}
check_not() {
	local words=$1 e
	shift
	# shellcheck disable=SC2086
	mapfile -t got < <(complete_words "$PERFTUNE" --root "$TMP/root" $words)
	for e in "$@"; do
		! has "$e" "${got[@]}" || fail "'$words': '$e' offered"
	done
}
# verbs, including every command of perftune --help
mapfile -t verbs < <("$PERFTUNE" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
[ "${#verbs[@]}" -ge 9 ] || fail "no commands in perftune --help"
check "''" "${verbs[@]}"
check "ex" export
check "--j" --journal-dir
check "apply --s" --strict
check "apply --d" --dry-run
check "export --format ''" sysctl udev cmdline tuned
check "apply ''" throughput latency database ssd throughput-guest
check "apply la" latency
check_not "apply la" throughput
check "get sysctl.vm.sw" sysctl.vm.swappiness
check "describe block.sda.sch" block.sda.scheduler
check "set thp.en" thp.enabled=
check "list --w" --writable
check "describe sysctl.kernel.os" sysctl.kernel.ostype
check "set irq.a" irq.all.cpus=
check "get irq.2" irq.24.cpus irq.27.cpus
check_not "set irq.2" irq.27.cpus= # the kernel will not move it: read-only
check "set workqueue." workqueue.cpus= workqueue.writeback.cpus=
check_not "set sysctl.kernel.os" sysctl.kernel.ostype= # read-only: listed, not offered to set
check "list-profiles --" --json
check "exec --n" --nodes
check "exec --nodes 0 -- tru" true
check "compare --r" --rounds
check "run --n" --name
check "run la" latency
check "run thp.en" thp.enabled=
check "run latency -- tru" true
check "compare --order ''" abba random
check "compare --profile la" latency
check "compare thp.en" thp.enabled=
check "compare thp.enabled=always -- tru" true
echo "completion offers commands, options, formats, profiles and keys"
