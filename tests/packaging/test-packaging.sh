#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# test-packaging.sh SRCDIR [BUILDDIR] — build the Debian packages and the RPMs
# of the tree in SRCDIR out of tree, and check them:
#   1. copy the tree (git's view of it: tracked and untracked files, not
#      ignored ones such as build/) to a temporary directory, and tar it for rpm;
#   2. dpkg-buildpackage -us -uc -b there (no symbols-file drift allowed);
#   3. lintian: 0 errors;  the .debs contain what they should;
#   4. install the .debs on this machine (dpkg -i), then check: perftune runs,
#      python3 imports perftune, importlib.metadata and pip see its dist-info
#      (pip show, pip list, a requirement on perftune in a venv made with
#      --system-site-packages), a C program builds with
#      `pkg-config --cflags --libs libperftune` against the installed files and
#      runs, only perftune_* symbols are exported (also from BUILDDIR's
#      library), the unit file verifies, `--hold` rolls back on SIGTERM;
#   5. purge them, and check that nothing is left (packages, files, dirs);
#   6. rpmbuild -bb --nodeps rhel.spec with tests/packaging/rhel-macros, and
#      check each RPM's file list (rpm -qlp).
#
# Needs root (it installs packages).  Skips (exit 77) with a reason when not
# root or when the packaging tools are missing, unless PERFTUNE_REQUIRE_ALL is
# set (CI), which makes that a failure.  Refuses to run if any of the packages
# or their files are already on the machine: it would remove them.
set -uo pipefail

SRC=$(cd "${1:?usage: test-packaging.sh SRCDIR [BUILDDIR]}" && pwd)
BUILD=${2:-}
PKGS=(libperftune1 libperftune-dev perftune python3-perftune dh-perftune)
RPMS=(libperftune libperftune-devel perftune python3-perftune)
SAFE_PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin   # no pyenv & co: the system python3
START=$SECONDS
FAILED=0
INSTALLED=0
HOLD_PID=
WORK=

say() { printf '%s\n' "$*"; }
step() { printf '\n=== [%3ds] %s\n' $((SECONDS - START)) "$*"; }
fail() { say "FAIL: $*"; FAILED=$((FAILED + 1)); }
ok() { say "ok: $*"; }
die() { say "FAIL: $*"; exit 1; }
skip() {
	if [ -n "${PERFTUNE_REQUIRE_ALL:-}" ]; then
		die "$* (PERFTUNE_REQUIRE_ALL is set)"
	fi
	say "SKIP: $*"
	exit 77
}
# a clean environment for builds and for what runs the installed files
clean_env() {
	env -i PATH="$SAFE_PATH" HOME="$WORK/home" LC_ALL=C.UTF-8 TERM=dumb "$@"
}

# ---------------------------------------------------------------- preflight
[ "$(id -u)" = 0 ] || skip "packaging: not root (the test installs and purges .deb packages)"
command -v dpkg-buildpackage >/dev/null || skip "packaging: dpkg-buildpackage not installed (apt-get install dpkg-dev debhelper)"
missing=()
for t in dh dh_python3 lintian rpmbuild rpm pkg-config cc nm readelf fakeroot; do
	PATH=$SAFE_PATH command -v "$t" >/dev/null || missing+=("$t")
