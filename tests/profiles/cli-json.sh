#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# --json is valid JSON whatever bytes a path, a file name or a kernel value
# holds: a byte of no valid UTF-8 sequence (0xff, a cut sequence) is the four
# characters \xHH, UTF-8 beside it (e acute) is kept (issue 33, H9's JSON
# side): get, why and verify, each parsed by python3's json.loads from bytes.
. "$(dirname "$0")/lib.sh"
need python3
R=$TMP/root
fake_root "$R"
P=("$PERFTUNE" --root "$R")
raw=$(printf '\377\303(\303\251') # 0xff, 0xc3 without its second byte, then é
esc=$(printf '\\xff\\xc3(\303\251') # as the strings hold it

# loads FILE EXPR: json.loads of FILE's bytes (a UnicodeDecodeError on raw
# 0xff), then EXPR printed (d: the document)
loads() {
	python3 -c 'import json, sys
d = json.loads(open(sys.argv[1], "rb").read())
print(eval(sys.argv[2]))' "$1" "$2" || fail "$3: not JSON: $(cat -v "$1")"
}

printf 'a%s\n' "$raw" >"$R/proc/sys/kernel/domainname"
"${P[@]}" get --json sysctl.kernel.domainname >"$TMP/get.json"
got=$(loads "$TMP/get.json" 'd["sysctl.kernel.domainname"]' "get --json")
[ "$got" = "a$esc" ] || fail "get --json: '$got', expected 'a$esc'"

mkdir -p "$R/etc/sysctl.d"
echo 'vm.swappiness = 7' >"$R/etc/sysctl.d/x$raw.conf"
"${P[@]}" why --json sysctl.vm.swappiness >"$TMP/why.json"
got=$(loads "$TMP/why.json" 'd["sources"][0]["location"]' "why --json")
[ "$got" = "/etc/sysctl.d/x$esc.conf:1" ] || fail "why --json: location '$got'"

mkdir -p "$TMP/p$raw"
printf '[sysctl]\nvm.dirty_ratio=20\n' >"$TMP/p$raw/tuned.conf"
"${P[@]}" verify --json "$TMP/p$raw/tuned.conf" >"$TMP/verify.json" || fail "verify: exit $?"
got=$(loads "$TMP/verify.json" 'd["verified"] + " " + d["settings"][0]["origin"]' "verify --json")
want="$TMP/p$esc/tuned.conf"
[ "$got" = "$want $want:2" ] || fail "verify --json: '$got', expected '$want $want:2'"
echo "PASS: get, why and verify --json parse, stray bytes as \\xHH"
