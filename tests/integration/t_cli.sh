#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Command line and start-up checks: --check-config on good and bad files
# (what rsyncd only finds at the first login too: a secrets file, a MOTD,
# a module root its uid cannot enter), --version/--help, refusals that
# cite file and line, the pid file (gone after a SIGHUP and SIGTERM),
# start-up errors on the terminal, socket activation with a port set.
. "$(dirname "$0")/../lib.sh"
P=$TOP/build/prsyncd

mkdir -p "$TMP/pub"
good=$TMP/good.conf
cat > "$good" <<CONF
# comment
port = 8873
[pub]
	path = $TMP/pub
	comment = ok
	use chroot = yes
CONF
out=$("$P" --config="$good" --check-config 2>&1); rc=$?
[ $rc = 0 ] && pass "check-config good file" || fail "check-config good file: rc=$rc $out"

refuse() { # refuse NAME LINE-NO BODY EXPECT
	local f=$TMP/bad.$RANDOM.conf out rc
	printf '%b' "$3" > "$f"
	out=$("$P" --config="$f" --check-config 2>&1); rc=$?
	if [ $rc != 0 ] && grep -q -- "$f:$2:" <<<"$out" && grep -qi -- "$4" <<<"$out"; then pass "$1 refused at line $2"
	else fail "$1: rc=$rc out=$out"; fi
}
refuse "daemon chroot" 1 "daemon chroot = /srv\n[pub]\n\tpath = $TMP/pub\n" "daemon chroot"
refuse "pre-xfer exec" 3 "[pub]\n\tpath = $TMP/pub\n\tpre-xfer exec = /bin/true\n" "exec"
refuse "malformed hosts allow" 3 "[pub]\n\tpath = $TMP/pub\n\thosts allow = 10.0.0.0/33\n" "malformed address"
refuse "module without path" 1 "[pub]\n\tcomment = x\n" "path"
# What rsyncd accepts loads, with a warning at its line saying what it became.
warns() { # warns NAME LINE-NO BODY EXPECT
	local f=$TMP/odd.$RANDOM.conf out rc
	printf '%b' "$3" > "$f"
	out=$("$P" --config="$f" --check-config 2>&1); rc=$?
	if [ $rc = 0 ] && grep -q -- "warning: $f:$2:.*$4" <<<"$out"; then pass "$1: loads, warned at line $2"
	else fail "$1: rc=$rc out=$out"; fi
}
warns "unknown key" 2 "[pub]\n\tfrobnicate = 1\n\tpath = $TMP/pub\n" \
	"unknown parameter 'frobnicate' IGNORED, as rsyncd ignores it (\"IGNORING unknown parameter\"): whatever it was meant to set is not in effect"
# A misspelt "hosts deny" loads as rsyncd loads it (nothing denied), and
# --check-config says so once more on the output that says OK, as the
# log does at start-up and at each reload.
typo=$TMP/typo.conf
printf '[pub]\n\tpath = %s\n\thosts dney = 10.0.0.0/8\n\tfrobnicate = 1\n' "$TMP/pub" > "$typo"
sum="2 unknown parameters IGNORED, as rsyncd ignores them: 'hosts dney' ($typo:3), 'frobnicate' ($typo:4): whatever they were meant to set is not in effect"
out=$("$P" --config="$typo" --check-config 2>/dev/null); rc=$?
[ $rc = 0 ] && grep -qxF "$typo: configuration OK (1 module)" <<<"$out" && grep -qxF "$typo: $sum" <<<"$out" &&
	pass "--check-config: OK, and the unknown parameters named on its output" || fail "check-config summary: rc=$rc $out"
tport=$(free_port)
start_prsyncd "$typo" "$tport" "$TMP/typo.log" || fail "prsyncd did not start ($typo)"
for _ in $(seq 50); do grep -qF "configuration $typo: $sum" "$TMP/typo.log" && break; sleep 0.1; done
grep -qF "configuration $typo: $sum" "$TMP/typo.log" &&
	grep -q "$typo:3: module \[pub\]: unknown parameter 'hosts dney' IGNORED" "$TMP/typo.log" &&
	pass "start-up log: each unknown parameter and the summary" || fail "start-up log: $(cat "$TMP/typo.log")"
