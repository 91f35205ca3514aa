#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# test-lock: system (installs the package, or reads the units it installs)
# The Debian package: dpkg-buildpackage -us -uc -b builds it from a copy of
# the tree; it installs (binaries, units, man pages readable with man -l,
# logrotate snippet, the workers' account, the empty chroot); its socket
# unit's ExecStart, run with the unit's socket by systemd-socket-activate
# (there is no systemd here to start it), serves a module; make install
# with PREFIX and DESTDIR lays out the same files; purge removes it.
# SKIP where dpkg-buildpackage or debhelper is missing, without root, or if
# a prsyncd package is already installed (it is not ours to replace).
. "$(dirname "$0")/../lib.sh"

# A copy of the tree (tracked and new files), so neither build touches
# the worktree's build/.
SRC=$TMP/src/prsyncd-0.1.0
mkdir -p "$SRC"
(cd "$TOP" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$SRC"

# make install, staged: every file where it belongs, paths rewritten.
make -s -j2 -C "$SRC" install PREFIX=/opt/prs DESTDIR="$TMP/stage" >"$TMP/install.log" 2>&1 &&
	pass "make install PREFIX=/opt/prs DESTDIR=..." || fail "make install: $(tail -5 "$TMP/install.log")"
S=$TMP/stage/opt/prs
for f in sbin/prsyncd libexec/prsyncd/prsyncd-monitor libexec/prsyncd/prsyncd-worker \
	lib/systemd/system/prsyncd.service lib/systemd/system/prsyncd.socket \
	lib/systemd/system/prsyncd-inetd.socket lib/systemd/system/prsyncd-inetd@.service \
	etc/logrotate.d/prsyncd etc/prsyncd.conf lib/tmpfiles.d/prsyncd.conf \
	share/man/man8/prsyncd.8 share/man/man5/prsyncd.conf.5; do
	[ -e "$S/$f" ] || fail "not installed: $f"
done
[ -x "$S/sbin/prsyncd" ] && pass "make install: all files staged" || fail "make install: binaries"
grep -q "^ExecStart=/opt/prs/sbin/prsyncd .*--config=/opt/prs/etc/prsyncd.conf" "$S/lib/systemd/system/prsyncd.service" &&
	pass "units name the installed paths" || fail "unit paths: $(grep ExecStart "$S/lib/systemd/system/prsyncd.service")"
for m in share/man/man8/prsyncd.8 share/man/man5/prsyncd.conf.5; do
	out=$(MANWIDTH=80 man -l "$S/$m" 2>&1 | head -5)
	grep -q "NAME" <<<"$out" && pass "man -l $(basename "$m")" || fail "man -l $m: $out"
	w=$(groff -man -ww -z "$S/$m" 2>&1)
	[ -z "$w" ] && pass "$(basename "$m") formats without warnings" || fail "groff: $w"
done
strings "$S/sbin/prsyncd" | grep -q '^/opt/prs/libexec/prsyncd$' && pass "binaries look for their helpers in the new libexec" || fail "libexec path not compiled in"

if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null || [ "$(id -u)" != 0 ]; then
	echo "SKIP: dpkg-buildpackage, debhelper or root missing: package not built"
	finish; exit
fi
if dpkg-query -W -f='${Status}' prsyncd 2>/dev/null | grep -q 'ok installed'; then
	echo "SKIP: a prsyncd package is already installed here"
	finish; exit
fi
(cd "$SRC" && DEB_BUILD_OPTIONS="parallel=2 nocheck" dpkg-buildpackage -us -uc -b) >"$TMP/build.log" 2>&1
deb=$(ls "$TMP"/src/prsyncd_*_*.deb 2>/dev/null | grep -v dbgsym | head -1)
[ -n "$deb" ] && pass "dpkg-buildpackage -us -uc -b built $(basename "$deb")" || { fail "package build: $(tail -20 "$TMP/build.log")"; finish; exit; }

purge() { dpkg --purge prsyncd >>"$TMP/dpkg.log" 2>&1; }
trap 'purge; cleanup' EXIT
dpkg -i "$deb" >"$TMP/dpkg.log" 2>&1 && pass "package installs" || fail "dpkg -i: $(tail -5 "$TMP/dpkg.log")"
for f in /usr/sbin/prsyncd /usr/libexec/prsyncd/prsyncd-monitor /usr/libexec/prsyncd/prsyncd-worker \
	/lib/systemd/system/prsyncd.service /lib/systemd/system/prsyncd.socket /etc/logrotate.d/prsyncd \
	/etc/prsyncd.conf /usr/share/man/man8/prsyncd.8.gz /usr/share/man/man5/prsyncd.conf.5.gz; do
	[ -e "$f" ] || fail "package lacks $f"
done
MANWIDTH=80 man -l /usr/share/man/man8/prsyncd.8.gz 2>/dev/null | grep -q 'SIGHUP' && pass "installed man page reads" || fail "installed man page"
getent passwd _prsyncd >/dev/null && pass "postinst created the workers' account _prsyncd" || fail "no _prsyncd user"
grep -q '^worker user = _prsyncd' /etc/prsyncd.conf && pass "packaged configuration uses it" || fail "conffile: $(grep worker /etc/prsyncd.conf)"
[ "$(stat -c '%a %U' /run/prsyncd/empty 2>/dev/null)" = "555 root" ] && pass "empty chroot created (tmpfiles)" || fail "chroot: $(stat -c '%a %U' /run/prsyncd/empty 2>&1)"
out=$(systemd-analyze verify --man=no /lib/systemd/system/prsyncd.socket /lib/systemd/system/prsyncd.service 2>&1)
[ -z "$out" ] && pass "installed units verify" || fail "verify: $out"
/usr/sbin/prsyncd --check-config >/dev/null 2>&1 && pass "packaged configuration passes --check-config" || fail "check-config: $(/usr/sbin/prsyncd --check-config 2>&1)"

# Serve a module the way the units do: prsyncd.socket's listening socket,
# prsyncd.service's ExecStart.
mkdir -p "$TMP/pub/d"; echo packaged > "$TMP/pub/d/f"
printf '[pkgtest]\n\tpath = %s\n' "$TMP/pub" >> /etc/prsyncd.conf
cmd=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/prsyncd.service)
port=$(free_port)
# shellcheck disable=SC2086
systemd-socket-activate -l "127.0.0.1:$port" $cmd 2>>"$TMP/sa.err" &
sa=$!; PIDS+=("$sa")
wait_port "$port"
out=$(rsync_client -r "rsync://127.0.0.1:$port/pkgtest/" "$TMP/got/" 2>&1); rc=$?
[ $rc = 0 ] && cmp -s "$TMP/pub/d/f" "$TMP/got/d/f" && pass "installed package serves a module from its unit's ExecStart" || fail "serve: rc=$rc $out $(tail -3 /var/log/prsyncd/prsyncd.log 2>/dev/null)"
grep -q 'rsync allowed access on module pkgtest' /var/log/prsyncd/prsyncd.log &&
	pass "logged to /var/log/prsyncd/prsyncd.log" || fail "no log: $(ls -la /var/log/prsyncd)"
stop_pid "$sa"
purge
[ ! -e /usr/sbin/prsyncd ] && [ ! -e /etc/prsyncd.conf ] && pass "purge removes the package" || fail "purge left files"
finish
