#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# test-scriptlets.sh SRCDIR — run the maintainer scriptlets against fakes and
# check the commands they call, for each value of $1:
#   - the RPM macros of packaging/rpm/macros.perftune (%perftune_post, _preun,
#     _postun), expanded by rpm --eval;
#   - rhel.spec's own %preun (expanded by rpmspec -P with tests/packaging/
#     rhel-macros) and debian/perftune.prerm: every perftune@ instance stopped
#     and disabled by name, never a glob;
#   - the debhelper add-on's autoscripts (packaging/debhelper/autoscripts),
#     with #NAME# filled in as dh_perftune does.
# systemctl, deb-systemd-invoke, perftune and systemd-detect-virt are shell
# scripts first in PATH that log their arguments; /run/systemd/system and
# /etc/systemd/system are moved into a temporary tree (sed) so that both "systemd
# is PID 1" and "it is not" are tried.  Unprivileged; needs rpm for the RPM
# parts (skips them, saying so, without it).
set -uo pipefail

SRC=$(cd "${1:?usage: test-scriptlets.sh SRCDIR}" && pwd)
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
FAILED=0
say() { printf '%s\n' "$*"; }
fail() { say "FAIL: $*"; FAILED=$((FAILED + 1)); }

mkdir -p "$T/bin" "$T/etc/systemd/system/multi-user.target.wants"
for tool in systemctl deb-systemd-invoke perftune systemd-detect-virt; do
	cat > "$T/bin/$tool" <<EOF
#!/bin/sh
echo "$tool \$*" >> "$T/log"
case "$tool \$1" in
"systemctl list-units")   # as systemctl answers without systemd as PID 1
	[ -d "$T/run/systemd/system" ] || { echo "System has not been booted with systemd" >&2; exit 1; }
	cat "$T/list-units" 2>/dev/null ;;
"systemctl list-unit-files") cat "$T/list-unit-files" 2>/dev/null ;;
"systemd-detect-virt "*) exit \$(cat "$T/chroot-rc" 2>/dev/null || echo 1) ;;
"perftune "*) exit \$(cat "$T/perftune-rc" 2>/dev/null || echo 0) ;;
esac
exit 0
EOF
	chmod 755 "$T/bin/$tool"
done

# run SCRIPT-FILE ARG SYSTEMD(yes|no) [CHROOT-RC] [PERFTUNE-RC]: the log of calls, minus list-*
run() {
	local script=$1 arg=$2 systemd=$3
	echo "${4:-1}" > "$T/chroot-rc"
	echo "${5:-0}" > "$T/perftune-rc"
	rm -rf "$T/run" "$T/log"
	touch "$T/log"
	[ "$systemd" = yes ] && mkdir -p "$T/run/systemd/system"
	sed -e "s,/run/systemd/system,$T/run/systemd/system,g" \
		-e "s,/etc/systemd/system,$T/etc/systemd/system,g" "$script" > "$T/script.sh"
	if ! PATH="$T/bin:/usr/bin:/bin" sh -e "$T/script.sh" "$arg" > "$T/out" 2>&1; then
		echo "EXIT $?"
		cat "$T/out"
	fi
	grep -v '^systemctl list-' "$T/log"
}
# expect WHAT GOT WANT
expect() {
	if [ "$2" = "$3" ]; then
		say "ok: $1"
	else
		fail "$1"
		say "  got:"
		sed 's/^/    /' <<< "$2"
		say "  want:"
		sed 's/^/    /' <<< "$3"
	fi
}

# ------------------------------------------------- RPM macros for other packages
if command -v rpm > /dev/null; then
	M=$SRC/packaging/rpm/macros.perftune
	for m in post preun postun; do
		rpm --load "$M" --eval "%perftune_$m db" > "$T/$m.sh" || fail "rpm --eval %perftune_$m"
	done
	if rpm --load "$M" --eval '%perftune_post' > /dev/null 2>&1; then
		fail "%perftune_post without a name expands"
	else
		say "ok: %perftune_post without a name is an error"
	fi
	expect "%perftune_post, \$1=1, systemd: enable --now" "$(run "$T/post.sh" 1 yes)" \
		"systemctl enable --now perftune@db.service"
	expect "%perftune_post, \$1=1, no systemd: enable for later, apply once" "$(run "$T/post.sh" 1 no)" \
		"systemctl --no-reload enable perftune@db.service
