#!/usr/bin/env bash
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
