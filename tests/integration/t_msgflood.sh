#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Issue 26, 4d: a client that floods the sender with message frames
# (tests/tools/logflood.py), the same floods to rsyncd and to prsyncd.
#   1  the issue's flood: the module root without -r, which rsyncd skips
#      ("skipping directory ."): the list is empty and both end the session
#      at once, whatever the client keeps sending, logging rsyncd's totals
#   2  tag by tag, on a list that is not empty (-r; the sender reads the
#      frames while it waits for requests): what ends the session ends it
#      in both, with rsyncd's log line and exit 12 ("invalid multi-message",
#      "multiplexing overflow", "unexpected tag", "[sender/inc]"); what does
#      not (text, DELETED) leaves it open in both
#   3  CPU: the session's CPU (the daemon's reaped children, /proc/PID/stat)
#      for the same floods, the release build against rsyncd: at most twice
#      rsyncd's plus 30 ms (10 ms ticks); the figures are printed.
#      PRSYNCD_REL=DIR takes the release binaries from DIR (default build/)
. "$(dirname "$0")/../lib.sh"

D=$TMP/mod
mkdir -p "$D/sub"
echo a > "$D/a.txt"; echo s > "$D/sub/s.txt"
chmod -R a+rX "$D"
if [ "$(id -u)" = 0 ]; then ids=$'\tuid = root\n\tgid = root'; else ids=$'\tuse chroot = no'; fi
# rsyncd's log file in the configuration: opened before its session's
# chroot (a --log-file would be reopened inside it); prsyncd's --log-file
# takes the place of it.
cat > "$TMP/conf" <<CONF
log file = $TMP/r.log
[mod]
	path = $D
$ids
CONF
rport=$(free_port)
rsync --daemon --no-detach --config="$TMP/conf" --port="$rport" --address=127.0.0.1 &
R=$!; PIDS+=("$R")
wait_port "$rport" || fail "rsyncd did not start"
pport=$(free_port)
start_prsyncd "$TMP/conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"

# flood PORT LOG ARGS...: the client's "SENT/CLOSED|OPEN" and the session's
# log lines from LOG (once its ending line is there), "|"-joined
flood() {
	local port=$1 log=$2 before out; shift 2
	before=$(wc -l < "$log" 2>/dev/null || echo 0)
	out=$(timeout 90 python3 "$TOP/tests/tools/logflood.py" "$port" mod "$@" | sed -n 2p)
	for i in $(seq 1 50); do
		tail -n +"$((before + 1))" "$log" | grep -Eq 'total size|rsync error|session ended' && break
		[ "$out" = OPEN ] && break
		sleep 0.1
	done
	echo "$out|$(tail -n +"$((before + 1))" "$log" | grep -v 'client message:' | cut -d' ' -f4- | tr '\n' '|')"
}

# --- 1: the issue's flood: an empty list -------------------------------------------
a=$(flood "$rport" "$TMP/r.log" 50000 1024); b=$(flood "$pport" "$TMP/p.log" 50000 1024)
empty_end() { grep -q '^CLOSED|' <<<"$1" && grep -q '|skipping directory \.|' <<<"$1" &&
	grep -Eq '\|sent [0-9]+ bytes  received [0-9]+ bytes  total size 0\|' <<<"$1"; }
empty_end "$a" && empty_end "$b" &&
	pass "1: 50,000 frames after an empty list: both end the session at once, as rsyncd logs it ($(cut -c1-120 <<<"$b"))" ||
	fail "1: rsyncd '$(cut -c1-200 <<<"$a")' prsyncd '$(cut -c1-200 <<<"$b")'"

# The rule behind it, seen by the stock client: without -r, -d or
# --list-only a directory argument is skipped, "dir/" and "." too
cpull() { # cpull PORT OPTS SRC: the client's output, exit code and files
	local out rc
	rm -rf "$TMP/dst"
	out=$(rsync_client $2 "rsync://127.0.0.1:$1/$3" "$TMP/dst/" 2>&1); rc=$?
	echo "$out rc=$rc $(cd "$TMP/dst" 2>/dev/null && find . | sort | tr '\n' ' ')"
}
for c in ":mod/" ":mod/sub/" ":mod/sub/." ":mod" "-R:mod/sub" "-R:mod/./sub/" "-d:mod/sub/" "-r:mod/sub/"; do
	a=$(cpull "$rport" "${c%%:*}" "${c#*:}"); b=$(cpull "$pport" "${c%%:*}" "${c#*:}")
	[ "$a" = "$b" ] && pass "1: rsync ${c%%:*} ${c#*:}: as rsyncd ($(tr '\n' ' ' <<<"$b"))" ||
		fail "1: rsync ${c%%:*} ${c#*:}: rsyncd '$a' prsyncd '$b'"