kill -HUP "$PRSYNCD_PID"
for _ in $(seq 50); do [ "$(grep -c "configuration $typo: 2 unknown" "$TMP/typo.log")" -ge 2 ] && break; sleep 0.1; done
[ "$(grep -c "configuration $typo: 2 unknown" "$TMP/typo.log")" -ge 2 ] && pass "reload log: the summary again" ||
	fail "reload log: $(cat "$TMP/typo.log")"
stop_pid "$PRSYNCD_PID"
warns "bad boolean" 3 "[pub]\n\tpath = $TMP/pub\n\tlist = maybe\n" "'list = maybe' is not yes/no.*the value stays yes"
warns "max verbosity = yes" 1 "max verbosity = yes\n[pub]\n\tpath = $TMP/pub\n" "'max verbosity = yes' is read as 0, as rsyncd reads it"

# A module without a usable path: the parser says so, then no crash (a
# segfault, exit 139, after the right lines); the sanitizer build too.
for p in "" "relative/x" "-"; do
	f=$TMP/nopath.$RANDOM.conf
	if [ "$p" = - ]; then printf '[pub]\n\tcomment = x\n' > "$f"; else printf '[pub]\n\tpath = %s\n' "$p" > "$f"; fi
	out=$("$P" --config="$f" --check-config 2>&1); rc=$?
	"$PRSYNCD" --config="$f" --check-config >/dev/null 2>>"$TMP/nopath.stderr"
	[ $rc = 1 ] && grep -q "$f: [0-9]* errors\?$" <<<"$out" && grep -q "module \[pub\] has no 'path'" <<<"$out" &&
		pass "check-config, path '$p': reported, exit 1" || fail "check-config, path '$p': rc=$rc $out"
done

# What rsyncd says only at the first login, said by --check-config, with
# file, line and module: rsyncd fails every login when the secrets file
# cannot be read ("auth failed on module M", the log: "no secrets file"),
# sends an empty line for a MOTD it cannot read, and fails each transfer
# with "change_dir "/" (in M) failed: Permission denied" (exit 23) when the
# module's uid cannot enter its root.
mkdir -p "$TMP/closed" && chmod 700 "$TMP/closed"
printf 'joe:pw\n' > "$TMP/secrets.open" && chmod 644 "$TMP/secrets.open"
lf=$TMP/login.conf
cat > "$lf" <<CONF
motd file = $TMP/no-motd
[sec]
	path = $TMP/pub
	auth users = joe
	secrets file = $TMP/no-secrets
[open]
	path = $TMP/pub
	auth users = joe
	secrets file = $TMP/secrets.open
[nosecrets]
	path = $TMP/pub
	auth users = joe
[closed]
	path = $TMP/closed
	uid = nobody
[fine]
	path = $TMP/pub
	uid = nobody
CONF
out=$("$P" --config="$lf" --check-config 2>&1); rc=$?
n=0
for want in "$lf:2: module \[sec\]: secrets file $TMP/no-secrets: No such file or directory: every login fails" \
	"$lf:6: module \[open\]: secrets file $TMP/secrets.open: other users may read it, and 'strict modes' is on" \
	"$lf:10: module \[nosecrets\]: secrets file (none): 'auth users' is set and 'secrets file' is not" \
	"$lf:13: module \[closed\]: path $TMP/closed: uid nobody ([0-9]*) with gid [0-9]* may not search it" \
	"warning: $lf: motd file $TMP/no-motd: No such file or directory: clients get an empty line" "$lf: 4 errors"; do
	grep -q -- "$want" <<<"$out" && n=$((n + 1)) || echo "    missing: $want"
done
[ $rc = 1 ] && [ $n = 6 ] && ! grep -q '\[fine\]' <<<"$out" &&
	pass "check-config: secrets file and module root problems, one line each, exit 1; the MOTD a warning" || fail "check-config login: rc=$rc $out"
