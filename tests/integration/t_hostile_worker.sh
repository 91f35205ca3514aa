#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# A hostile program in place of the worker attacks the session monitor.
# Each misbehaviour must end that session with a log line, and the same
# listener must keep serving (the "normal" mode execs the real worker).
. "$(dirname "$0")/../lib.sh"

mkdir -p "$TMP/pub"
cat > "$TMP/conf" <<CONF
handshake timeout = 2
[pub]
	path = $TMP/pub
[logged]
	path = $TMP/pub
	transfer logging = yes
	log format = %i %f|%n|%L
CONF
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" --worker="$TOOLS/hostile_worker" || fail "prsyncd did not start"
L=$PRSYNCD_PID

expect_mode() { # expect_mode MODE LOG-REGEX
	local before
	before=$(wc -l < "$TMP/log")
	rawclient "$port" --send "$1\n" --timeout 4 >/dev/null
	expect_logged "$1" "$before" "$2"
}

expect_mode unknown-type 'invalid message from worker \(unknown message type\)'
expect_mode wrong-length 'invalid message from worker \(wrong body length'
expect_mode unterminated-string 'invalid message from worker \(malformed string'
expect_mode out-of-state 'PR_W_SELECT in a state where it is not permitted'
expect_mode second-select 'PR_W_SELECT in a state where it is not permitted'
expect_mode short-record 'invalid message from worker \(short record\)'
expect_mode oversized-record 'invalid message from worker \(oversized record'
expect_mode bad-seq 'invalid message from worker \(out-of-sequence'
expect_mode unexpected-fd 'invalid message from worker \(descriptor missing or unexpected\)'
expect_mode bad-log-level 'invalid message from worker \(field out of range\)'
expect_mode silent 'handshake timeout \(2 s\)'
expect_mode log-injection 'first\\#012.*forged line\\#033'
# A forged line must not appear as a line of its own.
grep -q '^2026/01/01 00:00:00 \[1\] forged' "$TMP/log" && fail "log injection produced a forged line" || pass "no forged log line"

# The transfer log's records (PR_W_START, PR_W_XFER), malformed, out of
# state, repeated, unasked; their text cannot forge a line either.
expect_mode start-out-of-state 'PR_W_START in a state where it is not permitted'
expect_mode start-bad-sender 'invalid message from worker \(field out of range\)'
expect_mode start-unterminated 'invalid message from worker \(malformed string'
expect_mode start-newline 'invalid message from worker \(malformed string'
expect_mode start-twice 'worker sent PR_W_START in a state where it is not permitted; ending session'
expect_mode xfer-unasked 'transfer record the monitor did not ask for'
expect_mode xfer-before-start 'transfer record the monitor did not ask for'
for c in nl cr esc us; do
	expect_mode xfer-ctl-$c 'invalid message from worker \(malformed string'
done
expect_mode xfer-unterminated 'invalid message from worker \(malformed string'
expect_mode xfer-wrong-length 'invalid message from worker \(wrong body length'
expect_mode xfer-injection 'invalid message from worker \(malformed string'
grep -qF 'rsync on logged/\#012 2026/01/01 00:00:00 [1] forged start from' "$TMP/log" &&
	pass "xfer-injection: a clean request logged as it came" || fail "clean request not logged as sent"
grep -qF "$(printf 'send tab\there caf\303\251 x\\#012 kept')" "$TMP/log" && pass "xfer-injection: a clean line logged as it came" ||
	fail "clean line not logged as sent"
# The monitor's answer to START carries the module's format and the values
# only it knows (the hostile worker prints what it received).
out=$(rawclient "$port" --send 'start-answer\n' --timeout 4)
case $out in *"XFERLOG files=1 pid=ok format=%i %f|%n|%L host="*" addr=127.0.0.1 user= module=logged path=$TMP/pub"*)
	pass "START answered with the format and the session's values";; *) fail "START answer: $out";; esac
grep -q '^2026/01/01 00:00:00 \[1\] forged' "$TMP/log" && fail "a transfer record produced a forged line" || pass "no forged transfer line"

out=$(rawclient "$port" --send 'normal\n@RSYNCD: 32.0 md5\n\n' --timeout 5)
case $out in *"pub"*"@RSYNCD: EXIT"*) pass "listener still serves a real worker";; *) fail "real worker after attacks: $out";; esac
zombies=$(ps -o stat= --ppid "$L" | grep -c Z)
[ "$zombies" = 0 ] && pass "no zombie sessions" || fail "$zombies zombie sessions"
finish
