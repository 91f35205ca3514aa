#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# A hostile session monitor against the listener: the listener runs a
# stand-in (tests/tools/hostile_session.py) in place of prsyncd-monitor,
# which sends malformed, out-of-order and lying records on the listener
# channel.  Each must be refused (channel closed, a log line), the counts
# must not move, the listener must not crash or leak descriptors, and with
# the real monitor back it serves a client.
. "$(dirname "$0")/../lib.sh"

B=$TMP/bin
mkdir -p "$B" "$TMP/pub"
echo x > "$TMP/pub/f"
cp "$BIN/prsyncd" "$BIN/prsyncd-worker" "$B/"
cp "$TOP/tests/tools/hostile_session.py" "$B/prsyncd-monitor"
chmod 755 "$B" "$B"/*
printf 'max connections per host = 1\n[pub]\n\tpath = %s\n' "$TMP/pub" > "$TMP/conf"
port=$(free_port)
PRSYNCD=$B/prsyncd
echo ok-host > "$B/MODE"
start_prsyncd "$TMP/conf" "$port" "$TMP/log" || fail "prsyncd did not start"
L=$PRSYNCD_PID
for i in $(seq 1 50); do [ "$(pgrep -c -P "$L")" = 0 ] && break; sleep 0.1; done
fds0=$(ls /proc/$L/fd | wc -l)

hit() { # hit ATTACK EXPECTED-ANSWERS EXPECTED-LOG
	echo "$1" > "$B/MODE"
	: > "$B/OUT"
	python3 -c 'import socket,sys,time; s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),5); time.sleep(0.3)' "$port"
	for i in $(seq 1 50); do [ -s "$B/OUT" ] && break; sleep 0.1; done
	local got
	got=$(tail -1 "$B/OUT" | cut -d' ' -f2-)
	if [ "$got" = "$2" ] && { [ -z "${3:-}" ] || wait_log "$TMP/log" "$3"; }; then pass "$1: $2"
	else fail "$1: got '$got' want '$2' ($(tail -2 "$TMP/log"))"; fi
}
hit short CLOSED "invalid request on the listener channel \(record of the wrong size\)"
hit long CLOSED "record too long"
hit magic CLOSED "bad magic"
hit pad CLOSED "bad magic or header padding"
hit type CLOSED "unknown message type"
hit dir CLOSED "wrong direction"
hit seq CLOSED "sequence number out of order"
hit host-family CLOSED "family is not 4 or 6"
hit host-v4junk CLOSED "IPv4 address with bytes past the fourth"
hit fd CLOSED "carried a descriptor"
hit slot-first CLOSED "not permitted in this state"
hit host-spoof "ANSWER 1 3 0" "claimed address 10.0.0.9, its peer is 127.0.0.1: refused"
hit host-proxy "ANSWER 1 3 0" "from a PROXY header"
hit slot-range "ANSWER 1 1 0 CLOSED" "module index out of range"
hit twice "ANSWER 1 1 0 CLOSED" "not permitted in this state"
# Refused and closed sessions were never counted: the per-host limit (1)
# still admits one, and only one, session from 127.0.0.1 at a time.
hit ok-host "ANSWER 1 1 0"
echo hold > "$B/MODE"; : > "$B/OUT"
python3 -c 'import socket,sys,time; s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),5); time.sleep(5)' "$port" &
hp=$!
for i in $(seq 1 50); do [ -s "$B/OUT" ] && break; sleep 0.1; done
grep -q 'hold: ANSWER 1 1 0' "$B/OUT" && pass "one session holds the host's only slot" || fail "hold: $(cat "$B/OUT")"
echo ok-host > "$B/MODE"
python3 -c 'import socket,sys,time; s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),5); time.sleep(0.3)' "$port"
for i in $(seq 1 50); do grep -q '^ok-host' "$B/OUT" && break; sleep 0.1; done
grep -q 'ok-host: ANSWER 1 2 1' "$B/OUT" && pass "the next one from the same host is FULL (limit 1)" || fail "second: $(cat "$B/OUT")"
wait "$hp"
kill -0 "$L" && pass "listener survived every attack" || fail "listener died"
for i in $(seq 1 50); do [ "$(pgrep -c -P "$L")" = 0 ] && break; sleep 0.1; done
fds1=$(ls /proc/$L/fd | wc -l)
[ "$fds1" = "$fds0" ] && pass "no descriptor left behind ($fds1)" || fail "listener fds $fds0 -> $fds1"

cp "$BIN/prsyncd-monitor" "$B/prsyncd-monitor"
out=$(rsync_client -r "rsync://127.0.0.1:$port/pub/" "$TMP/got/" 2>&1); rc=$?
[ $rc = 0 ] && [ -f "$TMP/got/f" ] && pass "real monitor back: client served" || fail "after attacks: rc=$rc $out"
grep -qE 'AddressSanitizer|runtime error' "$TMP/log.stderr" 2>/dev/null && fail "sanitizer report" || pass "no sanitizer report"
finish
