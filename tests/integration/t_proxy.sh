#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# PROXY protocol v1 and v2, as rsync 3.5.0 configures it ('proxy protocol'
# with 'proxy protocol hosts'), differential against rsyncd where rsyncd
# supports the case:
#  - from a raw client: trusted and untrusted peers, no hosts list, an
#    absent header, headers malformed, truncated, oversized, of the wrong
#    family, with bad ports, a second header, a silent (slow) header;
#  - the proxied address is the one logged and the one the per-host limit
#    counts ('hosts allow' through the proxy once the access work lands);
#  - behind a real HAProxy (send-proxy, send-proxy-v2; IPv4 and ::1): stock
#    clients pull, both daemons log the clients' addresses, not HAProxy's.
. "$(dirname "$0")/../lib.sh"
HOLD=$TOP/tests/tools/holdclient.py

mkdir -p "$TMP/pub/sub"
echo hello > "$TMP/pub/a.txt"; echo world > "$TMP/pub/sub/b.txt"
mkconf() { # mkconf FILE HOSTS-LINE EXTRA-GLOBAL-LINES
	cat > "$1" <<CONF
reverse lookup = no
proxy protocol = yes
$2
$3
[pub]
	path = $TMP/pub
	transfer logging = yes
CONF
}
mkconf "$TMP/p.conf" "proxy protocol hosts = 10.9.9.9, 127.0.0.0/8" "handshake timeout = 2"
mkconf "$TMP/r.conf" "proxy protocol hosts = 10.9.9.9, 127.0.0.0/8" "log file = $TMP/r.log
use chroot = no"
pport=$(free_port); rport=$(free_port)
while [ "$rport" = "$pport" ]; do rport=$(free_port); done
# wait_port's probe is a connection without a header: each daemon logs it
start_prsyncd "$TMP/p.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
P=$PRSYNCD_PID
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"
R=$RSYNCD_PID

GREET='@RSYNCD: 32.0 md5\n'
V2='\r\n\r\n\x00\r\nQUIT\n'
# v2 INET/STREAM from 192.0.2.7:40000 to 198.51.100.1:873
V2IN4="$V2"'\x21\x11\x00\x0c\xc0\x00\x02\x07\xc6\x33\x64\x01\x9c\x40\x03\x69'
# v2 INET6/STREAM from 2001:db8::7
V2IN6="$V2"'\x21\x21\x00\x24\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x07'"$(printf '\\x00%.0s' $(seq 1 15))"'\x01\x9c\x40\x03\x69'

# both NAME WANT-LOG-REGEX SEND...: the same bytes to each daemon; what the
# client gets back must be the same, and each log must have the line
both() {
	local name=$1 want=$2 a b pfrom rfrom; shift 2
	pfrom=$(wc -l < "$TMP/p.log"); rfrom=$(wc -l < "$TMP/r.log")
	a=$(rawclient "$pport" "$@" --timeout 4 | sed "s/$pport/PORT/g")
	b=$(rawclient "$rport" "$@" --timeout 4 | sed "s/$rport/PORT/g")
	[ "$a" = "$b" ] && pass "$name: the client gets what rsyncd sends ($(head -c 50 <<<"$a" | tr '\n' ' '))" ||
		fail "$name: prsyncd sent '$a', rsyncd '$b'"
	if [ -n "$want" ]; then
		for _ in $(seq 1 50); do tail -n +"$((pfrom + 1))" "$TMP/p.log" | grep -Eq -- "$want" && break; sleep 0.1; done
		for _ in $(seq 1 50); do tail -n +"$((rfrom + 1))" "$TMP/r.log" | grep -Eq -- "$want" && break; sleep 0.1; done
		tail -n +"$((pfrom + 1))" "$TMP/p.log" | grep -Eq -- "$want" &&
			tail -n +"$((rfrom + 1))" "$TMP/r.log" | grep -Eq -- "$want" &&
			pass "$name: both log '$want'" || fail "$name: a log lacks '$want'"
	fi
}
# mine NAME WANT-REGEX SEND...: prsyncd alone (rsyncd accepts sloppier
# headers, or reads no deadline): nothing served, the reason logged
mine() {
	local name=$1 want=$2 out from; shift 2
	from=$(wc -l < "$TMP/p.log")
	out=$(rawclient "$pport" "$@" --timeout 6)
	for _ in $(seq 1 50); do tail -n +"$((from + 1))" "$TMP/p.log" | grep -Eq -- "$want" && break; sleep 0.1; done
	[ -z "$out" ] && tail -n +"$((from + 1))" "$TMP/p.log" | grep -Eq -- "$want" &&
		pass "$name: dropped, '$(tail -n +"$((from + 1))" "$TMP/p.log" | grep -Eo -- "$want" | head -n 1)'" ||
		{ fail "$name: got '$out'"; tail -n +"$((from + 1))" "$TMP/p.log" | sed 's/^/    /'; }
}

