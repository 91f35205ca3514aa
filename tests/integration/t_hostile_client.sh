#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# A hostile client after a real handshake: sum heads that violate the
# negotiated digest length (the CVE-2024-12084 shape) or the count /
# block length / remainder bounds.  Each must end that session with a
# protocol error, no sanitizer report and no crash, and the daemon must
# serve the next client.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$TMP/pub"
head -c 20000 /dev/urandom > "$TMP/pub/f.bin"
printf '[pub]\n\tpath = %s\n\tuid = root\n\tgid = root\n' "$TMP/pub" > "$TMP/conf"
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" || fail "prsyncd did not start"

attack() { # attack NAME COUNT BLENGTH S2LENGTH REMAINDER
	local out
	out=$(timeout 30 python3 "$TOP/tests/tools/evilsums.py" "$port" pub f.bin "$2" "$3" "$4" "$5" 2>&1)
	if grep -q "Invalid checksum header" <<<"$out" && grep -q CLOSED <<<"$out"; then
		pass "$1: refused with a protocol error"
	else
		fail "$1: $out"
	fi
}
attack "s2length 9 > xxh64's 8"   1 700 9 0
attack "s2length 16 > 8"          1 700 16 0
attack "s2length 64"              1 700 64 0
attack "s2length -1"              1 700 -1 0
attack "count -1"                 -1 700 2 0
attack "count huge"               2147483647 700 2 0
attack "blength 0 with blocks"    1 0 2 0
attack "blength over 2^17"        1 131073 2 0
attack "blength negative"         1 -700 2 0
attack "remainder > blength"      1 700 2 701
attack "remainder without blocks" 0 700 2 5

# Incremental recursion: a tree big enough that lists are still pending
# when the attack arrives (about 3,000 entries in 30 directories).
mkdir -p "$TMP/wide"
for d in $(seq 1 30); do
	mkdir -p "$TMP/wide/d$d"
	for f in $(seq 1 100); do : > "$TMP/wide/d$d/f$f"; done
done
printf '[wide]\n\tpath = %s\n\tuid = root\n\tgid = root\n' "$TMP/wide" >> "$TMP/conf"
# Sessions use the configuration the listener loaded: reload it.
kill -HUP "$PRSYNCD_PID"
wait_log "$TMP/log" "reload: configuration 2 in force" || fail "reload with [wide] not logged"
inc_attack() { # inc_attack MODE EXPECTED-TEXT
	local out
	out=$(timeout 30 python3 "$TOP/tests/tools/evilinc.py" "$port" wide "$1" 2>&1)
	if grep -q -- "$2" <<<"$out" && grep -q CLOSED <<<"$out"; then
		pass "inc-recursion $1: session ended ($2)"
	else
		fail "inc-recursion $1: $out"
	fi
}
inc_attack past-end "File-list index 50000000 not in"
inc_attack placeholder "transfer request for a non-regular file"
inc_attack negative "File-list index -150"
inc_attack done-flood "CLOSED"   # all lists retired early: the run just ends
if [ -s "$TMP/log.stderr" ] && grep -qE 'AddressSanitizer|runtime error' "$TMP/log.stderr"; then
	fail "sanitizer report"; head -20 "$TMP/log.stderr"
else
	pass "no sanitizer report"
fi
grep -q 'killed by signal' "$TMP/log" && fail "a worker was killed by a signal" || pass "no worker crashed"
out=$(rsync_client -a "rsync://127.0.0.1:$port/pub/" "$TMP/dest" 2>&1)
cmp -s "$TMP/pub/f.bin" "$TMP/dest/f.bin" && pass "next client served" || fail "next client: $out"
finish