systemd-detect-virt --quiet --chroot
perftune apply --name db db"
	expect "%perftune_post, \$1=1, no systemd, in a chroot: enable only" "$(run "$T/post.sh" 1 no 0)" \
		"systemctl --no-reload enable perftune@db.service
systemd-detect-virt --quiet --chroot"
	expect "%perftune_post, \$1=1, no systemd, apply fails: the scriptlet goes on" \
		"$(run "$T/post.sh" 1 no 1 1)" "systemctl --no-reload enable perftune@db.service
systemd-detect-virt --quiet --chroot
perftune apply --name db db"
	for s in yes no; do
		expect "%perftune_post, \$1=2 (upgrade), systemd=$s: nothing" "$(run "$T/post.sh" 2 $s)" ""
		expect "%perftune_preun, \$1=1 (upgrade), systemd=$s: nothing" "$(run "$T/preun.sh" 1 $s)" ""
		expect "%perftune_postun, \$1=0 (erase), systemd=$s: nothing" "$(run "$T/postun.sh" 0 $s)" ""
	done
	expect "%perftune_preun, \$1=0, systemd: stop, disable, restore --if-exists" "$(run "$T/preun.sh" 0 yes)" \
		"systemctl stop perftune@db.service
systemctl --no-reload disable perftune@db.service
perftune restore --if-exists db"
	expect "%perftune_preun, \$1=0, no systemd: disable, restore --if-exists" "$(run "$T/preun.sh" 0 no)" \
		"systemctl --no-reload disable perftune@db.service
perftune restore --if-exists db"
	expect "%perftune_preun, \$1=0, restore fails: the scriptlet goes on" "$(run "$T/preun.sh" 0 no 1 1)" \
		"systemctl --no-reload disable perftune@db.service
perftune restore --if-exists db"
	expect "%perftune_postun, \$1=1, systemd: try-reload-or-restart" "$(run "$T/postun.sh" 1 yes)" \
		"systemctl try-reload-or-restart perftune@db.service"
	expect "%perftune_postun, \$1=2, no systemd: restore and apply again" "$(run "$T/postun.sh" 2 no)" \
		"perftune restore --if-exists db
perftune apply --name db db"
else
	say "SKIP: rpm not installed: the RPM macros were not expanded"
fi

# ------------------------------------------------- instances of perftune's own scriptlets
# a running one, a failed one (systemctl's bullet in front), an enabled one known
# only by its .wants link, and the template, which is no instance
cat > "$T/list-units" <<'EOF'
perftune@a.service loaded active running Hold perftune profile a
● perftune@b-c.service loaded failed failed Hold perftune profile b-c
EOF
cat > "$T/list-unit-files" <<'EOF'
perftune@.service disabled enabled
perftune@a.service enabled enabled
EOF
ln -sf /usr/lib/systemd/system/perftune@.service \
	"$T/etc/systemd/system/multi-user.target.wants/perftune@d.service"
instances="a b-c d"
want_stop_disable() { # STOP-COMMAND: the calls expected with systemd as PID 1
	for i in $instances; do
		echo "$1 perftune@$i.service"
		echo "systemctl --no-reload disable perftune@$i.service"
	done
}
# without systemd as PID 1, list-units fails: the instances are the enabled ones
want_disable() {
	for i in a d; do echo "systemctl --no-reload disable perftune@$i.service"; done
}

