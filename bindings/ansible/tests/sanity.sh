#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The ansible suite, ansible-test sanity on a copy of the collection in
# ansible_collections/perftune/perftune, with the Python that runs
# ansible-core, locally (no containers), offline.
#
# Offline means the sanity tests that bring no requirements file: those that
# do (ansible-doc, import, pep8, pylint, validate-modules, yamllint, ...)
# build a virtualenv with pip's bootstrap script downloaded from Ansible's
# CI file server and their pinned requirements from PyPI, which a build must
# not depend on.  They are listed as not run; ansible-doc itself is the
# ansible-doc test, and the documentation/argument spec comparison is there.
# Exit 77 (meson: SKIP) when ansible-test is missing, 1 under
# PERFTUNE_REQUIRE_ALL=1.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

need_tools ansible-test ansible-doc
TMP=$(mktemp -d /tmp/perftune-ansible-sanity.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
collection_tree "$TMP"
APY=$(ansible_python)
PYV=$("$APY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
REQS=$("$APY" -c 'import ansible_test, os; print(os.path.join(os.path.dirname(ansible_test.__file__), "_data", "requirements"))')
[ -d "$REQS" ] || fail "no ansible-test requirements directory at $REQS"

# a real copy, not the symlink: ansible-test writes tests/output into it
DEST=$TMP/copy/ansible_collections/perftune/perftune
mkdir -p "$DEST"
(cd "$SRC" && tar --exclude=./tests/output -cf - .) | (cd "$DEST" && tar -xf -)

mapfile -t all < <(cd "$DEST" && ansible-test sanity --list-tests 2>/dev/null)
[ "${#all[@]}" -gt 10 ] || fail "ansible-test sanity --list-tests listed ${#all[@]} tests"
skipargs=() run=() notrun=()
for t in "${all[@]}"; do
	if [ -e "$REQS/sanity.$t.txt" ]; then
		skipargs+=(--skip-test "$t")
		notrun+=("$t")
	else
		run+=("$t")
	fi
done
echo "ansible-test sanity: $(ansible-test --version) with $APY ($PYV)"
echo "running (offline): ${run[*]}"
echo "not run (a virtualenv from PyPI): ${notrun[*]}"
# without shellcheck, ansible-test's shellcheck test only warns and passes
have_shellcheck=1
command -v shellcheck >/dev/null || {
	have_shellcheck=0
	echo "note: shellcheck is missing (Debian: shellcheck): tests/*.sh are not checked"
}
cd "$DEST"
set +e
ansible-test sanity --local --python "$PYV" --python-interpreter "$APY" --color no \
	"${skipargs[@]}" 2>&1 | grep -v '^WARNING: .*locale'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || fail "ansible-test sanity: exit $rc"
[ "$have_shellcheck" = 1 ] || [ "${PERFTUNE_REQUIRE_ALL:-}" != 1 ] ||
	fail "shellcheck is missing (Debian: shellcheck; PERFTUNE_REQUIRE_ALL=1)"
echo "ansible-test sanity: ok (${#run[@]} tests)"
