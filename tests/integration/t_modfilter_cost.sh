#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The cost of module filters in the session monitor, counted, not timed
# (issue 9, finding 1).  A stock client asks for 10 paths of about 2,047
# components (mod/a/a/.../a, which need not exist) from modules whose
# filters are ".git/", "**/core/" and a mix of every rule kind; the test
# build's monitor logs the filter work of each request ("filter work: ...
# steps, session N"), and the session's total must stay within a small
# multiple of the bytes the client sent times the module's rules: linear,
# where re-matching every directory prefix was quadratic.  Shorter paths
# must cost proportionally less.  The CPU of the release build against
# rsync --daemon on the same request is printed for information only.
. "$(dirname "$0")/../lib.sh"

# Work per path byte and rule: a carried matcher state takes each byte
# once, the test of each component as a directory once more, plus a rule
# visit and a separator per component; a few requests per argument (the
# worker's STATs) each judge the path once.
K=8

D=$TMP/mod
mkdir -p "$D/a"
echo x > "$D/a/f"
if [ "$(id -u)" = 0 ]; then
	ids=$'\tuse chroot = yes\n\tuid = root\n\tgid = root'
else
	ids=$'\tuse chroot = no'
fi
# 12 rules, one of each mode: last component, whole path from the start,
# from any component, a "**" prefix, tails of 1 and 2 directories, raw
# literals, classes, dir-only and negated rules.
mix='- *.key - /private/ - .git/ - **/core/ - a/*/x.bin - */b/c/ + ok.txt - /a/a/a/z -! [ab]* - x/**/y/ - tmp/ - ?.o'
cat > "$TMP/conf" <<CONF
[git]
	path = $D
$ids
	exclude = .git/
[core]
	path = $D
$ids
	filter = - **/core/
[mix]
	path = $D
$ids
	filter = $mix
CONF
nrules() { case $1 in git|core) echo 1;; mix) echo 12;; esac; }

port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" || { fail "prsyncd did not start"; finish; exit; }

path_of() { python3 -c "import sys; print('/'.join(['a'] * int(sys.argv[1])))" "$1"; }

# pull MODULE NCOMP: 10 arguments of NCOMP components; sets WORK (the
# session's filter work) and BYTES (what the client sent as arguments).
pull() {
	local mod=$1 n=$2 p before args=() i
	p=$(path_of "$n")
	for i in $(seq 1 10); do args+=("rsync://127.0.0.1:$port/$mod/$p"); done
	BYTES=$((10 * (${#mod} + 1 + ${#p})))
	before=$(wc -l < "$TMP/log")
	rsync_client -r "${args[@]}" "$TMP/dst/" > "$TMP/out" 2>&1
	RC=$?
	# (the monitor logs a request's work before it answers it)
	WORK=$(tail -n +"$((before + 1))" "$TMP/log" | sed -n 's/.*filter work: .*, session \([0-9]*\)$/\1/p' | tail -n 1)
	WORK=${WORK:-0}
}

mkdir -p "$TMP/dst"
for mod in git core mix; do
	r=$(nrules "$mod")
	pull "$mod" 2047
	limit=$((K * BYTES * r))
	# what re-matching every prefix would cost: half the path squared per check
	quad=$((BYTES / 10 * BYTES / 10 / 2 * 10 * r))
	[ "$RC" = 23 ] && pass "$mod: the stock client gets its usual error (exit 23)" ||
		fail "$mod: client exit $RC: $(head -c 300 "$TMP/out")"
	if [ "$WORK" -gt 0 ] && [ "$WORK" -le "$limit" ]; then
		pass "$mod: filter work $WORK steps for $BYTES bytes x $r rules (limit $limit; prefix-by-prefix would be ~$quad)"
	else
		fail "$mod: filter work $WORK steps for $BYTES bytes x $r rules (limit $limit)"
	fi
	w_long=$WORK b_long=$BYTES
	pull "$mod" 256
	# linear: a path 8 times shorter costs about 8 times less (allow 2x)
	if [ "$WORK" -gt 0 ] && [ $((WORK * b_long)) -le $((2 * w_long * BYTES)) ]; then
		pass "$mod: linear in the path: $WORK steps for $BYTES bytes, $w_long for $b_long"
	else
		fail "$mod: not linear: $WORK steps for $BYTES bytes, $w_long for $b_long"
	fi
done
grep -Eq 'Sanitizer|runtime error' "$TMP/log.stderr" 2>/dev/null &&
	fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/log.stderr")" || pass "no sanitizer report"
stop_pid "$PRSYNCD_PID"

# --- for information: CPU of the release build and of rsyncd ---------------
# The whole session (monitor and worker), from the daemon's reaped children.
children_cpu() { awk -v t="$(getconf CLK_TCK)" '{ printf "%d", ($16 + $17) * 1000 / t }' "/proc/$1/stat"; }
cpu_of() { # cpu_of PID MODULE: ms of CPU one 10-argument request costs
	local pid=$1 mod=$2 p t0 args=() i
	p=$(path_of 2047)
	for i in $(seq 1 10); do args+=("rsync://127.0.0.1:$3/$mod/$p"); done
	t0=$(children_cpu "$pid")
	rsync_client -r "${args[@]}" "$TMP/dst/" > /dev/null 2>&1
	sleep 0.5
	echo $(($(children_cpu "$pid") - t0))
}
if [ -x "$TOP/build/prsyncd" ] && command -v rsync >/dev/null; then
	pport=$(free_port)
	PRSYNCD=$TOP/build/prsyncd start_prsyncd "$TMP/conf" "$pport" "$TMP/rlog" && ppid=$PRSYNCD_PID
	rport=$(free_port)
	start_rsyncd "$TMP/conf" "$rport" && rpid=$RSYNCD_PID
	for mod in git core mix; do
		if [ -n "${ppid:-}" ] && [ -n "${rpid:-}" ]; then
			echo "INFO: $mod, 10 x 2047 components: prsyncd (release) $(cpu_of "$ppid" "$mod" "$pport") ms," \
				"rsyncd $(cpu_of "$rpid" "$mod" "$rport") ms of session CPU (10 ms ticks; not asserted)"
		fi
	done
	[ -n "${ppid:-}" ] && stop_pid "$ppid"
	[ -n "${rpid:-}" ] && stop_pid "$rpid"
else
	echo "SKIP: CPU comparison with rsyncd (no release build or no rsync)"
fi
finish
