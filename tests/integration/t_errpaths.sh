#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The error paths of the session monitor before its worker is ready, and
# of the listener when it cannot start a session, under the sanitizer
# build: each one ends with rsyncd's greeting and an @ERROR line (a stock
# client prints it and exits 5), a log line naming the cause, no crash
# (no "killed by signal" in the log, no sanitizer report in a stderr
# file), and the listener serves the next client.
#
# The listener runs a stand-in for prsyncd-monitor (a script next to a
# copy of prsyncd, as in t_hostile_session.sh) that spoils one thing and
# executes the real monitor: its configuration snapshot, its listener
# channel, its descriptor limit, the worker it runs.  The rest is done to
# the daemon's surroundings: a file in the worker chroot, the worker user
# gone from the passwd file (in a mount namespace of the daemon's own, so
# the machine's is untouched), a MOTD that cannot be read.
. "$(dirname "$0")/../lib.sh"

B=$TMP/bin
mkdir -p "$B" "$TMP/pub" "$TMP/empty" "$TMP/motddir"
chmod 755 "$TMP" "$B" "$TMP/empty"
echo x > "$TMP/pub/f"
cp "$BIN/prsyncd" "$B/"
echo "$BIN/prsyncd-monitor" > "$B/REAL"
cat > "$B/prsyncd-monitor" <<'WRAP'
#!/bin/bash
# The real monitor, with what MODE (next to this script) names spoiled.
here=${0%/*}
real=$(cat "$here/REAL")
mode=$(cat "$here/MODE" 2>/dev/null)
case $mode in
snapshot) exec 5</dev/null ;;
nofile:*) ulimit -n "${mode#nofile:}" ;;
worker:*) exec "$real" "$@" --worker="${mode#worker:}" ;;
chan-closed|chan-silent)
	exec /usr/bin/python3 -c '
import os, socket, sys
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
os.dup2(a.fileno(), 6)
if sys.argv[1] == "chan-silent":
    b.set_inheritable(True)   # the peer lives on, in the monitor itself: no answer ever
os.execv(sys.argv[2], sys.argv[2:])' "$mode" "$real" "$@" ;;
esac
exec "$real" "$@"
WRAP
printf '#!/bin/sh\nexec sleep 30\n' > "$B/slowworker"
chmod 755 "$B"/*

# The daemon's own passwd file, bind-mounted over /etc/passwd in its mount
# namespace: the machine's with a worker user of the test's.
WU=prsyncd-errp
cp /etc/passwd "$TMP/passwd.orig"
setpw() { # setpw LINE|"": rewrite in place (the mount holds the inode)
	{ cat "$TMP/passwd.orig"; [ -z "$1" ] || echo "$1"; } > "$TMP/passwd"
}
setpw "$WU:x:64999:64999::/:/usr/sbin/nologin"

cat > "$TMP/conf" <<CONF
worker user = $WU
worker chroot = $TMP/empty
handshake timeout = 3
motd file = $TMP/motd
[pub]
	path = $TMP/pub
CONF
echo "motd line" > "$TMP/motd"
port=$(free_port)
: > "$TMP/log"
unshare -m --propagation private /bin/sh -c 'mount --bind "$1" /etc/passwd && shift && exec "$@"' sh "$TMP/passwd" \
	"$B/prsyncd" --no-detach --config="$TMP/conf" --port="$port" --address=127.0.0.1 --log-file="$TMP/log" \
	2>>"$TMP/log.stderr" &
L=$!; PIDS+=("$L")
wait_port "$port" || fail "prsyncd did not start"
sleep 0.3

listing() { rsync_client "rsync://127.0.0.1:$port/" 2>&1; }
served() { # served NAME: a listing works (with the MOTD)
	local out rc
	out=$(listing); rc=$?
	[ $rc = 0 ] && grep -q '^pub' <<<"$out" && pass "$1" || fail "$1: rc=$rc $out"
}
# refused NAME MODE EXPECT LOG-REGEX: with MODE in force a client gets
# EXPECT and exit 5; a log line matches LOG-REGEX; nothing crashed.
refused() {
	local name=$1 out rc before
	echo "$2" > "$B/MODE"
	before=$(wc -l < "$TMP/log")
	out=$(listing); rc=$?
	echo > "$B/MODE"
	if [ $rc = 5 ] && grep -qF -- "$3" <<<"$out"; then pass "$name: the client gets '$3', exit 5"
	else fail "$name: rc=$rc $out"; fi
	expect_logged "$name" "$before" "$4"
	sleep 0.2
	if new_log "$before" | grep -q 'killed by signal'; then fail "$name: $(new_log "$before" | grep 'killed by signal')"
	else pass "$name: no process killed"; fi
}

served "served with everything in order"
grep -q 'motd line' <<<"$(listing)" && pass "MOTD sent" || fail "no MOTD: $(listing)"

# --- the worker's surroundings ----------------------------------------------
touch "$TMP/empty/x"
refused "worker chroot not empty" "" "@ERROR: daemon setup error" "worker chroot $TMP/empty: must be empty"
rm -f "$TMP/empty/x"
setpw ""
refused "worker user gone" "" "@ERROR: daemon setup error" "worker user $WU: unknown, or has uid/gid 0"
setpw "$WU:x:0:0::/:/usr/sbin/nologin"
refused "worker user now uid 0" "" "@ERROR: daemon setup error" "worker user $WU: unknown, or has uid/gid 0"
setpw "$WU:x:64999:64999::/:/usr/sbin/nologin"
served "served again once the chroot and the user are back"

# --- the worker ---------------------------------------------------------------
refused "worker cannot be executed" "worker:$TMP/nonexistent" "@ERROR: daemon setup error" \
	"worker [0-9]+ exited with status 127"
refused "worker exits before its sandbox" "worker:/bin/false" "@ERROR: daemon setup error" \
	"worker [0-9]+ ended before it was ready: client refused"
refused "worker never ready (handshake timeout)" "worker:$B/slowworker" "@ERROR: daemon setup error" \
	"handshake timeout \(3 s\)"

# --- the monitor's inheritance ------------------------------------------------
refused "configuration snapshot unreadable" "snapshot" "@ERROR: daemon configuration error" "snapshot"
refused "listener channel closed" "chan-closed" "@ERROR: daemon setup error" "listener channel"
refused "listener channel silent" "chan-silent" "@ERROR: daemon setup error" "listener channel"
# (at 8 the monitor's own descriptors, 0-7, leave the dynamic loader none:
# nothing of ours runs to answer; 9 is the least that can refuse)
refused "monitor out of descriptors (9)" "nofile:9" "@ERROR: daemon setup error" "Too many open files"
for n in 10 12 16; do
	echo "nofile:$n" > "$B/MODE"
	out=$(rsync_client -r "rsync://127.0.0.1:$port/pub/" "$TMP/got$n/" 2>&1); rc=$?
	echo > "$B/MODE"
	# served; refused with @ERROR; or, short of descriptors once serving,
	# the transfer's own error naming the cause (exit 23), as rsyncd's
	if { [ $rc = 0 ] && [ -f "$TMP/got$n/f" ]; } || { [ $rc = 5 ] && grep -q '@ERROR: daemon setup error' <<<"$out"; } ||
	   { [ $rc = 23 ] && grep -q 'Too many open files' <<<"$out"; }; then
		pass "descriptor limit $n in the session: served, refused with @ERROR, or the cause shown (rc=$rc)"
	else
		fail "descriptor limit $n: rc=$rc $out"
	fi
done

# --- a MOTD that cannot be read: an empty line, as rsyncd, and a log line -----
rm -f "$TMP/motd"
before=$(wc -l < "$TMP/log")
served "MOTD file missing: served"
expect_logged "MOTD file missing" "$before" "motd file $TMP/motd: "

# --- the listener: a monitor it cannot execute --------------------------------
mv "$B/prsyncd-monitor" "$B/wrapper"
printf '#!%s/nonexistent\n' "$TMP" > "$B/prsyncd-monitor"; chmod 755 "$B/prsyncd-monitor"
before=$(wc -l < "$TMP/log")
out=$(listing); rc=$?
[ $rc = 5 ] && grep -q '@ERROR: daemon setup error' <<<"$out" && pass "monitor cannot be executed: @ERROR, exit 5" ||
	fail "monitor exec: rc=$rc $out"
expect_logged "monitor cannot be executed" "$before" "refusing new connections: starting .*prsyncd-monitor: No such file"
mv "$B/wrapper" "$B/prsyncd-monitor"
served "served again with the monitor back"
kill -0 "$L" 2>/dev/null && pass "listener alive after every error path" || fail "listener died"
grep -q 'killed by signal' "$TMP/log" && fail "a process was killed: $(grep 'killed by signal' "$TMP/log" | head -3)" ||
	pass "no 'killed by signal' in the whole log"
stop_pid "$L"

# --- the listener without a monitor to run: it says so and releases all -----
mkdir -p "$TMP/alone"; cp "$BIN/prsyncd" "$TMP/alone/"
if [ ! -e /usr/local/libexec/prsyncd/prsyncd-monitor ]; then
	printf 'worker chroot = %s\n[pub]\n\tpath = %s\n' "$TMP/empty" "$TMP/pub" > "$TMP/alone.conf"
	out=$("$TMP/alone/prsyncd" --no-detach --config="$TMP/alone.conf" --port="$(free_port)" --address=127.0.0.1 \
		--log-file="$TMP/alone.log" 2>"$TMP/alone.stderr"); rc=$?
	[ $rc = 1 ] && grep -q '^prsyncd: cannot find prsyncd-monitor next to prsyncd' "$TMP/alone.stderr" &&
		pass "no monitor binary: said on stderr, exit 1" || fail "no monitor: rc=$rc $(cat "$TMP/alone.stderr")"
else
	echo "SKIP: no monitor binary: one is installed in the libexec directory"
fi
finish