chmod 600 "$TMP/secrets.open"; printf 'motd\n' > "$TMP/no-motd"; chmod 755 "$TMP/closed"; printf 'joe:pw\n' > "$TMP/no-secrets"
chmod 600 "$TMP/no-secrets"
sed -i '/^\[nosecrets\]/,/auth users/d' "$lf"
out=$("$P" --config="$lf" --check-config 2>&1) && pass "check-config: passes once they are fixed" || fail "check-config fixed: $out"

warnf=$TMP/warn.conf
printf '[pub]\n\tpath = %s\n\tport = 5\n' "$TMP/pub" > "$warnf"
out=$("$P" --config="$warnf" --check-config 2>&1); rc=$?
[ $rc = 0 ] && grep -q "$warnf:3:.*'port' is a global parameter" <<<"$out" &&
	pass "a global parameter in a module warns with file:line, as rsyncd ignores it" || fail "warning: rc=$rc $out"

"$P" --version | grep -q '^prsyncd ' && pass "--version" || fail "--version"
"$P" --help | grep -q -- '--check-config' && pass "--help" || fail "--help"
"$P" --bogus >/dev/null 2>&1 && fail "unknown option accepted" || pass "unknown option refused"
"$P" --port=0 --config="$good" --check-config >/dev/null 2>&1 && fail "port 0 accepted" || pass "port 0 refused"
"$P" --config="$TMP/missing.conf" --check-config >/dev/null 2>&1 && fail "missing config accepted" || pass "missing config refused"

# A worker user with uid 0 is refused.
printf 'worker user = root\n[pub]\n\tpath = %s\n' "$TMP/pub" > "$TMP/root.conf"
out=$("$P" --config="$TMP/root.conf" --check-config 2>&1) && fail "worker user root accepted" || pass "worker user root refused: $out"

# A non-empty worker chroot is refused.
mkdir -p "$TMP/notempty" && touch "$TMP/notempty/x" && chmod 755 "$TMP/notempty"
printf 'worker chroot = %s\n[pub]\n\tpath = %s\n' "$TMP/notempty" "$TMP/pub" > "$TMP/ne.conf"
out=$("$P" --config="$TMP/ne.conf" --check-config 2>&1) && fail "non-empty chroot accepted" || pass "non-empty chroot refused: $out"

# Detached start with a pid file; SIGTERM removes it.
port=$(free_port)
"$P" --config="$good" --port="$port" --address=127.0.0.1 --pid-file="$TMP/pid" --log-file="$TMP/log"
if wait_port "$port" && [ -s "$TMP/pid" ]; then
	pid=$(cat "$TMP/pid")
	pass "detached daemon wrote pid file ($pid)"
	[ "$(ps -o tty= -p "$pid" | tr -d ' ')" = "?" ] && pass "detached daemon has no controlling terminal" || fail "detached daemon kept a terminal"
	kill "$pid"
	for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && fail "daemon survived SIGTERM" || pass "SIGTERM stops the daemon"
	[ -e "$TMP/pid" ] && fail "pid file left behind" || pass "pid file removed"
else
	fail "detached daemon did not start"
fi

# The configuration's pid file is removed at exit after a reload as well
# (the reload frees the configuration that named it).
port=$(free_port)
{ printf 'pid file = %s\n' "$TMP/cfgpid"; cat "$good"; } > "$TMP/pid.conf"
"$P" --config="$TMP/pid.conf" --port="$port" --address=127.0.0.1 --log-file="$TMP/pidlog"
if wait_port "$port" && [ -s "$TMP/cfgpid" ]; then
	pid=$(cat "$TMP/cfgpid")
	kill -HUP "$pid"
	wait_log "$TMP/pidlog" 'reload: configuration 2' || fail "no reload"
	kill "$pid"
	# detached, it is not our child: a zombie counts as gone
	for _ in $(seq 1 50); do case $(ps -o stat= -p "$pid") in Z*|'') break ;; esac; sleep 0.1; done
	[ -e "$TMP/cfgpid" ] && fail "configuration's pid file left behind after a reload" ||
		pass "configuration's pid file removed at exit after a reload"
else
	fail "detached daemon with a configured pid file did not start"
fi

