#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Issue 9, findings 2-7: what a client can make prsyncd spend is bounded,
# asserted by counted work or peak memory against a limit derived from
# the input, never by time; rsyncd's CPU (and memory) on the same input is
# printed for information.  Findings 5 and 6 are differential: the same
# requests to rsyncd and prsyncd, the same files, messages and exit codes.
#   2  client filter rules: -C many times adds the CVS list once; 10,000
#      rules on a 200-file directory (BOUNDS_FULL=1; 1,000 by default)
#   3  --files-from=- with a long base and 1,000,000 one-byte names
#      (BOUNDS_FULL=1; 100,000 by default)
#   4  the strong-checksum budget: a hostile sum list on a large file
#   5  wildcard arguments sanitized before expansion
#   6  over-long names: "File name too long", never dropped
#   7  client MSG_INFO/MSG_ERROR frames: a per-session log budget
. "$(dirname "$0")/../lib.sh"
FULL=${BOUNDS_FULL:-0}

D=$TMP/mod
mkdir -p "$D/sub" "$D/d" "$D/sdir.txt"
echo a > "$D/a.txt"; echo b > "$D/b.txt"; echo c > "$D/sub/c.txt"; echo x > "$D/x.dat"
echo q > "$D/sdir.txt/q"
for i in $(seq 1 200); do echo "$i" > "$D/d/f$i"; done
chmod -R a+rX "$D"
if [ "$(id -u)" = 0 ]; then ids=$'\tuid = root\n\tgid = root'; else ids=$'\tuse chroot = no'; fi
cat > "$TMP/conf" <<CONF
pid file = $TMP/rsyncd.pid
log file = $TMP/rsyncd.log
[mod]
	path = $D
$ids
CONF
pport=$(free_port)
start_prsyncd "$TMP/conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
P=$PRSYNCD_PID
rport=$(free_port)
start_rsyncd "$TMP/conf" "$rport" || fail "rsyncd did not start"
R=$RSYNCD_PID

# The whole session's CPU, from the daemon's reaped children (ms).
children_cpu() { awk -v t="$(getconf CLK_TCK)" '{ printf "%d", ($16 + $17) * 1000 / t }' "/proc/$1/stat"; }

# --- 5 and 6: differential pulls ------------------------------------------------
# pull PORT SRC: exit code, the files received, and the client's messages
# without what legitimately differs (source locations, a reset after the
# error, the long names themselves)
pull() {
	local out rc
	rm -rf "$TMP/dst"
	out=$(rsync_client -r "rsync://127.0.0.1:$1/$2" "$TMP/dst/" 2>&1); rc=$?
	printf 'rc=%s files=%s msgs=%s' "$rc" "$(cd "$TMP/dst" 2>/dev/null && find . -type f | sort | tr '\n' ' ')" \
		"$(sed -E -e 's/ at [a-z]+\.c\([0-9]+\) \[Receiver=[^]]*\]//' -e '/Connection reset by peer/d' \
			-e 's/n{40,}/N/g' -e 's/m{40,}/M/g' <<<"$out" | sort | tr '\n' '|')"
}
same() { # same NAME SRC
	local a b
	a=$(pull "$rport" "$2"); b=$(pull "$pport" "$2")
	[ "$a" = "$b" ] && pass "$1: as rsyncd ($(cut -c1-90 <<<"$b"))" || fail "$1: rsyncd '$a' prsyncd '$b'"
}
N4095=$(printf 'n%.0s' $(seq 1 4095)); N4092=${N4095:0:4092}; N300=${N4095:0:300}
same "5: wildcard after .." 'mod/sub/../*.txt'
same "5: wildcard after .. above the root" 'mod/sub/../../*.txt'
same "5: wildcard after . and .." 'mod/./sub/../sub/../*.dat'
same "5: .. after a wildcard" 'mod/*/../*.txt'
same "5: a wildcard with a trailing slash names directories" 'mod/sub/../*.txt/'
same "6: a 4,095-byte name" "mod/$N4095"
same "6: a 4,092-byte component removed by .." "mod/sub/$N4092/../a.txt"
same "6: a 300-byte name" "mod/$N300"
same "6: a 300-byte directory" "mod/$N300/x"
same "6: a 300-byte component removed by .." "mod/sub/$N300/../c.txt"
same "6: a 300-byte component before a wildcard" "mod/sub/$N300/*.txt"
# A path over 4,095 bytes of valid components: rsyncd cuts the directory
# to fit its buffer and reports the shorter one missing; prsyncd names it
# too long.  Same exit code; the message is the deliberate difference.
M5000=$(python3 -c "print('/'.join(['m' * 200] * 24))")
b=$(pull "$pport" "mod/$M5000")
grep -q '^rc=23 ' <<<"$b" && grep -q 'File name too long (36)' <<<"$b" &&
	pass "6: a 4,823-byte path: 'File name too long', exit 23" || fail "6: long path: $b"
