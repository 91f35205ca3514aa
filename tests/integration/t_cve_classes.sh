#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Daemon-side rsync CVE classes of 2024-2026 that no other test shows
# prsyncd unaffected by (docs/threat-model.md section 7 maps every class
# to its test):
#   handshake stall       silent, trickling and mid-argument clients, and
#                         many at once, all end at the handshake deadline
#   argument-count overflow  more records than the bound, and one record
#                         longer than the bound, end the session cleanly
#   filter merge from the wire bypassing module filters
#                         per-directory merge files and client rules that
#                         try to re-include what the module's filters hide
# Differential where rsyncd is the oracle (the filter case).
. "$(dirname "$0")/../lib.sh"

M=$TMP/mod
mkdir -p "$M/sub" "$M/secret"
echo a > "$M/a.txt"
echo b > "$M/b.key"
echo c > "$M/sub/c.key"
echo d > "$M/sub/d.txt"
echo s > "$M/secret/s.txt"
printf '+ *.key\n+ secret/\n+ secret/**\n' > "$M/.rsync-filter"
cp "$M/.rsync-filter" "$M/sub/.rsync-filter"
printf '+ *.key\n+ /secret/***\n' > "$M/rules.merge"
chmod -R a+rX "$M"
cat > "$TMP/p.conf" <<CONF
handshake timeout = 2
[mod]
	path = $M
	exclude = *.key secret/
CONF
# rsyncd as root drops to nobody in a chroot; started by a user it can do neither.
if [ "$(id -u)" = 0 ]; then ids=$'\tuid = nobody\n\tgid = nogroup'; else ids=$'\tuse chroot = no'; fi
cat > "$TMP/r.conf" <<CONF
pid file = $TMP/rsyncd.pid
log file = $TMP/rsyncd.log
[mod]
	path = $M
$ids
	exclude = *.key secret/
CONF
port=$(free_port)
start_prsyncd "$TMP/p.conf" "$port" "$TMP/log" || fail "prsyncd did not start"
L=$PRSYNCD_PID
rport=$(free_port)
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"

# slow DELAY burst|trickle PIECE...: a raw client that sends its pieces
# DELAY seconds apart (trickle: one byte at a time), then waits; prints how
# the connection ended (EOF, RESET, or TIMEOUT: still open after 15 s) and
# the bytes received.
slow() {
	local delay=$1 how=$2 a=() p
	shift 2
	for p in "$@"; do a+=(--send "$p"); done
	[ "$how" = trickle ] && a+=(--trickle)
	timeout 40 python3 "$TOP/tests/tools/rawclient.py" "$port" --delay "$delay" ${a[@]+"${a[@]}"} --how
}

# --- handshake stall ------------------------------------------------------------
out=$(slow 0 burst)
case $out in EOF*) pass "silent client: closed at the deadline";; *) fail "silent client: $out";; esac
wait_log "$TMP/log" 'handshake timeout \(2 s\)' && pass "silent client: deadline logged" || fail "silent client: no log line"
out=$(slow 0.3 trickle '@RSYNCD: 32.0 md5\nmod\n')
case $out in EOF*|RESET*) pass "trickling client: closed at the deadline ($out)";; *) fail "trickling client: $out";; esac
# Selected, then silent in the middle of its arguments: the worker's own
# handshake deadline covers everything up to the end of setup.
out=$(slow 0 burst '@RSYNCD: 32.0 md5\nmod\n--server\0--sender\0')
case $out in "EOF @RSYNCD: 32.0 "*"@RSYNCD: OK|"*) pass "stall in the arguments: closed";; *) fail "stall in the arguments: $out";; esac
wait_log "$TMP/log" 'handshake timeout \(2 s\) in the argument list' && pass "stall in the arguments: logged" || fail "stall in the arguments: not logged"
# Many at once: each ends; the listener serves the next client.
stalled=()
for i in $(seq 1 30); do slow 0 burst > "$TMP/stall.$i" & stalled+=($!); done
wait "${stalled[@]}"
n=$(grep -l '^EOF' "$TMP"/stall.* | wc -l)
[ "$n" = 30 ] && pass "30 silent clients at once: all closed" || fail "30 silent clients: $n closed"
out=$(rsync_client "rsync://127.0.0.1:$port/" 2>&1)
case $out in mod*) pass "listener serves after the stalls";; *) fail "after the stalls: $out";; esac

# --- argument-count overflow --------------------------------------------------------
many=$(python3 -c 'print("-v\\0" * 16001, end="")')
out=$(slow 0 burst '@RSYNCD: 32.0 md5\nmod\n--server\0--sender\0' "$many" '\0')
case $out in EOF*|RESET*) pass "16,003 argument records: session ended";; *) fail "argument count: $out";; esac
wait_log "$TMP/log" 'too many daemon arguments' && pass "argument count: logged as rsyncd logs it" || fail "argument count: not logged"
# rsyncd's bound exactly: 15,998 records (its own "rsyncd" is the first of
# 16,000 places, the last one is kept free) are served, one more is not.
edge() { # edge N: N records as rawclient --send text ("\0" escapes)
	python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
print("--server\\0--sender\\0-r\\0.\\0" + "mod/x\\0" * (n - 4), end="")
PY
}
out=$(slow 0 burst '@RSYNCD: 32.0 md5\nmod\n' "$(edge 15998)" '\0')
case $out in *"@RSYNCD: OK|"?*) pass "15,998 argument records: served, as rsyncd serves them";; *) fail "15,998 records: $out";; esac
n=$(grep -c 'too many daemon arguments' "$TMP/log")
out=$(slow 0 burst '@RSYNCD: 32.0 md5\nmod\n' "$(edge 15999)" '\0')
case $out in EOF*|RESET*) pass "15,999 argument records: session ended, as rsyncd ends it";; *) fail "15,999 records: $out";; esac
wait_log "$TMP/log" 'too many daemon arguments' && [ "$(grep -c 'too many daemon arguments' "$TMP/log")" -gt "$n" ] &&
	pass "15,999 argument records: logged" || fail "15,999 records: not logged"
