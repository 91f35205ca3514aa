#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# test-lock: alone (its timed checks allow 2 s, which a loaded machine can miss)
# The `timeout` directive (issue 10, part 3): the client's silence in every
# phase ends the session within timeout + 2 s, and its slot comes back; the
# handshake is bounded as rsync 3.5.0 bounds it (min(timeout, 60 s), or the
# handshake timeout if shorter), so a client trickling a byte a second is
# cut at that bound; the server's own keepalives never count as the client
# being alive; a slow but live reader is never cut.  rsyncd runs the same
# cases beside it for information (it keeps a client that goes silent
# after the file list).  These are the suite's only timed assertions, as
# the issue asks; each allows 2 s.
. "$(dirname "$0")/../lib.sh"
TC=$TOP/tests/tools/timeoutclient.py
T=3

D=$TMP/mod
mkdir -p "$D"
for i in 1 2 3; do echo "file $i" > "$D/f$i"; done
head -c $((8 << 20)) /dev/urandom > "$D/big"
head -c $((1 << 20)) /dev/urandom > "$D/slow"
chmod -R a+rX "$D"
if [ "$(id -u)" = 0 ]; then ids=$'\tuid = root\n\tgid = root'; else ids=$'\tuse chroot = no'; fi
# A: the text phase before selection; one connection per host
cat > "$TMP/a.conf" <<CONF
timeout = $T
max connections per host = 1
[mod]
	path = $D
$ids
CONF
# B: the phases after selection; one connection for [mod]
cat > "$TMP/b.conf" <<CONF
timeout = $T
[mod]
	path = $D
$ids
	max connections = 1
[slow]
	path = $D
$ids
CONF
# rsyncd, for information
cat > "$TMP/r.conf" <<CONF
pid file = $TMP/rsyncd.pid
timeout = $T
[mod]
	path = $D
$ids
[slow]
	path = $D
$ids
CONF
aport=$(free_port)
start_prsyncd "$TMP/a.conf" "$aport" "$TMP/a.log" || fail "prsyncd A did not start"
A=$PRSYNCD_PID
bport=$(free_port)
start_prsyncd "$TMP/b.conf" "$bport" "$TMP/b.log" || fail "prsyncd B did not start"
B=$PRSYNCD_PID
rport=$(free_port)
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"

# rsyncd's side, all at once in the background (information only)
RPIDS=()
for m in greet args afterlist midsums; do
	timeout 40 python3 "$TC" "$rport" "$m" mod big --limit 15 > "$TMP/r.$m" 2>&1 &
	RPIDS+=($!)
done

# in_window SECONDS: cut no earlier than T - 0.5 and no later than T + 2
in_window() { awk -v t="$1" -v T=$T 'BEGIN { exit !(t >= T - 0.5 && t <= T + 2) }'; }

# case_run NAME PORT MODE [ARGS...]: run the client in the background and
# let the caller look at the held slot; sets OUT when it ends.
case_start() { # case_start NAME ARGS...: until the client is silent (max 20 s)
	local n=$1 i; shift
	rm -f "$TMP/ready"
	timeout 40 python3 "$TC" "$@" --ready "$TMP/ready" > "$TMP/p.$n" 2>&1 &
	CASE_PID=$!
	for i in $(seq 1 200); do [ -e "$TMP/ready" ] && break; sleep 0.1; done
}
case_end() { wait "$CASE_PID"; OUT=$(tr -d '\0' < "$TMP/p.$1"); }

# second_client PORT MODULE: a stock client pulling the module's f1
second_client() {
	rm -rf "$TMP/second"
	rsync_client "rsync://127.0.0.1:$1/$2/f1" "$TMP/second/" 2>&1
}

# served_again PORT MODULE: the slot comes back once the session's processes
# are reaped: a stock client is served within 3 s of the cut
served_again() {
	local i
	for i in $(seq 1 10); do
		second_client "$1" "$2" > /dev/null && return 0
		sleep 0.3
	done
	return 1
}

