#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Issue 26, 4a: --bwlimit.  The same pulls, by the same stock client, from
# rsyncd and from prsyncd: the average rate (bytes over the pull's wall
# time) must be within BWLIMIT_TOL percent of rsyncd's (default 15: the
# target is 10, the rest is room for a busy 2-core machine; every figure
# is printed).  Pacing is sleeping, so the sanitizer build keeps time.
#   1  the client's --bwlimit, protocols 32, 30, 29 and 27
#   2  the daemon's own --bwlimit: no client limit -> the daemon's; the
#      client asks more -> capped; asks less -> its own; a reload keeps it
#   3  what the daemon's option accepts: what rsyncd's does
# The CI size is 2.5 MB at 1000 KiB/s (~2.5 s a pull); BWLIMIT_FULL=1 adds
# the issue's own pull, 20 MB at 2000 KiB/s (~10 s).
. "$(dirname "$0")/../lib.sh"
TOL=${BWLIMIT_TOL:-15}

D=$TMP/mod
mkdir -p "$D"
head -c 2500000 /dev/urandom > "$D/f2500k"
head -c 1250000 /dev/urandom > "$D/f1250k"
[ "${BWLIMIT_FULL:-0}" = 1 ] && head -c 20000000 /dev/urandom > "$D/f20m"
chmod -R a+rX "$D"
if [ "$(id -u)" = 0 ]; then ids=$'\tuid = root\n\tgid = root'; else ids=$'\tuse chroot = no'; fi
cat > "$TMP/conf" <<CONF
[mod]
	path = $D
$ids
CONF

# rsyncd PORT LOG [daemon options]: the oracle, with options of its own
rsyncd() {
	local port=$1 log=$2; shift 2
	rsync --daemon --no-detach --config="$TMP/conf" --port="$port" --address=127.0.0.1 \
		--log-file="$log" "$@" &
	PIDS+=("$!")
	wait_port "$port"
}
rport=$(free_port); rsyncd "$rport" "$TMP/r.log" || fail "rsyncd did not start"
pport=$(free_port); start_prsyncd "$TMP/conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
rcap=$(free_port); rsyncd "$rcap" "$TMP/rc.log" --bwlimit=1000 || fail "rsyncd --bwlimit did not start"
pcap=$(free_port); start_prsyncd "$TMP/conf" "$pcap" "$TMP/pc.log" --bwlimit=1000 ||
	fail "prsyncd --bwlimit did not start"
PCAP_PID=$PRSYNCD_PID

# pull PORT FILE [client options]: "ms rc" of one pull of mod/FILE
pull() {
	local port=$1 file=$2 t0 t1 rc; shift 2
	rm -rf "$TMP/dst"
	t0=$(date +%s%N)
	rsync_client "$@" "rsync://127.0.0.1:$port/mod/$file" "$TMP/dst/" > "$TMP/out" 2>&1; rc=$?
	t1=$(date +%s%N)
	cmp -s "$D/$file" "$TMP/dst/$file" || rc="$rc,differs"
	echo "$(((t1 - t0) / 1000000)) $rc"
}
# same NAME KIB FILE RPORT PPORT [client options]: the two pulls' rates
# within TOL% of each other, neither above KIB by more than TOL%
same() {
	local name=$1 kib=$2 file=$3 rp=$4 pp=$5 size r p rrate prate ratio; shift 5
	size=$(stat -c %s "$D/$file")
	r=$(pull "$rp" "$file" "$@"); p=$(pull "$pp" "$file" "$@")
	set -- $r $p
	if [ "$2" != 0 ] || [ "$4" != 0 ] || [ "$1" -le 0 ] || [ "$3" -le 0 ]; then
		fail "$name: rsyncd '$r' prsyncd '$p' (ms rc)"; sed 's/^/    /' "$TMP/out"
		return
	fi
	rrate=$((size * 1000 / $1 / 1024)); prate=$((size * 1000 / $3 / 1024))
	ratio=$((prate * 1000 / rrate))
	if [ "$ratio" -ge $((1000 - 10 * TOL)) ] && [ "$ratio" -le $((1000 + 10 * TOL)) ] &&
		[ "$prate" -le $((kib * (100 + TOL) / 100)) ]; then
		pass "$name: prsyncd $prate KiB/s (${3} ms), rsyncd $rrate KiB/s (${1} ms): ratio $((ratio / 1000)).$(printf %03d $((ratio % 1000)))"
	else
		fail "$name: prsyncd $prate KiB/s (${3} ms), rsyncd $rrate KiB/s (${1} ms), limit $kib: ratio $((ratio / 1000)).$(printf %03d $((ratio % 1000))) (tolerance $TOL%)"
	fi
}