done
[ ${#missing[@]} -eq 0 ] || skip "packaging: missing tools: ${missing[*]} (see .ci/apt-packages)"
PATH=$SAFE_PATH python3 -m pip --version >/dev/null 2>&1 || skip "packaging: python3 -m pip does not run (apt-get install python3-pip)"
if ! unmet=$(cd "$SRC" && dpkg-checkbuilddeps -B -Pnocheck 2>&1); then
	skip "packaging: build dependencies missing: ${unmet#*: }"
fi

MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
VERSION=$(sed -n "s/^ *version: *'\([^']*\)'.*/\1/p" "$SRC/meson.build" | head -1)
DEBVERSION=$(cd "$SRC" && dpkg-parsechangelog -SVersion)
SPECVERSION=$(sed -n 's/^Version: *//p' "$SRC/rhel.spec")
[ "${DEBVERSION%-*}" = "$VERSION" ] || die "debian/changelog has $DEBVERSION, meson.build $VERSION"
[ "$SPECVERSION" = "$VERSION" ] || die "rhel.spec has $SPECVERSION, meson.build $VERSION"

# never replace what someone installed: the purge at the end would remove it
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) || continue
	[ "${st:1:1}" = n ] || skip "packaging: $p is already installed ($st); not touching it"
done
for f in /usr/sbin/perftune /usr/include/perftune.h /usr/lib/$MA/libperftune.so.1 \
	/usr/lib/$MA/pkgconfig/libperftune.pc /usr/share/perftune /lib/systemd/system/perftune@.service \
	/usr/lib/python3/dist-packages/perftune /usr/lib/python3/dist-packages/perftune-*.dist-info; do
	[ -e "$f" ] && skip "packaging: $f exists (a 'meson install' to /usr?); not overwriting it"
done

WORK=$(mktemp -d /var/tmp/perftune-packaging.XXXXXX) || die "mktemp"
mkdir -p "$WORK/home"
dpkg-query -W -f='${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\n' | sort > "$WORK/dpkg-before"
RUN_PERFTUNE_EXISTED=$([ -e /run/perftune ] && echo 1 || echo 0)

cleanup() {
	local rc=$?
	if [ -n "$HOLD_PID" ]; then   # a holder still running rolls back on SIGTERM
		kill -TERM "$HOLD_PID" 2>/dev/null && wait "$HOLD_PID" 2>/dev/null
	fi
	if [ "$INSTALLED" = 1 ]; then
		say "cleanup: purging ${PKGS[*]}"
		dpkg --purge "${PKGS[@]}" >/dev/null 2>&1
	fi
	# the instance enabled before the purge, should the prerm have left it
	rm -f /etc/systemd/system/*.wants/perftune@pkgtest.service
	[ -n "$WORK" ] && rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- source copy
step "copy of the source tree in $WORK"
mkdir -p "$WORK/src" "$WORK/rpm/SOURCES"
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# tracked and new files as they are in the work tree, not the ignored ones
	(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
		done | tar --null -T - -cf -) | tar -xf - -C "$WORK/src" || die "copying the tree"
else
	tar -C "$SRC" --exclude='./build*' --exclude='./obj-*' -cf - . | tar -xf - -C "$WORK/src" || die "copying the tree"
fi
# leftovers of an in-tree dpkg-buildpackage, if any
(cd "$WORK/src" && rm -rf obj-* debian/tmp debian/.debhelper debian/files debian/*.substvars \
	debian/debhelper-build-stamp "${PKGS[@]/#/debian/}")
tar -C "$WORK/src" --transform "s,^\.,libperftune-$VERSION," \
	-czf "$WORK/rpm/SOURCES/libperftune-$VERSION.tar.gz" . || die "source tarball"
say "$(find "$WORK/src" -type f | wc -l) files, rpm source $(du -h "$WORK/rpm/SOURCES/libperftune-$VERSION.tar.gz" | cut -f1)"

# ---------------------------------------------------------------- .deb build
step "dpkg-buildpackage -us -uc -b"
# symbols file in step with the version script (a clearer message than dpkg-gensymbols')
grep -oE '^[[:space:]]*perftune_[a-z0-9_]+;' "$SRC/lib/libperftune.sym" | tr -d ' \t;' | sort > "$WORK/sym-script"
sed -n 's/^ \(perftune_[a-z0-9_]*\)@LIBPERFTUNE_[0-9]* .*/\1/p' "$SRC/debian/libperftune1.symbols" | sort > "$WORK/sym-debian"
diff -u "$WORK/sym-script" "$WORK/sym-debian" > "$WORK/sym-diff" &&
	ok "debian/libperftune1.symbols lists the $(wc -l < "$WORK/sym-script") symbols of lib/libperftune.sym" ||
	fail "debian/libperftune1.symbols differs from lib/libperftune.sym: add ' perftune_NAME@LIBPERFTUNE_N VERSION' for each symbol (VERSION: the first upstream version that has it; after a release new symbols go into a new node):
$(cat "$WORK/sym-diff")"
# A decoy python3 first in PATH, as a venv or pyenv puts one: a wrapper of the
# system's without Debian's install scheme, so that a build that took it would
# install the binding in /usr/local/lib/python3.X/dist-packages (and fail in
# dh_install).  debian/rules must pick /usr/bin/python3 whatever the PATH.
mkdir -p "$WORK/decoy/bin" "$WORK/decoy/site"
cat > "$WORK/decoy/site/sitecustomize.py" <<'PY'
import sysconfig, warnings
_names = sysconfig.get_scheme_names
sysconfig.get_scheme_names = lambda: tuple(n for n in _names() if n != "deb_system")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        import distutils.command.install as _i
        _i.INSTALL_SCHEMES.pop("deb_system", None)
    except ImportError:
        pass
PY
printf '#!/bin/sh\nPYTHONPATH=%s exec /usr/bin/python3 "$@"\n' "$WORK/decoy/site" > "$WORK/decoy/bin/python3"
chmod 755 "$WORK/decoy/bin/python3"
decoy_dir=$(PATH="$WORK/decoy/bin:$SAFE_PATH" python3 -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
case $decoy_dir in
/usr/lib/python3/dist-packages) die "the decoy python3 would install in Debian's dist-packages: not a decoy" ;;
esac
say "decoy python3 first in PATH: $WORK/decoy/bin/python3 (installs in $decoy_dir)"
if ! (cd "$WORK/src" && clean_env PATH="$WORK/decoy/bin:$SAFE_PATH" \
		DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
		dpkg-buildpackage -us -uc -b -Pnocheck) > "$WORK/deb-build.log" 2>&1; then
	tail -n 60 "$WORK/deb-build.log"
	die "dpkg-buildpackage failed (log above)"
fi
ok "dpkg-buildpackage ($((SECONDS - START))s so far)"
if grep -E 'dpkg-gensymbols: (warning|error)|dpkg-shlibdeps: (warning|error)|dh_[a-z_]+: (warning|error)' \
		"$WORK/deb-build.log"; then
	fail "warnings in the package build (above)"
fi
debs=()
for p in "${PKGS[@]}"; do
	d=$(ls "$WORK"/${p}_"$DEBVERSION"_*.deb 2>/dev/null | head -1)
	[ -n "$d" ] && debs+=("$d") || fail "no .deb for $p"
done
[ ${#debs[@]} -eq ${#PKGS[@]} ] || die "packages missing"

# ---------------------------------------------------------------- lintian
step "lintian"
clean_env lintian --info --show-overrides --no-tag-display-limit "$WORK"/libperftune_"$DEBVERSION"_*.changes > "$WORK/lintian.log" 2>&1
grep -E '^[EWIO]: ' "$WORK/lintian.log"
nerr=$(grep -c '^E: ' "$WORK/lintian.log")
nwarn=$(grep -c '^W: ' "$WORK/lintian.log")
say "lintian: $nerr errors, $nwarn warnings"
[ "$nerr" = 0 ] || fail "lintian reports $nerr errors"
# the prerm's systemctl calls (list the instances, disable each by name) are
# overridden with the reason in debian/perftune.lintian-overrides: no other
# script may call systemctl unnoticed
if grep -q '^W: .*maintainer-script-calls-systemctl' "$WORK/lintian.log"; then
	fail "lintian: a maintainer script calls systemctl without an override"
fi
if grep '^O: .*maintainer-script-calls-systemctl' "$WORK/lintian.log" |
	grep -v '\[prerm:' >/dev/null; then
	fail "lintian: the systemctl override covers a script other than perftune's prerm"
fi

# ---------------------------------------------------------------- .deb contents
step ".deb contents"
deb_has() { # PACKAGE PATH-REGEX WHAT
	local list
	list=$(dpkg -c "$WORK/${1}_${DEBVERSION}_"*.deb | awk '{print $6}')
	if grep -qE "^\./$2\$" <<< "$list"; then
		ok "$1: $3"
	else
		fail "$1 lacks $3 ($2)"
	fi
}
deb_has libperftune1 "usr/lib/$MA/libperftune\.so\.1" "the soname link"
deb_has libperftune1 "usr/lib/$MA/libperftune\.so\.1\.[0-9.]+" "the library"
deb_has libperftune-dev usr/include/perftune.h "the header"
deb_has libperftune-dev "usr/lib/$MA/libperftune\.so" "the .so link"
deb_has libperftune-dev "usr/lib/$MA/pkgconfig/libperftune\.pc" "the pkg-config file"
deb_has perftune usr/sbin/perftune "the CLI"
deb_has perftune 'lib/systemd/system/perftune@\.service' "the systemd unit"
deb_has perftune 'lib/systemd/system/perftune-metrics\.timer' "the Prometheus metrics timer"
deb_has perftune 'lib/systemd/system/perftune-metrics\.service' "the Prometheus metrics service"
deb_has perftune 'usr/lib/rpm/macros\.d/macros\.perftune' "the RPM macros for other packages (as systemd ships its own)"
deb_has perftune 'usr/lib/perftune/profiles/' "the vendor profile directory"
deb_has dh-perftune usr/bin/dh_perftune "dh_perftune"
deb_has dh-perftune 'usr/share/man/man1/dh_perftune\.1\.gz' "dh_perftune(1)"
deb_has dh-perftune usr/share/perl5/Debian/Debhelper/Sequence/perftune.pm "the dh-sequence-perftune add-on"
for s in postinst prerm postrm; do
	deb_has dh-perftune "usr/share/debhelper/autoscripts/$s-perftune" "the $s snippet"
done
deb_has python3-perftune "usr/lib/python3/dist-packages/perftune/__init__\.py" "the Python package"
deb_has python3-perftune "usr/lib/python3/dist-packages/perftune/_perftune\..*so" "the SWIG extension"
deb_has python3-perftune "usr/lib/python3/dist-packages/perftune-$VERSION\.dist-info/METADATA" "the package metadata (dist-info)"
# built by Debian's python3, not by the decoy first in PATH
if dpkg -c "$WORK/python3-perftune_${DEBVERSION}_"*.deb | grep -E '\./usr/local/|site-packages|python3\.[0-9]+/dist-packages'; then
	fail "python3-perftune: files where the decoy python3 installs (above)"
else
	ok "python3-perftune: built for /usr/bin/python3, with a decoy python3 first in PATH"
fi
grep -q 'python3 found: YES (/usr/bin/python3)' "$WORK/deb-build.log" &&
	ok "meson found /usr/bin/python3" || fail "meson did not find /usr/bin/python3: $(grep 'python3 found' "$WORK/deb-build.log")"
# the parts that come with doc/, completion/ and profiles/
if [ -e "$SRC/doc/meson.build" ]; then
	deb_has libperftune-dev 'usr/share/man/man3/libperftune\.3\.gz' "libperftune(3)"
	deb_has perftune 'usr/share/man/man8/perftune\.8\.gz' "perftune(8)"
	deb_has perftune 'usr/share/man/man5/perftune-profile\.5\.gz' "perftune-profile(5)"
	deb_has perftune 'usr/share/man/man7/perftune-packaging\.7\.gz' "perftune-packaging(7)"
else
	say "NOTE: no doc/meson.build yet: man pages not checked"
fi
if [ -d "$SRC/completion" ]; then
	deb_has perftune 'usr/share/bash-completion/completions/perftune' "the bash completion"
else
	say "NOTE: no completion/ yet: bash completion not checked"
fi
if ls "$SRC"/profiles/* >/dev/null 2>&1; then
	deb_has perftune 'usr/share/perftune/profiles/.+' "the profiles"
else
	say "NOTE: no profiles/ yet: profiles not checked"
fi
# gnuplot serves compare --plot only: suggested, never pulled into an install
f=$(ls "$WORK/perftune_${DEBVERSION}_"*.deb)
if [[ "$(dpkg-deb -f "$f" Suggests)" == *gnuplot* ]] && [[ "$(dpkg-deb -f "$f" Depends Recommends)" != *gnuplot* ]]; then
	ok "perftune: gnuplot suggested, not recommended"
else
	fail "perftune: gnuplot must be in Suggests only: $(dpkg-deb -f "$f" Depends Recommends Suggests)"
fi
for d in "${debs[@]}"; do
	say "--- dpkg -c $(basename "$d")  [$(dpkg-deb -f "$d" Depends)]"
	dpkg -c "$d" | awk '$1 !~ /^d/ {print "   " $6, $7, $8}'
done

# ---------------------------------------------------------------- install
step "dpkg -i ${PKGS[*]}"
INSTALLED=1
if ! dpkg -i "${debs[@]}" > "$WORK/dpkg-i.log" 2>&1; then
	cat "$WORK/dpkg-i.log"
	die "dpkg -i failed"
fi
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p")
	[ "$st" = "ii " ] && ok "$p installed" || fail "$p: status '$st'"
done

step "the installed files work"
out=$(clean_env perftune --version 2>&1) && [[ "$out" == *"$VERSION"* ]] &&
	ok "perftune --version: $out" || fail "perftune --version: $out"
n=$(clean_env perftune list 2>"$WORK/list.err" | wc -l)
[ "$n" -gt 0 ] && ok "perftune list: $n tunables" || fail "perftune list: nothing ($(cat "$WORK/list.err"))"
v=$(clean_env perftune get sysctl.vm.stat_interval 2>&1)
[ "$v" = "$(cat /proc/sys/vm/stat_interval)" ] &&
	ok "perftune get sysctl.vm.stat_interval: $v" || fail "perftune get sysctl.vm.stat_interval: $v"
if ls /usr/share/perftune/profiles/* >/dev/null 2>&1; then
	out=$(clean_env perftune list-profiles 2>&1) && [ -n "$out" ] &&
		ok "perftune list-profiles: $(echo $out | head -c 200)" || fail "perftune list-profiles: $out"
fi

out=$(cd / && clean_env python3 -c 'import perftune, sys; print(perftune.__file__, perftune._perftune.__file__)' 2>&1)
[[ "$out" == /usr/lib/python3/dist-packages/perftune/* ]] &&
	ok "python3 -c 'import perftune': $out" || fail "python3 -c 'import perftune': $out"
# the dist-info: importlib.metadata, pip, and a pip requirement on perftune
out=$(cd / && clean_env python3 -c 'import importlib.metadata as m; print(m.version("perftune"))' 2>&1)
[ "$out" = "$VERSION" ] && ok "importlib.metadata.version('perftune'): $out" ||
	fail "importlib.metadata.version('perftune'): $out (want $VERSION)"
out=$(cd / && clean_env python3 -m pip show perftune 2>&1)
grep -qx "Version: $VERSION" <<< "$out" && grep -qx "Location: /usr/lib/python3/dist-packages" <<< "$out" &&
	ok "pip show perftune: $(grep -E '^(Version|Location):' <<< "$out" | tr '\n' ' ')" || fail "pip show perftune: $out"
out=$(cd / && clean_env python3 -m pip list --format=freeze 2>&1)
grep -qx "perftune==$VERSION" <<< "$out" && ok "pip list: perftune==$VERSION" || fail "pip list has no perftune==$VERSION: $out"
# a venv on the system's site-packages, without a pip of its own: a requirement
# on perftune is met by the .deb, offline
clean_env python3 -m venv --system-site-packages --without-pip "$WORK/venv" ||
	fail "python3 -m venv --system-site-packages --without-pip"
out=$(cd / && clean_env PIP_CONFIG_FILE=/dev/null "$WORK/venv/bin/python" -m pip install --no-index "perftune==$VERSION" 2>&1)
[[ "$out" == *"Requirement already satisfied: perftune==$VERSION in /usr/lib/python3/dist-packages"* ]] &&
	ok "pip install --no-index perftune==$VERSION in a venv: already satisfied by the .deb" ||
	fail "pip install --no-index perftune==$VERSION in a venv: $out"

# a C program against the installed header, .pc and library
mkdir -p "$WORK/c"
cat > "$WORK/c/t.c" <<'EOF'
#include <perftune.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	struct perftune_ctx *ctx;
	char *v = NULL;
	int r;

	printf("%s\n", perftune_version());
	r = perftune_ctx_new(&ctx);
	if (r < 0) {
		fprintf(stderr, "perftune_ctx_new: %s\n", strerror(-r));
		return 1;
	}
	r = perftune_get(ctx, "sysctl.vm.swappiness", &v);
	if (r < 0) {
		fprintf(stderr, "perftune_get: %s\n", perftune_ctx_last_error(ctx));
		return 1;
	}
	printf("%s\n", v);
	free(v);
	perftune_ctx_unref(ctx);
	return 0;
}
EOF
pc=$(clean_env pkg-config --cflags --libs libperftune 2>&1) || fail "pkg-config --cflags --libs libperftune: $pc"
say "pkg-config --cflags --libs libperftune: $pc"
[ "$(clean_env pkg-config --modversion libperftune)" = "$VERSION" ] || fail "pkg-config --modversion is not $VERSION"
[ "$(clean_env pkg-config --variable=libdir libperftune)" = "/usr/lib/$MA" ] || fail "pkg-config libdir is not /usr/lib/$MA"
static=$(clean_env pkg-config --static --libs libperftune 2>&1)
say "pkg-config --static --libs libperftune: $static"
if [[ "$(readelf -d "/usr/lib/$MA/libperftune.so.1")" == *libcpupower* ]]; then
	[[ " $static " == *" -lcpupower "* ]] || fail "libperftune.pc: Libs.private lacks -lcpupower"
fi
if (cd "$WORK/c" && clean_env sh -c "cc -Wall -Wextra -Werror -o t t.c $pc") 2>&1; then
	sw1=$(cat /proc/sys/vm/swappiness)
	out=$(clean_env "$WORK/c/t" 2>&1)
	sw2=$(cat /proc/sys/vm/swappiness)
	lib=$(clean_env ldd "$WORK/c/t" | awk '/libperftune/ {print $3}')
	if { [ "$out" = "$VERSION"$'\n'"$sw1" ] || [ "$out" = "$VERSION"$'\n'"$sw2" ]; } &&
		[[ "$lib" == */lib/$MA/libperftune.so.1 ]]; then
		ok "C program built with pkg-config, linked to $lib, printed: $(echo $out)"
	else
		fail "C program: printed '$out', linked to '$lib'"
	fi
else
	fail "C program does not compile/link with: cc t.c $pc"
fi

# exports: perftune_* only, each in a LIBPERFTUNE_N node, exactly the version script's
check_exports() { # LIBRARY
	local lib=$1 bad
	nm -D --defined-only "$lib" | awk '{print $3}' > "$WORK/exports"
	bad=$(grep -vE '^(perftune_[a-z0-9_]+@@LIBPERFTUNE_[0-9]+|LIBPERFTUNE_[0-9]+(@@LIBPERFTUNE_[0-9]+)?)$' "$WORK/exports")
	if [ -n "$bad" ]; then
		fail "$lib exports more than perftune_*@@LIBPERFTUNE_N: $(echo $bad)"
		return
	fi
	sed -n 's/@@LIBPERFTUNE_[0-9]*$//p' "$WORK/exports" | grep '^perftune_' | sort > "$WORK/exports-names"
	if ! diff -u "$WORK/sym-script" "$WORK/exports-names"; then
		fail "$lib: exports differ from lib/libperftune.sym (diff above)"
		return
	fi
	[[ "$(readelf -d "$lib")" == *"Library soname: [libperftune.so.1]"* ]] || { fail "$lib: soname is not libperftune.so.1"; return; }
	ok "$lib: soname libperftune.so.1, exports the $(wc -l < "$WORK/exports-names") perftune_* symbols of lib/libperftune.sym ($(grep -c '^LIBPERFTUNE' "$WORK/exports") version node(s)) and nothing else"
}
check_exports "/usr/lib/$MA/libperftune.so.1"
if [ -n "$BUILD" ] && [ -e "$BUILD/lib/libperftune.so.1" ]; then
	check_exports "$BUILD/lib/libperftune.so.1"
fi

# the unit: systemd's own checks (the manager need not run), then what the
# unit relies on, --hold rolling back on SIGTERM, with the CLI it starts
unit=/lib/systemd/system/perftune@.service
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$WORK/unit"
	cp "$unit" "$WORK/unit/perftune@balanced.service"
	if out=$(clean_env systemd-analyze verify --man=no "$WORK/unit/perftune@balanced.service" 2>&1); then
		ok "systemd-analyze verify perftune@balanced.service"
	else
		fail "systemd-analyze verify: $out"
	fi
	if out=$(clean_env systemd-analyze verify --man=no /lib/systemd/system/perftune-metrics.service \
		/lib/systemd/system/perftune-metrics.timer 2>&1); then
		ok "systemd-analyze verify perftune-metrics.service perftune-metrics.timer"
	else
		fail "systemd-analyze verify perftune-metrics: $out"
	fi
else
	say "NOTE: systemd-analyze not installed: unit not verified"
fi
grep -q '^ExecStart=/usr/sbin/perftune apply --hold --name %i %i$' "$unit" &&
	grep -q '^KillSignal=SIGTERM$' "$unit" && grep -q '^RuntimeDirectoryPreserve=yes$' "$unit" &&
	ok "unit: apply --hold, SIGTERM, /run/perftune preserved" || fail "unit lacks ExecStart/KillSignal/RuntimeDirectoryPreserve"
# vm.stat_interval (seconds between vmstat updates): harmless for a second,
# and no other test tier touches it
knob=/proc/sys/vm/stat_interval
hold_test() { # DESCRIPTION COMMAND... (transaction pkgtest, setting vm.stat_interval to $new)
	local what=$1 pid i now rc
	shift
	# perftune itself in the background (no subshell in between): $! is the holder
	env -i PATH="$SAFE_PATH" HOME="$WORK/home" LC_ALL=C.UTF-8 PERFTUNE_JOURNAL_DIR="$WORK/journal" \
		PERFTUNE_PROFILE_PATH="$WORK/profiles" "$@" > "$WORK/hold.log" 2>&1 &
	pid=$!
	HOLD_PID=$pid
	for i in $(seq 600); do # up to 60 s: a loaded machine
		grep -q '^holding' "$WORK/hold.log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	now=$(cat $knob)
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	HOLD_PID=
	if [ "$now" = "$new" ] && [ "$rc" = 0 ] && [ "$(cat $knob)" = "$orig" ] &&
		[ ! -e "$WORK/journal/pkgtest.journal" ]; then
		ok "$what: held vm.stat_interval=$new, SIGTERM restored $orig, exit 0, journal gone"
	else
		fail "$what: held '$now' (want $new), exit $rc, now $(cat $knob) (want $orig): $(cat "$WORK/hold.log")"
		echo "$orig" > $knob
	fi
}
orig=$(cat $knob)
new=$(( orig == 2 ? 3 : 2 ))
hold_test "perftune set --hold" perftune set --hold --name pkgtest "sysctl.vm.stat_interval=$new"
# the holder killed (SIGKILL, OOM): the journal stays, ExecStopPost restores it
poststop=$(sed -n 's/^ExecStopPost=-//p' "$unit" | sed 's/%i/pkgtest/g')
env -i PATH="$SAFE_PATH" HOME="$WORK/home" LC_ALL=C.UTF-8 PERFTUNE_JOURNAL_DIR="$WORK/journal" \
	perftune set --hold --name pkgtest "sysctl.vm.stat_interval=$new" > "$WORK/hold.log" 2>&1 &
HOLD_PID=$!
for i in $(seq 600); do # up to 60 s: a loaded machine
	grep -q '^holding' "$WORK/hold.log" && break
	sleep 0.1
done
kill -KILL "$HOLD_PID"
wait "$HOLD_PID" 2>/dev/null
HOLD_PID=
killed=$(cat $knob)
# shellcheck disable=SC2086
out=$(env -i PATH="$SAFE_PATH" HOME="$WORK/home" LC_ALL=C.UTF-8 PERFTUNE_JOURNAL_DIR="$WORK/journal" $poststop 2>&1)
if [ "$killed" = "$new" ] && [ "$(cat $knob)" = "$orig" ] && [ ! -e "$WORK/journal/pkgtest.journal" ]; then
	ok "holder SIGKILLed: value stayed $new, ExecStopPost '$poststop' restored $orig"
else
	fail "after SIGKILL: $killed (want $new); after '$poststop': $(cat $knob) (want $orig): $out"
	echo "$orig" > $knob
fi
if clean_env perftune apply --help >/dev/null 2>&1; then
	# the unit's ExecStart for perftune@pkgtest.service, the profile on the search path
	mkdir -p "$WORK/profiles/pkgtest"
	printf '[main]\nsummary=packaging test\n\n[sysctl]\nvm.stat_interval=%s\n' "$new" \
		> "$WORK/profiles/pkgtest/tuned.conf"
	execstart=$(sed -n 's/^ExecStart=//p' "$unit" | sed 's/%i/pkgtest/g')
	# shellcheck disable=SC2086  # split like systemd does (no quotes in it)
	hold_test "ExecStart of perftune@pkgtest.service: $execstart" $execstart
else
	say "NOTE: 'perftune apply' does not exist yet: the unit's ExecStart was not run"
fi

# the installed debhelper add-on: a package that build-depends on
# dh-sequence-perftune gets dh_perftune in its sequence, its profile in
# /usr/lib/perftune/profiles and the snippets in its maintainer scripts (built,
# not installed: its postinst would apply the profile to this machine)
step "a package built with dh-sequence-perftune"
E=$WORK/example
mkdir -p "$E/debian/source"
printf '%s\n' 'Source: perftune-example-db' 'Section: admin' 'Priority: optional' \
	'Maintainer: nobody <nobody@example.org>' \
	'Build-Depends: debhelper-compat (= 13), dh-sequence-perftune' 'Rules-Requires-Root: no' '' \
	'Package: perftune-example-db' 'Architecture: all' 'Depends: ${misc:Depends}' \
	'Description: example of a package with a perftune profile' ' never shipped' > "$E/debian/control"
printf '%s\n' 'perftune-example-db (1.0-1) unstable; urgency=medium' '' '  * Example.' '' \
	' -- nobody <nobody@example.org>  Sat, 28 Nov 2026 00:00:00 +0000' > "$E/debian/changelog"
printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' > "$E/debian/rules"
chmod 755 "$E/debian/rules"
echo '3.0 (native)' > "$E/debian/source/format"
printf '[main]\nsummary=example\n\n[sysctl]\nvm.stat_interval=2\n' > "$E/debian/perftune-example-db.perftune"
if (cd "$E" && clean_env dh binary --no-act) 2>&1 | grep -qx '   dh_perftune'; then
	ok "dh binary --no-act runs dh_perftune"
else
	fail "dh binary --no-act: no dh_perftune: $(cd "$E" && clean_env dh binary --no-act 2>&1 | tr '\n' ' ')"
fi
if (cd "$E" && clean_env dpkg-buildpackage -us -uc -b) > "$WORK/example-build.log" 2>&1; then
	f=$WORK/perftune-example-db_1.0-1_all.deb
	mkdir -p "$WORK/example-ctl"
	dpkg-deb -e "$f" "$WORK/example-ctl"
	# grep without -q: with pipefail, dpkg -c killed by SIGPIPE after an early
	# match failed the check under load
	dpkg -c "$f" | grep '\./usr/lib/perftune/profiles/perftune-example-db/tuned\.conf$' >/dev/null &&
		ok "perftune-example-db.deb: its profile in /usr/lib/perftune/profiles" ||
		fail "perftune-example-db.deb lacks usr/lib/perftune/profiles/perftune-example-db/tuned.conf"
	[[ "$(dpkg-deb -f "$f" Depends)" == *perftune* ]] &&
		ok "perftune-example-db.deb depends on perftune" || fail "perftune-example-db.deb Depends: $(dpkg-deb -f "$f" Depends)"
	grep -q 'deb-systemd-invoke start perftune@perftune-example-db.service' "$WORK/example-ctl/postinst" &&
		grep -q 'perftune restore --if-exists perftune-example-db' "$WORK/example-ctl/prerm" &&
		grep -q 'disable perftune@perftune-example-db.service' "$WORK/example-ctl/postrm" &&
		ok "perftune-example-db.deb: postinst starts, prerm restores, postrm disables perftune@perftune-example-db" ||
		fail "perftune-example-db.deb: maintainer scripts lack the dh_perftune snippets"
else
	tail -n 30 "$WORK/example-build.log"
	fail "dpkg-buildpackage of perftune-example-db (log above)"
fi

# ---------------------------------------------------------------- purge
# an instance enabled the way an admin does it (systemctl works on the links
# without systemd as PID 1): the prerm must disable it by name, as systemctl
# refuses a glob there
if clean_env systemctl enable perftune@pkgtest.service > "$WORK/enable.log" 2>&1 &&
	ls /etc/systemd/system/*.wants/perftune@pkgtest.service > /dev/null 2>&1; then
	ok "systemctl enable perftune@pkgtest.service: $(ls /etc/systemd/system/*.wants/perftune@pkgtest.service)"
else
	fail "systemctl enable perftune@pkgtest.service: $(cat "$WORK/enable.log")"
fi
step "dpkg --purge ${PKGS[*]}"
for d in "${debs[@]}"; do dpkg -c "$d"; done | awk '{print substr($6, 2)}' | grep -v '/$' > "$WORK/files"
dpkg --purge "${PKGS[@]}" > "$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "dpkg --purge failed"; }
INSTALLED=0
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
	[ -z "$st" ] || [ "${st:1:1}" = n ] || fail "$p still known to dpkg after purge: '$st'"
done
left=$(while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done < "$WORK/files")
for d in /usr/share/perftune /usr/lib/python3/dist-packages/perftune \
	/usr/lib/python3/dist-packages/perftune-"$VERSION".dist-info /usr/share/doc/libperftune1 \
	/usr/share/doc/libperftune-dev /usr/share/doc/perftune /usr/share/doc/python3-perftune; do
	[ -e "$d" ] && left+=$'\n'"$d"
done
left+=$'\n'$(ls -d /var/lib/systemd/deb-systemd-helper-*/*perftune* /etc/systemd/system/*/perftune@* 2>/dev/null)
left=$(echo "$left" | sed '/^$/d')
[ -z "$left" ] && ok "no file of the packages left" || fail "left after purge: $(echo $left)"
dpkg-query -W -f='${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\n' | sort > "$WORK/dpkg-after"
diff -u "$WORK/dpkg-before" "$WORK/dpkg-after" && ok "dpkg database as before" || fail "installed packages changed (diff above)"
if [ "$RUN_PERFTUNE_EXISTED" = 0 ] && [ -e /run/perftune ]; then
	rmdir /run/perftune 2>/dev/null
	fail "/run/perftune was created by the installed CLI"
fi

# ---------------------------------------------------------------- rpm
step "rpmbuild -bb --nodeps rhel.spec"
if ! clean_env rpmbuild -bb --nodeps --without check \
		--load "$SRC/tests/packaging/rhel-macros" \
		--define "_topdir $WORK/rpm" \
		"$WORK/src/rhel.spec" > "$WORK/rpm-build.log" 2>&1; then
	tail -n 60 "$WORK/rpm-build.log"
	die "rpmbuild failed (log above)"
fi
ok "rpmbuild ($((SECONDS - START))s so far)"
rpm_has() { # PACKAGE PATH-REGEX WHAT
	local list
	list=$(rpm -qlp "$WORK"/rpm/RPMS/*/"$1-$VERSION"-*.rpm 2>/dev/null)
	if grep -qE "^$2\$" <<< "$list"; then
		ok "$1.rpm: $3"
	else
		fail "$1.rpm lacks $3 ($2)"
	fi
}
libdir=$(rpm --eval '%{_libdir}')
for r in "${RPMS[@]}"; do
	f=$(ls "$WORK"/rpm/RPMS/*/"$r-$VERSION"-*.rpm 2>/dev/null | head -1)
	[ -n "$f" ] || { fail "no RPM for $r"; continue; }
	say "--- rpm -qlp $(basename "$f")  [License: $(rpm -qp --qf '%{LICENSE}' "$f" 2>/dev/null)]"
	rpm -qlp "$f" 2>/dev/null | grep -v '^/usr/lib/\.build-id' | sed 's/^/   /'
done
rpm_has libperftune "$libdir/libperftune\.so\.1" "the soname link"
rpm_has libperftune "$libdir/libperftune\.so\.1\.[0-9.]+" "the library"
rpm_has libperftune-devel /usr/include/perftune.h "the header"
rpm_has libperftune-devel "$libdir/libperftune\.so" "the .so link"
rpm_has libperftune-devel "$libdir/pkgconfig/libperftune\.pc" "the pkg-config file"
rpm_has perftune /usr/sbin/perftune "the CLI"
rpm_has perftune '/usr/lib/systemd/system/perftune@\.service' "the systemd unit"
rpm_has perftune "$(rpm --eval '%{_rpmmacrodir}')/macros\.perftune" "the RPM macros for other packages"
rpm_has perftune /usr/lib/perftune/profiles "the vendor profile directory"
rpm_has python3-perftune '/usr/lib/python3/dist-packages/perftune/__init__\.py' "the Python package"
rpm_has python3-perftune '/usr/lib/python3/dist-packages/perftune/_perftune\..*so' "the SWIG extension"
rpm_has python3-perftune "/usr/lib/python3/dist-packages/perftune-$VERSION\.dist-info/METADATA" "the package metadata (dist-info)"
if [ -e "$SRC/doc/meson.build" ]; then
	rpm_has libperftune-devel '/usr/share/man/man3/libperftune\.3.*' "libperftune(3)"
	rpm_has perftune '/usr/share/man/man8/perftune\.8.*' "perftune(8)"
	rpm_has perftune '/usr/share/man/man5/perftune-profile\.5.*' "perftune-profile(5)"
	rpm_has perftune '/usr/share/man/man7/perftune-packaging\.7.*' "perftune-packaging(7)"
fi
[ -d "$SRC/completion" ] && rpm_has perftune /usr/share/bash-completion/completions/perftune "the bash completion"
ls "$SRC"/profiles/* >/dev/null 2>&1 && rpm_has perftune '/usr/share/perftune/profiles/.+' "the profiles"
f=$(ls "$WORK"/rpm/RPMS/*/perftune-"$VERSION"-*.rpm 2>/dev/null | head -1)
if [ -n "$f" ] && [[ "$(rpm -qp --suggests "$f" 2>/dev/null)" == *gnuplot* ]] &&
	[[ "$(rpm -qp --requires "$f" 2>/dev/null; rpm -qp --recommends "$f" 2>/dev/null)" != *gnuplot* ]]; then
	ok "perftune.rpm: gnuplot suggested, not recommended"
else
	fail "perftune.rpm: gnuplot must be in Suggests only (Requires, Recommends: $(rpm -qp --requires "$f"; rpm -qp --recommends "$f"))"
fi
lic=$(rpm -qp --qf '%{LICENSE}' "$WORK"/rpm/RPMS/*/libperftune-"$VERSION"-*.rpm 2>/dev/null)
[[ "$lic" == *GPL-2.0-only* ]] && ok "libperftune.rpm License: $lic" || fail "libperftune.rpm License '$lic' does not say GPL-2.0-only (linked with libcpupower)"

# ---------------------------------------------------------------- result
step "done in $((SECONDS - START))s"
if [ "$FAILED" -gt 0 ]; then
	say "$FAILED check(s) failed"
	exit 1
fi
say "all packaging checks passed"
exit 0
