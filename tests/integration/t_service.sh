#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# test-lock: system (installs the package, or reads the units it installs)
# Running as a service: socket activation through systemd-socket-activate
# (one and two sockets, and Accept=yes), inetd mode with the connection on
# standard input, the readiness notifications a test socket receives
# (READY, RELOADING, READY, STOPPING), the pid file, and SIGTERM: stop
# accepting, let sessions finish up to a bound, a second SIGTERM ends them.
. "$(dirname "$0")/../lib.sh"
HOLD=$TOP/tests/tools/holdclient.py

mkdir -p "$TMP/pub/sub"
echo hello > "$TMP/pub/a"; echo deep > "$TMP/pub/sub/b"
conf=$TMP/prsyncd.conf
cat > "$conf" <<CONF
[pub]
	path = $TMP/pub
	comment = service test
CONF

pull_ok() { # pull_ok PORT NAME
	rm -rf "$TMP/got"
	local out rc
	out=$(rsync_client -r "rsync://127.0.0.1:$1/pub/" "$TMP/got/" 2>&1); rc=$?
	if [ $rc = 0 ] && cmp -s "$TMP/pub/sub/b" "$TMP/got/sub/b"; then pass "$2"; else fail "$2: rc=$rc $out"; fi
}
wait_exit() { # wait_exit PID: until it is gone (max ~20 s)
	local i
	for i in $(seq 1 200); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}

# --- socket activation -----------------------------------------------------
if command -v systemd-socket-activate >/dev/null; then
	p1=$(free_port)
	systemd-socket-activate -l "127.0.0.1:$p1" --fdname=rsync \
		"$PRSYNCD" --no-detach --config="$conf" --log-file="$TMP/sa1.log" 2>>"$TMP/sa1.err" &
	sa=$!; PIDS+=("$sa")
	wait_port "$p1"
	pull_ok "$p1" "socket activation, one socket"
	pull_ok "$p1" "socket activation, second connection on the same socket"
	grep -q "socket-activated with 1 socket" "$TMP/sa1.log" && pass "log says socket-activated" || fail "sa1 log: $(head -3 "$TMP/sa1.log")"
	stop_pid "$sa"

	p1=$(free_port); p2=$(free_port)
	while [ "$p2" = "$p1" ]; do p2=$(free_port); done
	systemd-socket-activate -l "127.0.0.1:$p1" -l "127.0.0.1:$p2" --fdname=a:b \
		"$PRSYNCD" --no-detach --config="$conf" --log-file="$TMP/sa2.log" 2>>"$TMP/sa2.err" &
	sa=$!; PIDS+=("$sa")
	wait_port "$p1"
	pull_ok "$p1" "socket activation, two sockets: first"
	pull_ok "$p2" "socket activation, two sockets: second"
	grep -q "socket-activated with 2 sockets" "$TMP/sa2.log" && pass "both sockets taken" || fail "sa2 log: $(head -3 "$TMP/sa2.log")"
	stop_pid "$sa"

	# Accept=yes: one prsyncd per connection, the connection on fd 3.
	p1=$(free_port)
	systemd-socket-activate -a -l "127.0.0.1:$p1" \
		"$PRSYNCD" --no-detach --config="$conf" --log-file="$TMP/sa3.log" 2>>"$TMP/sa3.err" &
	sa=$!; PIDS+=("$sa")
	sleep 0.3
	pull_ok "$p1" "Accept=yes (connection as LISTEN_FDS=1)"
	stop_pid "$sa"
	p1=$(free_port)
	systemd-socket-activate -a --inetd -l "127.0.0.1:$p1" \
		"$PRSYNCD" --config="$conf" --log-file="$TMP/sa4.log" 2>>"$TMP/sa4.err" &
	sa=$!; PIDS+=("$sa")
	sleep 0.3
	pull_ok "$p1" "Accept=yes with StandardInput=socket (inetd style)"
	stop_pid "$sa"
else
	echo "SKIP: systemd-socket-activate not installed"
fi

# --- inetd: the connection on standard input -------------------------------
python3 "$TOP/tests/tools/inetd.py" 2 "$TMP/inetd.err" "$PRSYNCD" --config="$conf" --log-file="$TMP/inetd.log" > "$TMP/inetd.port" &
ip=$!; PIDS+=("$ip")
for i in $(seq 1 50); do [ -s "$TMP/inetd.port" ] && break; sleep 0.1; done
iport=$(cat "$TMP/inetd.port")
pull_ok "$iport" "inetd mode (socket on stdin and stdout)"
out=$(rsync_client "rsync://127.0.0.1:$iport/" 2>&1)
grep -q '^pub ' <<<"$out" && pass "inetd mode: module list" || fail "inetd list: $out"
wait "$ip"
grep -q "connect from" "$TMP/inetd.log" && ! grep -q "starting, listening" "$TMP/inetd.log" &&
	pass "inetd mode logs sessions, binds nothing" || fail "inetd log: $(cat "$TMP/inetd.log")"

# --- readiness notifications -------------------------------------------------
nport=$(free_port)
python3 "$TOP/tests/tools/notifysock.py" "$TMP/notify" "$TMP/notes" &
ns=$!; PIDS+=("$ns")
for i in $(seq 1 50); do [ -S "$TMP/notify" ] && break; sleep 0.1; done
NOTIFY_SOCKET=$TMP/notify "$PRSYNCD" --no-detach --config="$conf" --port="$nport" --address=127.0.0.1 \
	--log-file="$TMP/n.log" 2>>"$TMP/n.err" &
