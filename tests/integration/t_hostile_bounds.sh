#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# What a compromised worker can still make its session monitor do (issue
# 26 item 3; threat model risk 6), with tests/tools/hostile_bounds.c in
# place of prsyncd-worker:
#   unknown modules: 50,000 selections; the session ends at the second,
#     with one log line; an unlisted module the client may not use answers
#     and ends exactly as a missing one does
#   a flood of requests that each make the monitor log (ELOOP refusals,
#     transfer lines): the log stops at the session's budget, one line
#     counts the rest
#   EXIT, then silence with the client held: the monitor ends the session
#     (and so the worker), before and after selection
#   after selection, silence: with a module timeout the monitor ends the
#     session once no data has moved to or from the client for longer;
#     without one, once the client has closed its connection
# and, with the stock client and the real worker, the login name: a name
# with ESC and CR is escaped in every log line (as rsync 3.5.0 escapes
# its log: \#ooo), and a name longer than the monitor keeps (255 bytes)
# is refused whole, never checked long and logged short.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: t_hostile_bounds.sh needs root (the monitor's uid drop)"
	finish
	exit
fi

M=$TMP/pub
mkdir -p "$M"
echo hello > "$M/file"
ln -s loop "$M/loop"
cat > "$TMP/conf" <<CONF
handshake timeout = 60
[pub]
	path = $M
	transfer logging = yes
[hidden]
	path = $M
	list = no
	hosts deny = *
[slow]
	path = $M
	timeout = 2
CONF
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" --worker="$TOOLS/hostile_bounds" || fail "prsyncd did not start"
L=$PRSYNCD_PID

# --- unknown modules: the session ends after the first, as rsyncd's ------------
before=$(wc -l < "$TMP/log")
out=$(lineclient "select-flood 50000")
grep -q '^ANSWERED 1$' <<<"$out" && ! grep -q '^ANSWERED 2$' <<<"$out" &&
	pass "50000 unknown selections: only the first answered" || fail "select-flood: $(head -n 5 <<<"$out")"
wait_log "$TMP/log" "worker sent PR_W_SELECT in a state where it is not permitted; ending session" &&
	pass "the second selection ends the session" || fail "select-flood: no end logged"
n=$(new_log "$before" | grep -c "unknown module 'nosuch")
[ "$n" = 1 ] && pass "one 'unknown module' line for 50000 selections" || fail "select-flood: $n 'unknown module' lines"