both "v1 TCP4" 'module-list request from UNDETERMINED \(192\.0\.2\.7\)' \
	--send 'PROXY TCP4 192.0.2.7 198.51.100.1 40000 873\r\n'"$GREET"'\n'
both "v1 TCP6" 'connect from UNDETERMINED \(2001:db8::7\)' \
	--send 'PROXY TCP6 2001:db8::7 ::1 40000 873\r\n'"$GREET"'\n'
both "v1 UNKNOWN: the peer's address" 'module-list request from UNDETERMINED \(127\.0\.0\.1\)' \
	--send 'PROXY UNKNOWN\r\n'"$GREET"'\n'
both "v2 INET" 'module-list request from UNDETERMINED \(192\.0\.2\.7\)' --send "$V2IN4$GREET"'\n'
both "v2 INET6" 'module-list request from UNDETERMINED \(2001:db8::7\)' --send "$V2IN6$GREET"'\n'
both "v2 LOCAL: the peer's address" 'module-list request from UNDETERMINED \(127\.0\.0\.1\)' \
	--send "$V2"'\x20\x00\x00\x00'"$GREET"'\n'
both "v2 AF_UNIX: the peer's address" 'module-list request from UNDETERMINED \(127\.0\.0\.1\)' \
	--send "$V2"'\x21\x31\x00\xd8'"$(printf '\\x00%.0s' $(seq 1 216))$GREET"'\n'
both "a second header is the client's greeting" 'connect from UNDETERMINED \(192\.0\.2\.7\)' \
	--send 'PROXY TCP4 192.0.2.7 198.51.100.1 1 2\r\nPROXY TCP4 10.0.0.1 10.0.0.2 3 4\r\n'"$GREET"
both "absent header: dropped, nothing sent" '' --send "$GREET"'\n'
mine "absent header" 'no PROXY header' --send "$GREET"'\n'
both "v1 too long" '' --send "PROXY UNKNOWN $(printf 'x%.0s' $(seq 1 100))"'\r\n'"$GREET"
mine "v1 too long" 'longer than 107 bytes' --send "PROXY UNKNOWN $(printf 'x%.0s' $(seq 1 100))"'\r\n'"$GREET"
both "v1 bad address" '' --send 'PROXY TCP4 192.0.2 198.51.100.1 1 2\r\n'"$GREET"
both "v1 LF only" '' --send 'PROXY TCP4 192.0.2.7 198.51.100.1 1 2\n'"$GREET"
both "v2 version 1" '' --send "$V2"'\x11\x11\x00\x0c\xc0\x00\x02\x07\xc6\x33\x64\x01\x9c\x40\x03\x69'"$GREET"
both "v2 command 2" '' --send "$V2"'\x22\x11\x00\x0c\xc0\x00\x02\x07\xc6\x33\x64\x01\x9c\x40\x03\x69'"$GREET"
both "v2 INET shorter than its addresses" '' --send "$V2"'\x21\x11\x00\x08\xc0\x00\x02\x07\xc6\x33\x64\x01'"$GREET"
both "v2 length over the bound" '' --send "$V2"'\x21\x11\xff\xff'"$(printf '\\x00%.0s' $(seq 1 64))$GREET"
mine "v2 length over the bound" 'length over 512 bytes' --send "$V2"'\x21\x11\xff\xff'"$(printf '\\x00%.0s' $(seq 1 64))$GREET"
mine "TCP4 with an IPv6 address (rsyncd takes it)" 'not of the protocol' \
	--send 'PROXY TCP4 2001:db8::7 198.51.100.1 1 2\r\n'"$GREET"
