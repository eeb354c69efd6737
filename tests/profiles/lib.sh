# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the shell tests of tests/profiles: temp dir, skip/fail, fake machine.
set -euo pipefail
: "${PERFTUNE:?set by meson}" "${SRCDIR:?set by meson}"
TMP=$(mktemp -d /tmp/perftune-prof-XXXXXX)
CLEANUP=()
cleanup() {
	local i
	for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do eval "${CLEANUP[i]}" || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT
export PERFTUNE_JOURNAL_DIR=$TMP/journal
export PERFTUNE_PROFILE_PATH=$SRCDIR/profiles:/usr/lib/tuned
unset PERFTUNE_ROOT

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root: $*"; }
need() { command -v "$1" >/dev/null || skip "$1 is not installed"; }

# fake_root DIR: the unit tier's fake machine, disks marked non-removable as real ones are
fake_root() {
	bash "${MKROOT:?}" "$1" >/dev/null
	local d
	for d in sda sdb sdc nvme0n1 dm-0 dm-1 zram0; do echo 0 >"$1/sys/block/$d/removable"; done
}

# checksum of every file below DIR (a snapshot to compare)
tree_sum() { (cd "$1" && find . -type f ! -path './run/*' -print0 | sort -z | xargs -0 md5sum); }

# json FILE EXPR: evaluate a Python expression on the parsed JSON in FILE (d)
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