done

# --- 2: tag by tag -------------------------------------------------------------------------
# ends NAME ARGS...: both close, both log the same reason line and exit 12
ends() {
	local name=$1 a b ra rb; shift
	a=$(flood "$rport" "$TMP/r.log" "$@"); b=$(flood "$pport" "$TMP/p.log" "$@")
	ra=$(grep -oE '(invalid multi-message|multiplexing overflow|unexpected tag) [^|]*' <<<"$a")
	rb=$(grep -oE '(invalid multi-message|multiplexing overflow|unexpected tag) [^|]*' <<<"$b")
	if grep -q '^CLOSED|' <<<"$a" && grep -q '^CLOSED|' <<<"$b" && [ -n "$ra" ] && [ "$ra" = "$rb" ] &&
		grep -q 'rsync error: error in rsync protocol data stream (code 12)' <<<"$a" &&
		grep -q 'rsync error: error in rsync protocol data stream (code 12)' <<<"$b"; then
		pass "2: $name: both end it, '$rb', exit 12"
	else
		fail "2: $name: rsyncd '$(cut -c1-200 <<<"$a")' prsyncd '$(cut -c1-200 <<<"$b")'"
	fi
}
# reads_on NAME ARGS...: neither ends the session
reads_on() {
	local name=$1 a b; shift
	a=$(flood "$rport" "$TMP/r.log" "$@"); b=$(flood "$pport" "$TMP/p.log" "$@")
	[ "${a%%|*}" = OPEN ] && [ "${b%%|*}" = OPEN ] && pass "2: $name: both read on" ||
		fail "2: $name: rsyncd '$(cut -c1-200 <<<"$a")' prsyncd '$(cut -c1-200 <<<"$b")'"
}
for t in 5 6 7 8 9 10 33 100; do
	ends "tag $t (100 bytes)" 3 100 -r --tags "$t"
done
ends "tag 6 under incremental recursion" 3 100 -r --inc --tags 6
ends "tag 11 (unknown)" 3 100 -r --tags 11
ends "MSG_INFO of 5,120 bytes" 2 5120 -r --tags 2
ends "MSG_ERROR of 8,000 bytes" 2 8000 -r --tags 3
ends "MSG_DELETED of 5,120 bytes" 2 5120 -r --tags 101
reads_on "MSG_INFO/ERROR/WARNING/ERROR_XFER of 5,119 bytes" 8 5119 -r --tags 2,3,4,1
reads_on "MSG_DELETED of 100 bytes" 8 100 -r --tags 101

# --- 3: CPU, the release build against rsyncd -------------------------------------------
children_cpu() { awk -v t="$(getconf CLK_TCK)" '{ printf "%d", ($16 + $17) * 1000 / t }' "/proc/$1/stat"; }
cpu_of() { # cpu_of PID PORT ARGS...: ms of the daemon's session CPU for one flood
	local pid=$1 port=$2 t0; shift 2
	t0=$(children_cpu "$pid")
	timeout 120 python3 "$TOP/tests/tools/logflood.py" "$port" mod "$@" > /dev/null 2>&1
	sleep 0.7
	echo $(($(children_cpu "$pid") - t0))
}
RELBIN=${PRSYNCD_REL:-$TOP/build}
if [ -x "$RELBIN/prsyncd" ]; then
	relport=$(free_port)
	PRSYNCD=$RELBIN/prsyncd start_prsyncd "$TMP/conf" "$relport" "$TMP/rel.log" && REL=$PRSYNCD_PID
	for f in "1:200000 1024" "2:50000 200 -r --tags 2,3,4,1" "2:200000 0 -r --tags 42" "2:50000 200 -r --tags 101"; do
		what=${f#*:}
		r=$(cpu_of "$R" "$rport" $what); p=$(cpu_of "$REL" "$relport" $what)
		[ "$p" -le $((2 * r + 30)) ] && pass "3: flood '$what': prsyncd $p ms, rsyncd $r ms of session CPU" ||
			fail "3: flood '$what': prsyncd $p ms, rsyncd $r ms of session CPU (limit $((2 * r + 30)))"
	done
else
	fail "3: no release build in $RELBIN (make test-build builds it)"
fi

for f in "$TMP"/p.log "$TMP"/rel.log; do
	grep -Eq 'Sanitizer|runtime error' "$f.stderr" 2>/dev/null && fail "sanitizer report in $f.stderr"
done
finish
