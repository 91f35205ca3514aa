#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Seccomp, proven per call.  Test builds carry hooks (absent from release
# builds, checked at the end) that make the confined worker, and separately
# the confined session monitor and the listener's resolver child, make one
# forbidden syscall each:
#   request line "#prsyncd-test-syscall NAME"             the worker calls NAME
#   request line "#prsyncd-test-monitor-syscall NAME MOD" the worker selects
#       MOD, then its log record asks the monitor's hook to call NAME
#   host name "prsyncd-test-syscall-NAME" in a reloaded configuration's
#       "hosts deny": the resolver child calls NAME when it reaches it
#       (tests/hooks/resolver_hook.c)
# Each call must kill the process with SIGSYS; the monitor (for its worker)
# or the listener (for a session monitor, a resolver child) logs the call
# by name; the client sees a clean close (EOF, not a reset or a hang); the
# next client is served.
#
# The kernel's seccomp audit records are rate-limited (printk_ratelimit: 10
# per 5 s by default, shared with every other process on the host), so a
# kill whose record was dropped is retried after a pause, a few times.
#
# The monitor is tried at two stages: in the handshake, under its
# pre-selection filter (policy/preselect.policy), and after selecting a
# module, under both filters.  Before selection, an openat2 for writing
# (which no filter can refuse, the monitor needing openat2) must fail with
# EACCES where the kernel has Landlock.
. "$(dirname "$0")/../lib.sh"

CALLS="open openat execve socket connect ptrace clone fork kill setuid mount mprotect"
MONITOR_STAGES="handshake module"
# The resolver's list admits read-only opens, connect and an executable
# (not writable) mprotect, which loading an NSS module needs; its socket
# is AF_UNIX of the wrong type (SOCK_DGRAM).
RESOLVER_CALLS="open openat-write execve socket ptrace clone fork kill setuid mount"

if [ "$(id -u)" != 0 ]; then
	# Without root the kernel log (dmesg_restrict) and the module confinement
	# (chroot, uid drop) are not available, so the names cannot be checked.
	echo "SKIP: t_seccomp_calls.sh needs root (kernel log, monitor uid drop)"
	finish
	exit
fi

mkdir -p "$TMP/pub"
echo hello > "$TMP/pub/file"
cat > "$TMP/conf" <<CONF
[pub]
	path = $TMP/pub
CONF
cp "$TMP/conf" "$TMP/conf.base"
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" || fail "prsyncd did not start"
L=$PRSYNCD_PID

# endclient LINE: greets, sends LINE as the module line; prints how the
# connection ended (EOF, RESET or TIMEOUT) and what the daemon sent.
endclient() { timeout 30 python3 "$TOP/tests/tools/rawclient.py" "$port" --send "@RSYNCD: 32.0 md5\n$1\n" --timeout 20 --how; }

# one_kill WHO CALL LINE: WHO is "worker" or "session monitor".
one_kill() {
	local who=$1 call=$2 line=$3 before out after named=""
	for _ in 1 2 3 4 5; do
		before=$(wc -l < "$TMP/log")
		out=$(endclient "$line")
		for _ in $(seq 1 50); do
			after=$(new_log "$before")
			grep -Eq "$who [0-9]+ killed by signal" <<<"$after" && break
			sleep 0.1
		done
		if grep -Eq "returned|test hook: the monitor's" <<<"$after"; then
			fail "$who $call: the call returned: $(grep -E 'returned' <<<"$after" | head -n 1)"
			return
		fi
		if ! grep -Eq "$who [0-9]+ killed by signal 31 \(SIGSYS\): seccomp violation" <<<"$after"; then
			fail "$who $call: no SIGSYS line"
			sed 's/^/    /' <<<"$after"
			return
		fi
		if grep -Eq "$who [0-9]+ killed by signal 31 \(SIGSYS\): seccomp violation, syscall [0-9]+ \($call\)$" <<<"$after"; then
			named=$(grep -E "$who [0-9]+ killed by signal 31" <<<"$after" | head -n 1 | cut -d' ' -f4-)
			break
		fi
		# The kernel dropped or delayed the audit record: wait out the rate limit.
		sleep 5
	done
	if [ -n "$named" ]; then pass "$who $call: $named"
	else fail "$who $call: killed, but the syscall was never named: $(grep -E 'SIGSYS' <<<"$after" | tail -n 1)"; fi
	case $out in
	EOF*) pass "$who $call: the client sees a clean close";;
	*) fail "$who $call: client: $out";;
	esac
	case $line in
	*" pub") grep -q "test hook: the monitor calls $call (confined)" <<<"$after" &&
			pass "$who $call: made by the confined monitor" || fail "$who $call: the monitor's hook did not run confined";;
	*prsyncd-test-monitor-syscall*) grep -q "test hook: the monitor calls $call (confined before selection" <<<"$after" &&
			pass "$who $call: made by the monitor before selection, filtered" ||
			fail "$who $call: the monitor's hook did not run under the pre-selection filter";;
	esac
	out=$(rsync_client "rsync://127.0.0.1:$port/" 2>&1)
	case $out in pub*) pass "$who $call: next client served";; *) fail "$who $call: next client: $out";; esac
}

