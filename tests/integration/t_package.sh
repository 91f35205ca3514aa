#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# test-lock: system (installs the package, or reads the units it installs)
# The Debian package: make install with PREFIX and DESTDIR lays out the
# files; dpkg-buildpackage -us -uc builds the source and binary packages
# from a copy of the tree, and lintian -I -E --pedantic finds no tag on
# them that is not overridden with a reason; it installs (binaries, the
# worker linked dynamically, units, man pages, logrotate snippet, the
# workers' account, the empty chroot, a configuration with a pid file).
#
# systemd is not PID 1 here, so its part is played by stand-ins, and the
# maintainer scripts take their systemd branch in a mount namespace of
# their own where /run/systemd/system exists and systemctl and
# deb-systemd-invoke are shims that log each call and act as systemd
# would on this package's units: tests/tools/sockunit.py holds the
# listening socket as prsyncd.socket does and runs prsyncd.service's
# ExecStart on it (restart = SIGTERM to the listener, wait, start again
# on the same socket; KillMode=mixed).  With that:
#   - an upgrade to a newer version (the same tree, version bumped) while
#     a slow pull runs: the maintainer scripts stop and restart no socket
#     unit and try-restart prsyncd.service; the old listener drains, the
#     pull completes (exit 0, identical), a connection made during the
#     drain waits in the backlog and is served by the new version;
#   - logrotate with the installed snippet: prsyncd.service running
#     (systemctl reload), a standalone prsyncd started by hand with the
#     packaged configuration and no systemd (the pid file), and a
#     standalone one on a systemd host: every line before the rotation in
#     the rotated file, every line after it in the new one;
#   - removal stops both socket units; purge removes the package.
# Not exercised: systemd's own job engine (Requires= propagation,
# RuntimeDirectory, cgroup kill), deb-systemd-invoke's policy-rc.d check;
# without a mount namespace (unshare -m) the systemd branch and the
# upgrade under a pull are skipped (said so).
# SKIP where dpkg-buildpackage or debhelper is missing, without root, or if
# a prsyncd package is already installed (it is not ours to replace).
. "$(dirname "$0")/../lib.sh"

# A copy of the tree (tracked and new files), so neither build touches
# the worktree's build/.
V1=$(sed -n '1s/^prsyncd (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
V2=$V1+up1
SRC=$TMP/src/prsyncd-$V1
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
(cd "$SRC" && DEB_BUILD_OPTIONS="parallel=2 nocheck" dpkg-buildpackage -us -uc) >"$TMP/build.log" 2>&1
deb=$(ls "$TMP"/src/prsyncd_"$V1"_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] && pass "dpkg-buildpackage -us -uc built $(cd "$TMP/src" && ls ./*.dsc ./*.deb | tr '\n' ' ')" ||
	{ fail "package build: $(tail -20 "$TMP/build.log")"; finish; exit; }

# lintian on the .changes: the source package, the package and its dbgsym.
if command -v lintian >/dev/null; then
	out=$(lintian -I -E --pedantic "$TMP"/src/prsyncd_"$V1"_*.changes 2>&1 | grep -v '^running with root privileges')
	[ -z "$out" ] && pass "lintian -I -E --pedantic: no tag on source, binary and dbgsym but those overridden with a reason" ||
		fail "lintian: $out"
else
	echo "SKIP: lintian not installed"
fi

# The newer version: the same tree with a changelog entry and VERSION bumped.
SRC2=$TMP/src2/prsyncd-$V2
mkdir -p "$SRC2"
(cd "$TOP" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$SRC2"
{ printf 'prsyncd (%s) unstable; urgency=medium\n\n  * Upgrade test.\n\n -- %s  %s\n\n' "$V2" \
	"$(sed -n 's/^ -- \(.*>\)  .*/\1/p' "$SRC2/debian/changelog" | head -1)" "$(date -R)"
  cat "$SRC2/debian/changelog"; } > "$SRC2/debian/changelog.new" && mv "$SRC2/debian/changelog.new" "$SRC2/debian/changelog"
sed -i "s/^VERSION := .*/VERSION := $V2/" "$SRC2/Makefile"
(cd "$SRC2" && DEB_BUILD_OPTIONS="parallel=2 nocheck" dpkg-buildpackage -us -uc -b) >"$TMP/build2.log" 2>&1
deb2=$(ls "$TMP"/src2/prsyncd_"$V2"_*.deb 2>/dev/null | head -1)
[ -n "$deb2" ] && pass "version $V2 built for the upgrade" || { fail "second build: $(tail -20 "$TMP/build2.log")"; finish; exit; }

LOG=/var/log/prsyncd/prsyncd.log
PIDF=/run/prsyncd/prsyncd.pid
# The systemd stand-ins: the shims log every call to $CALLS; the socket
# and the service are sockunit.py (pid in $SU, its log in $ST).
CALLS=$TMP/calls ST=$TMP/su.state SU=
mkdir -p "$TMP/shim"
cat > "$TMP/shim/systemctl" <<'SHIM'
#!/bin/sh
echo "systemctl $*" >> "$CALLS"
su_alive() { [ -n "$SU" ] && kill -0 "$SU" 2>/dev/null; }
case "$*" in
*is-active*prsyncd.service) su_alive ;;
*reload*prsyncd.service) su_alive && kill -HUP "$(sed -n 's/^start //p' "$ST" | tail -n 1)" ;;
*) exit 0 ;;
esac
SHIM
cat > "$TMP/shim/deb-systemd-invoke" <<'SHIM'
#!/bin/sh
echo "deb-systemd-invoke $*" >> "$CALLS"
su_alive() { [ -n "$SU" ] && kill -0 "$SU" 2>/dev/null; }
case "$*" in
*restart*prsyncd.service)
	# as systemctl does: return once the service runs again
	if su_alive; then
		n=$(grep -c '^start' "$ST")
		kill -HUP "$SU"
		i=0
		while [ "$(grep -c '^start' "$ST")" -le "$n" ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
	fi ;;
stop*prsyncd.socket*)
	if su_alive; then
		kill -TERM "$SU"
		i=0
		while kill -0 "$SU" 2>/dev/null && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
	fi ;;