mine "port 99999 (rsyncd takes it)" 'port is not a number' --send 'PROXY TCP4 192.0.2.7 198.51.100.1 99999 2\r\n'"$GREET"
mine "negative port" 'port is not a number' --send 'PROXY TCP4 192.0.2.7 198.51.100.1 -1 2\r\n'"$GREET"
mine "truncated, then nothing (the deadline)" 'rejected: timed out' --send 'PROXY TCP4 192.0.2.7'
mine "v2 truncated, then nothing" 'rejected: timed out' --send "$V2"'\x21\x11\x00\x0c\xc0\x00'
mine "a header dribbled slower than the deadline" 'rejected: timed out' --delay 0.7 \
	--send 'PROXY ' --send 'TCP4 ' --send '192.0.2.7 ' --send '198.51.100.1 ' --send '1 2\r\n'
# TLVs after the addresses (HAProxy's proxy-v2-options) are skipped, not
# read; rsyncd 3.5.0 refuses any header longer than its addresses
from=$(wc -l < "$TMP/p.log")
out=$(rawclient "$pport" --send "$V2"'\x21\x11\x00\x13\xc0\x00\x02\x07\xc6\x33\x64\x01\x9c\x40\x03\x69\x04\x00\x01x\x04\x00\x00'"$GREET"'\n' --timeout 4)
wait_log "$TMP/p.log" 'module-list request from UNDETERMINED \(192\.0\.2\.7\)' || true
grep -q '@RSYNCD: EXIT' <<<"$out" && tail -n +"$((from + 1))" "$TMP/p.log" | grep -q 'module-list request from UNDETERMINED (192.0.2.7)' &&
	pass "v2 with TLVs: skipped, the address taken, the session served" || fail "v2 TLVs: $out"
stop_pid "$P"; stop_pid "$R"

# --- untrusted peers, no hosts list -----------------------------------------
for hosts in "proxy protocol hosts = 10.9.9.9 ::1" ""; do
	mkconf "$TMP/p.conf" "$hosts" ""; mkconf "$TMP/r.conf" "$hosts" "log file = $TMP/r.log
use chroot = no"
	: > "$TMP/p.log"; : > "$TMP/r.log"
	start_prsyncd "$TMP/p.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
	P=$PRSYNCD_PID
	start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"
	R=$RSYNCD_PID
	both "${hosts:-no hosts list}: a valid header from 127.0.0.1" \
		'^[0-9/]+ [0-9:]+ \[[0-9]+\] proxy protocol rejected from untrusted peer UNDETERMINED \(127\.0\.0\.1\)$' \
		--send 'PROXY TCP4 192.0.2.7 198.51.100.1 40000 873\r\n'"$GREET"'\n'
	if [ -z "$hosts" ]; then
		w='"proxy protocol = true" but "proxy protocol hosts" is unset: all connections will be rejected as untrusted proxy peers.  Set "proxy protocol hosts" to your trusted proxy'"'"'s address.'
		grep -qF -- "$w" "$TMP/p.log" && grep -qF -- "$w" "$TMP/r.log" && pass "no hosts list: rsyncd's warning at start" ||
			fail "no hosts list: warning missing: $(head -3 "$TMP/p.log")"
	fi
	grep -q 'connect from' "$TMP/p.log" && fail "an untrusted peer got a session" || pass "no session for an untrusted peer"
	stop_pid "$P"; stop_pid "$R"
done