# An unlisted module the client is denied looks exactly like a missing one.
a=$(lineclient "select-twice hidden")
b=$(lineclient "select-twice nosuch")
grep -q "^FIRST type=PR_M_SELECT status=2 error=@ERROR: Unknown module 'hidden'$" <<<"$a" &&
	grep -q '^SECOND sent$' <<<"$a" && ! grep -q '^SECOND answered=yes$' <<<"$a" &&
	[ "$(grep '^FIRST' <<<"${a//hidden/X}")" = "$(grep '^FIRST' <<<"${b//nosuch/X}")" ] &&
	! grep -q '^SECOND answered=yes$' <<<"$b" &&
	pass "unlisted and denied = missing: $(tr '\n' ' ' <<<"$a")" || fail "hidden: $a / missing: $b"

# --- floods of requests the monitor logs: the session's budget ------------------
before=$(wc -l < "$TMP/log")
out=$(lineclient "eloop-flood 12000")
grep -q '^ELOOP-FLOOD n=12000 answered=12000 eloop=12000$' <<<"$out" && pass "12000 ELOOP refusals answered" ||
	fail "eloop-flood: $out"
wait_log "$TMP/log" "log budget of this session spent" || true
after=$(new_log "$before")
n=$(grep -c "refused path 'loop' in module pub" <<<"$after")
[ "$n" -le 10000 ] && [ "$n" -ge 9000 ] &&
	grep -Eq "log budget of this session spent \(10000 records, [0-9]+ bytes\): $((12000 - n)) more records" <<<"$after" &&
	pass "ELOOP flood: $n refusals logged, then the budget ($(grep -o '[0-9]* more records' <<<"$after"))" ||
	fail "ELOOP flood: $n lines logged; $(grep 'log budget' <<<"$after")"

before=$(wc -l < "$TMP/log")
out=$(lineclient "xfer-flood 12000")
grep -q '^XFER-FLOOD n=12000$' <<<"$out" || fail "xfer-flood: $out"
wait_log "$TMP/log" "log budget of this session spent" || true
after=$(new_log "$before")
n=$(grep -c "send xflood" <<<"$after")
[ "$n" -le 10000 ] && grep -q "log budget of this session spent" <<<"$after" &&
	pass "transfer-line flood: $n lines logged, then the budget" || fail "xfer flood: $n lines logged"

# --- EXIT, then silence: the monitor does not wait for the worker --------------
# alive PID: running, not a zombie left for whoever inherited it
alive() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}
for sel in "" pub; do
	name="exit-silent${sel:+ after selecting $sel}"
	before=$(wc -l < "$TMP/log")
	timeout 60 python3 "$TOP/tests/tools/lineclient.py" "$port" "exit-silent $sel" --timeout 50 > "$TMP/silent" &
	c=$!
	PIDS+=("$c")
	mon=; w=
	for i in $(seq 1 100); do
		read -r mon w < <(sed -n 's/^ENDING ppid=\([0-9]*\) pid=\([0-9]*\)$/\1 \2/p' "$TMP/silent")
		[ -n "$mon" ] && break
		sleep 0.1
	done
	if [ -z "$mon" ]; then
		fail "$name: no ENDING line: $(cat "$TMP/silent")"
		continue
	fi
	gone=no
	for i in $(seq 1 150); do # 15 s: the monitor's bound is 5
		if ! alive "$mon" && ! alive "$w"; then gone=yes; break; fi
		sleep 0.1
	done
	[ "$gone" = yes ] && pass "$name: monitor $mon and worker $w gone" ||
		fail "$name: monitor $mon or worker $w still there after 15 s"
	expect_logged "$name: logged" "$before" "worker $w announced its exit but did not end within 5 s; ending session"
	wait "$c" 2>/dev/null
done

# --- after selection, silence: the backstop (src/monitor/clientidle.h) ----------
# gone_within NAME SECONDS FILE LOG-REGEX: the stand-in's monitor and itself
# (from its "SILENT ppid=M pid=W" line in FILE) end within SECONDS, logged
gone_within() {
	local name=$1 secs=$2 file=$3 re=$4 mon= w= i gone=no
	for i in $(seq 1 100); do
		read -r mon w < <(sed -n 's/^SILENT ppid=\([0-9]*\) pid=\([0-9]*\)$/\1 \2/p' "$file")
		[ -n "$mon" ] && break
		sleep 0.1
	done
	[ -z "$mon" ] && { fail "$name: no SILENT line: $(cat "$file")"; return; }
	for i in $(seq 1 $((secs * 10))); do
		if ! alive "$mon" && ! alive "$w"; then gone=yes; break; fi
		sleep 0.1
	done
	[ "$gone" = yes ] && pass "$name: monitor $mon and worker $w gone" ||
		fail "$name: monitor $mon or worker $w still there after $secs s"
	grep -Eq -- "$re" "$TMP/log" && pass "$name: $(grep -Eo -- "$re" "$TMP/log" | tail -n 1)" ||
		fail "$name: no log line matching '$re'"
}
# A module timeout of 2 s: gone within 2 + 5 (slack) + 5 (tick), here 25.
timeout 70 python3 "$TOP/tests/tools/lineclient.py" "$port" "silent slow" --timeout 65 > "$TMP/silent1" &
c=$!
PIDS+=("$c")
gone_within "silent worker, module timeout 2 s" 25 "$TMP/silent1" \
	"module slow: no data to or from the client for [0-9]+ s \(module timeout 2 s\); ending session"
kill "$c" 2>/dev/null; wait "$c" 2>/dev/null
# No timeout: the client goes; gone within 10 (closed for) + 5 (tick), here 30.
timeout 70 python3 - "$port" > "$TMP/silent2" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
s.sendall(b"silent pub\n")
buf, end = b"", time.time() + 20
while b"SILENT" not in buf and time.time() < end:
    buf += s.recv(4096)
sys.stdout.write(buf.decode(errors="replace"))
sys.stdout.flush()
s.close()
PY
c=$!
PIDS+=("$c")
gone_within "silent worker, client gone" 30 "$TMP/silent2" \
	"module pub: the client's connection is closed \(TCP state [0-9]+\) and the worker has not ended for 10 s; ending session"
wait "$c" 2>/dev/null

kill -0 "$L" 2>/dev/null && pass "listener alive" || fail "listener died"
stop_pid() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }
stop_pid "$L"

