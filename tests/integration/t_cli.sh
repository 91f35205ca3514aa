#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Command line and start-up checks: --check-config on good and bad files,
# --version/--help, refusals that cite file and line, the pid file.
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
	for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && fail "daemon survived SIGTERM" || pass "SIGTERM stops the daemon"
	[ -e "$TMP/pid" ] && fail "pid file left behind" || pass "pid file removed"
else
	fail "detached daemon did not start"
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
fi
finish