esac
exit 0
SHIM
chmod 0755 "$TMP/shim/systemctl" "$TMP/shim/deb-systemd-invoke"
export CALLS ST SU
# as_if_systemd CMD...: CMD where the maintainer scripts see systemd.
# Without a mount namespace of our own (unshare -m) they run as on a host
# without systemd, and the checks of their systemd branch are skipped.
NS=1
mkdir -p /run/systemd
unshare -m --propagation private true 2>/dev/null || NS=0
[ $NS = 1 ] || echo "SKIP: no mount namespace (unshare -m): the maintainer scripts' systemd branch and the upgrade under a pull are not exercised"
as_if_systemd() {
	if [ $NS = 1 ]; then
		unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system && exec "$@"' \
			sh env PATH="$TMP/shim:$PATH" SU="$SU" "$@"
	else
		env PATH="$TMP/shim:$PATH" SU="$SU" "$@"
	fi
}
su_start() { # su_start PORT: the socket and the service, from the unit's ExecStart
	local cmd
	cmd=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/prsyncd.service)
	# shellcheck disable=SC2086
	python3 "$TOP/tests/tools/sockunit.py" "$1" "$ST" -- $cmd 2>>"$TMP/su.stderr" &
	SU=$!; PIDS+=("$SU"); export SU
	wait_port "$1"
}
su_stop() { [ -z "$SU" ] || { kill -TERM "$SU" 2>/dev/null; wait "$SU" 2>/dev/null; }; SU=; }
# wait_long FILE PATTERN: wait_log for up to ~60 s (dpkg may be slow)
wait_long() { local _; for _ in 1 2 3 4 5 6; do wait_log "$1" "$2" && return 0; done; return 1; }
# count REGEX FILE...: lines matching, over plain and compressed logs
count() { local re=$1; shift; zcat -f "$@" 2>/dev/null | grep -cE -- "$re"; }

SP= # the standalone prsyncd's port
purge() {
	su_stop
	# the standalone prsyncd, found by its command line even without a pid file
	[ -z "$SP" ] || for p in $(pgrep -x -f "/usr/sbin/prsyncd --address=127.0.0.1 --port=$SP"); do kill "$p"; done
	dpkg --purge prsyncd >>"$TMP/dpkg.log" 2>&1
}
trap 'purge; cleanup' EXIT
: > "$CALLS"
as_if_systemd dpkg -i "$deb" >"$TMP/dpkg.log" 2>&1 && pass "package installs" || fail "dpkg -i: $(tail -5 "$TMP/dpkg.log")"
[ $NS = 0 ] || { grep -qx "deb-systemd-invoke start prsyncd.socket" "$CALLS" &&
	! grep '^deb-systemd-invoke' "$CALLS" | grep -qvx "deb-systemd-invoke start prsyncd.socket" &&
	pass "installation starts prsyncd.socket only" || fail "install calls: $(cat "$CALLS")"; }
