#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# logrotate's move-and-SIGHUP with the shipped snippet (policy/
# prsyncd.logrotate, paths pointed at the test's files) loses no line:
# pulls before and after the rotation, a session selected before it that
# logs after it (its monitor also gets a SIGHUP of its own, which it
# ignores), a module with its own log file in the same directory; every
# line written once, whole, in the file it belongs to; a second rotation
# compresses the first one's file and still loses nothing.
. "$(dirname "$0")/../lib.sh"
HOLD=$TOP/tests/tools/holdclient.py
N=${ROTATE_N:-5}
command -v logrotate >/dev/null || { echo "SKIP: logrotate is not installed"; finish; exit; }

mkdir -p "$TMP/pub/sub" "$TMP/logs"
echo hello > "$TMP/pub/a.txt"; echo world > "$TMP/pub/sub/b.txt"
cat > "$TMP/conf" <<CONF
pid file = $TMP/prsyncd.pid
handshake timeout = 3
[pub]
	path = $TMP/pub
	transfer logging = yes
[own]
	path = $TMP/pub
	transfer logging = yes
	log file = $TMP/logs/own.log
CONF
sed -e "s|/var/log/prsyncd/|$TMP/logs/|" -e "s|/run/systemd/system|$TMP/no-systemd|" \
	-e "s|/run/prsyncd/prsyncd.pid|$TMP/prsyncd.pid|g" "$TOP/policy/prsyncd.logrotate" > "$TMP/lr.conf"
chmod 0644 "$TMP/lr.conf"
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/logs/prsyncd.log" || fail "prsyncd did not start"
L=$PRSYNCD_PID
for _ in $(seq 1 50); do [ -s "$TMP/prsyncd.pid" ] && break; sleep 0.1; done

pulls() { # pulls: N pulls of each module, each one's last line waited for
	local m
	for m in pub own; do
		for _ in $(seq 1 "$N"); do
			rm -rf "$TMP/dst"; rsync_client -a "rsync://127.0.0.1:$port/$m/" "$TMP/dst/" >/dev/null 2>&1 ||
				fail "pull of $m failed"
		done
	done
}
# all LOGFILE...: every line of the files (compressed or not)
all() { zcat -f "$@" 2>/dev/null; }

pulls
# A session selected before the rotation, which logs after it.
python3 "$HOLD" "$port" "$TMP/ready" "$TMP/go" --early '@RSYNCD: 32.0 md5\npub\n' \
	--send '--server\0--sender\0-r\0.\0pub/\0\0' --timeout 20 > "$TMP/hold.out" &
H=$!; PIDS+=("$H")
for _ in $(seq 1 100); do [ -e "$TMP/ready" ] && break; sleep 0.1; done
grep -q '@RSYNCD: OK' "$TMP/hold.out" 2>/dev/null || grep -q 'on module pub' "$TMP/logs/prsyncd.log" ||
	fail "held session not selected"
held=$(pgrep -P "$L" -f prsyncd-monitor | head -n 1)

logrotate -f -s "$TMP/lr.state" "$TMP/lr.conf" && pass "logrotate ran the shipped snippet" || fail "logrotate failed"
wait_log "$TMP/logs/prsyncd.log" 'reload: configuration' && pass "its postrotate made the listener reopen its log" ||
	fail "no new log after the rotation"
[ -s "$TMP/logs/prsyncd.log.1" ] && [ -s "$TMP/logs/own.log.1" ] && [ ! -e "$TMP/logs/prsyncd.log.1.gz" ] &&
	pass "rotated files kept uncompressed until the next rotation (delaycompress)" || fail "rotated files: $(ls "$TMP/logs")"
if [ -n "$held" ]; then
	kill -HUP "$held"
	sleep 0.2
	kill -0 "$held" 2>/dev/null && pass "a session monitor survives a SIGHUP of its own" || fail "SIGHUP ended session $held"
fi
pulls
touch "$TMP/go"
wait "$H"
wait_log "$TMP/logs/prsyncd.log.1" 'rsync on pub/ from' && pass "the held session logged after the rotation, into the file it started with" ||
	fail "held session's request line missing"
for _ in $(seq 1 100); do [ "$(pgrep -P "$L" -f prsyncd-monitor | wc -l)" = 0 ] && break; sleep 0.1; done

count() { all "$TMP/logs/$1" "$TMP/logs/$1".* | grep -c -- "$2"; }
# every session's lines once: connect, request, transfer lines, summary
c=$(count prsyncd.log 'connect from'); [ "$c" = $((4 * N + 2)) ] && pass "connect lines: $c (4N pulls, the held session, the start probe)" || fail "connect lines: $c, want $((4 * N + 2))"
c=$(count prsyncd.log 'rsync allowed access on module pub'); [ "$c" = $((2 * N + 1)) ] && pass "[pub] access lines: $c" || fail "[pub] access lines: $c"
c=$(count prsyncd.log 'rsync allowed access on module own'); [ "$c" = $((2 * N)) ] && pass "[own] access lines in the global log: $c" || fail "[own] access: $c"
c=$(count prsyncd.log 'send localhost \[127.0.0.1\] pub () '); [ "$c" = $((4 * N)) ] && pass "[pub] transfer lines: $c" || fail "[pub] transfer lines: $c, want $((4 * N))"
c=$(count own.log 'send localhost \[127.0.0.1\] own () '); [ "$c" = $((4 * N)) ] && pass "[own] transfer lines in its file: $c" || fail "[own] transfer lines: $c"
c=$(count own.log 'sent [0-9]* bytes'); [ "$c" = $((2 * N)) ] && pass "[own] summaries: $c" || fail "[own] summaries: $c"
c=$(all "$TMP/logs"/* | grep -cvE '^[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} \[[0-9]+\] .')
[ "$c" = 0 ] && pass "every line whole" || fail "$c broken lines"
c=$(grep -c 'send localhost' "$TMP/logs/prsyncd.log.1"); [ "$c" = $((2 * N)) ] && pass "before the rotation in the rotated file ($c transfer lines)" || fail "rotated file: $c"
c=$(grep -c 'send localhost' "$TMP/logs/prsyncd.log"); [ "$c" = $((2 * N)) ] && pass "after it in the new file ($c)" || fail "new file: $c"

before=$(all "$TMP/logs"/* | grep -vc 'reload')
logrotate -f -s "$TMP/lr.state" "$TMP/lr.conf" || fail "second rotation"
wait_log "$TMP/logs/prsyncd.log" 'reload: configuration' || fail "no reopen after the second rotation"
[ -e "$TMP/logs/prsyncd.log.2.gz" ] && [ -e "$TMP/logs/own.log.2.gz" ] && pass "second rotation compressed the first one's files" || fail "after the second rotation: $(ls "$TMP/logs")"
after=$(all "$TMP/logs"/* | grep -vc 'reload')
[ "$after" = "$before" ] && pass "no line lost in compression ($after lines besides the reloads')" || fail "lines: $before then $after"
kill -0 "$L" && pass "listener still running" || fail "listener died"
finish