for call in $CALLS; do
	one_kill worker "$call" "#prsyncd-test-syscall $call"
done
for stage in $MONITOR_STAGES; do
	for call in $CALLS; do
		case $stage in
		module) one_kill "session monitor" "$call" "#prsyncd-test-monitor-syscall $call pub";;
		handshake) one_kill "session monitor" "$call" "#prsyncd-test-monitor-syscall $call";;
		esac
	done
done
# The resolver child: a reload whose names include the hook's.  The run
# is killed, the reloaded configuration is put in force all the same (its
# names not resolved), and the next client is served.
# hook_reload NAME: the configuration with (NAME set) or without the
# hook's host name, reloaded; prints the log lines it caused.
hook_reload() {
	local before id
	{ cat "$TMP/conf.base"; [ -z "$1" ] || printf '[hook]\n\tpath = %s\n\thosts deny = prsyncd-test-syscall-%s\n' "$TMP/pub" "$1"; } > "$TMP/conf"
	before=$(wc -l < "$TMP/log")
	kill -HUP "$L"
	for _ in $(seq 1 100); do
		grep -Eq "reload: configuration [0-9]+ in force" <<<"$(new_log "$before")" && break
		sleep 0.1
	done
	sleep 0.2
	new_log "$before"
}
resolver_kill() {
	local call=$1 sys=${1%-write} after named="" out
	for _ in 1 2 3 4 5; do
		after=$(hook_reload "$call")
		if grep -q "test hook: the resolver's $call returned" "$TMP/log.stderr" 2>/dev/null ||
		   grep -Eq "resolver [0-9]+ exited with status" <<<"$after"; then
			fail "resolver $call: the call returned: $(grep -m 1 "the resolver's $call returned" "$TMP/log.stderr")"
			return
		fi
		if ! grep -Eq "resolver [0-9]+ killed by signal 31 \(SIGSYS\): seccomp violation" <<<"$after"; then
			fail "resolver $call: no SIGSYS line"
			sed 's/^/    /' <<<"$after"
			return
		fi
		named=$(grep -E "resolver [0-9]+ killed by signal 31 \(SIGSYS\): seccomp violation, syscall [0-9]+ \($sys\)$" <<<"$after" |
			head -n 1 | cut -d' ' -f4-)
		[ -n "$named" ] && break
		sleep 5 # the kernel dropped or delayed the audit record
	done
	if [ -n "$named" ]; then pass "resolver $call: $named"
	else fail "resolver $call: killed, but the syscall was never named: $(grep -E 'SIGSYS' <<<"$after" | tail -n 1)"; fi
	grep -q "resolver: the child ended early" <<<"$after" && pass "resolver $call: the run counts as failed" ||
		fail "resolver $call: the run's end not logged as a failure"
	out=$(rsync_client "rsync://127.0.0.1:$port/" 2>&1)
	case $out in pub*) pass "resolver $call: next client served";; *) fail "resolver $call: next client: $out";; esac
}
rm -f /tmp/prsyncd-test-openat-write
for call in $RESOLVER_CALLS; do
	resolver_kill "$call"
done
[ ! -e /tmp/prsyncd-test-openat-write ] && pass "resolver openat-write: nothing created" ||
	fail "resolver openat-write: /tmp/prsyncd-test-openat-write was created"