for f in /usr/sbin/prsyncd /usr/libexec/prsyncd/prsyncd-monitor /usr/libexec/prsyncd/prsyncd-worker \
	/lib/systemd/system/prsyncd.service /lib/systemd/system/prsyncd.socket /etc/logrotate.d/prsyncd \
	/etc/prsyncd.conf /usr/share/man/man8/prsyncd.8.gz /usr/share/man/man5/prsyncd.conf.5.gz; do
	[ -e "$f" ] || fail "package lacks $f"
done
MANWIDTH=80 man -l /usr/share/man/man8/prsyncd.8.gz 2>/dev/null | grep -q 'SIGHUP' && pass "installed man page reads" || fail "installed man page"
getent passwd _prsyncd >/dev/null && pass "postinst created the workers' account _prsyncd" || fail "no _prsyncd user"
grep -q '^worker user = _prsyncd' /etc/prsyncd.conf && pass "packaged configuration uses it" || fail "conffile: $(grep worker /etc/prsyncd.conf)"
grep -q "^pid file = $PIDF" /etc/prsyncd.conf && grep -q "$PIDF" /etc/logrotate.d/prsyncd &&
	pass "packaged configuration writes the pid file the logrotate snippet reads" || fail "pid file: $(grep pid /etc/prsyncd.conf)"
ldd /usr/libexec/prsyncd/prsyncd-worker 2>/dev/null | grep -q 'libz\.so' &&
	pass "the packaged worker links zlib and the others dynamically" || fail "worker: $(file -b /usr/libexec/prsyncd/prsyncd-worker)"
[ "$(stat -c '%a %U' /run/prsyncd/empty 2>/dev/null)" = "555 root" ] && pass "empty chroot created (tmpfiles)" || fail "chroot: $(stat -c '%a %U' /run/prsyncd/empty 2>&1)"
out=$(systemd-analyze verify --man=no /lib/systemd/system/prsyncd.socket /lib/systemd/system/prsyncd.service 2>&1)
[ -z "$out" ] && pass "installed units verify" || fail "verify: $out"
/usr/sbin/prsyncd --check-config >/dev/null 2>&1 && pass "packaged configuration passes --check-config" || fail "check-config: $(/usr/sbin/prsyncd --check-config 2>&1)"

