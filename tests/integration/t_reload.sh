#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Configuration once, reload without dropping anyone: sessions running
# across a SIGHUP keep their module set; new ones see the new set; a file
# that fails to parse is refused and the old configuration stays; no
# session opens the configuration file (it is gone from its path while
# sessions start, and strace sees no open of it); SIGHUP reopens the
# listener's log file (logrotate's move-and-HUP).
. "$(dirname "$0")/../lib.sh"
HOLD=$TOP/tests/tools/holdclient.py

mkdir -p "$TMP/one" "$TMP/two" "$TMP/three"
echo one > "$TMP/one/f1"; echo two > "$TMP/two/f2"; echo three > "$TMP/three/f3"
conf=$TMP/prsyncd.conf
cat > "$conf" <<CONF
[one]
	path = $TMP/one
[two]
	path = $TMP/two
CONF
port=$(free_port)
start_prsyncd "$conf" "$port" "$TMP/log" || fail "prsyncd did not start"
L=$PRSYNCD_PID

listing() { rsync_client "rsync://127.0.0.1:$port/" 2>&1 | awk '{print $1}' | sort | tr '\n' ' '; }
[ "$(listing)" = "one two " ] && pass "initial module set" || fail "initial set: $(listing)"

# Two sessions that started under the first configuration and wait.
python3 "$HOLD" "$port" "$TMP/r1" "$TMP/go" --send '@RSYNCD: 32.0 md5\n\n' > "$TMP/h1" &
h1=$!
python3 "$HOLD" "$port" "$TMP/r2" "$TMP/go" --send '@RSYNCD: 32.0 md5\ntwo\n' > "$TMP/h2" &
h2=$!
for i in $(seq 1 100); do [ -e "$TMP/r1" ] && [ -e "$TMP/r2" ] && break; sleep 0.1; done

# The new file drops [two] and adds [three], then leaves its path: no
# session may need it.
cat > "$conf.new" <<CONF
[one]
	path = $TMP/one
[three]
	path = $TMP/three
CONF
mv "$conf.new" "$conf"
kill -HUP "$L"
wait_log "$TMP/log" "reload: configuration 2 in force" && pass "SIGHUP loads the new file" || fail "no reload line"
mv "$conf" "$conf.away"

[ "$(listing)" = "one three " ] && pass "new sessions see the new set (file gone)" || fail "new set: $(listing)"
out=$(rsync_client -r "rsync://127.0.0.1:$port/three/" "$TMP/got3/" 2>&1); rc=$?
[ $rc = 0 ] && [ -f "$TMP/got3/f3" ] && pass "new module served" || fail "new module: rc=$rc $out"
out=$(rsync_client "rsync://127.0.0.1:$port/two/" 2>&1); rc=$?
[ $rc = 5 ] && grep -q "Unknown module 'two'" <<<"$out" && pass "removed module refused to new sessions" || fail "two: rc=$rc $out"

touch "$TMP/go"
wait "$h1" "$h2"
sort_mods() { grep -E '^(one|two|three) ' "$1" | awk '{print $1}' | sort | tr '\n' ' '; }
[ "$(sort_mods "$TMP/h1")" = "one two " ] && pass "running session lists its old set" || fail "old listing: $(cat "$TMP/h1")"
grep -q '^@RSYNCD: OK' "$TMP/h2" && pass "running session selects a module the reload removed" || fail "old select: $(cat "$TMP/h2")"
grep -q CLOSED-EARLY "$TMP/h1" "$TMP/h2" && fail "a running session was dropped" || pass "no running session dropped"

# No session opens the configuration file: trace the listener and all
# its children during a listing and a pull.
mv "$conf.away" "$conf"
if command -v strace >/dev/null; then
	strace -f -qq -e trace=open,openat,openat2 -o "$TMP/trace" -p "$L" &
	st=$!
	sleep 0.5
	listing >/dev/null
	rsync_client -r "rsync://127.0.0.1:$port/one/" "$TMP/got1/" >/dev/null 2>&1
	kill "$st"; wait "$st" 2>/dev/null
	if grep -q "$conf" "$TMP/trace"; then fail "a session opened the configuration file: $(grep "$conf" "$TMP/trace" | head -2)"
	elif grep -q 'openat' "$TMP/trace"; then pass "no process opened the configuration file ($(grep -c openat "$TMP/trace") opens traced)"
	else fail "strace saw nothing"; fi
else
	echo "SKIP: strace not installed"
fi

# A broken file is refused and the old configuration stays.
printf '[one]\n\tpath = %s\n[bad\n' "$TMP/one" > "$conf"
kill -HUP "$L"
wait_log "$TMP/log" "reload: .*section header without a closing.*configuration 2 stays in force" &&
	pass "broken file refused with a log line" || fail "no refusal line: $(tail -3 "$TMP/log")"
[ "$(listing)" = "one three " ] && pass "old configuration stays in force" || fail "after broken reload: $(listing)"
printf '[one]\n\tpath = %s\n\tpre-xfer exec = /bin/true\n' "$TMP/one" > "$conf"
kill -HUP "$L"
wait_log "$TMP/log" "reload: .*pre-xfer exec.*stays in force" && pass "a refused directive keeps the old configuration" || fail "pre-xfer exec reload"
[ "$(listing)" = "one three " ] && pass "still the old set" || fail "after refused reload: $(listing)"

# logrotate: move the log, SIGHUP (what the shipped snippet's postrotate
# does), and nothing is lost: old lines in the old file, new ones in the new.
mv "$TMP/log" "$TMP/log.1"
kill -HUP "$L"
wait_log "$TMP/log" "reload:" && pass "SIGHUP reopens the log file" || fail "log not reopened"
listing >/dev/null
wait_log "$TMP/log" "module-list request" && pass "new sessions log to the new file" || fail "session lines missing"
grep -q "reload: configuration 2 in force" "$TMP/log.1" && ! grep -q "reload: configuration 2 in force" "$TMP/log" &&
	pass "old lines stay in the rotated file" || fail "rotated file content"
if command -v logrotate >/dev/null; then
	cat > "$TMP/lr.conf" <<LR
$TMP/log {
	rotate 2
	missingok
	nocompress
	postrotate
		kill -HUP $L
	endscript
}
LR
	before=$(grep -c . "$TMP/log")
	logrotate -f -s "$TMP/lr.state" "$TMP/lr.conf" && [ -s "$TMP/log.1" ] && pass "logrotate rotated the log" || fail "logrotate failed"
	wait_log "$TMP/log" "reload:" && pass "logrotate's postrotate reopened the log" || fail "no new log after logrotate"
	[ "$(grep -c . "$TMP/log.1")" -ge "$before" ] && pass "no line lost in rotation" || fail "lines lost"
fi
kill -0 "$L" && pass "listener still running" || fail "listener died"
finish
