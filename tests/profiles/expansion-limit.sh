#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 27 E: expansion is linear and stops at the profile value limit (4095
# bytes) with an error naming file, line and option: nested variables that
# multiply, a long literal, continuation lines, -v values, ${f:...} results.
# Each run must return (timeout 10) with exit 1 and change nothing.
. "$(dirname "$0")/lib.sh"
need timeout
fake_root "$TMP/root"
P=("$PERFTUNE" --root "$TMP/root")
export PERFTUNE_PROFILE_PATH=$TMP/p
tree_sum "$TMP/root" >"$TMP/pristine"

profile() { # profile NAME: the text on stdin
	mkdir -p "$TMP/p/$1"
	cat >"$TMP/p/$1/tuned.conf"
}
xs() { head -c "$1" /dev/zero | tr '\0' x; }
expect() { # expect STATUS PATTERN CMD...
	local want=$1 pat=$2 rc=0
	shift 2
	timeout 10 "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" != 124 ] || fail "$*: still running after 10 s"
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want: $(head -c 300 "$TMP/err")"
	[ -z "$pat" ] || grep -q -- "$pat" "$TMP/err" || fail "$*: stderr lacks '$pat': $(head -c 300 "$TMP/err")"
}
LIMIT="expands to more than 4095 bytes (the profile value limit)"

# each aN is ten copies of aN-1: a6 would be 10 MB
{
	printf '[variables]\na0=xxxxxxxxxx\n'
	for i in 1 2 3 4 5 6; do
		printf 'a%d=' $i
		for _ in 1 2 3 4 5 6 7 8 9 10; do printf '${a%d}' $((i - 1)); done
		echo
	done
	printf '[sysctl]\nvm.swappiness=${a6}\n'
} | profile tenfold
expect 1 "tenfold/tuned.conf:5: a3: the value $LIMIT" "${P[@]}" apply --dry-run tenfold
expect 1 "tenfold/tuned.conf:5: a3: the value $LIMIT" "${P[@]}" apply tenfold
# the same multiplication in one value, and through a function's argument
printf '[variables]\na=%s\n[sysctl]\nvm.swappiness=%s\nvm.dirty_ratio=1\n' "$(xs 1000)" \
	'${a}${a}${a}${a}${a}' | profile fivefold
expect 1 "fivefold/tuned.conf:4: vm.swappiness: the value $LIMIT" "${P[@]}" apply fivefold
printf '[variables]\na=%s\n[sysctl]\nvm.swappiness=${f:strip:${a}${a}${a}${a}${a}}\n' "$(xs 1000)" |
	profile funcarg
expect 1 "funcarg/tuned.conf:4: vm.swappiness: the value $LIMIT" "${P[@]}" apply funcarg
# a function whose result is too long
printf '[sysctl]\nvm.swappiness=${f:cpulist_unpack:0-8191}\n' | profile funcresult
expect 1 "funcresult/tuned.conf:2: vm.swappiness: the value $LIMIT" "${P[@]}" apply funcresult
# a literal of 1 MB, and a value grown by continuation lines
printf '[sysctl]\nvm.swappiness=%s\n' "$(xs 1000000)" | profile literal
expect 1 "literal/tuned.conf:2: vm.swappiness: the value $LIMIT" "${P[@]}" apply literal
{
	printf '[sysctl]\nvm.swappiness=1\n'
	for _ in $(seq 3000); do echo '  2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24'; done
} | profile continued
expect 1 "continued/tuned.conf:2: vm.swappiness: the value $LIMIT" "${P[@]}" apply continued
# a [sysfs] path is taken as written, as TuneD takes it (issue 25): never expanded
printf '[variables]\nd=%s\n[sysfs]\n/sys/${d}${d}${d}=1\n' "$(xs 2000)" | profile sysfspath
expect 0 "" "${P[@]}" apply --dry-run sysfspath
# include= is expanded before variables exist: functions only, same limit
printf '[main]\ninclude=${f:cpulist_unpack:0-8191}\n' | profile include
expect 1 "include/tuned.conf:2: include: the value $LIMIT" "${P[@]}" apply include
# -v values
printf '[sysctl]\nvm.swappiness=${big}\n' | profile usesvar
expect 1 "variable big (-v): the value is longer than 4095 bytes" \
	"${P[@]}" apply -v "big=$(xs 5000)" usesvar
# a file may hold 256 sections of 1024 options each, no more
{ for i in $(seq 257); do printf '[s%d]\n' "$i"; done; } | profile sections
expect 1 "sections/tuned.conf:257: more than 256 sections in one file" "${P[@]}" apply sections
{ echo '[sysctl]'; for i in $(seq 1025); do printf 'vm.x%d=1\n' "$i"; done; } | profile options
expect 1 "options/tuned.conf:1026: more than 1024 options in one section" "${P[@]}" apply options

# a regex that backtracks exponentially in the text (Python's re would hang): PCRE2's match
# limit stops it, an error naming the option (an escaped backslash is no back-reference)
printf '[sysctl]\nvm.swappiness=${f:regex_search_ternary:%s!:^(a|a)*\\1$:1:2}\n' "$(head -c 2000 /dev/zero | tr '\0' a)" |
	profile backref
expect 1 "backref/tuned.conf:2: vm.swappiness: function regex_search_ternary: regex .* cannot be matched (it backtracks past the match limit)" \
	"${P[@]}" apply --dry-run backref
printf '[sysctl]\nvm.swappiness=${f:regex_search_ternary:a\\1:^a\\\\1$:3:4}\n' | profile escaped
expect 0 "" "${P[@]}" apply --dry-run escaped
grep -q "^sysctl.vm.swappiness: .* -> 3" "$TMP/out" || fail "escaped backslash: $(cat "$TMP/out")"

# at the limit itself: expansion succeeds, the kernel's rules decide
printf '[variables]\na=%s\n[sysctl]\nvm.swappiness=${a}%s\n' "$(xs 4000)" "$(xs 95)" | profile atlimit
expect 1 "sysctl.vm.swappiness: 'xxxx" "${P[@]}" apply atlimit
! grep -q "value limit" "$TMP/err" || fail "4095 bytes are within the limit: $(head -c 300 "$TMP/err")"
printf '[variables]\na=%s\n[sysctl]\nvm.swappiness=${a}${a}${a}${a}\n' "$(xs 1023)" |
	profile justunder
expect 1 "sysctl.vm.swappiness: 'xxxx" "${P[@]}" apply justunder
! grep -q "value limit" "$TMP/err" || fail "4092 bytes are within the limit: $(head -c 300 "$TMP/err")"

tree_sum "$TMP/root" | diff -u "$TMP/pristine" - || fail "a refused profile changed the machine"
echo "expansion stops at the value limit"
