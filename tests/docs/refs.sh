#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The repository's files send readers only to what the repository holds: the
# design notes are doc/design.md (not a design file in some shared folder), and
# the shipped profiles cite the public sources of their figures by title and
# author or publisher, each [Label] they use defined in their "Sources" block,
# never by an opaque file name of a local collection.
set -euo pipefail
: "${SRCDIR:?set by meson}"
FAIL=0
fail() { echo "FAIL: $*" >&2; FAIL=1; }
cd "$SRCDIR"

# the files of the repository (git's view when it is a checkout), this one aside
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -d '' files < <(git ls-files -z --cached --others --exclude-standard)
else
	mapfile -d '' files < <(find . -path ./.git -prune -o -path './build*' -prune -o -path './obj-*' -prune \
		-o -type f -print0)
fi
list=()
for f in "${files[@]}"; do
	f=${f#./}
	[ -f "$f" ] && [ "$f" != tests/docs/refs.sh ] && list+=("$f")
done
[ ${#list[@]} -gt 50 ] || fail "only ${#list[@]} files found in $SRCDIR"

# references to documents outside the repository
pattern='DESIGN[.]md|[0-9]{3}_[0-9a-f]{16}\.txt|shared design notes|se[e]ds? (files?|director)|\.\./shared/'
if hits=$(grep -nIE "$pattern" "${list[@]}"); then
	fail "references to documents outside the repository:"
	echo "$hits" >&2
fi
[ -s doc/design.md ] || fail "doc/design.md is missing"
for s in "Key namespace" "Layers" "Transactions and the journal" "Test tiers"; do
	grep -q "^## [0-9]*\. $s" doc/design.md || fail "doc/design.md has no section '$s'"
done

# each profile: a Sources block defines every [Label] its comments cite
for p in profiles/*/tuned.conf; do
	defined=$(sed -n '/^# Sources, cited by the name in brackets:/,/^[^#]/s/^#   \[\([A-Za-z0-9]*\)\].*/\1/p' "$p" | sort -u)
	used=$(grep '^#' "$p" | grep -oE '\[[A-Z][A-Za-z0-9]*\]' | tr -d '[]' | sort -u)
	for l in $used; do
		grep -qx "$l" <<<"$defined" || fail "$p cites [$l] without a Sources entry for it"
	done
	if grep -qE '[0-9]+(\.[0-9]+)?(%|x|×) ' "$p" && [ -z "$used" ]; then
		fail "$p quotes figures but cites no source"
	fi
done
[ $FAIL = 0 ] && echo "ok: no reference to a document outside the repository; profiles cite their sources"
exit $FAIL