np=$!; PIDS+=("$np")
wait_port "$nport"
wait_log "$TMP/notes" "READY=1" || fail "no READY"
pull_ok "$nport" "served while notifying"
kill -HUP "$np"
wait_log "$TMP/notes" "RELOADING=1" && wait_log "$TMP/n.log" "reload: configuration 2"
for i in $(seq 1 50); do [ "$(grep -c 'READY=1' "$TMP/notes")" -ge 2 ] && break; sleep 0.1; done
kill -TERM "$np"
wait "$ns"
order=$(grep -oE '(READY|RELOADING|STOPPING)=1' "$TMP/notes" | tr '\n' ' ')
[ "$order" = "READY=1 RELOADING=1 READY=1 STOPPING=1 " ] && pass "notify order: $order" || fail "notify order: $order ($(cat "$TMP/notes"))"
grep 'RELOADING=1' "$TMP/notes" | grep -qE 'MONOTONIC_USEC=[0-9]+' && pass "RELOADING carries MONOTONIC_USEC" || fail "no MONOTONIC_USEC"
grep -qE 'STATUS=.*[0-9]+ sessions? running' "$TMP/notes" && pass "STATUS counts sessions" || fail "STATUS: $(grep STATUS "$TMP/notes" | head -2)"
grep -qE 'STATUS=1 session running' "$TMP/notes" && pass "STATUS saw the running session" || echo "note: no STATUS during the session (rate limit)"
wait_exit "$np" && pass "listener exits after SIGTERM" || fail "listener still running"

# --- pid file, SIGTERM ---------------------------------------------------------
start_term() { # start_term EXTRA...: a listener with a pid file; sets TP, TPORT
	TPORT=$(free_port)
	rm -f "$TMP/pid"
	"$PRSYNCD" --no-detach --config="$conf" --port="$TPORT" --address=127.0.0.1 \
		--log-file="$TMP/t.log" --pid-file="$TMP/pid" "$@" 2>>"$TMP/t.err" &
	TP=$!; PIDS+=("$TP")
	wait_port "$TPORT"
}
hold() { # hold N: a session waiting in its handshake; sets HP
	rm -f "$TMP/ready$1" "$TMP/go$1"
	python3 "$HOLD" "$TPORT" "$TMP/ready$1" "$TMP/go$1" --send '@RSYNCD: 32.0 md5\n\n' > "$TMP/hold$1" &
	HP=$!
	for i in $(seq 1 100); do [ -e "$TMP/ready$1" ] && break; sleep 0.1; done
	for i in $(seq 1 100); do grep -q "connect from" "$TMP/t.log" && break; sleep 0.1; done
}

start_term
[ "$(cat "$TMP/pid")" = "$TP" ] && pass "pid file holds the listener's pid" || fail "pid file: $(cat "$TMP/pid")"
out=$("$PRSYNCD" --no-detach --config="$conf" --port="$(free_port)" --address=127.0.0.1 \
	--log-file="$TMP/t2.log" --pid-file="$TMP/pid" 2>&1); rc=$?
[ $rc != 0 ] && grep -q "held by a running prsyncd (pid $TP)" "$TMP/t2.log" && [ "$(cat "$TMP/pid")" = "$TP" ] &&
	pass "second daemon on the same pid file refused" || fail "second daemon: rc=$rc $(cat "$TMP/t2.log")"
hold 1
kill -TERM "$TP"
wait_log "$TMP/t.log" "stopping: no new connections; 1 session may run"  && pass "SIGTERM logs the draining session" || fail "no stopping line"
python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),1)' "$TPORT" 2>/dev/null &&
	fail "still accepting after SIGTERM" || pass "no new connections after SIGTERM"
kill -0 "$TP" 2>/dev/null && pass "listener waits for its session" || fail "listener exited with a session running"
touch "$TMP/go1"; wait "$HP"
grep -q '^pub ' "$TMP/hold1" && ! grep -q CLOSED-EARLY "$TMP/hold1" && pass "running session finished after SIGTERM" || fail "session cut: $(cat "$TMP/hold1")"
wait_exit "$TP" && pass "listener exits when its last session ends" || fail "listener did not exit"
[ ! -e "$TMP/pid" ] && pass "pid file removed" || fail "pid file left"

start_term
hold 2
kill -TERM "$TP"; wait_log "$TMP/t.log" "stopping: no new"
kill -TERM "$TP"
wait_exit "$TP" && pass "second SIGTERM ends the sessions and the listener" || fail "still running after two SIGTERMs"
touch "$TMP/go2"; wait "$HP"
grep -q CLOSED-EARLY "$TMP/hold2" && pass "the held session was ended" || fail "held session: $(cat "$TMP/hold2")"
wait_log "$TMP/t.log" "stopping: ending 1 session" && pass "logged the forced end" || fail "no ending line"

start_term --stop-timeout=1
hold 3
kill -TERM "$TP"
wait_exit "$TP" && pass "sessions ended at the stop bound" || fail "stop bound not applied"
touch "$TMP/go3"; wait "$HP"
grep -q CLOSED-EARLY "$TMP/hold3" && pass "the held session was ended at the bound" || fail "held3: $(cat "$TMP/hold3")"
grep -q 'ERROR: AddressSanitizer\|runtime error' "$TMP"/*.err && fail "sanitizer report" || pass "no sanitizer report"
finish
