#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Memory benchmark: peak resident memory of the server side of one pull of
# a big, already up-to-date tree, rsync --daemon against prsyncd, with
# incremental recursion offered (the client's default) and refused
# (--no-inc-recursive).  See docs/performance.md for the method.
#
#   bench/memory.sh                 200,000 files, dirs of 100 files
#   FILES=50000 bench/memory.sh     a smaller tree
#
# Knobs (environment):
#   FILES=200000     number of files in the tree
#   PER_DIR=100      files per directory
#   REPS=1           pulls per (server, mode); the table shows the median
#   BENCH_DIR=DIR    work directory (tree, destination, logs); kept, and
#                    the tree reused when FILES/PER_DIR match.  Default: a
#                    new /tmp/prsyncd-bench.XXXXXX, removed on exit.
#   BENCH_TMPFS=1    as root, with the default work directory: mount a
#                    tmpfs on it (0: stay on disk).  The tree is created
#                    and copied much faster there; memory use of the
#                    servers does not depend on it.
#   POLL_MS=20       /proc polling interval
#   NO_BUILD=1       do not run `make` (use build/prsyncd as it is)
#   PRSYNCD=path     the prsyncd binary (default build/prsyncd, release)
#
# Speed is not asserted anywhere; the script reports numbers and ratios.
# Exit status: 0 when every pull succeeded, 1 otherwise.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
FILES=${FILES:-200000}
PER_DIR=${PER_DIR:-100}
REPS=${REPS:-1}
POLL_MS=${POLL_MS:-20}
PRSYNCD=${PRSYNCD:-$TOP/build/prsyncd}
PY=python3
DAEMON_PID=
KEEP=0
if [ -n "${BENCH_DIR:-}" ]; then
	mkdir -p "$BENCH_DIR" || exit 1
	BD=$(cd "$BENCH_DIR" && pwd); KEEP=1
else
	BD=$(mktemp -d /tmp/prsyncd-bench.XXXXXX) || exit 1
fi
MOUNTED=0
if [ "$KEEP" = 0 ] && [ "${BENCH_TMPFS:-1}" = 1 ] && [ "$(id -u)" = 0 ] \
	&& mount -t tmpfs -o size=16g,mode=0755 tmpfs "$BD" 2>/dev/null; then
	MOUNTED=1
fi

cleanup() {
	if [ -n "$DAEMON_PID" ]; then
		kill "$DAEMON_PID" 2>/dev/null
		wait "$DAEMON_PID" 2>/dev/null
	fi
	if [ "$MOUNTED" = 1 ]; then
		umount "$BD" 2>/dev/null || umount -l "$BD" 2>/dev/null
	fi
	[ "$KEEP" = 1 ] || rm -rf "$BD"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "memory.sh: $*" >&2; exit 1; }

free_port() {
	$PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_port() { # max ~10 s
	local _
	for _ in $(seq 1 100); do
		$PY -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),0.2).close()' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# A client that never prompts and is bounded in time.
client() { timeout 1800 rsync --contimeout=10 --timeout=600 "$@" </dev/null; }

# start_daemon rsyncd|prsyncd PORT: sets DAEMON_PID
start_daemon() {
	case $1 in
	rsyncd)
		rsync --daemon --no-detach --config="$BD/rsyncd.conf" --port="$2" \
			--address=127.0.0.1 --log-file="$BD/rsyncd.log" &
		;;
	prsyncd)
		"$PRSYNCD" --no-detach --config="$BD/rsyncd.conf" --port="$2" \
			--address=127.0.0.1 --log-file="$BD/prsyncd.log" 2>>"$BD/prsyncd.stderr" &
		;;
	esac
	DAEMON_PID=$!
	wait_port "$2" || die "$1 did not start on port $2"
}
stop_daemon() {
	kill "$DAEMON_PID" 2>/dev/null
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=
}

# --- build and tree ---------------------------------------------------------
command -v rsync >/dev/null || die "no rsync"
if [ "${NO_BUILD:-0}" != 1 ]; then
	make -C "$TOP" -s >"$BD/make.log" 2>&1 || { tail -20 "$BD/make.log"; die "make failed"; }
