# SPDX-License-Identifier: ISC
# Shared helpers for the integration tests.  Each test script sources this,
# calls pass/fail per check, and ends with `finish`.  Servers listen on
# 127.0.0.1 only, on ports picked free; every wait loop is bounded.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The binaries under test.  By default build/test/ (make test-build): the
# listener, the session monitor and the worker all built with
# AddressSanitizer and UndefinedBehaviorSanitizer (-fno-sanitize-recover:
# any finding aborts the process) and the test hooks, so every
# differential test against rsyncd is also a sanitizer run of both the
# privileged side and the worker.  PRSYNCD_BIN=$TOP/build runs the same
# tests against the release binaries.  Whichever ran, finish() fails the
# script on any sanitizer report in the servers' stderr files ($TMP/*stderr*).
BIN=${PRSYNCD_BIN:-$TOP/build/test}
PRSYNCD=$BIN/prsyncd
TOOLS=$TOP/build/test/tools
NPASS=0
NFAIL=0
TMP=$(mktemp -d /tmp/prsyncd-test.XXXXXX)
PIDS=()
# The tools run under the distribution's interpreter (bootstrap installs
# python3), not a version manager's shim found first on PATH: a pyenv
# shim costs ~0.8 s per call here, ~40% of the suite's time, where
# /usr/bin/python3 starts in 0.06 s.  PYTHON=... picks another.
_py=${PYTHON:-/usr/bin/python3}
if [ -x "$_py" ]; then
	mkdir -p "$TMP/.bin" && ln -sf "$_py" "$TMP/.bin/python3" && PATH=$TMP/.bin:$PATH
fi
unset _py

cleanup() {
	for p in "${PIDS[@]:-}"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]:-}"; do
		[ -n "$p" ] && wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

pass() { NPASS=$((NPASS + 1)); echo "PASS: $*"; }
fail() { NFAIL=$((NFAIL + 1)); echo "FAIL: $*"; }
check() { # check NAME CMD...: pass if the command succeeds
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
# pending ISSUE WHAT CMD...: a check for a feature a later issue adds.
# Skipped (and listed) until PRSYNCD_PENDING=1 asks for it.
pending() {
	local issue=$1 what=$2; shift 2
	if [ "${PRSYNCD_PENDING:-0}" = 1 ]; then "$@"; else echo "SKIP: $what (pending: $issue)"; fi
}
SAN_REPORT='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer'
# The default binaries must really be sanitizer builds (a stale or release
# build copied there would make every run above silently unsanitized).
if [ -z "${PRSYNCD_BIN:-}" ]; then
	for b in prsyncd prsyncd-monitor prsyncd-worker; do
		[ -x "$BIN/$b" ] || continue
		if ! grep -aq __asan_init "$BIN/$b" || ! grep -aq __ubsan_handle "$BIN/$b"; then
			echo "FAIL: $BIN/$b is not an ASan+UBSan build (make test-build)"
			NFAIL=$((NFAIL + 1))
		fi
	done
fi
finish() {
	local rep
	rep=$(find "$TMP" -name '*stderr*' -type f -exec grep -lE "$SAN_REPORT" {} + 2>/dev/null | head -n 3)
	for f in $rep; do
		fail "sanitizer report in ${f#"$TMP"/}: $(grep -m 1 -E "$SAN_REPORT" "$f")"
		grep -m 1 -A 24 -E "$SAN_REPORT" "$f" | sed 's/^/    /'
	done
	echo "$(basename "$0"): $NPASS passed, $NFAIL failed"
	[ "$NFAIL" -eq 0 ]
}

# free_port: a port nothing listens on, on 127.0.0.1 (free_port6: on ::1).
# Under tests/run-all.sh each running suite has a slot (PRSYNCD_PORT_SLOT)
# and takes its ports in turn from that slot's own range below the
# kernel's ephemeral ports, so suites running side by side never pick the
# same one; run alone, the kernel picks.
free_port() { _free_port 127.0.0.1; }
free_port6() { _free_port ::1; }
_free_port() {
	python3 - "$1" "${PRSYNCD_PORT_SLOT:-}" "${PRSYNCD_PORT_DIR:-}" <<'PY'
import fcntl, os, socket, sys
host, slot, pdir = sys.argv[1], sys.argv[2], sys.argv[3]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
def bindable(port):
    s = socket.socket(fam)
    try:
        s.bind((host, port))
        return True
    except OSError:
        return False
    finally:
        s.close()
if not slot or not pdir:
    s = socket.socket(fam); s.bind((host, 0)); print(s.getsockname()[1]); sys.exit(0)
SPAN = 600                      # ports per slot, from 12000 up
base = 12000 + int(slot) * SPAN
with open(os.path.join(pdir, "slot" + slot), "a+") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    n = int(f.read() or 0)
    for i in range(SPAN):
        port = base + (n + i) % SPAN
        if bindable(port):
            f.seek(0); f.truncate(); f.write(str(n + i + 1))
            print(port)
            sys.exit(0)
sys.exit("free_port: no free port in slot " + slot)
PY
}

# wait_port PORT: until something accepts on 127.0.0.1:PORT (max ~10 s)
wait_port() {
	local i
	for i in $(seq 1 100); do
		if python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),0.2).close()' "$1" 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# start_prsyncd CONF PORT LOG [extra args...]: sets PRSYNCD_PID
