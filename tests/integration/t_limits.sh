#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Connection limits, counted by the listener: 'max connections' per module
# with the global section as default (0 unlimited, negative refuses all),
# differential against rsyncd (same @ERROR text, same exit code); 'max
# connections per host' on the client address; a slot comes back when its
# session is reaped; then a load of LOAD_N (default 500) idle connections
# held or refused by the limits, the listener's descriptors bounded, and a
# normal client served throughout (release binaries: hundreds of sanitizer
# processes would cost gigabytes).
. "$(dirname "$0")/../lib.sh"
HOLD=$TOP/tests/tools/holdclient.py
FLOOD=$TOP/tests/tools/flood.py
LOAD_N=${LOAD_N:-500}

mkdir -p "$TMP/pub/d"
for i in 1 2 3; do echo "file $i" > "$TMP/pub/d/f$i"; done
mkconf() { # mkconf FILE
	cat > "$1" <<CONF
use chroot = no
lock file = $TMP/rsyncd.lock
max connections = 1
[one]
	path = $TMP/pub
[neg]
	path = $TMP/pub
	max connections = -1
[free]
	path = $TMP/pub
	max connections = 0
CONF
}
mkconf "$TMP/p.conf"; mkconf "$TMP/r.conf"
pport=$(free_port); rport=$(free_port)
while [ "$rport" = "$pport" ]; do rport=$(free_port); done
start_prsyncd "$TMP/p.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
P=$PRSYNCD_PID
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"

# pull PORT MODULE: the client's output (without the rsync error footer's
# source location) and exit code
pull() {
	local out rc
	rm -rf "$TMP/got"
	out=$(rsync_client -r "rsync://127.0.0.1:$1/$2/" "$TMP/got/" 2>&1); rc=$?
	printf '%s rc=%d' "$(sed 's/ at [a-z]*\.c([0-9]*).*//' <<<"$out")" "$rc"
}

for who in p r; do
	port=$pport; [ $who = r ] && port=$rport
	rm -f "$TMP/ready$who" "$TMP/go$who"
	python3 "$HOLD" "$port" "$TMP/ready$who" "$TMP/go$who" --early '@RSYNCD: 32.0 md5\none\n' > "$TMP/hold$who" &
	eval "hp$who=$!"
	for i in $(seq 1 100); do [ -e "$TMP/ready$who" ] && break; sleep 0.1; done
done
for mod in one neg free; do
	a=$(pull "$pport" $mod); b=$(pull "$rport" $mod)
	[ "$a" = "$b" ] && pass "[$mod] as rsyncd: $(tail -c 60 <<<"$a")" || fail "[$mod]: prsyncd '$a' rsyncd '$b'"
done
out=$(pull "$pport" one)
grep -q '^@ERROR: max connections (1) reached -- try again later' <<<"$out" && grep -q 'rc=5$' <<<"$out" &&
	pass "global default applies: max connections (1), exit 5" || fail "global default: $out"
grep -q 'max connections (1) reached$' "$TMP/p.log" && pass "refusal logged as rsyncd logs it" || fail "log: $(tail -3 "$TMP/p.log")"
touch "$TMP/gop" "$TMP/gor"; wait "$hpp" "$hpr"
grep -q '@RSYNCD: OK' "$TMP/holdp" && grep -q '@RSYNCD: OK' "$TMP/holdr" &&
	pass "the held sessions had the slot of [one]" || fail "hold: $(cat "$TMP/holdp")"
ok=0
for i in $(seq 1 50); do
	case $(pull "$pport" one) in *rc=0) ok=1; break;; esac
	sleep 0.1
done
[ $ok = 1 ] && pass "slot free again once the session is reaped" || fail "slot not freed: $(pull "$pport" one)"
stop_pid "$P"; stop_pid "$RSYNCD_PID"

# --- per host -----------------------------------------------------------------
cat > "$TMP/h.conf" <<CONF
max connections per host = 2
[pub]
	path = $TMP/pub
CONF
hport=$(free_port)
"$PRSYNCD" --no-detach --config="$TMP/h.conf" --port="$hport" --address=127.0.0.1 --log-file="$TMP/h.log" 2>>"$TMP/h.err" &
H=$!; PIDS+=("$H"); wait_port "$hport"
sleep 0.5 # wait_port's probe session is gone
for n in 1 2; do
	python3 "$HOLD" "$hport" "$TMP/hr$n" "$TMP/hgo" --early '@RSYNCD: 32.0 md5\npub\n' > "$TMP/hh$n" &
	eval "hh$n=$!"
	for i in $(seq 1 100); do [ -e "$TMP/hr$n" ] && break; sleep 0.1; done
done
out=$(pull "$hport" pub)
grep -q '^@ERROR: max connections per host (2) reached -- try again later' <<<"$out" && grep -q 'rc=5$' <<<"$out" &&
	pass "third connection from one host refused, exit 5" || fail "per host: $out"