# --- the login name, with the stock client and the real worker ------------------
# rsyncd checks a name as the client sent it and escapes it in its log
# ("\#ooo"); prsyncd does the same up to the 255 bytes it keeps, and
# refuses a longer name whole.
long=$(printf 'x%.0s' $(seq 1 900))
edge=$(printf 'y%.0s' $(seq 1 255))
esc=$'al\033ice'
printf '%s:pw\n' "$long" "$edge" "$esc" > "$TMP/secrets"
chmod 600 "$TMP/secrets"
cat > "$TMP/conf2" <<CONF
[auth]
	path = $M
	auth users = *
	secrets file = $TMP/secrets
	transfer logging = yes
	log format = %o %u %f
CONF
port=$(free_port)
: > "$TMP/log2"
start_prsyncd "$TMP/conf2" "$port" "$TMP/log2" || fail "prsyncd did not start"
for u in "$esc" $'bob\r\033]0;x\a' "$long" "$edge"; do
	RSYNC_PASSWORD=pw rsync_client -r "rsync://$u@127.0.0.1:$port/auth/" "$TMP/dst/" > "$TMP/c.out" 2>&1
	echo "rc=$?" >> "$TMP/c.out"
done
sleep 0.5
LC_ALL=C grep -qP '[\x01-\x08\x0b-\x1f]' "$TMP/log2" &&
	fail "a raw control byte in the log: $(LC_ALL=C grep -nP '[\x01-\x08\x0b-\x1f]' "$TMP/log2" | cat -v | head -n 3)" ||
	pass "no raw control byte in the log"
grep -qF 'rsync on auth/ from al\#033ice@' "$TMP/log2" && pass "ESC in a login name: logged in, escaped as rsyncd escapes it" ||
	fail "ESC login: $(grep -a 'auth' "$TMP/log2" | cat -v | head -n 3)"
grep -qF 'send al\#033ice file' "$TMP/log2" && pass "ESC in a login name: escaped in the transfer line (%u)" ||
	fail "ESC login, %u: $(grep -a 'send ' "$TMP/log2" | cat -v | head -n 3)"
grep -qF 'for bob\#015\#033]0;x\#007: secret not found' "$TMP/log2" && pass "CR, ESC and BEL in a login name: escaped" ||
	fail "CR login: $(grep -a 'auth failed' "$TMP/log2" | cat -v | head -n 3)"
grep -Eq "from y{255}@" "$TMP/log2" && grep -Eq "send y{255} file" "$TMP/log2" &&
	pass "a 255-byte login name: accepted, logged whole" ||
	fail "255-byte login: $(grep -a 'rsync on' "$TMP/log2" | head -n 3)"
grep -Eq "for x{900}: invalid username \(longer than 255 bytes\)" "$TMP/log2" &&
	pass "a 900-byte login name: refused, the whole name logged" ||
	fail "900-byte login: $(grep -ac 'x\{900\}' "$TMP/log2") whole-name lines"
grep -Eq "(from|send) x{255}" "$TMP/log2" && fail "a login checked at 900 bytes was logged cut to 255" ||
	pass "no login name checked long and logged short"
stop_pid "$PRSYNCD_PID"
finish