# Non-root start: user namespace confinement, or a clear refusal.
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	port=$(free_port)
	chmod 755 "$TMP"
	mkdir -p "$TMP/nr" && chmod 777 "$TMP/nr"
	# The checkout may sit in a directory "nobody" cannot enter (a 0700
	# mktemp clone): then run copies of the three binaries from $TMP.
	NP=$P
	if ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$(dirname "$P")/prsyncd-worker"; then
		mkdir -p "$TMP/nrbin" && cp "$P" "$(dirname "$P")/prsyncd-monitor" "$(dirname "$P")/prsyncd-worker" "$TMP/nrbin/" && chmod 755 "$TMP/nrbin"
		NP=$TMP/nrbin/$(basename "$P")
	fi
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$NP" --no-detach --config="$good" \
		--port="$port" --address=127.0.0.1 --log-file="$TMP/nr/log" 2>"$TMP/nonroot.err" &
	np=$!
	PIDS+=("$np")
	if wait_port "$port"; then
		out=$(rsync_client "rsync://127.0.0.1:$port/" 2>&1)
		case $out in pub*) pass "non-root daemon serves a listing (user namespace)";; *) fail "non-root listing: $out";; esac
	else
		grep -q 'user namespaces' "$TMP/nonroot.err" && pass "non-root start refused with a reason" ||
			fail "non-root start: $(cat "$TMP/nonroot.err")"
	fi
	stop_pid "$np"
	# A privileged port without root: said on the terminal too (rsyncd,
	# with --no-detach, says it in its log only).
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$NP" --no-detach --config="$good" \
		--port=873 --address=127.0.0.1 --log-file="$TMP/nr/log2" 2>&1); rc=$?
	if grep -q 'user namespaces' <<<"$out"; then echo "SKIP: privileged port: no user namespaces for a non-root daemon"
	elif [ $rc = 1 ] && grep -q '^prsyncd: bind/listen on port 873 (IPv4): Permission denied' <<<"$out"; then
		pass "privileged port without root: the reason on the terminal, exit 1"
	else fail "privileged port: rc=$rc $out"; fi
fi

# --- pid file: gone after a reload and a stop ---------------------------------
# The path named in the file belonged to the first configuration, which a
# SIGHUP frees: the exit unlinked whatever that memory held (issue 26).
for how in file option; do
	port=$(free_port)
	cf=$TMP/pid-$how.conf
	if [ $how = file ]; then
		printf 'pid file = %s\n[pub]\n\tpath = %s\n' "$TMP/pid-$how" "$TMP/pub" > "$cf"; opt=()
	else
		printf '[pub]\n\tpath = %s\n' "$TMP/pub" > "$cf"; opt=(--pid-file="$TMP/pid-$how")
	fi
	"$PRSYNCD" --config="$cf" --port="$port" --address=127.0.0.1 --log-file="$TMP/pid-$how.log" "${opt[@]}" \
		2>>"$TMP/pid-$how.stderr"
	wait_port "$port"
	pid=$(cat "$TMP/pid-$how" 2>/dev/null)
	kill -HUP "$pid"
	wait_log "$TMP/pid-$how.log" "reload: configuration 2 in force" || fail "pid file ($how): no reload"
	kill "$pid"
	for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	[ -n "$pid" ] && [ ! -e "$TMP/pid-$how" ] && pass "pid file from the $how: removed after SIGHUP then SIGTERM" ||
		fail "pid file from the $how: left behind (pid '$pid')"
done

# --- start-up errors on the terminal ------------------------------------------
# rsyncd with --no-detach writes "bind() failed" to its log only and exits
# 10; prsyncd says it on stderr too (and exits 1), detached or not, and
# the sanitizer build releases everything on the way out.
port=$(free_port)
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(20)' "$port" &
busy=$!; PIDS+=("$busy")
wait_port "$port"
for mode in no-detach daemon; do
	"$PRSYNCD" --$mode --config="$good" --port="$port" --address=127.0.0.1 --log-file="$TMP/inuse.log" \
		2>"$TMP/inuse-$mode.stderr"; rc=$?
	grep -q "^prsyncd: bind/listen on port $port (IPv4): Address already in use" "$TMP/inuse-$mode.stderr" && [ $rc = 1 ] &&
		pass "port in use (--$mode): the reason on the terminal, exit 1" || fail "port in use (--$mode): rc=$rc $(cat "$TMP/inuse-$mode.stderr")"