# Every configuration example in the docs, the README and prsyncd.conf(5)
# matches the package (its worker account, pid file and log directory)
# and passes the installed prsyncd's --check-config (module paths and the
# site account 'mirror' of one example replaced by ones that exist here).
mkdir -p "$TMP/ex" "$TMP/expath"
{ for f in "$TOP"/docs/*.md "$TOP/README.md"; do
	awk -v f="${f#"$TOP"/}" '/^```ini/ { on = 1; n++; print "#@ " f " example " n; next } /^```/ { on = 0 } on' "$f"
  done
  echo "#@ man/prsyncd.conf.5 EXAMPLE"
  sed -n '/^\.SH EXAMPLE/,/^\.fi/p' "$TOP/man/prsyncd.conf.5" | sed '1,2d;$d'
} | awk -v d="$TMP/ex" '/^#@ / { n++; print substr($0, 4) > (d "/" n ".name") } { print > (d "/" n ".conf") }'
nex=0 bad=""
for c in "$TMP"/ex/*.conf; do
	name=$(cat "${c%.conf}.name"); nex=$((nex + 1))
	glob=$(sed '/^\[/,$d' "$c")
	w=$(sed -n 's/^worker user = //p' <<<"$glob"); p=$(sed -n 's/^pid file = //p' <<<"$glob"); l=$(sed -n 's/^log file = //p' <<<"$glob")
	[ -z "$w" ] || [ "$w" = _prsyncd ] || bad="$bad; $name: worker user $w"
	[ -z "$p" ] || [ "$p" = "$PIDF" ] || bad="$bad; $name: pid file $p"
	case $l in ''|/var/log/prsyncd/*.log) ;; *) bad="$bad; $name: log file $l" ;; esac
	sed -i -e "s|^\([[:space:]]*path = \)/srv/.*|\1$TMP/expath|" -e 's/^\([[:space:]]*uid = \)mirror$/\1nobody/' -e 's/^\([[:space:]]*gid = \)mirror$/\1nogroup/' "$c"
	out=$(/usr/sbin/prsyncd --check-config --config="$c" 2>&1) || bad="$bad; $name: $out"
done
[ "$nex" -ge 4 ] && [ -z "$bad" ] && pass "the $nex configuration examples of the docs match the package and pass --check-config" ||
	fail "configuration examples ($nex):${bad#;}"

# Serve a module the way the units do: prsyncd.socket's listening socket,
# prsyncd.service's ExecStart.
mkdir -p "$TMP/pub/d"; echo packaged > "$TMP/pub/d/f"
head -c 8000000 /dev/urandom > "$TMP/pub/big"
printf '[pkgtest]\n\tpath = %s\n' "$TMP/pub" >> /etc/prsyncd.conf
port=$(free_port)
su_start "$port"
out=$(rsync_client -r "rsync://127.0.0.1:$port/pkgtest/d/" "$TMP/got/" 2>&1); rc=$?
[ $rc = 0 ] && cmp -s "$TMP/pub/d/f" "$TMP/got/f" && pass "installed package serves a module from its unit's ExecStart" || fail "serve: rc=$rc $out $(tail -3 "$LOG" 2>/dev/null)"
grep -q 'rsync allowed access on module pkgtest' "$LOG" &&
	pass "logged to $LOG" || fail "no log: $(ls -la /var/log/prsyncd)"
[ -s "$PIDF" ] && [ "$(cat "$PIDF")" = "$(sed -n 's/^start //p' "$ST" | tail -n 1)" ] &&
	pass "the service's listener wrote the pid file" || fail "pid file: $(cat "$PIDF" 2>&1) / $(cat "$ST")"

# logrotate with the installed snippet, prsyncd.service running: reload
# through systemctl (ExecReload: SIGHUP to the listener).
rotate_check() { # rotate_check NAME [as_if_systemd]: rotate, then pull once more
	local name=$1 before after; shift
	before=$(count 'rsync on pkgtest/' "$LOG")
	: > "$CALLS"
	"$@" logrotate -f -s "$TMP/lr.state" /etc/logrotate.d/prsyncd 2>>"$TMP/lr.err" || fail "$name: logrotate: $(tail -3 "$TMP/lr.err")"
	wait_log "$LOG" 'reload: configuration' || fail "$name: no reopened log"
	rsync_client -r "rsync://127.0.0.1:$P/pkgtest/d/" "$TMP/got/" >/dev/null 2>&1 || fail "$name: pull after the rotation"
	wait_log "$LOG" 'rsync on pkgtest/' || true
	after=$(count 'rsync on pkgtest/' "$LOG.1")
	[ "$after" = "$before" ] && [ "$(count 'rsync on pkgtest/' "$LOG")" = 1 ] &&
		pass "$name: $before pulls in the rotated file, the next one in the new file" ||
		fail "$name: before $before, rotated $after, new $(count 'rsync on pkgtest/' "$LOG")"
}
P=$port
rotate_check "logrotate, prsyncd.service running" as_if_systemd
[ $NS = 0 ] || { grep -q 'systemctl reload prsyncd.service' "$CALLS" && pass "the snippet reloaded through systemctl" ||
	fail "calls: $(cat "$CALLS")"; }

# Upgrade while a slow pull runs; a connection arrives during the drain.
# The pull reads slowly until $TMP/release exists.
if [ $NS = 1 ]; then
	rm -f "$TMP/release"
	( RSYNC_CONNECT_PROG="python3 $TOP/tests/tools/slowrelay.py $port 200000 $TMP/release" \
		rsync_client "rsync://x/pkgtest/big" "$TMP/big" > "$TMP/slow.out" 2>&1; echo $? > "$TMP/slow.rc" ) &
	PIDS+=($!)
	wait_log "$LOG" 'rsync on pkgtest/big' || fail "the slow pull did not start"
	old=$(sed -n 's/^start //p' "$ST" | tail -n 1)
	: > "$CALLS"
	( as_if_systemd timeout 120 dpkg --force-confold -i "$deb2" > "$TMP/dpkg2.log" 2>&1; echo $? > "$TMP/dpkg2.rc" ) &
	PIDS+=($!)
	wait_long "$LOG" 'stopping: no new connections; 1 session' &&
		pass "upgrade: the running service drains (SIGTERM to the listener)" || fail "no drain: $(tail -5 "$LOG"; cat "$CALLS")"
	( rsync_client "rsync://127.0.0.1:$port/" > "$TMP/queued.out" 2>&1; echo $? > "$TMP/queued.rc" ) &
	PIDS+=($!)
	sleep 1
	touch "$TMP/release"
	for _ in $(seq 1 900); do [ -s "$TMP/dpkg2.rc" ] && [ -s "$TMP/slow.rc" ] && [ -s "$TMP/queued.rc" ] && break; sleep 0.1; done
	[ "$(cat "$TMP/dpkg2.rc" 2>/dev/null)" = 0 ] && [ "$(dpkg-query -W -f='${Version}' prsyncd)" = "$V2" ] &&
		pass "dpkg -i of $V2 over $V1" || fail "upgrade: $(tail -5 "$TMP/dpkg2.log")"
	[ "$(cat "$TMP/slow.rc" 2>/dev/null)" = 0 ] && cmp -s "$TMP/pub/big" "$TMP/big" &&
		pass "the pull running across the upgrade completes (exit 0, identical)" || fail "slow pull: rc=$(cat "$TMP/slow.rc" 2>&1) $(cat "$TMP/slow.out")"
	[ "$(cat "$TMP/queued.rc" 2>/dev/null)" = 0 ] && grep -q pkgtest "$TMP/queued.out" &&
		pass "a connection made during the drain waited in the socket's backlog and was served" || fail "queued: rc=$(cat "$TMP/queued.rc" 2>&1) $(cat "$TMP/queued.out")"
	grep -q 'deb-systemd-invoke try-restart prsyncd.service' "$CALLS" && ! grep -qE '(stop|restart) .*\.socket' "$CALLS" &&
		pass "the maintainer scripts try-restart prsyncd.service and stop or restart no socket" || fail "upgrade calls: $(cat "$CALLS")"
	new=$(sed -n 's/^start //p' "$ST" | tail -n 1)
	grep -qx "exit $old 0" "$ST" && grep -qx "killed 0" "$ST" && [ "$new" != "$old" ] &&
		pass "the old listener exited by itself once its session ended (nothing left to kill)" || fail "service: $(cat "$ST")"
	"/proc/$new/exe" --version 2>/dev/null | grep -qF "$V2" &&
		pass "the new listener runs $V2" || fail "new listener: $("/proc/$new/exe" --version 2>&1)"
	awk -v v="prsyncd version $V2 starting" 'index($0, v) { s = 1 } s && /module-list request/ { f = 1 } END { exit !f }' "$LOG" &&
		pass "the waiting connection was served after $V2 started" || fail "log: $(tail -8 "$LOG")"
else
	dpkg --force-confold -i "$deb2" > "$TMP/dpkg2.log" 2>&1 && pass "dpkg -i of $V2 over $V1" || fail "upgrade: $(tail -5 "$TMP/dpkg2.log")"
fi
su_stop

# Without systemd: prsyncd started by hand with the packaged
# configuration (standalone, detached), its log rotated by the installed
# snippet through the pid file.
P=$(free_port) SP=$P
/usr/sbin/prsyncd --address=127.0.0.1 --port="$P" 2>>"$TMP/standalone.stderr"
for _ in $(seq 1 100); do [ -s "$PIDF" ] && break; sleep 0.1; done
spid=$(cat "$PIDF" 2>/dev/null)
[ -n "$spid" ] && [ "$(cat "/proc/$spid/comm" 2>/dev/null)" = prsyncd ] && pass "standalone prsyncd wrote $PIDF" || fail "standalone: no pid file"
wait_port "$P"
rsync_client -r "rsync://127.0.0.1:$P/pkgtest/d/" "$TMP/got/" >/dev/null 2>&1 || fail "standalone pull"
rotate_check "logrotate without systemd, standalone prsyncd"
rotate_check "logrotate on a systemd host, prsyncd.service not running, standalone prsyncd" as_if_systemd
[ $NS = 0 ] || { grep -q 'is-active prsyncd.service' "$CALLS" && ! grep -q 'reload' "$CALLS" &&
	pass "the snippet fell back to the pid file" || fail "calls: $(cat "$CALLS")"; }
# (detached, it is not our child: a zombie counts as gone)
kill -TERM "$spid"
for _ in $(seq 1 100); do case $(ps -o stat= -p "$spid") in Z*|'') break ;; esac; sleep 0.1; done
[ ! -e "$PIDF" ] && pass "SIGTERM: the standalone prsyncd exits and removes its pid file" ||
	fail "pid file left: $(ps -o stat=,args= -p "$spid") $(tail -3 "$LOG")"

: > "$CALLS"
as_if_systemd dpkg --remove prsyncd >>"$TMP/dpkg.log" 2>&1
[ $NS = 0 ] || { grep -qx 'deb-systemd-invoke stop prsyncd-inetd.socket' "$CALLS" &&
	grep -qx "deb-systemd-invoke stop prsyncd.socket" "$CALLS" &&
	pass "removal stops both socket units" || fail "remove calls: $(cat "$CALLS")"; }
purge
[ ! -e /usr/sbin/prsyncd ] && [ ! -e /etc/prsyncd.conf ] && pass "purge removes the package" || fail "purge left files"
finish
