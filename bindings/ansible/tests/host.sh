#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The ansible suite, real kernel part: host.yml with ansible-playbook against
# localhost, the modules running on the Python binding of the build tree, on
# two loop devices the playbook creates (sparse files) and detaches.  Journals
# go to a private directory under /run.  Root only.
#
# Environment (meson sets it, see meson.build):
#   PERFTUNE_ANSIBLE_SRC     bindings/ansible in the source tree
#   PERFTUNE_PYTHON          the python the binding is built for (the modules run on it)
#   PERFTUNE_PYTHONPATH      the build tree's bindings/python (the built package)
#   PERFTUNE_LD_LIBRARY_PATH the build tree's lib/
#   PERFTUNE_NO_BINDING      set when the Python binding is not built
#   PERFTUNE_REQUIRE_ALL=1   a missing prerequisite fails instead of skipping
# Exit 77 (meson: SKIP) with the reason when not root or ansible-core is missing.
# Other real-kernel tests may run at the same time on this machine: run it
# under flock /run/lock/perftune-real-kernel.lock.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

[ -z "${PERFTUNE_NO_BINDING:-}" ] || skip "the Python binding is not built (swig or the Python headers are missing)"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, the real /sys)"
need_tools ansible-playbook
command -v losetup >/dev/null || skip "losetup is missing (util-linux)"
[ -w /run ] || skip "/run is not writable"

# the interpreter itself, not a wrapper (pyenv's shims are shell scripts)
PY=$("${PERFTUNE_PYTHON:?}" -c 'import sys; print(sys.executable)')
PYPATH=${PERFTUNE_PYTHONPATH:?}
LDPATH=${PERFTUNE_LD_LIBRARY_PATH:?}
[ -f "$PYPATH/perftune/__init__.py" ] || fail "no built binding in $PYPATH"

TMP=$(mktemp -d /tmp/perftune-ansible.XXXXXX)
RUN=$(mktemp -d /run/perftune-ansible.XXXXXX) # journals: /run, like /run/perftune
cleanup() {
	local rc=$? f dev
	# safety net if the playbook died before its `always:`: give back what
	# the journals hold, then detach our loop devices
	if [ -n "$(find "$RUN" -name '*.journal' 2>/dev/null)" ]; then
		echo "cleanup: restoring the journals left in $RUN" >&2
		for d in "$RUN/journal" "$RUN/journal-env"; do
			[ -d "$d" ] || continue
			PYTHONPATH=$PYPATH LD_LIBRARY_PATH=$LDPATH "$PY" -c \
				'import perftune, sys; print(perftune.Context(journal_dir=sys.argv[1]).restore(all=True, force=True))' \
				"$d" >&2 || true
		done
	fi
	for f in "$TMP"/disk*.img; do
		[ -e "$f" ] || continue
		for dev in $(losetup -j "$f" -O NAME -n 2>/dev/null); do
			echo "cleanup: detaching $dev" >&2
			losetup -d "$dev" || true
		done
	done
	rm -rf "$TMP" "$RUN"
	exit $rc
}
trap cleanup EXIT
collection_tree "$TMP"
mkdir -p "$TMP/profiles"
export ANSIBLE_PIPELINING=true ANSIBLE_PYTHON_INTERPRETER=$PY ANSIBLE_CALLBACK_RESULT_FORMAT=yaml
echo "ansible host test: $(ansible-playbook --version | sed -n 1p); modules on $PY; temp dirs $TMP $RUN"

extra=$(printf '{"perftune_tmp": "%s", "perftune_run": "%s", "perftune_pythonpath": "%s", "perftune_ld_library_path": "%s", "ansible_python_interpreter": "%s"}' \
	"$TMP" "$RUN" "$PYPATH" "$LDPATH" "$PY")
start=$(date +%s)
set +e
ansible-playbook -i localhost, -e "$extra" "$SRC/tests/host.yml" 2>&1 | tee "$TMP/play.log"
rc=${PIPESTATUS[0]}
set -e
echo "ansible-playbook: exit $rc after $(($(date +%s) - start)) s"
[ "$rc" = 0 ] || fail "ansible-playbook host.yml failed"
recap=$(grep -E '^localhost +:' "$TMP/play.log") || fail "no PLAY RECAP"
case $recap in
*" failed=0 "*) ;;
*) fail "failed tasks: $recap" ;;
esac
# the failing tasks were expected (bad value, out of range, kernel refusal,
# boolean, strict profile): exactly these five ran and were ignored
ignored=$(sed -n 's/.* ignored=\([0-9]*\).*/\1/p' <<<"$recap")
[ "$ignored" = 5 ] || fail "expected 5 ignored (expected) failures, got $ignored: $recap"

# nothing left behind: no journal, our loop devices detached
leftover=$(find "$RUN" -name '*.journal')
[ -z "$leftover" ] || fail "journals left behind: $leftover"
for f in "$TMP"/disk*.img; do
	[ -z "$(losetup -j "$f")" ] || fail "$f is still attached: $(losetup -j "$f")"
done
echo "ansible host test: ok"
