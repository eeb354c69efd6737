#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# pip-install.sh SRCDIR PCDIR VERSION [METADATA] — install the binding the way
# a user of the distribution's Python does it offline, and use it:
#   1. copy SRCDIR (bindings/python, without what an earlier pip left there)
#      to a temporary directory: the binding on its own, as in a tarball;
#   2. a venv of the distribution's python3 (PERFTUNE_SYSTEM_PYTHON, default
#      /usr/bin/python3) with --system-site-packages and without a pip of its
#      own, so that its pip and setuptools are the distribution's (Debian 12:
#      setuptools 66, RHEL 9: 53);
#   3. pip install --no-build-isolation --no-index: no network, no other
#      setuptools; setup.py finds libperftune through PKG_CONFIG_PATH=PCDIR;
#   4. from another directory: import perftune from the venv, its version in
#      importlib.metadata, a real read (sysctl.vm.swappiness against /proc),
#      a bad key refused with its reason, pip show and pip list;
#   5. with METADATA (the file meson installs in perftune-VERSION.dist-info):
#      its fields are those setuptools wrote from the same setup.cfg.
# Fails (never skips) when that python3 lacks pip or setuptools.
set -uo pipefail

SRC=$(cd "${1:?usage: pip-install.sh SRCDIR PCDIR VERSION [METADATA]}" && pwd)
PCDIR=$(cd "${2:?PCDIR}" && pwd)
VERSION=${3:?VERSION}
METADATA=${4:-}
PY=${PERFTUNE_SYSTEM_PYTHON:-/usr/bin/python3}
FAILED=0

say() { printf '%s\n' "$*"; }
ok() { say "ok: $*"; }
fail() {
	say "FAIL: $*"
	FAILED=$((FAILED + 1))
}
die() {
	say "FAIL: $*"
	exit 1
}

[ -x "$PY" ] || die "$PY not found (set PERFTUNE_SYSTEM_PYTHON to the distribution's python3)"
"$PY" -c 'import setuptools, pip' 2>/dev/null ||
	die "$PY lacks pip or setuptools: install python3-pip and python3-setuptools (the distribution's own: this test is about them)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/perftune-pip.XXXXXX") || die "mktemp"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/src" "$TMP/home"
tar -C "$SRC" --exclude=./build --exclude=./dist --exclude='*.egg-info' --exclude=__pycache__ -cf - . |
	tar -xf - -C "$TMP/src" || die "copying $SRC"

"$PY" -m venv --system-site-packages --without-pip "$TMP/venv" || die "$PY -m venv"
V=$TMP/venv/bin/python
# nothing of the caller's: no PYTHONPATH, pip configuration or user site, and no
# LD_LIBRARY_PATH (meson test sets one): the extension finds the library by the
# rpath setup.py gives it, as for a user
run() {
	env -u PYTHONPATH -u PYTHONHOME -u LD_LIBRARY_PATH \
		-u PIP_REQUIRE_VIRTUALENV -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL -u PIP_FIND_LINKS \
		HOME="$TMP/home" PIP_CONFIG_FILE=/dev/null PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
		PYTHONNOUSERSITE=1 PKG_CONFIG_PATH="$PCDIR" "$@"
}
tools=$(cd / && run PYTHONWARNINGS=ignore "$V" -c 'import setuptools, pip; print(setuptools.__version__, pip.__version__, setuptools.__file__)') ||
	die "the venv's python cannot import pip and setuptools"
read -r st_version pip_version st_file <<< "$tools"
case $st_file in
"$TMP"/*) die "setuptools $st_version comes from the venv ($st_file), not from $PY's system site" ;;
esac
say "$PY: setuptools $st_version, pip $pip_version ($st_file)"

if (cd "$TMP" && run "$V" -m pip install --no-build-isolation --no-index --no-cache-dir "$TMP/src") \
	> "$TMP/pip.log" 2>&1; then
	ok "pip install --no-build-isolation --no-index with setuptools $st_version"
else
	tail -n 40 "$TMP/pip.log"
	die "pip install --no-build-isolation --no-index failed with setuptools $st_version (log above)"
fi

# the installed package, from outside the source tree
if out=$(cd / && run "$V" - "$TMP/venv" "$VERSION" 2>&1 <<'PY'
import importlib.metadata as md
import sys

import perftune

venv, version = sys.argv[1:]
assert perftune.__file__.startswith(venv + "/"), f"imported {perftune.__file__}, not the venv's"
assert perftune._perftune.__file__.startswith(venv + "/"), perftune._perftune.__file__
assert md.version("perftune") == version, f"importlib.metadata: {md.version('perftune')}, want {version}"
assert perftune.version() == version, f"perftune.version() = {perftune.version()}"
ctx = perftune.Context()
with open("/proc/sys/vm/swappiness") as f:
    want = f.read().strip()
got = ctx.get("sysctl.vm.swappiness")
assert got == want, f"sysctl.vm.swappiness: {got!r}, /proc says {want!r}"
try:
    ctx.get("sysctl.vm.no_such_knob")
    raise AssertionError("a key that does not exist was read")
except FileNotFoundError as e:
    assert "sysctl.vm.no_such_knob" in str(e), str(e)
print(f"perftune {md.version('perftune')} from {perftune.__file__}: sysctl.vm.swappiness = {got}")
PY
); then
	ok "$out"
else
	fail "the installed package: $out"
fi

show=$(cd / && run "$V" -m pip show perftune 2>&1)
if grep -qx "Version: $VERSION" <<< "$show" && grep -qx "Location: $TMP/venv/.*" <<< "$show"; then
	ok "pip show perftune: $(grep -E '^(Version|Location):' <<< "$show" | tr '\n' ' ')"
else
	fail "pip show perftune: $show"
fi
# captured first: grep -q ending the pipe early would fail it under pipefail
list=$(cd / && run "$V" -m pip list --format=freeze 2>&1)
if grep -qx "perftune==$VERSION" <<< "$list"; then
	ok "pip list: perftune==$VERSION"
else
	fail "pip list has no perftune==$VERSION: $list"
fi

if [ -n "$METADATA" ]; then
	site=$(cd / && run "$V" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
	if out=$(run "$V" - "$METADATA" "$site/perftune-$VERSION.dist-info/METADATA" 2>&1 <<'PY'
import email.parser
import re
import sys

FIELDS = ("Name", "Version", "Summary", "License", "Classifier", "Requires-Python",
          "Description-Content-Type", "Provides-Extra", "Requires-Dist")
meson, pip = (email.parser.Parser().parse(open(p, encoding="utf-8")) for p in sys.argv[1:])
for f in FIELDS:
    a, b = meson.get_all(f) or [], pip.get_all(f) or []
    # newer setuptools write a marker as 'pytest; extra == "test"'
    a, b = ([re.sub(r"\s*;\s*", "; ", v).replace('"', "'") for v in x] for x in (a, b))
    assert a == b, f"{f}: meson's METADATA has {a}, setuptools wrote {b}"
assert meson.get_payload().strip() == pip.get_payload().strip(), "the descriptions differ"
print(f"{len(FIELDS)} fields and the description as setuptools wrote them")
PY
	); then
		ok "meson's METADATA: $out"
	else
		fail "meson's METADATA ($METADATA) differs from setuptools' ($site): $out"
	fi
fi

[ "$FAILED" = 0 ] || die "$FAILED check(s) failed"
say "the binding installs offline with setuptools $st_version and works"