# --- the per-host limit counts the proxied address ---------------------------
mkconf "$TMP/p.conf" "proxy protocol hosts = 127.0.0.1" "handshake timeout = 20
max connections per host = 1"
: > "$TMP/p.log"
start_prsyncd "$TMP/p.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
P=$PRSYNCD_PID
rawclient "$pport" --send 'PROXY TCP4 192.0.2.7 198.51.100.1 1 2\r\n'"$GREET" --hold 8 --timeout 1 >/dev/null &
H=$!; PIDS+=("$H")
wait_log "$TMP/p.log" 'connect from UNDETERMINED \(192\.0\.2\.7\)' || fail "held session not counted"
out=$(rawclient "$pport" --send 'PROXY TCP4 192.0.2.7 198.51.100.1 3 4\r\n'"$GREET"'\n' --timeout 4)
grep -q '@ERROR: max connections per host (1) reached' <<<"$out" &&
	grep -q 'max connections per host (1) reached for UNDETERMINED (192.0.2.7)' "$TMP/p.log" &&
	pass "a second session from the same proxied address is refused" || fail "same proxied address: $out"
out=$(rawclient "$pport" --send 'PROXY TCP4 192.0.2.8 198.51.100.1 3 4\r\n'"$GREET"'\n' --timeout 4)
grep -q '@RSYNCD: EXIT' <<<"$out" && pass "another proxied address behind the same proxy is served" || fail "other address: $out"
kill "$H" 2>/dev/null; wait "$H" 2>/dev/null
stop_pid "$P"

# --- hosts allow on the proxied address (the access work) --------------------
printf 'proxy protocol = yes\nproxy protocol hosts = 127.0.0.1\n[pub]\n\tpath = %s\n\thosts allow = 192.0.2.0/24\n' "$TMP/pub" > "$TMP/ha.conf"
if "$PRSYNCD" --check-config --config="$TMP/ha.conf" >/dev/null 2>&1; then
	: > "$TMP/p.log"
	start_prsyncd "$TMP/ha.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
	P=$PRSYNCD_PID
	out=$(rawclient "$pport" --send 'PROXY TCP4 192.0.2.7 198.51.100.1 1 2\r\n'"$GREET"'pub\n' --timeout 4)
	grep -q '@RSYNCD: OK' <<<"$out" && pass "hosts allow: a proxied address inside it is let in" || fail "hosts allow, inside: $out"
	out=$(rawclient "$pport" --send 'PROXY TCP4 198.51.100.9 198.51.100.1 1 2\r\n'"$GREET"'pub\n' --timeout 4)
	grep -q '@ERROR: access denied' <<<"$out" && pass "hosts allow: a proxied address outside it is refused (the proxy's own is allowed nowhere)" ||
		fail "hosts allow, outside: $out"
	stop_pid "$P"
else
	echo "SKIP: hosts allow on the proxied address (the configuration loader refuses 'hosts allow' until the access work lands)"
fi

# --- behind HAProxy ------------------------------------------------------------
if ! command -v haproxy >/dev/null; then
	echo "SKIP: HAProxy (the haproxy package is not installed)"
	finish; exit
fi
mkconf "$TMP/p.conf" "proxy protocol hosts = 127.0.0.1" "max connections per host = 1"
mkconf "$TMP/r.conf" "proxy protocol hosts = 127.0.0.1" "log file = $TMP/r.log
use chroot = no"
: > "$TMP/p.log"; : > "$TMP/r.log"
start_prsyncd "$TMP/p.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
P=$PRSYNCD_PID
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"
R=$RSYNCD_PID
fp4=$(free_port); fp4v2=$(free_port); fr4=$(free_port); fr4v2=$(free_port)
fp6=$(free_port6)
fp6v2=$(free_port6)
fr6=$(free_port6)
cat > "$TMP/haproxy.cfg" <<CFG
global
	maxconn 200
defaults
	mode tcp
	timeout connect 5s
	timeout client 60s
	timeout server 60s
frontend p4
	bind 127.0.0.1:$fp4
	default_backend prsyncd_v1
frontend p4v2
	bind 127.0.0.1:$fp4v2
	default_backend prsyncd_v2
frontend p6
	bind [::1]:$fp6
	default_backend prsyncd_v1
frontend p6v2
	bind [::1]:$fp6v2
	default_backend prsyncd_v2
frontend r4
	bind 127.0.0.1:$fr4
	default_backend rsyncd_v1
frontend r4v2
	bind 127.0.0.1:$fr4v2
	default_backend rsyncd_v2