# --- before selection: silent in the greeting, trickling --------------------
case_start greet "$aport" greet mod --limit 12
out=$(second_client "$aport" mod)
grep -q 'max connections per host (1) reached' <<<"$out" &&
	pass "greeting: the silent client holds the host's slot" || fail "greeting: no slot held: $out"
case_end greet
set -- $OUT
[ "$1" = CLOSED ] && in_window "$2" && pass "greeting: silent client cut after $2 s (timeout $T)" ||
	fail "greeting: $OUT"
wait_log "$TMP/a.log" "daemon handshake timeout \\($T s\\) -- exiting \\(code 30\\)" &&
	pass "greeting: logged as rsyncd words it (code 30)" || fail "greeting: no log line"
served_again "$aport" mod && pass "greeting: slot freed, the next client is served" ||
	fail "greeting: the next client is refused"

# the host's one slot comes back once the last session is reaped: wait for
# it (the pull above may still be ending), or this client would be refused
for i in $(seq 1 100); do [ "$(pgrep -c -P "$A")" = 0 ] && break; sleep 0.1; done
timeout 40 python3 "$TC" "$aport" trickle mod --limit 15 > "$TMP/p.trickle" 2>&1
set -- $(cat "$TMP/p.trickle")
since=${5:-99}
[ "$1" = CLOSED ] && in_window "$since" &&
	pass "trickle: a byte a second, never silent, cut at the handshake bound after $since s" ||
	fail "trickle: $(cat "$TMP/p.trickle")"

# --- a login: the module's own timeout bounds it, as in rsyncd ---------------
# (rsync 3.5.0's daemon-handshake-timeout: a global 20 s, the module 2 s;
# the login of a module that asks for one is cut after the module's 2 s)
printf 'joe:pw\n' > "$TMP/secrets"; chmod 600 "$TMP/secrets"
for side in prsyncd rsyncd; do
	cat > "$TMP/l.$side.conf" <<CONF
pid file = $TMP/l.rsyncd.pid
timeout = 20
[auth]
	path = $D
$ids
	timeout = 2
	auth users = joe
	secrets file = $TMP/secrets
CONF
	lport=$(free_port)
	if [ $side = prsyncd ]; then start_prsyncd "$TMP/l.$side.conf" "$lport" "$TMP/l.log"; L=$PRSYNCD_PID
	else start_rsyncd "$TMP/l.$side.conf" "$lport"; L=$RSYNCD_PID; fi
	set -- $(timeout 40 python3 "$TC" "$lport" login auth --limit 15 2>&1)
	awk -v t="${2:-99}" 'BEGIN { exit !(t >= 1.5 && t <= 4) }' && [ "$1" = CLOSED ] &&
		pass "login ($side): silent after the challenge, cut after $2 s by the module's timeout (2 s), not the global 20 s" ||
		fail "login ($side): $*"
	stop_pid "$L"
done

# --- after selection: arguments, after the file list, sums, mid-file ---------
# idle PID: until the daemon PID has no session left (the module's one
# slot is free once the last session, served_again's pull included, is
# reaped; a client arriving before would be refused)
idle() { local i; for i in $(seq 1 100); do [ "$(pgrep -c -P "$1")" = 0 ] && return; sleep 0.1; done; }
phase() { # phase NAME MODE [ARGS...]: the client, the slot held, the cut, the slot freed
	local name=$1 mode=$2; shift 2
	idle "$B"
	case_start "$name" "$bport" "$mode" mod "$@"
	out=$(second_client "$bport" mod)
	grep -q '@ERROR: max connections (1) reached' <<<"$out" &&
		pass "$name: the session holds the module's slot" || fail "$name: no slot held: $out"
	case_end "$name"
}
phase args args --limit 12
set -- $OUT
[ "$1" = CLOSED ] && in_window "$2" && pass "args: silent half-way through the arguments, cut after $2 s" ||
	fail "args: $OUT"
wait_log "$TMP/b.log" "daemon handshake timeout \\($T s\\) in the argument list" &&
	pass "args: logged" || fail "args: no log line"