if command -v rpmspec > /dev/null; then
	(cd "$T" && rpmspec -P --load "$SRC/tests/packaging/rhel-macros" "$SRC/rhel.spec") > "$T/spec" 2> "$T/spec.err" ||
		fail "rpmspec -P rhel.spec: $(cat "$T/spec.err")"
	awk '/^%preun -n perftune$/ { on = 1; next } on && /^%[a-z]/ { exit } on' "$T/spec" > "$T/spec-preun.sh"
	[ -s "$T/spec-preun.sh" ] || fail "rhel.spec has no %preun -n perftune"
	grep -n "perftune@\*" "$T/spec-preun.sh" | grep -v "list-unit" &&
		fail "rhel.spec %preun passes a glob to systemctl (above)"
	expect "rhel.spec %preun, \$1=0, systemd: each instance stopped and disabled" \
		"$(run "$T/spec-preun.sh" 0 yes)" "systemctl --no-reload disable --now perftune-metrics.timer
$(want_stop_disable "systemctl stop")"
	expect "rhel.spec %preun, \$1=0, no systemd: each instance disabled" \
		"$(run "$T/spec-preun.sh" 0 no)" "systemctl --no-reload disable --now perftune-metrics.timer
$(want_disable)"
	expect "rhel.spec %preun, \$1=1 (upgrade): nothing" "$(run "$T/spec-preun.sh" 1 yes)" ""
else
	say "SKIP: rpmspec not installed: rhel.spec's %preun was not expanded"
fi

expect "debian prerm remove, systemd: each instance stopped and disabled" \
	"$(run "$SRC/debian/perftune.prerm" remove yes)" "$(want_stop_disable deb-systemd-invoke\ stop)"
expect "debian prerm remove, no systemd: each instance disabled" \
	"$(run "$SRC/debian/perftune.prerm" remove no)" "$(want_disable)"
expect "debian prerm upgrade: nothing" "$(run "$SRC/debian/perftune.prerm" upgrade yes)" ""