frontend r6
	bind [::1]:$fr6
	default_backend rsyncd_v2
backend prsyncd_v1
	server s1 127.0.0.1:$pport send-proxy
backend prsyncd_v2
	server s1 127.0.0.1:$pport send-proxy-v2
backend rsyncd_v1
	server s1 127.0.0.1:$rport send-proxy
backend rsyncd_v2
	server s1 127.0.0.1:$rport send-proxy-v2
CFG
haproxy -f "$TMP/haproxy.cfg" -db > "$TMP/haproxy.out" 2>&1 &
HP=$!; PIDS+=("$HP")
wait_port "$fp4v2" && wait_port "$fr4" || fail "haproxy did not start: $(cat "$TMP/haproxy.out")"

# pull NAME URL-HOST PORT SRC: a stock client through HAProxy, from SRC
hpull() {
	rm -rf "$TMP/dst"
	rsync_client -a --address="$3" "rsync://$1:$2/pub/" "$TMP/dst/" >/dev/null 2>&1 &&
		diff -r "$TMP/pub" "$TMP/dst" >/dev/null
}
for c in "send-proxy, IPv4|127.0.0.1|$fp4|$fr4|127.0.0.2" "send-proxy-v2, IPv4|127.0.0.1|$fp4v2|$fr4v2|127.0.0.3" \
	 "send-proxy, ::1|::1|$fp6|$fr6|::1" "send-proxy-v2, ::1|::1|$fp6v2|$fr6|::1"; do
	IFS='|' read -r name host pf rf src <<<"$c"
	url=$host; [ "$host" = ::1 ] && url='[::1]'
	pfrom=$(wc -l < "$TMP/p.log"); rfrom=$(wc -l < "$TMP/r.log")
	hpull "$url" "$pf" "$src" && pass "$name: a stock client pulls the module through HAProxy" || fail "$name: pull failed"
	hpull "$url" "$rf" "$src" || fail "$name: pull through HAProxy from rsyncd failed"
	wait_log "$TMP/p.log" "sent [0-9]+ bytes" || true
	a=$(tail -n +"$((pfrom + 1))" "$TMP/p.log" | grep -E 'connect from|on module|rsync on|send ' | cut -d' ' -f4-)
	b=$(tail -n +"$((rfrom + 1))" "$TMP/r.log" | grep -E 'connect from|on module|rsync on|send ' | cut -d' ' -f4-)
	grep -q "connect from UNDETERMINED ($src)" <<<"$a" && grep -q "send UNDETERMINED \[$src\] pub" <<<"$a" &&
		pass "$name: the client's address $src is the one logged, not HAProxy's" || fail "$name: logged '$a'"
	[ "$a" = "$b" ] && pass "$name: the same lines as rsyncd behind the same HAProxy" ||
		{ fail "$name: lines differ from rsyncd's"; diff <(echo "$b") <(echo "$a") | sed 's/^/    /'; }
done
# the per-host limit through HAProxy: one session per client address
rm -f "$TMP/ready" "$TMP/go"
python3 "$HOLD" "$fp4" "$TMP/ready" "$TMP/go" --src 127.0.0.4 --early "$GREET"'pub\n' --timeout 20 > "$TMP/hold.out" &
H=$!; PIDS+=("$H")
for _ in $(seq 1 100); do [ -e "$TMP/ready" ] && break; sleep 0.1; done
rm -rf "$TMP/dst"
out=$(rsync_client -a --address=127.0.0.4 "rsync://127.0.0.1:$fp4v2/pub/" "$TMP/dst/" 2>&1)
grep -q 'max connections per host (1) reached' <<<"$out" && pass "HAProxy: a second session from 127.0.0.4 is refused by the per-host limit" ||
	fail "HAProxy per host: $out"
hpull 127.0.0.1 "$fp4v2" 127.0.0.5 && pass "HAProxy: 127.0.0.5 is served meanwhile (HAProxy's own address is not what is counted)" ||
	fail "HAProxy: another client refused"
touch "$TMP/go"; wait "$H"
kill "$HP"; wait "$HP" 2>/dev/null
stop_pid "$P"; stop_pid "$R"
finish