start_prsyncd() {
	local conf=$1 port=$2 log=$3; shift 3
	"$PRSYNCD" --no-detach --log-debug --config="$conf" --port="$port" --address=127.0.0.1 \
		--log-file="$log" "$@" 2> >(cat >>"$log.stderr") &
	PRSYNCD_PID=$!
	PIDS+=("$PRSYNCD_PID")
	wait_port "$port"
}

# start_rsyncd CONF PORT: the stock daemon as the oracle; sets RSYNCD_PID
start_rsyncd() {
	local conf=$1 port=$2
	rsync --daemon --no-detach --config="$conf" --port="$port" --address=127.0.0.1 &
	RSYNCD_PID=$!
	PIDS+=("$RSYNCD_PID")
	wait_port "$port"
}

stop_pid() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# wait_log FILE PATTERN: until grep -E finds PATTERN (max ~10 s)
wait_log() {
	local i
	for i in $(seq 1 100); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# new_log N: the lines of $TMP/log past line N.
new_log() { tail -n +"$(($1 + 1))" "$TMP/log"; }

# expect_logged NAME BEFORE REGEX [OUT]: within 10 s a line of $TMP/log
# past line BEFORE matches REGEX (pass, with its text) or not (fail,
# showing those lines and the client's output file OUT); and the
# listener $L, when set, is still alive.
expect_logged() {
	local name=$1 before=$2 re=$3 out=${4:-} after i
	for i in $(seq 1 100); do
		after=$(new_log "$before")
		grep -Eq -- "$re" <<<"$after" && break
		sleep 0.1
	done
	if grep -Eq -- "$re" <<<"$after"; then
		pass "$name: $(grep -E -- "$re" <<<"$after" | head -n 1 | cut -d' ' -f4-)"
	else
		fail "$name: no log line matching '$re'"
		sed 's/^/    /' <<<"$after"
		[ -z "$out" ] || sed 's/^/    out: /' "$out"
	fi
	[ -z "${L:-}" ] || kill -0 "$L" 2>/dev/null || fail "$name: listener died"
}

# lineclient MODE: tests/tools/lineclient.py against the daemon on $port,
# whose worker is a hostile stand-in (tests/tools/hostile_*.c).
lineclient() { timeout 150 python3 "$TOP/tests/tools/lineclient.py" "$port" "$1"; }

# expect_end MODE LOG-REGEX: one such session, its output in $TMP/out,
# ends with a log line matching LOG-REGEX.
expect_end() {
	local before
	before=$(wc -l < "$TMP/log")
	lineclient "$1" > "$TMP/out"
	expect_logged "$1" "$before" "$2" "$TMP/out"
}

# The stock client, never prompting, bounded in time.
rsync_client() {
	timeout 60 rsync --contimeout=10 --timeout=30 "$@" </dev/null
}

rawclient() {
	python3 "$TOP/tests/tools/rawclient.py" "$@"
}