# ------------------------------------------------- the debhelper add-on
# dh_perftune from the source tree, its snippets found through DH_AUTOSCRIPTDIR,
# on a package of one binary, example-db, with debian/example-db.perftune
rm -f "$T/etc/systemd/system/multi-user.target.wants/"*
: > "$T/list-units"
: > "$T/list-unit-files"
if perl -MDebian::Debhelper::Dh_Lib -e 1 2> /dev/null; then
	P=$T/example
	mkdir -p "$P/debian"
	printf '%s\n' 'Source: example' 'Maintainer: nobody <nobody@example.org>' \
		'Build-Depends: debhelper-compat (= 13)' '' 'Package: example-db' 'Architecture: all' \
		'Description: example' ' example' > "$P/debian/control"
	printf '%s\n' 'example (1.0-1) unstable; urgency=medium' '' '  * x' '' \
		' -- nobody <nobody@example.org>  Sat, 28 Nov 2026 00:00:00 +0000' > "$P/debian/changelog"
	printf '[main]\nsummary=example\n\n[sysctl]\nvm.swappiness=5\n' > "$P/debian/example-db.perftune"
	dh_perftune() { # ARGS: dh_perftune in $P, after a clean of what it makes
		(cd "$P" && rm -rf debian/example-db debian/*.debhelper debian/*.substvars &&
			DH_AUTOSCRIPTDIR="$SRC/packaging/debhelper/autoscripts" \
				perl "$SRC/packaging/debhelper/dh_perftune" "$@") > "$T/dh.log" 2>&1
	}
	# maint SCRIPT [OLD-VERSION]: debian/example-db.SCRIPT.debhelper as the
	# maintainer script dh_installdeb makes of it, $2 forced to OLD-VERSION
	maint() {
		{
			printf '#!/bin/sh\nset -e\n'
			[ -n "${2:-}" ] && printf 'set -- "$1" %s\n' "$2"
			cat "$P/debian/example-db.$1.debhelper"
		} > "$T/$1.sh"
		echo "$T/$1.sh"
	}
	dh_perftune || fail "dh_perftune: $(cat "$T/dh.log")"
	if cmp -s "$P/debian/example-db.perftune" "$P/debian/example-db/usr/lib/perftune/profiles/example-db/tuned.conf"; then
		say "ok: dh_perftune installs debian/example-db.perftune as /usr/lib/perftune/profiles/example-db/tuned.conf"
	else
		fail "dh_perftune: no usr/lib/perftune/profiles/example-db/tuned.conf: $(cd "$P/debian" && find . -type f)"
	fi
	if grep -qx 'misc:Depends=perftune' "$P/debian/example-db.substvars" 2> /dev/null; then
		say "ok: dh_perftune adds perftune to \${misc:Depends}"
	else
		fail "dh_perftune: substvars: $(cat "$P/debian/example-db.substvars" 2>&1)"
	fi
	u=perftune@example-db.service
	expect "dh_perftune postinst configure (install), systemd: enable, start" \
		"$(run "$(maint postinst)" configure yes)" "systemctl --no-reload enable $u
deb-systemd-invoke start $u"
	expect "dh_perftune postinst configure (install), no systemd: enable, apply once" \
		"$(run "$(maint postinst)" configure no)" "systemctl --no-reload enable $u
systemd-detect-virt --quiet --chroot
perftune apply --name example-db example-db"
	expect "dh_perftune postinst configure (install), no systemd, in a chroot: enable only" \
		"$(run "$(maint postinst)" configure no 0)" "systemctl --no-reload enable $u
systemd-detect-virt --quiet --chroot"
	expect "dh_perftune postinst configure 0.9-1 (upgrade), systemd: try-reload-or-restart" \
		"$(run "$(maint postinst 0.9-1)" configure yes)" "deb-systemd-invoke try-reload-or-restart $u"
	expect "dh_perftune postinst configure 0.9-1 (upgrade), no systemd: restore, apply again" \
		"$(run "$(maint postinst 0.9-1)" configure no)" "systemd-detect-virt --quiet --chroot
perftune restore --if-exists example-db
perftune apply --name example-db example-db"
	expect "dh_perftune prerm remove, systemd: stop, restore --if-exists" \
		"$(run "$(maint prerm)" remove yes)" "deb-systemd-invoke stop $u
perftune restore --if-exists example-db"
	expect "dh_perftune prerm remove, no systemd: restore --if-exists" \
		"$(run "$(maint prerm)" remove no)" "perftune restore --if-exists example-db"
	expect "dh_perftune prerm remove, restore fails: the script goes on" \
		"$(run "$(maint prerm)" remove no 1 1)" "perftune restore --if-exists example-db"
	expect "dh_perftune prerm upgrade: nothing" "$(run "$(maint prerm)" upgrade yes)" ""
	expect "dh_perftune postrm remove: disable" "$(run "$(maint postrm)" remove yes)" \
		"systemctl --no-reload disable $u"
	expect "dh_perftune postrm upgrade: nothing" "$(run "$(maint postrm)" upgrade yes)" ""
	cp "$P/debian/example-db.perftune" "$P/debian/example-db.db.perftune"
	if dh_perftune --name=db && [ -e "$P/debian/example-db/usr/lib/perftune/profiles/db/tuned.conf" ] &&
		grep -q 'perftune apply --name db db' "$P/debian/example-db.postinst.debhelper"; then
		say "ok: dh_perftune --name=db: profile db, unit perftune@db.service"
	else
		fail "dh_perftune --name=db: $(cat "$T/dh.log"; cd "$P/debian" && find . -type f)"
	fi
	if dh_perftune --name=../x; then
		fail "dh_perftune --name=../x succeeded"
	else
		say "ok: dh_perftune refuses a name that is not a profile name: $(tail -1 "$T/dh.log")"
	fi
else
	say "SKIP: debhelper (Debian::Debhelper::Dh_Lib) not installed: dh_perftune not run"
fi

if [ "$FAILED" -gt 0 ]; then
	say "$FAILED check(s) failed"
	exit 1
fi
say "all scriptlet checks passed"