grep -q 'bad module path' "$TMP/p.log" && fail "an argument reached the monitor unsanitized" ||
	pass "no argument reached the monitor unsanitized"

# The session's worker (the only one running) and its peak memory, kB.
# (rsyncd: the session process is the daemon's child itself)
worker_of() { local m; m=$(pgrep -n -P "$1"); [ -n "$m" ] && { pgrep -n -P "$m" || echo "$m"; }; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

# --- 2: client filter rules ---------------------------------------------------
# N copies of a rule on the 200-file directory d.  rsyncd tries every rule
# on every name; so may prsyncd, and no more: the rule-list entries it
# visits (counted by the worker, "filter work" in its log) are at most
# names x rules, the matcher's steps a few per rule check (the names are
# short), and repeating "-C" or a dir-merge file adds the list once.  The
# files received are rsyncd's.
NRULES=1000; [ "$FULL" = 1 ] && NRULES=10000
rules() { python3 -c 'import sys; print("\n".join([sys.argv[1]] * int(sys.argv[2])))' "$1" "$2" > "$TMP/rules"; }
fpull() { # fpull PORT: files received with the rules of $TMP/rules
	local opts=() r
	while IFS= read -r r; do opts+=("--filter=$r"); done < "$TMP/rules"
	rm -rf "$TMP/dst"
	rsync_client -r "${opts[@]}" "rsync://127.0.0.1:$1/mod/d/" "$TMP/dst/" > /dev/null 2>&1
	echo "rc=$? $(cd "$TMP/dst" 2>/dev/null && ls | sort | md5sum | cut -c1-8) $(ls "$TMP/dst" 2>/dev/null | wc -l)"
}
fwork() { # fwork RULE N: prsyncd's "CHECKS STEPS", or nothing if its files are not rsyncd's
	local before a b
	rules "$1" "$2"
	a=$(fpull "$rport")
	before=$(wc -l < "$TMP/p.log")
	b=$(fpull "$pport")
	[ "$a" = "$b" ] || { echo "2: $2 x '$1': rsyncd '$a' prsyncd '$b'" >&2; return; }
	for i in $(seq 1 100); do tail -n +"$((before + 1))" "$TMP/p.log" | grep -q 'filter work: ' && break; sleep 0.1; done
	tail -n +"$((before + 1))" "$TMP/p.log" |
		sed -n 's/.*filter work: \([0-9]*\) rule checks, \([0-9]*\) matcher steps.*/\1 \2/p' | tail -n 1
}
NAMES=200
for r in -C :C; do
	set -- $(fwork "$r" 1); one=${1:-0}
	set -- $(fwork "$r" "$NRULES"); many=${1:-x}
	[ "$many" = "$one" ] && [ "$one" -gt 0 ] && [ "$one" -le $((NAMES * 64)) ] &&
		pass "2: $NRULES x '$r': $many rule checks, as for one (the list is added once; limit $((NAMES * 64)))" ||
		fail "2: $NRULES x '$r': '$many' rule checks, '$one' for one"
done
for r in '- *q' '- *f?*?*0' '- f*2*3' '+ **/f*[0-9]0'; do
	set -- $(fwork "$r" "$NRULES")
	if [ -n "${2:-}" ] && [ "$1" -le $((NAMES * NRULES)) ] && [ "$2" -le $((8 * $1)) ]; then
		pass "2: $NRULES x '$r': $1 rule checks (limit names x rules = $((NAMES * NRULES))), $2 matcher steps (limit 8 per check)"
	else
		fail "2: $NRULES x '$r': '${1:-none}' rule checks, '${2:-none}' matcher steps"
	fi
done

# --- 3: --files-from=- names --------------------------------------------------
# A 4,999-byte first argument (it sanitizes to "d") and N one-byte names
# that do not exist (skipped quietly: --ignore-missing-args), ending with
# one that does.  The names are processed as they arrive and never stored:
# the worker's peak memory may not grow with N.
ff_peak() { # ff_peak PORT DAEMON_PID N: prints "PEAK_KB BYTES_SENT"
	local w peak out
	rm -f "$TMP/ff.ready" "$TMP/ff.go"
	timeout 300 python3 "$TOP/tests/tools/filesfrom.py" "$1" mod "$FFBASE" "$3" x,y,z,f1 \
		"$TMP/ff.ready" "$TMP/ff.go" --ignore-missing > "$TMP/ff.out" 2>&1 &
	local c=$!
	for i in $(seq 1 3000); do [ -e "$TMP/ff.ready" ] && break; sleep 0.1; done
	w=$(worker_of "$2"); peak=$(hwm_kb "$w")
	touch "$TMP/ff.go"; wait "$c"
	out=$(cat "$TMP/ff.out")
	echo "${peak:-0} $(awk '{ print $2 }' <<<"$out")"
}
FFBASE="mod/$(python3 -c "print('./' * 2497)")d"
NBIG=100000; [ "$FULL" = 1 ] && NBIG=1000000
set -- $(ff_peak "$pport" "$P" 100); small=$1
set -- $(ff_peak "$pport" "$P" "$NBIG"); big=$1 sent=$2
if [ "$small" -gt 0 ] && [ "$big" -gt 0 ] && [ $((big - small)) -le $((2048 + sent / 8 / 1024)) ]; then
	pass "3: $NBIG names ($sent bytes) after a 5,000-byte argument: worker peak ${big} kB, ${small} kB for 100 names (limit +$((2048 + sent / 8 / 1024)) kB)"
else
	fail "3: worker peak ${big} kB for $NBIG names ($sent bytes), ${small} kB for 100"
fi
grep -q 'too many source names' "$TMP/p.log" && fail "3: 'too many source names'" || pass "3: no misleading 'too many source names'"
# A base that cannot be entered ends the session as rsyncd ends it (exit 3)
printf 'f1\nf2\n' > "$TMP/fl"
ffbad() { rm -rf "$TMP/dst"; rsync_client --files-from="$TMP/fl" "rsync://127.0.0.1:$1/mod/nonexist/" "$TMP/dst/" 2>&1 |
	sed -E 's/ at [a-z]+\.c\([0-9]+\)//; s/ at sender//; s/\[sender=[^]]*\]//'; echo "rc=${PIPESTATUS[0]}"; }
a=$(ffbad "$rport"); b=$(ffbad "$pport")
[ "$a" = "$b" ] && pass "3: --files-from below a missing directory: as rsyncd ($(tail -n 1 <<<"$b"))" ||
	fail "3: missing base: rsyncd '$a' prsyncd '$b'"
# A name longer than a path may be: rsyncd looks up what fits of it
# (ENAMETOOLONG for a 5,000-byte component, ENOENT for a cut deep path);
# prsyncd reports it too long in both cases, never looking up a cut name,
# and goes on with the next name: the same files and exit code.
fflong() { rm -rf "$TMP/dst"; rsync_client -r --files-from="$TMP/fl" "rsync://127.0.0.1:$1/mod/" "$TMP/dst/" 2>&1 |
	grep -o 'failed: .*' | sort -u | tr '\n' ' '; echo "rc=${PIPESTATUS[0]} $(cd "$TMP/dst" && find . -type f | sort | tr '\n' ' ')"; }
{ python3 -c "print('d/' + 'n' * 5000)"; echo d/f1; } > "$TMP/fl"
a=$(fflong "$rport"); b=$(fflong "$pport")
[ "$a" = "$b" ] && grep -q 'File name too long (36)' <<<"$b" && grep -q 'rc=23 ./d/f1' <<<"$b" &&
	pass "3: a 5,000-byte --files-from name: as rsyncd ($b)" || fail "3: a 5,000-byte name: rsyncd '$a' prsyncd '$b'"
{ python3 -c "print('/'.join(['m' * 200] * 22))"; echo d/f2; } > "$TMP/fl"
a=$(fflong "$rport"); b=$(fflong "$pport")
[ "${a#*rc=}" = "${b#*rc=}" ] && grep -q 'File name too long (36)' <<<"$b" &&
	pass "3: a 4,422-byte --files-from path: 'File name too long', the rest as rsyncd ($b)" ||
	fail "3: a 4,422-byte path: rsyncd '$a' prsyncd '$b'"

# --- 4: the strong-checksum budget ---------------------------------------------
# 2^20 blocks of 2^17 bytes (a "basis" of 128 GiB), weak sums that all
# match a file of zeros and strong sums that never do: the failed strong
# sums are at most 8 MiB + 16 bytes per byte of the file, whatever the
# client claims.  Two file sizes: the bound follows the file.
head -c $((4 << 20)) /dev/zero > "$D/zero4"
head -c $((16 << 20)) /dev/zero > "$D/zero16"
for f in zero4 zero16; do
	size=$(stat -c %s "$D/$f")
	before=$(wc -l < "$TMP/p.log")
	timeout 120 python3 "$TOP/tests/tools/hostsums.py" "$pport" mod "$f" 1048576 131072 > /dev/null 2>&1
	wait_log "$TMP/p.log" "match work: .* for $size bytes"
	set -- $(tail -n +"$((before + 1))" "$TMP/p.log" | sed -n 's/.*match work: \([0-9]*\) bytes of strong sums (\([0-9]*\) failed).*/\1 \2/p' | tail -n 1)
	limit=$(((8 << 20) + 16 * size + 131072))
	[ -n "${2:-}" ] && [ "$2" -le "$limit" ] &&
		pass "4: $f: $2 bytes of failed strong sums for $size bytes (limit $limit; the claim was 2^37 bytes)" ||
		fail "4: $f: '${2:-none}' bytes of failed strong sums (limit $limit)"
done

# --- 7: client text frames and the log ---------------------------------------
# 5,000 MSG_INFO/MSG_ERROR frames of 1 KiB during a recursive pull (the
# sender reads them while it waits for requests; after an empty list both
# daemons end the session at once, t_msgflood.sh): at most the worker's
# budget of client records reaches the log, and one line says how many
# did not.
before=$(wc -l < "$TMP/p.log")
timeout 60 python3 "$TOP/tests/tools/logflood.py" "$pport" mod 5000 1024 -r > /dev/null 2>&1
wait_log "$TMP/p.log" 'more client messages and errors'
tail -n +"$((before + 1))" "$TMP/p.log" > "$TMP/flood.log"
logged=$(grep -c 'client message: flood' "$TMP/flood.log")
total=$(wc -l < "$TMP/flood.log")
[ "$logged" -le 1000 ] && [ "$total" -le 1030 ] &&
	pass "7: 5,000 client text frames: $logged logged, $total log lines for the session (budget 1000 records)" ||
	fail "7: $logged client frames logged, $total lines"
grep -q "$((5000 - logged)) more client messages and errors ([0-9]* bytes) not logged" "$TMP/flood.log" &&
	pass "7: one line says how much was not logged ($(grep -o '[0-9]* more client.*not logged' "$TMP/flood.log"))" ||
	fail "7: no line counting what was dropped: $(tail -n 3 "$TMP/flood.log")"

# --- for information: CPU (and memory) of the release build and of rsyncd ------
cpu_of() { # cpu_of PID CMD...: ms of the daemon's session CPU for one run of CMD
	local pid=$1 t0; shift
	t0=$(children_cpu "$pid"); "$@" > /dev/null 2>&1; sleep 0.5
	echo $(($(children_cpu "$pid") - t0))
}
if [ -x "$TOP/build/prsyncd" ]; then
	relport=$(free_port)
	sed "s|rsyncd.pid|rel.pid|" "$TMP/conf" > "$TMP/relconf" # the pid file is rsyncd's
	PRSYNCD=$TOP/build/prsyncd start_prsyncd "$TMP/relconf" "$relport" "$TMP/rel.log" && REL=$PRSYNCD_PID
	[ -n "${REL:-}" ] || echo "INFO: the release build did not start: $(tail -n 2 "$TMP/rel.log"*)"
	if [ -n "${REL:-}" ]; then
		for r in -C '- *q'; do
			rules "$r" "$NRULES"
			for who in "prsyncd $relport $REL" "rsyncd $rport $R"; do
				set -- $who
				echo "INFO: 2, $NRULES x '$r' on 200 files: $1 $(cpu_of "$3" fpull "$2") ms of session CPU"
			done
		done
		FFBASE=mod/d
		for who in "prsyncd $relport $REL" "rsyncd $rport $R"; do
			set -- $who
			t0=$(children_cpu "$3"); set -- $1 $2 $3 $(ff_peak "$2" "$3" 100000); sleep 0.5
			echo "INFO: 3, 100,000 --files-from names: $1 $(($(children_cpu "$3") - t0)) ms of session CPU, peak $4 kB"
		done
		for who in "prsyncd $relport $REL" "rsyncd $rport $R"; do
			set -- $who
			echo "INFO: 4, 2^20 hostile sums on 4 MiB of zeros: $1 $(cpu_of "$3" timeout 120 python3 \
				"$TOP/tests/tools/hostsums.py" "$2" mod zero4 1048576 131072) ms of session CPU"
		done
		for who in "prsyncd $relport $REL $TMP/rel.log" "rsyncd $rport $R $TMP/rsyncd.log"; do
			set -- $who
			n0=$(wc -l < "$4" 2>/dev/null || echo 0)
			ms=$(cpu_of "$3" timeout 60 python3 "$TOP/tests/tools/logflood.py" "$2" mod 5000 1024 -r)
			echo "INFO: 7, 5,000 client text frames: $1 $ms ms of session CPU, $(($(wc -l < "$4" 2>/dev/null || echo 0) - n0)) log lines"
		done
	fi
fi

grep -Eq 'Sanitizer|runtime error' "$TMP/p.log.stderr" 2>/dev/null &&
	fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/p.log.stderr")" || pass "no sanitizer report"
finish
