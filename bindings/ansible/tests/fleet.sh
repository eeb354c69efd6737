#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The ansible suite, fleet part: the shipped playbook verify_fleet.yml against
# an inventory of three hosts that are fake machine trees (the verify
# module's root option) plus localhost (the real machine, read only):
# host-a in force, host-b differs, host-c in force but a sysctl.d file there
# puts another value back.  The roll-up table is checked line by line, in
# normal and in check mode; the module's would_change is checked too.
# No root needed; nothing is written outside the temporary directory.
#
# Environment (meson): PERFTUNE_ANSIBLE_SRC, PERFTUNE_PYTHON,
# PERFTUNE_PYTHONPATH, PERFTUNE_LD_LIBRARY_PATH, PERFTUNE_NO_BINDING,
# PERFTUNE_MKROOT (tests/unit/mkroot.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

[ -z "${PERFTUNE_NO_BINDING:-}" ] || skip "the Python binding is not built (swig or the Python headers are missing)"
need_tools ansible-playbook
PY=$("${PERFTUNE_PYTHON:?}" -c 'import sys; print(sys.executable)')
TMP=$(mktemp -d /tmp/perftune-ansible-fleet.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
collection_tree "$TMP"
export ANSIBLE_PYTHON_INTERPRETER=$PY ANSIBLE_CALLBACK_RESULT_FORMAT=yaml
# the modules run as children of ansible-playbook (local connection): the built binding
export PYTHONPATH=${PERFTUNE_PYTHONPATH:?} LD_LIBRARY_PATH=${PERFTUNE_LD_LIBRARY_PATH:?}
export PERFTUNE_JOURNAL_DIR=$TMP/journal

for h in a b c; do
	bash "${PERFTUNE_MKROOT:?}" "$TMP/root-$h" >/dev/null
done
echo 10 >"$TMP/root-a/proc/sys/vm/swappiness"
echo 60 >"$TMP/root-b/proc/sys/vm/swappiness"
echo 10 >"$TMP/root-c/proc/sys/vm/swappiness"
mkdir -p "$TMP/root-c/etc/sysctl.d"
printf 'vm.swappiness = 60\n' >"$TMP/root-c/etc/sysctl.d/99-other.conf"
swap=$(cat /proc/sys/vm/swappiness)
cat >"$TMP/inventory.yml" <<INV
fleet:
  vars:
    ansible_connection: local
    perftune_tunables: {sysctl.vm.swappiness: 10, thp.enabled: madvise}
  hosts:
    host-a: {perftune_root: $TMP/root-a}
    host-b: {perftune_root: $TMP/root-b}
    host-c: {perftune_root: $TMP/root-c}
    localhost: {perftune_tunables: {sysctl.vm.swappiness: "$swap"}}
INV

run() { # run NAME [ansible-playbook options]: the table in $TMP/NAME.txt
	local name=$1
	shift
	ansible-playbook -i "$TMP/inventory.yml" "$@" -e "perftune_report=$TMP/$name.txt" \
		"$SRC/playbooks/verify_fleet.yml" >"$TMP/$name.log" 2>&1 || { cat "$TMP/$name.log"; fail "ansible-playbook ($name)"; }
	grep -q 'failed=0' "$TMP/$name.log" || { cat "$TMP/$name.log"; fail "$name: a task failed"; }
	echo "== $name"
	cat "$TMP/$name.txt"
	row() { grep -E "^$1 +" "$TMP/$name.txt" | tr -s ' '; }
	[ "$(row host-a)" = "host-a in force" ] || fail "$name: host-a: '$(row host-a)'"
	[ "$(row host-b)" = "host-b differs sysctl.vm.swappiness" ] || fail "$name: host-b: '$(row host-b)'"
	[ "$(row host-c)" = "host-c conflicting sysctl.vm.swappiness" ] || fail "$name: host-c: '$(row host-c)'"
	case $(row localhost) in
	"localhost in force" | "localhost conflicting "*) ;;
	*) fail "$name: localhost: '$(row localhost)'" ;;
	esac
	grep -Eq '^in force: [12], differ: 1, conflicting: [12], failed: 0$' "$TMP/$name.txt" ||
		fail "$name: summary: $(tail -n 1 "$TMP/$name.txt")"
}
run play
run check --check

# the module itself: would_change, sources with file:line, check mode alike
cat >"$TMP/module.yml" <<YML
- hosts: host-b:host-c
  gather_facts: false
  tasks:
    - perftune.perftune.verify:
        tunables: {sysctl.vm.swappiness: 10}
        root: "{{ perftune_root }}"
      register: v
    - ansible.builtin.assert:
        that:
          - not v.changed
          - v.would_change == (inventory_hostname == 'host-b')
          - v.settings[0].status == ('differs' if inventory_hostname == 'host-b' else 'in force')
          - inventory_hostname == 'host-b' or v.settings[0].sources[0].location == '/etc/sysctl.d/99-other.conf:1'
    - perftune.perftune.verify:
        profile: /nonexistent/profile
        root: "{{ perftune_root }}"
      register: missing
      ignore_errors: true
    - ansible.builtin.assert:
        that:
          - missing.failed
          - "'nonexistent' in missing.msg"
YML
for mode in "" --check; do
	ansible-playbook -i "$TMP/inventory.yml" $mode "$TMP/module.yml" >"$TMP/module.log" 2>&1 ||
		{ cat "$TMP/module.log"; fail "module.yml $mode"; }
done
# check mode predicts changed exactly: the tunables module in check mode (a
# dry run on the real machine, nothing written) says changed exactly when
# verify says would_change; needs root (the dry run checks writability).  On
# vm.stat_interval, which no test of this project changes (no race with the
# host tier, which may run meanwhile).
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/stat_interval ]; then
	stat=$(cat /proc/sys/vm/stat_interval)
	other=$((stat == 7 ? 8 : 7))
	cat >"$TMP/predict.yml" <<YML
- hosts: localhost
  gather_facts: false
  tasks:
    - perftune.perftune.verify:
        tunables: "{{ item }}"
      register: v
      loop: [{sysctl.vm.stat_interval: "$stat"}, {sysctl.vm.stat_interval: "$other"}]
    - perftune.perftune.tunables:
        name: fleet-predict
        tunables: "{{ item }}"
      check_mode: true
      register: t
      loop: [{sysctl.vm.stat_interval: "$stat"}, {sysctl.vm.stat_interval: "$other"}]
    - ansible.builtin.assert:
        that:
          - v.results | map(attribute='would_change') | list == [false, true]
          - t.results | map(attribute='changed') | list == [false, true]
YML
	ansible-playbook -i "$TMP/inventory.yml" "$TMP/predict.yml" >"$TMP/predict.log" 2>&1 ||
		{ cat "$TMP/predict.log"; fail "predict.yml"; }
	[ "$(cat /proc/sys/vm/stat_interval)" = "$stat" ] || fail "check mode changed vm.stat_interval"
	echo "check mode predicts changed: ok"
else
	echo "not root (or no vm.stat_interval): the comparison with the tunables module's check mode is left out"
fi
echo "ansible fleet test: ok"