fi
[ -x "$PRSYNCD" ] || die "no $PRSYNCD"
if [ "$MOUNTED" = 1 ]; then fstype=tmpfs; else fstype=$(df --output=fstype "$BD" | tail -n 1); fi
echo "# work directory $BD ($fstype)"
stamp="files=$FILES per_dir=$PER_DIR"
if [ -d "$BD/src" ] && [ "$(cat "$BD/src.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "# reusing the tree in $BD/src ($stamp)"
else
	rm -rf "$BD/src" "$BD/dst" "$BD/src.stamp"
	t=$SECONDS
	summary=$($PY "$TOP/tests/tools/mkbigtree.py" "$BD/src" --bench "$FILES" --per-dir "$PER_DIR") \
		|| die "mkbigtree failed"
	echo "$stamp" > "$BD/src.stamp"
	echo "# tree: $summary ($((SECONDS - t)) s)"
fi
cat > "$BD/rsyncd.conf" <<CONF
[mod]
	path = $BD/src
	read only = yes
	use chroot = yes
	uid = root
	gid = root
CONF

# --- the destination: made identical to the tree, untimed --------------------
port=$(free_port)
start_daemon rsyncd "$port"
mkdir -p "$BD/dst"
t=$SECONDS
client -a --delete "rsync://127.0.0.1:$port/mod/" "$BD/dst/" >"$BD/seed.out" 2>&1 \
	|| { cat "$BD/seed.out" >&2; die "seeding pull failed"; }
stop_daemon
echo "# destination seeded ($((SECONDS - t)) s); each measured pull transfers nothing"

# --- measurements -------------------------------------------------------------
# measure SERVER MODE REP: one pull under procpeak.py; appends to results
RESULTS=$BD/results.tsv
: > "$RESULTS"
FAILED=0
measure() {
	local server=$1 mode=$2 rep=$3 opts=(-a --stats) port base
	[ "$mode" = noinc ] && opts+=(--no-inc-recursive)
	base=$BD/$server.$mode.$rep
	port=$(free_port)
	start_daemon "$server" "$port"
	$PY "$TOP/bench/procpeak.py" --root "$DAEMON_PID" --json "$base.json" \
		--interval "$(awk "BEGIN{print $POLL_MS/1000}")" -- \
		timeout 1800 rsync --contimeout=10 --timeout=600 "${opts[@]}" \
		"rsync://127.0.0.1:$port/mod/" "$BD/dst/" >"$base.out" 2>"$base.err" </dev/null
	stop_daemon
	$PY - "$server" "$mode" "$rep" "$base" >>"$RESULTS" <<'PY' || FAILED=1
import json, re, sys
server, mode, rep, base = sys.argv[1:5]
try:
    d = json.load(open(base + ".json"))
except (OSError, ValueError):
    d = {"rc": "nojson", "wall": 0, "sum_hwm_kb": 0, "max_rss_kb": 0, "pids": []}
n = "-"
for line in open(base + ".out", errors="replace"):
    m = re.match(r"Number of regular files transferred: ([0-9,]+)", line)
    if m:
        n = m.group(1).replace(",", "")
print("\t".join(map(str, (server, mode, rep, d["rc"], d["wall"], d["sum_hwm_kb"],
                          d["max_rss_kb"], len(d["pids"]), n))))
sys.exit(0 if d["rc"] == 0 else 1)
PY
	if [ "$(cut -f4 "$RESULTS" | tail -n 1)" != 0 ]; then
		echo "# $server $mode: the pull failed:" >&2
		head -5 "$base.err" >&2
	fi
}

for rep in $(seq 1 "$REPS"); do
	for mode in inc noinc; do
		for server in rsyncd prsyncd; do
			measure "$server" "$mode" "$rep"
		done
	done
done

# --- the table ------------------------------------------------------------------
$PY - "$RESULTS" "$FILES" "$PER_DIR" "$POLL_MS" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
files, per_dir, poll = sys.argv[2:5]
def med(server, mode, col):
    v = [float(r[col]) for r in rows if r[0] == server and r[1] == mode and r[3] == "0"]
    return statistics.median(v) if v else None
def mib(kb):
    return "-" if kb is None else "%.1f MiB" % (kb / 1024)
def ratio(a, b, fmt="%.2f"):
    return "-" if a is None or b is None or a == 0 else fmt % (b / a)
print()
print("files=%s per_dir=%s poll=%s ms; peak = sum over the session's server-side"
      " processes of each one's VmHWM (max simultaneous VmRSS sum in brackets)" % (files, per_dir, poll))
print("%-8s  %-24s  %-24s  %-13s  %-8s  %-8s  %-10s" % (
    "mode", "rsyncd peak", "prsyncd peak", "ratio P/R", "R wall", "P wall", "wall P/R"))
for mode, label in (("inc", "inc"), ("noinc", "no-inc")):
    rh, ph = med("rsyncd", mode, 5), med("prsyncd", mode, 5)
    rr, pr = med("rsyncd", mode, 6), med("prsyncd", mode, 6)
    rw, pw = med("rsyncd", mode, 4), med("prsyncd", mode, 4)
    print("%-8s  %-24s  %-24s  %-13s  %-8s  %-8s  %-10s" % (
        label, "%s [%s]" % (mib(rh), mib(rr)), "%s [%s]" % (mib(ph), mib(pr)),
        "%s [%s]" % (ratio(rh, ph), ratio(rr, pr)),
        "-" if rw is None else "%.2fs" % rw, "-" if pw is None else "%.2fs" % pw, ratio(rw, pw)))
bad = [r for r in rows if r[3] != "0"]
for r in bad:
    print("pull failed: %s %s rep %s: exit %s" % (r[0], r[1], r[2], r[3]))
print("(processes per session: %s)" % ", ".join(sorted({"%s/%s=%s" % (r[0], r[1], r[7]) for r in rows})))
print("(regular files transferred per pull: %s)" % ", ".join(sorted({r[8] for r in rows})))
PY
echo "# raw results: $RESULTS (kept only with BENCH_DIR)"
exit $FAILED