done
grep -q 'could not listen on any address' "$TMP/inuse.log" && pass "and in the log" || fail "log: $(cat "$TMP/inuse.log")"
stop_pid "$busy"
# A pid file held by a running daemon: said before the detach.
port=$(free_port)
"$PRSYNCD" --config="$good" --port="$port" --address=127.0.0.1 --log-file="$TMP/held.log" --pid-file="$TMP/held.pid" \
	2>>"$TMP/held1.stderr"
wait_port "$port"
port2=$(free_port)
out=$("$PRSYNCD" --config="$good" --port="$port2" --address=127.0.0.1 --log-file="$TMP/held.log" \
	--pid-file="$TMP/held.pid" 2>&1); rc=$?
[ $rc = 1 ] && grep -q "^prsyncd: pid file $TMP/held.pid is held by a running prsyncd (pid $(cat "$TMP/held.pid"))" <<<"$out" &&
	pass "pid file held: the reason on the terminal, exit 1" || fail "pid file held: rc=$rc $out"
kill "$(cat "$TMP/held.pid")"

# --- socket activation: 'port' and 'address' of the file are ignored, said ----
port=$(free_port)
printf 'port = 8873\naddress = 127.0.0.9\n[pub]\n\tpath = %s\n' "$TMP/pub" > "$TMP/sa.conf"
python3 - "$port" "$PRSYNCD" --no-detach --config="$TMP/sa.conf" --log-file="$TMP/sa.log" 2>>"$TMP/sa.stderr" <<'PY' &
# A socket-activation launcher: fd 3 listening, LISTEN_FDS/LISTEN_PID set.
import os, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
if s.fileno() != 3:
    os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.environ.update(LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
os.execv(sys.argv[2], sys.argv[2:])
PY
sa=$!; PIDS+=("$sa")
wait_port "$port"
out=$(rsync_client "rsync://127.0.0.1:$port/" 2>&1)
grep -q '^pub' <<<"$out" && pass "socket-activated: served on the inherited socket" || fail "socket-activated: $out"
grep -q "socket-activated: port 8873 and address 127.0.0.9 are ignored" "$TMP/sa.log" &&
	pass "socket-activated: the file's port and address said to be ignored" || fail "sa log: $(head -4 "$TMP/sa.log")"
stop_pid "$sa"

# --- the log: rsyncd's lines only, unless --log-debug ------------------------
# (issue 26: the log is compared with rsyncd's; prsyncd's own diagnostics,
# the protocol line, literal data, work counters, go only with --log-debug)
echo hello > "$TMP/pub/hello"
for dbg in "" --log-debug; do
	port=$(free_port); lg=$TMP/dbg${dbg:+1}.log
	"$PRSYNCD" --no-detach $dbg --config="$good" --port="$port" --address=127.0.0.1 --log-file="$lg" \
		2>>"$TMP/dbg.stderr" &
	d=$!; PIDS+=("$d")
	wait_port "$port"
	rsync_client -a "rsync://127.0.0.1:$port/pub/hello" "$TMP/dbg.out" >/dev/null 2>&1
	wait_log "$lg" "sent [0-9]+ bytes"
	stop_pid "$d"
	n=$(grep -cE '\] (protocol [0-9]+, compat flags|literal data|filter work|match work)' "$lg")
	grep -q "starting, listening on port $port" "$lg" || fail "log${dbg:+ with $dbg}: no 'listening on port $port' line"
	if [ -z "$dbg" ]; then
		[ "$n" = 0 ] && pass "log without --log-debug: no diagnostic lines (as rsyncd's)" ||
			fail "log without --log-debug: $n diagnostic lines: $(grep -m1 -E 'protocol|literal' "$lg")"
	else
		[ "$n" -ge 2 ] && pass "log with --log-debug: the diagnostic lines ($n)" || fail "log with --log-debug: $n lines"
	fi
done
finish
