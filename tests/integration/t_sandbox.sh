#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The worker's confinement, read from /proc while a session is open, and
# the seccomp kill path (test builds carry a hook that makes the worker try
# open("/etc/passwd"); release builds must not contain it).
. "$(dirname "$0")/../lib.sh"

mkdir -p "$TMP/pub"
cat > "$TMP/conf" <<CONF
[pub]
	path = $TMP/pub
CONF
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" || fail "prsyncd did not start"

# wait_port's probe opens a session of its own; let it end first so the
# worker found below is the held session's.
for i in $(seq 1 50); do
	[ "$(pgrep -c -P "$PRSYNCD_PID" -f -- "^prsyncd-monitor")" = 0 ] && break
	sleep 0.1
done

# Hold a session open in the handshake and find its worker.
rawclient "$port" --send '@RSYNCD: 32.0 md5\n' --hold 4 --timeout 1 >/dev/null &
holder=$!
worker=""
# Only this daemon's worker: its parent (the session) is the listener's child.
for i in $(seq 1 50); do
	for w in $(pgrep -f '^prsyncd-worker'); do
		sess=$(ps -o ppid= -p "$w" | tr -d ' ')
		[ -n "$sess" ] && [ "$(ps -o ppid= -p "$sess" | tr -d ' ')" = "$PRSYNCD_PID" ] && worker=$w
	done
	[ -n "$worker" ] && break
	sleep 0.1
done
if [ -z "$worker" ]; then
	fail "worker process found"
else
	sleep 0.5 # past READY: the sandbox is in place before any client byte is read
	st=/proc/$worker/status
	field() { awk -v k="$1:" '$1 == k { print $2 }' "$st"; }
	[ "$(field Seccomp)" = 2 ] && pass "Seccomp: 2" || fail "Seccomp is $(field Seccomp)"
	[ "$(field NoNewPrivs)" = 1 ] && pass "NoNewPrivs: 1" || fail "NoNewPrivs is $(field NoNewPrivs)"
	for cap in CapEff CapPrm CapBnd CapInh CapAmb; do
		[ "$(field $cap)" = 0000000000000000 ] && pass "$cap zero" || fail "$cap is $(field $cap)"
	done
	uids=$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "$st")
	case " $uids " in *" 0 "*) fail "worker has uid 0 somewhere: $uids";; *) pass "worker uids non-root: $uids";; esac
	gids=$(awk '$1 == "Gid:" { print $2, $3, $4, $5 }' "$st")
	case " $gids " in *" 0 "*) fail "worker has gid 0 somewhere: $gids";; *) pass "worker gids non-root: $gids";; esac
	groups=$(awk '$1 == "Groups:" { $1 = ""; print }' "$st" | tr -d ' ')
	[ -z "$groups" ] && pass "no supplementary groups" || fail "supplementary groups: $groups"
	root=$(readlink "/proc/$worker/root")
	[ "$root" = /run/prsyncd/empty ] && pass "root is the empty dir" || fail "root is $root"
	[ -z "$(ls -A /run/prsyncd/empty)" ] && pass "empty dir is empty" || fail "empty dir has entries"
	nofile=$(awk '/^Max open files/ { print $4 }' "/proc/$worker/limits")
	nproc=$(awk '/^Max processes/ { print $3 }' "/proc/$worker/limits")
	fsize=$(awk '/^Max file size/ { print $4 }' "/proc/$worker/limits")
	[ "$nproc" = 0 ] && pass "RLIMIT_NPROC 0" || fail "RLIMIT_NPROC $nproc"
	[ "$fsize" = 0 ] && pass "RLIMIT_FSIZE 0" || fail "RLIMIT_FSIZE $fsize"
	[ "$nofile" -le 64 ] && pass "RLIMIT_NOFILE $nofile" || fail "RLIMIT_NOFILE $nofile"
	fds=$(ls "/proc/$worker/fd" | sort -n | tr '\n' ' ')
	[ "$fds" = "0 1 2 3 4 " ] && pass "worker holds only fds 0-4" || fail "worker fds: $fds"
	env=$(tr '\0' '\n' < "/proc/$worker/environ" | wc -l)
	[ "$env" = 0 ] && pass "worker environment empty" || fail "worker environment has $env entries"
fi
wait "$holder" 2>/dev/null