served_again "$bport" mod && pass "args: slot freed" || fail "args: slot not freed"

phase afterlist afterlist --limit 12
set -- $OUT
[ "$1" = CLOSED ] && in_window "$2" && pass "after the file list: cut after $2 s of silence" ||
	fail "after the file list: $OUT"
grep -q 'keepalive' <<<"$OUT" && pass "after the file list: the server's keepalives did not keep it" ||
	fail "after the file list: no keepalive seen ($OUT)"
grep -q "\\[sender\\] io timeout after $T seconds -- exiting" <<<"$OUT" && grep -q '(code 30)' <<<"$OUT" &&
	pass "after the file list: the client is told (rsync's words, code 30)" || fail "after the file list: $OUT"
wait_log "$TMP/b.log" "io timeout: the client was silent for $T s" && pass "after the file list: logged" ||
	fail "after the file list: no log line"
served_again "$bport" mod && pass "after the file list: slot freed" || fail "after the file list: slot"

phase midsums midsums big --limit 12
set -- $OUT
[ "$1" = CLOSED ] && in_window "$2" && pass "mid sum list: cut after $2 s" || fail "mid sum list: $OUT"
served_again "$bport" mod && pass "mid sum list: slot freed" || fail "mid sum list: slot"

phase midfile midfile big "$TMP/b.log" --limit 12
set -- $OUT
[ "$1" = CUT ] && in_window "$2" && pass "mid-file: a client that stops reading is cut after $2 s" ||
	fail "mid-file: $OUT"
served_again "$bport" mod && pass "mid-file: slot freed" || fail "mid-file: slot"

# --- a slow but live reader: 1 MiB at 128 KiB/s, ~8 s, nothing sent ----------
before=$(grep -c 'io timeout' "$TMP/b.log")
out=$(timeout 40 python3 "$TC" "$bport" slowread slow slow $((1 << 20)) --rate 131072 --limit 30)
after=$(grep -c 'io timeout' "$TMP/b.log")
case $out in DONE*) [ "$after" = "$before" ] ;; *) false ;; esac &&
	pass "slow reader (sends nothing, reads 128 KiB/s for ~8 s > 2 x timeout): not cut" ||
	fail "slow reader: $out (io timeouts $before -> $after)"

# --- the timeout a client is told, as rsyncd tells it ------------------------
cat > "$TMP/iot.py" <<PY
import struct, sys
sys.path.insert(0, "$TOP/tests/tools")
from evilclient import Client
c = Client(int(sys.argv[1]), "slow", ["--server", "--sender", "-e.LsfxCIvu", "--checksum-choice=md5"]
           + sys.argv[2:] + [".", "slow/f1"])
code, p = c.frame()
print(code, struct.unpack("<i", p[:4])[0] if code == 33 else "-")
PY
for extra in "" --timeout=2 --timeout=10; do
	a=$(timeout 20 python3 "$TMP/iot.py" "$bport" $extra 2>&1); b=$(timeout 20 python3 "$TMP/iot.py" "$rport" $extra 2>&1)
	[ "$a" = "$b" ] && pass "MSG_IO_TIMEOUT ${extra:-without --timeout}: $a, as rsyncd" ||
		fail "MSG_IO_TIMEOUT ${extra:-without --timeout}: prsyncd '$a', rsyncd '$b'"
done

grep -Eq 'Sanitizer|runtime error' "$TMP"/*.log.stderr 2>/dev/null &&
	fail "sanitizer report: $(grep -hE -m 3 'Sanitizer|runtime error' "$TMP"/*.log.stderr)" || pass "no sanitizer report"
grep -Eq 'killed by signal' "$TMP/a.log" "$TMP/b.log" && fail "a process was killed by a signal" ||
	pass "no worker killed by a signal"

wait "${RPIDS[@]}"
for m in greet args afterlist midsums; do
	echo "INFO: rsyncd, $m: $(tr -d '\0' < "$TMP/r.$m" | cut -c1-100)"
done
stop_pid "$A"; stop_pid "$B"
finish