out=$(rsync_client --address=127.0.0.2 -r "rsync://127.0.0.1:$hport/pub/" "$TMP/got2/" 2>&1); rc=$?
[ $rc = 0 ] && pass "another host is served" || fail "other host: rc=$rc $out"
grep -q 'max connections per host (2) reached for localhost (127.0.0.1)\|max connections per host (2) reached for .* (127.0.0.1)' "$TMP/h.log" &&
	pass "per-host refusal logged with the address" || fail "h.log: $(tail -3 "$TMP/h.log")"
touch "$TMP/hgo"; wait "$hh1" "$hh2"
stop_pid "$H"

# --- load ---------------------------------------------------------------------
REL=$TOP/build
NHOST=$((LOAD_N * 2 / 5)); NMOD=$((LOAD_N / 10)); NB=$((NMOD + NMOD / 5))
cat > "$TMP/l.conf" <<CONF
max connections per host = $NHOST
handshake timeout = 300
[pub]
	path = $TMP/pub
	max connections = $NMOD
[misc]
	path = $TMP/pub
CONF
lport=$(free_port)
"$REL/prsyncd" --no-detach --config="$TMP/l.conf" --port="$lport" --address=127.0.0.1 --log-file="$TMP/l.log" 2>>"$TMP/l.err" &
L=$!; PIDS+=("$L"); wait_port "$lport"
for i in $(seq 1 100); do [ "$(pgrep -c -P "$L")" = 0 ] && break; sleep 0.1; done
fds0=$(ls /proc/$L/fd | wc -l)
normal() { # normal NAME: a stock client from another address pulls [misc]
	local out rc
	rm -rf "$TMP/gotn"
	out=$(rsync_client --address=127.0.0.2 -r "rsync://127.0.0.1:$lport/misc/" "$TMP/gotn/" 2>&1); rc=$?
	[ $rc = 0 ] && [ -f "$TMP/gotn/d/f3" ] && pass "$1" || fail "$1: rc=$rc $out"
}
python3 "$FLOOD" "$lport" "$LOAD_N" 127.0.0.1 "$TMP/fa" "$TMP/fgo" > "$TMP/fa.out" 2>&1 &
fa=$!
normal "normal client served while idle connections pile up"
for i in $(seq 1 900); do [ -e "$TMP/fa" ] && break; sleep 0.1; done
[ "$(cat "$TMP/fa" 2>/dev/null)" = "held=$NHOST host=$((LOAD_N - NHOST)) module=0 other=0 busy=0" ] &&
	pass "$LOAD_N idle connections: $NHOST held, $((LOAD_N - NHOST)) refused by the per-host limit" ||
	fail "flood A: $(cat "$TMP/fa" "$TMP/fa.out" 2>/dev/null)"
python3 "$FLOOD" "$lport" "$NB" 127.0.0.3 "$TMP/fb" "$TMP/fgo" --send '@RSYNCD: 32.0 md5\npub\n' > "$TMP/fb.out" 2>&1 &
fb=$!
for i in $(seq 1 600); do [ -e "$TMP/fb" ] && break; sleep 0.1; done
[ "$(cat "$TMP/fb" 2>/dev/null)" = "held=$NMOD host=0 module=$((NB - NMOD)) other=0 busy=0" ] &&
	pass "$NB idle sessions in [pub]: $NMOD held, $((NB - NMOD)) refused by max connections" ||
	fail "flood B: $(cat "$TMP/fb" "$TMP/fb.out" 2>/dev/null)"
fds1=$(ls /proc/$L/fd | wc -l)
soft=$(awk '/Max open files/ {print $4}' /proc/$L/limits)
[ "$fds1" -le $((fds0 + NHOST + NMOD + 16)) ] && [ "$fds1" -lt "$soft" ] &&
	pass "listener descriptors bounded: $fds0 -> $fds1 (one per held session; soft limit $soft)" ||
	fail "listener fds $fds0 -> $fds1 (soft $soft)"
normal "normal client served with every limit reached"
out=$(rsync_client --address=127.0.0.2 "rsync://127.0.0.1:$lport/pub/" 2>&1)
grep -q "max connections ($NMOD) reached" <<<"$out" && pass "[pub] full for everyone" || fail "pub: $out"
grep -q 'EMFILE\|Too many open files\|accept:' "$TMP/l.log" && fail "descriptors ran out" || pass "no descriptor exhaustion logged"
touch "$TMP/fgo"; wait "$fa" "$fb"
for i in $(seq 1 300); do [ "$(pgrep -c -P "$L")" = 0 ] && break; sleep 0.1; done
[ "$(pgrep -c -P "$L")" = 0 ] && pass "every session ended and was reaped" || fail "$(pgrep -c -P "$L") sessions left"
fds2=$(ls /proc/$L/fd | wc -l)
[ "$fds2" = "$fds0" ] && pass "listener back to $fds0 descriptors" || fail "listener fds $fds0 -> $fds2"
out=$(rsync_client -r "rsync://127.0.0.1:$lport/pub/" "$TMP/gotp/" 2>&1); rc=$?
[ $rc = 0 ] && pass "slots free again after the load" || fail "after load: rc=$rc $out"
finish