# The session monitor, from the first worker record on: in the handshake
# it keeps only the five capabilities selection uses, no_new_privs, the
# pre-selection filter (policy/preselect.policy); after selection one more
# filter (policy/monitor.policy), no capability, the module's ids, the
# module as its root.
# CAP_DAC_READ_SEARCH 2, CAP_KILL 5, CAP_SETGID 6, CAP_SETUID 7, CAP_SYS_CHROOT 18
PRESEL_CAPS=00000000000400e4
# monitor_of_held SEND...: hold a session that sent SEND; sets mon, holder
monitor_of_held() {
	local m
	for _ in $(seq 1 50); do # earlier sessions gone first
		[ "$(pgrep -c -P "$PRSYNCD_PID" -f -- "^prsyncd-monitor")" = 0 ] && break
		sleep 0.1
	done
	rawclient "$port" --send "$1" --hold 4 --timeout 1 >/dev/null &
	holder=$!
	mon=""
	for _ in $(seq 1 50); do
		m=$(pgrep -P "$PRSYNCD_PID" -f -- "^prsyncd-monitor" | head -n 1)
		# its worker is up: the monitor is past preconfine()
		[ -n "$m" ] && [ -n "$(pgrep -P "$m" -f '^prsyncd-worker')" ] && mon=$m && break
		sleep 0.1
	done
	sleep 0.5
}
mfield() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$mon/status"; }
monitor_of_held '@RSYNCD: 32.0 md5\n'
if [ -z "$mon" ]; then
	fail "session monitor found (handshake)"
else
	[ "$(mfield Seccomp)" = 2 ] && pass "monitor in the handshake: Seccomp 2" || fail "monitor in the handshake: Seccomp $(mfield Seccomp)"
	[ "$(mfield Seccomp_filters)" = 1 ] && pass "monitor in the handshake: one filter" || fail "monitor in the handshake: Seccomp_filters $(mfield Seccomp_filters)"
	[ "$(mfield NoNewPrivs)" = 1 ] && pass "monitor in the handshake: NoNewPrivs 1" || fail "monitor in the handshake: NoNewPrivs $(mfield NoNewPrivs)"
	for cap in CapBnd CapPrm CapEff; do
		[ "$(mfield $cap)" = $PRESEL_CAPS ] && pass "monitor in the handshake: $cap = selection's five" ||
			fail "monitor in the handshake: $cap $(mfield $cap), want $PRESEL_CAPS"
	done
	for cap in CapInh CapAmb; do
		[ "$(mfield $cap)" = 0000000000000000 ] && pass "monitor in the handshake: $cap zero" || fail "monitor in the handshake: $cap $(mfield $cap)"
	done
	# what it still holds: fds 0-2, the log, the listener channel, /dev/kmsg, the worker channel and pidfd,
	# and its copy of the client socket, never read or written (src/monitor/clientidle.h)
	n=$(find "/proc/$mon/fd" -mindepth 1 | wc -l)
	[ "$n" -le 9 ] && pass "monitor in the handshake holds $n descriptors" || fail "monitor in the handshake holds $n descriptors"
fi
wait "$holder" 2>/dev/null
monitor_of_held '@RSYNCD: 32.0 md5\npub\n'
if [ -z "$mon" ]; then
	fail "session monitor found (module selected)"
else
	[ "$(mfield Seccomp_filters)" = 2 ] && pass "monitor after selection: two filters" || fail "monitor after selection: Seccomp_filters $(mfield Seccomp_filters)"
	for cap in CapBnd CapPrm CapEff; do
		want=0000000000000000
		[ "$cap" = CapBnd ] && want=$PRESEL_CAPS
		[ "$(mfield $cap)" = $want ] && pass "monitor after selection: $cap $want" || fail "monitor after selection: $cap $(mfield $cap)"
	done
	uids=$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "/proc/$mon/status")
	[ "$uids" = "65534 65534 65534 65534" ] && pass "monitor after selection: uid nobody" || fail "monitor after selection: uids $uids"
	root=$(readlink "/proc/$mon/root")
	[ "$root" = "$TMP/pub" ] && pass "monitor after selection: root is the module" || fail "monitor after selection: root $root"
fi
wait "$holder" 2>/dev/null

# The seccomp kill: logged with signal and syscall, and the daemon goes on.
rawclient "$port" --send '@RSYNCD: 32.0 md5\n#prsyncd-test-open-passwd\n' --timeout 5 >/dev/null
if wait_log "$TMP/log" 'killed by signal 31 \(SIGSYS\)'; then
	pass "seccomp kill logged"
	line=$(grep 'SIGSYS' "$TMP/log" | tail -n 1)
	case $line in
	*"(openat)"*|*"(open)"*) pass "syscall named in log: ${line##*syscall}";;
	*"not reported by the kernel"*) pass "kernel gave no syscall number (audit log unavailable)";;
	*) fail "unexpected SIGSYS line: $line";;
	esac
else
	fail "seccomp kill logged"
fi
grep -q 'test hook: open(/etc/passwd) returned' "$TMP/log" && fail "open() returned instead of killing" || pass "open() never returned"
out=$(rsync_client "rsync://127.0.0.1:$port/" 2>&1)
case $out in pub*) pass "next client served after the kill";; *) fail "next client: $out";; esac

# Release builds carry no test hook.
if [ -x "$TOP/build/prsyncd-worker" ]; then
	if grep -aq 'prsyncd-test-open-passwd' "$TOP/build/prsyncd-worker"; then fail "release worker contains the test hook"
	else pass "release worker has no test hook"; fi
else
	fail "release worker not built"
fi
finish
