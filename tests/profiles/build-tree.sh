#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The build tree's perftune finds the shipped profiles by name before they are
# installed (build/utils/perftune.uninstalled, utils/perftune.c), first on the
# library's default path; $PERFTUNE_PROFILE_PATH wins; a copy of the binary
# elsewhere (as installed) keeps the default path.  On the fake machine: any user.
. "$(dirname "$0")/lib.sh"
unset PERFTUNE_PROFILE_PATH
shipped="database latency ssd throughput throughput-guest"
# the library's default path (lib/profile/path.c), with this build's datadir
pdir=$(sed -n 's/^#define PERFTUNE_PROFILES_DIR "\(.*\)"$/\1/p' "${BUILDDIR:?}/config.h")
default_path="/etc/perftune/profiles:/usr/lib/perftune/profiles:$pdir:/etc/tuned:/usr/lib/tuned"
fake_root "$TMP/root"

# the search path a "not found" error names
path_of() { { "$@" apply --dry-run no-such-profile 2>&1 || true; } | sed -n "s/.*profile 'no-such-profile' not found in //p"; }

got=$(path_of "$PERFTUNE")
[ "$got" = "$SRCDIR/profiles:$default_path" ] ||
	fail "build tree's profile path: '$got', want $SRCDIR/profiles first, then the library's default"

"$PERFTUNE" list-profiles --json >"$TMP/list.json" || fail "list-profiles exits $?"
for p in $shipped; do
	[ "$(json "$TMP/list.json" "[e['path'] for e in d if e['name'] == '$p'][0]")" = \
		"$SRCDIR/profiles/$p/tuned.conf" ] || fail "list-profiles: $p is not the source tree's"
done

# a shipped profile's dry run by name, old -> new lines, nothing written
tree_sum "$TMP/root" >"$TMP/before"
out=$("$PERFTUNE" --root "$TMP/root" apply --dry-run database 2>&1) || fail "apply --dry-run database: $out"
grep -q '^sysctl.vm.swappiness: 60 -> 1$' <<<"$out" || fail "no old -> new line in: $out"
tree_sum "$TMP/root" | cmp -s - "$TMP/before" || fail "the dry run wrote"

# $PERFTUNE_PROFILE_PATH wins
mkdir "$TMP/empty"
got=$(PERFTUNE_PROFILE_PATH=$TMP/empty path_of "$PERFTUNE")
[ "$got" = "$TMP/empty" ] || fail "with \$PERFTUNE_PROFILE_PATH: '$got'"

# a copy of the binary outside the build tree (as installed): the default path only
mkdir "$TMP/bin"
cp "$PERFTUNE" "$TMP/bin/perftune"
got=$(LD_LIBRARY_PATH=$BUILDDIR/lib path_of "$TMP/bin/perftune")
case $got in
"$SRCDIR"* | *":$SRCDIR"*) fail "a copy outside the build tree searches the source tree: $got" ;;
"") fail "the copy outside the build tree did not run" ;;
esac
echo "ok: the build tree finds $shipped; \$PERFTUNE_PROFILE_PATH wins; a copy elsewhere does not"