rm -f /tmp/prsyncd-test-openat-write
# Landlock (network rules, ABI 4): the child's TCP connect reaches port 53
# only (DNS over TCP); the filter admits both.
abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2>/dev/null || echo 0)
hook_reload tcp-9 > /dev/null
hook_reload tcp-53 > /dev/null
r9=$(grep -m 1 "the resolver's tcp-9 returned" "$TMP/log.stderr")
r53=$(grep -m 1 "the resolver's tcp-53 returned" "$TMP/log.stderr")
if [ "${abi:-0}" -lt 4 ]; then
	echo "SKIP: Landlock ABI $abi: no network rules in this kernel ($r9)"
elif grep -q "returned -1 (Permission denied)" <<<"$r9"; then
	pass "resolver: a TCP connect to port 9 refused by Landlock (EACCES)"
else
	fail "resolver: a TCP connect to port 9: ${r9:-no line}"
fi
if [ -n "$r53" ] && ! grep -q "Permission denied" <<<"$r53"; then
	pass "resolver: a TCP connect to port 53 let through ($r53)"
else
	fail "resolver: a TCP connect to port 53: ${r53:-no line}"
fi
hook_reload "" > /dev/null

# Landlock: the filtered monitor's openat2 cannot write before selection.
rm -f /tmp/prsyncd-test-landlock
before=$(wc -l < "$TMP/log")
out=$(endclient "#prsyncd-test-monitor-syscall openat2-write")
wait_log "$TMP/log" "the monitor's openat2-write returned" || true
after=$(new_log "$before")
if ! grep -q "(confined before selection, Landlock)" <<<"$after"; then
	echo "SKIP: no Landlock in this kernel: $(grep -m 1 'test hook: the monitor calls' <<<"$after")"
elif grep -q "the monitor's openat2-write returned -1 (Permission denied)" <<<"$after" && [ ! -e /tmp/prsyncd-test-landlock ]; then
	pass "monitor before selection: openat2 for writing refused by Landlock (EACCES), nothing created"
else
	fail "monitor before selection: openat2 for writing: $(grep -m 1 'openat2-write returned' <<<"$after")"
fi
rm -f /tmp/prsyncd-test-landlock
case $out in EOF*) pass "openat2-write: the client sees a clean close";; *) fail "openat2-write: client: $out";; esac

# Any other signal death of a session monitor is reported by the listener too.
for _ in $(seq 1 50); do # earlier sessions gone first, so the one found is ours
	[ "$(pgrep -c -P "$L" -f '^prsyncd-monitor')" = 0 ] && break
	sleep 0.1
done
rawclient "$port" --send '@RSYNCD: 32.0 md5\n' --hold 3 --timeout 1 >/dev/null &
holder=$!
mon=""
for _ in $(seq 1 50); do
	mon=$(pgrep -P "$L" -f '^prsyncd-monitor' | head -n 1)
	[ -n "$mon" ] && break
	sleep 0.1
done
if [ -n "$mon" ]; then
	sleep 0.3
	kill -TERM "$mon"
	wait_log "$TMP/log" "session monitor $mon killed by signal 15 " &&
		pass "listener reports a monitor killed by SIGTERM" || fail "no report of monitor $mon's SIGTERM"
else
	fail "no session monitor found to signal"
fi
wait "$holder" 2>/dev/null

kill -0 "$L" 2>/dev/null && pass "listener alive after every kill" || fail "listener died"
sleep 0.5
zombies=$(ps -o stat= --ppid "$L" | grep -c Z)
[ "$zombies" = 0 ] && pass "no zombie sessions" || fail "$zombies zombie sessions"
# A worker whose monitor was killed dies of its parent-death signal.
left=$(pgrep -f "^prsyncd-worker" | while read -r w; do
	[ "$(readlink "/proc/$w/exe")" = "$BIN/prsyncd-worker" ] &&
		[ "$(ps -o ppid= -p "$w" | tr -d ' ')" = 1 ] && echo "$w"; done)
[ -z "$left" ] && pass "no orphaned worker" || fail "orphaned workers: $left"
if grep -Eq 'Sanitizer|runtime error' "$TMP/log.stderr" 2>/dev/null; then
	fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/log.stderr")"
else
	pass "no sanitizer report"
fi

# Release builds carry no hook.
for b in prsyncd prsyncd-monitor prsyncd-worker; do
	if [ ! -x "$TOP/build/$b" ]; then
		fail "release $b not built"
	elif grep -aqE 'prsyncd-test-|test hook' "$TOP/build/$b"; then
		fail "release $b contains a test hook"
	else
		pass "release $b has no test hook"
	fi
done
finish
