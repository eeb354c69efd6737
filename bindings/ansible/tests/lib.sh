# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the ansible suite's scripts: skip/fail, the ansible-core tools,
# and a private collection tree in which the collection is perftune.perftune.
# shellcheck shell=bash

skip() {
	if [ "${PERFTUNE_REQUIRE_ALL:-}" = 1 ]; then
		echo "FAIL: $* (PERFTUNE_REQUIRE_ALL=1: no skipping)" >&2
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# need_tools TOOL...: skip (or fail) unless every tool is on PATH
need_tools() {
	local p
	for p in "$@"; do
		command -v "$p" >/dev/null || skip "$p is missing (Debian: ansible-core)"
	done
}

# ansible_python: the interpreter that runs ansible-core itself (its shebang)
ansible_python() {
	local line words
	line=$(head -n 1 "$(command -v ansible-doc)")
	read -r -a words <<<"${line#\#!}"
	if [ "${words[0]##*/}" = env ]; then
		command -v "${words[1]}"
	else
		echo "${words[0]}"
	fi
}

# collection_tree DIR: DIR/ansible_collections/perftune/perftune is the
# collection (a symlink to the source); ansible finds nothing else.
collection_tree() {
	local dir=$1
	mkdir -p "$dir/collections/ansible_collections/perftune" "$dir/ansible-tmp"
	ln -s "$SRC" "$dir/collections/ansible_collections/perftune/perftune"
	: >"$dir/ansible.cfg" # no ansible.cfg of the working directory or of the user
	export ANSIBLE_CONFIG=$dir/ansible.cfg
	export ANSIBLE_COLLECTIONS_PATH=$dir/collections
	export ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false
	export ANSIBLE_LOCAL_TEMP=$dir/ansible-tmp ANSIBLE_REMOTE_TEMP=$dir/ansible-tmp
	export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_DEPRECATION_WARNINGS=false
	export ANSIBLE_HOME=$dir/ansible-home # not ~/.ansible
}

SRC=${PERFTUNE_ANSIBLE_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