# --- 1: the client's limit ------------------------------------------------------
same "1: --bwlimit=1000, 2.5 MB" 1000 f2500k "$rport" "$pport" --bwlimit=1000
same "1: --bwlimit=1000K (a suffix), 2.5 MB" 1000 f2500k "$rport" "$pport" --bwlimit=1000K
for proto in 30 29 27; do
	same "1: --protocol=$proto --bwlimit=1000" 1000 f2500k "$rport" "$pport" --protocol="$proto" --bwlimit=1000
done
if [ "${BWLIMIT_FULL:-0}" = 1 ]; then
	same "1: the issue's pull, --bwlimit=2000, 20 MB" 2000 f20m "$rport" "$pport" --bwlimit=2000
fi
# and without a limit the same pull is not paced (the figures above are the limit's)
set -- $(pull "$pport" f2500k)
[ "$2" = 0 ] && [ "$1" -lt 1500 ] && pass "1: no --bwlimit: 2.5 MB in $1 ms" || fail "1: no --bwlimit: '$*' (ms rc)"

# --- 2: the daemon's own limit ----------------------------------------------------
same "2: daemon --bwlimit=1000, no client limit" 1000 f2500k "$rcap" "$pcap"
same "2: daemon --bwlimit=1000, client asks 4000: capped" 1000 f2500k "$rcap" "$pcap" --bwlimit=4000
same "2: daemon --bwlimit=1000, client asks 500: its own" 500 f1250k "$rcap" "$pcap" --bwlimit=500
same "2: daemon --bwlimit=1000, client --bwlimit=0: capped" 1000 f2500k "$rcap" "$pcap" --bwlimit=0
# a reload (SIGHUP) keeps the command line's cap
kill -HUP "$PCAP_PID"
if wait_log "$TMP/pc.log" 'reload: configuration 2 in force'; then
	set -- $(pull "$pcap" f2500k --bwlimit=4000)
	rate=$(($(stat -c %s "$D/f2500k") * 1000 / ${1:-1} / 1024))
	[ "$2" = 0 ] && [ "$rate" -le $((1000 * (100 + TOL) / 100)) ] &&
		pass "2: after a reload, still capped: $rate KiB/s (${1} ms)" || fail "2: after a reload: $rate KiB/s ('$*')"
else
	fail "2: no reload logged: $(tail -n 3 "$TMP/pc.log")"
fi

# --- 3: the daemon option's values --------------------------------------------------
# rsyncd's is a whole number of KiB/s: a suffix or junk stops it (exit 1)
for v in 1m abc -5x 99999999999; do
	timeout 10 "$PRSYNCD" --no-detach --config="$TMP/conf" --port="$(free_port)" --address=127.0.0.1 \
		--log-file="$TMP/bad.log" --bwlimit="$v" > "$TMP/bad.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -q "invalid bwlimit" "$TMP/bad.out" && pass "3: --bwlimit=$v refused: $(head -n 1 "$TMP/bad.out")" ||
		fail "3: --bwlimit=$v: rc=$rc $(head -n 2 "$TMP/bad.out")"
done
grep -q -- "--bwlimit=RATE" <("$PRSYNCD" --help) && pass "3: --help names --bwlimit" || fail "3: --help"

for f in "$TMP"/p.log "$TMP"/pc.log; do
	grep -Eq 'Sanitizer|runtime error' "$f.stderr" 2>/dev/null && fail "sanitizer report in $f.stderr"
done
finish
