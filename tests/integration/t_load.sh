#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# 200 sequential and 50 concurrent sessions complete, and the listener
# is left with the descriptors it started with and no zombie children.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$TMP/pub"
cat > "$TMP/conf" <<CONF
[pub]
	path = $TMP/pub
	comment = load test
CONF
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" || fail "prsyncd did not start"
L=$PRSYNCD_PID
# wait_port's probe is a session too: the listener holds its channel
# until it is reaped.
for i in $(seq 1 100); do
	[ "$(pgrep -c -P "$L" -f -- "^prsyncd-monitor")" = 0 ] && break
	sleep 0.1
done
fds_before=$(ls /proc/$L/fd | wc -l)

ok=0
for i in $(seq 1 200); do
	out=$(rawclient "$port" --send '@RSYNCD: 32.0 md5\n\n' --timeout 10)
	case $out in *"pub "*"@RSYNCD: EXIT"*) ok=$((ok + 1));; esac
done
[ "$ok" = 200 ] && pass "200 sequential listings" || fail "sequential listings: $ok of 200"

python3 - "$port" > "$TMP/concurrent" <<'PY'
import socket, sys, threading
port = int(sys.argv[1]); ok = []
def one():
    s = socket.create_connection(("127.0.0.1", port), 10); s.settimeout(30)
    s.sendall(b"@RSYNCD: 32.0 md5\n\n"); out = b""
    try:
        while True:
            b = s.recv(4096)
            if not b: break
            out += b
    except OSError: pass
    if b"@RSYNCD: EXIT" in out: ok.append(1)
ts = [threading.Thread(target=one) for _ in range(50)]
[t.start() for t in ts]; [t.join(60) for t in ts]
print(len(ok))
PY
n=$(cat "$TMP/concurrent")
[ "$n" = 50 ] && pass "50 concurrent listings" || fail "concurrent listings: $n of 50"

# Stock client too, a few in parallel.
okc=0
for i in $(seq 1 10); do rsync_client "rsync://127.0.0.1:$port/" > "$TMP/c$i" 2>&1 & done
wait_clients=$(jobs -p | grep -v "^$L\$")
for p in $wait_clients; do wait "$p"; done
for i in $(seq 1 10); do grep -q '^pub ' "$TMP/c$i" && okc=$((okc + 1)); done
[ "$okc" = 10 ] && pass "10 parallel stock clients" || fail "parallel stock clients: $okc of 10"

# Let the last sessions finish and be reaped (bounded).
for i in $(seq 1 100); do
	[ "$(pgrep -c -P "$L" -f -- "^prsyncd-monitor")" = 0 ] && break
	sleep 0.1
done
fds_after=$(ls /proc/$L/fd | wc -l)
[ "$fds_before" = "$fds_after" ] && pass "listener fds unchanged ($fds_after)" || fail "listener fds $fds_before -> $fds_after"
zombies=$(ps -o stat= --ppid "$L" | grep -c Z)
[ "$zombies" = 0 ] && pass "no zombies" || fail "$zombies zombies"
[ "$(pgrep -c -P "$L" -f -- "^prsyncd-monitor")" = 0 ] && pass "all sessions ended" || fail "sessions still running"
grep -q 'killed' "$TMP/log" && fail "a worker was killed under load" || pass "no worker killed under load"
finish
