#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck disable=SC2016 # the stubs expand their variables when they run
# README.md's first two commands (.ci/readme-commands), as a newcomer runs
# them: as root on a minimal image without sudo, and as a user with sudo.
# Every command they call is a stub that logs its arguments (and whether sudo
# ran it), so nothing is installed or built: what is checked is that each
# command runs, as root exactly where it needs root.
set -euo pipefail
: "${SRCDIR:?set by meson}"
TMP=$(mktemp -d /tmp/perftune-readme-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAIL=0
fail() { echo "FAIL: $*" >&2; FAIL=1; }

# the checkout the commands run in: what they read, and a stub build
W=$TMP/checkout
mkdir -p "$W/.ci" "$W/build/utils"
cp "$SRCDIR/.ci/apt-packages" "$W/.ci/"
pkgs=$(grep -v '^#' "$SRCDIR/.ci/apt-packages" | xargs)
[ -n "$pkgs" ] || fail ".ci/apt-packages lists no package"

mkbin() { # mkbin DIR WITH_SUDO
	local d=$1 n
	mkdir -p "$d"
	for n in mkdir ln apt-get meson ninja; do
		printf '#!/bin/bash\necho "${SUDOED:+sudo }%s $*" >>"$LOG"\n' "$n" >"$d/$n"
	done
	printf '#!/bin/bash\n[ "$1" = -u ] && echo "$FAKE_UID"\n' >"$d/id"
	# the real tools the commands pipe through (xargs finds apt-get on PATH: the stub)
	ln -s "$(command -v grep)" "$d/grep"
	ln -s "$(command -v xargs)" "$d/xargs"
	if [ "$2" = yes ]; then
		printf '#!/bin/bash\nexport SUDOED=1\nexec "$@"\n' >"$d/sudo"
	fi
	chmod 755 "$d"/*
}
printf '#!/bin/bash\necho "${SUDOED:+sudo }perftune $*" >>"$LOG"\n' >"$W/build/utils/perftune"
chmod 755 "$W/build/utils/perftune"
mkbin "$TMP/root-bin" no
mkbin "$TMP/user-bin" yes

# run WHO N: README command N as WHO (root: uid 0, no sudo; user: uid 1000, sudo)
run() {
	local who=$1 n=$2 cmd uid bin
	cmd=$("$SRCDIR/.ci/readme-commands" "$n" "$SRCDIR/README.md")
	[ "$who" = root ] && uid=0 bin=$TMP/root-bin || uid=1000 bin=$TMP/user-bin
	export LOG=$TMP/$who-$n.log
	: >"$LOG"
	local rc=0
	(cd "$W" && env -i PATH="$bin" LOG="$LOG" FAKE_UID=$uid /bin/bash -euo pipefail -c "$cmd") \
		>"$TMP/out" 2>&1 || rc=$?
	[ $rc = 0 ] || fail "README command $n as $who exits $rc: $(cat "$TMP/out")"
}
expect() { # expect WHO N LINE...: the log of README command N as WHO is exactly these lines
	local who=$1 n=$2
	shift 2
	if ! diff <(printf '%s\n' "$@") "$TMP/$who-$n.log" >"$TMP/diff"; then
		fail "README command $n as $who ran (> got, < want):"
		cat "$TMP/diff" >&2
	fi
}

dry=$(awk '{print $NF}' <<<"$("$SRCDIR/.ci/readme-commands" 1 "$SRCDIR/README.md")")
[ -f "$SRCDIR/$dry/tuned.conf" ] || fail "command 1 ends with a dry run of '$dry': not a shipped profile"

for who in root user; do
	s=$([ $who = user ] && echo "sudo " || true)
	run $who 1
	expect $who 1 "${s}mkdir -p /etc/systemd/system" \
		"${s}ln -sfn /dev/null /etc/systemd/system/tuned.service" "${s}apt-get update" \
		"${s}apt-get install -y --no-install-recommends $pkgs" "meson setup build" \
		"ninja -C build" "${s}perftune apply --dry-run $dry"
	run $who 2
	expect $who 2 "${s}meson test -C build --print-errorlogs"
done
[ $FAIL = 0 ] && echo "ok: README commands 1 and 2 as root without sudo and as a user with sudo"
exit $FAIL
