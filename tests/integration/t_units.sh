#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# test-lock: system (installs the package, or reads the units it installs)
# The systemd units in policy/: exposure at or below 1.5 by
# systemd-analyze security --offline=true; the units verify with the
# build's binaries in place; every system call prsyncd's three processes
# make while serving is admitted by the service's SystemCallFilter=
# (strace -f); and the capabilities left in the bounding set are enough to
# serve a module as root (capsh runs the daemon with only those).
. "$(dirname "$0")/../lib.sh"
U=$TOP/policy
REL=$TOP/build

if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP: systemd-analyze not installed"
	finish; exit
fi
for u in prsyncd.service prsyncd-inetd@.service; do
	f=$U/$u
	[ "$u" = prsyncd-inetd@.service ] && { cp "$f" "$TMP/prsyncd-inetd@x.service"; f=$TMP/prsyncd-inetd@x.service; }
	score=$(systemd-analyze security --offline=true "$f" 2>/dev/null | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
	if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }'; then pass "$u exposure $score <= 1.5"
	else fail "$u exposure '$score' (want <= 1.5)"; fi
done

# verify: the units with ExecStart pointing at this build.
mkdir -p "$TMP/units"
for u in prsyncd.service prsyncd.socket prsyncd-inetd.socket prsyncd-inetd@.service; do
	sed "s|/usr/sbin/prsyncd|$REL/prsyncd|" "$U/$u" > "$TMP/units/$u"
done
out=$(cd "$TMP/units" && systemd-analyze verify --man=no ./prsyncd.socket ./prsyncd.service ./prsyncd-inetd.socket 2>&1); rc=$?
[ $rc = 0 ] && [ -z "$out" ] && pass "units verify" || fail "systemd-analyze verify: rc=$rc $out"

# System calls: serve a listing, a compressed pull, a reload and a stop
# under strace, as root like the unit does.
mkdir -p "$TMP/pub/d"; for i in 1 2 3; do head -c 20000 /dev/urandom > "$TMP/pub/d/f$i"; done
printf '[pub]\n\tpath = %s\n' "$TMP/pub" > "$TMP/conf"
if command -v strace >/dev/null && [ "$(id -u)" = 0 ]; then
	port=$(free_port)
	strace -f -qq -o "$TMP/trace" "$REL/prsyncd" --no-detach --config="$TMP/conf" --port="$port" \
		--address=127.0.0.1 --log-file="$TMP/log" 2>>"$TMP/err" &
	st=$!; PIDS+=("$st")
	wait_port "$port"
	rsync_client "rsync://127.0.0.1:$port/" >/dev/null 2>&1
	rsync_client -rz "rsync://127.0.0.1:$port/pub/" "$TMP/got/" >/dev/null 2>&1 && pass "pull under strace" || fail "pull under strace"
	pid=$(pgrep -f -n -- "$REL/prsyncd --no-detach --config=$TMP/conf")
	kill -HUP "$pid"; wait_log "$TMP/log" "reload: configuration 2"
	kill -TERM "$pid"; wait "$st"
	names=$(sed -n 's/^[0-9]* *\([a-z0-9_]*\)(.*/\1/p' "$TMP/trace" | sort -u)
	n=$(wc -w <<<"$names")
	missing=$(python3 "$TOP/tests/tools/sysfilter.py" "$U/prsyncd.service" <<<"$names")
	[ "$n" -gt 30 ] && [ -z "$missing" ] && pass "all $n system calls used are in the service's SystemCallFilter" ||
		fail "system calls outside the filter: '$missing' ($n traced)"
else
	echo "SKIP: strace or root missing"
fi

# The bounding set the units leave is enough: run the daemon with only
# those capabilities and pull.
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$U/prsyncd.service" | tr ' ' '\n' | tr 'A-Z' 'a-z' | paste -sd, -)
if command -v capsh >/dev/null && [ "$(id -u)" = 0 ]; then
	port=$(free_port)
	drop=$(capsh --print | sed -n 's/^Bounding set =//p' | tr ',' '\n' | grep -vxF -f <(tr ',' '\n' <<<"$caps") | paste -sd, -)
	capsh --drop="$drop" -- -c "exec '$REL/prsyncd' --no-detach --config='$TMP/conf' --port=$port --address=127.0.0.1 --log-file='$TMP/log2'" 2>>"$TMP/err" &
	cp=$!; PIDS+=("$cp")
	wait_port "$port"
	rm -rf "$TMP/got2"
	out=$(rsync_client -r "rsync://127.0.0.1:$port/pub/" "$TMP/got2/" 2>&1); rc=$?
	[ $rc = 0 ] && cmp -s "$TMP/pub/d/f3" "$TMP/got2/d/f3" && pass "serves with only $caps" || fail "with $caps: rc=$rc $out $(tail -3 "$TMP/log2")"
	stop_pid "$cp"
else
	echo "SKIP: capsh or root missing"
fi
finish