# What rsyncd logs for it (with "log file" in its configuration: started
# with --log-file alone, rsyncd moves to syslog when it selects a module,
# so the lines after the selection are not in that file), against ours:
# the message and its exit line, which names rsyncd's source line and
# version where prsyncd names the step and its own.
port_save=$port; port=$rport
out=$(slow 0 burst '@RSYNCD: 32.0 md5\nmod\n' "$(edge 15999)" '\0')
port=$port_save
loglines() { # the two lines of the last "too many daemon arguments" in FILE, normalised
	grep -A1 'too many daemon arguments' "$1" | tail -2 |
		sed -E 's/^[0-9\/]+ [0-9:]+ \[[0-9]+\] //; s/ at [^ ]+ \[Receiver=[^]]+\]$//'
}
wait_log "$TMP/rsyncd.log" 'too many daemon arguments' && sleep 0.3
r=$(loglines "$TMP/rsyncd.log"); p=$(loglines "$TMP/log")
[ -n "$r" ] && [ "$r" = "$p" ] && pass "15,999 records: the log says what rsyncd's says ($(tr '\n' '|' <<<"$p"))" ||
	fail "15,999 records: rsyncd logs '$r', prsyncd '$p'"
# Every record after the "." is a source path, as many as the bound
# leaves, as rsyncd takes them (a stock client sends at most ~1,000
# records: "args[] overflowed"; other clients may send more).
for p_ in "$port" "$rport"; do
	out=$(timeout 40 python3 "$TOP/tests/tools/rawclient.py" "$p_" --send '@RSYNCD: 32.0 md5\nmod\n' \
		--send "$(edge 5000)" --send '\0' --timeout 3 --how)
	case $out in *"@RSYNCD: OK|"?*) grep -q 'rsync' <<<"${out#*@RSYNCD: OK|}" &&
		fail "4,996 source paths ($p_): refused: $(cut -c1-200 <<<"$out")" ||
		pass "4,996 source paths ($([ "$p_" = "$port" ] && echo prsyncd || echo rsyncd)): taken, no error";;
	*) fail "4,996 source paths ($p_): $(cut -c1-200 <<<"$out")";; esac
done
long=$(python3 -c 'print("x" * 100000, end="")')
out=$(slow 0 burst '@RSYNCD: 32.0 md5\nmod\n--server\0' "$long" '\0\0')
case $out in EOF*|RESET*) pass "a 100,000-byte argument: session ended";; *) fail "argument length: $out";; esac
wait_log "$TMP/log" 'argument record too long' && pass "argument length: logged" || fail "argument length: not logged"

# --- filter merge from the wire vs module filters ------------------------------------
for opts in "-a -F" "-a --filter=:_.rsync-filter" \
	"-a --include=*.key --include=secret/*** --filter=+_*.key" "-a --filter=merge_$M/rules.merge" \
	"-aR --include=*.key" ; do
	rm -rf "$TMP/pd" "$TMP/rd"
	# shellcheck disable=SC2086
	rsync_client $opts "rsync://127.0.0.1:$port/mod/" "$TMP/pd/" > "$TMP/p.out" 2>&1; prc=$?
	# shellcheck disable=SC2086
	rsync_client $opts "rsync://127.0.0.1:$rport/mod/" "$TMP/rd/" > "$TMP/r.out" 2>&1; rrc=$?
	got=$(cd "$TMP/pd" 2>/dev/null && find . | sort | tr '\n' ' ')
	case " $got " in
	*.key*|*secret*) fail "$opts: a hidden file was sent: $got";;
	*) pass "$opts: module filters hold (prsyncd exit $prc, rsyncd exit $rrc)";;
	esac
	want=$(cd "$TMP/rd" 2>/dev/null && find . | sort | tr '\n' ' ')
	[ "$got" = "$want" ] && [ "$prc" = "$rrc" ] && pass "$opts: same tree and exit code as rsyncd" ||
		fail "$opts: prsyncd ($prc) '$got' vs rsyncd ($rrc) '$want'"
done

kill -0 "$L" 2>/dev/null && pass "listener alive" || fail "listener died"
grep -Eq 'killed by signal' "$TMP/log" && fail "a process was killed: $(grep 'killed by signal' "$TMP/log" | head -n 1)" ||
	pass "no worker or monitor killed by a signal"
if grep -Eq 'Sanitizer|runtime error' "$TMP/log.stderr" 2>/dev/null; then
	fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/log.stderr")"
else
	pass "no sanitizer report"
fi
finish
