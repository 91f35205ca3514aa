#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Profiles for docs/performance.md, "Where the time goes": for each scenario
# given, one pull from each daemon (a) under `perf record` (software
# cpu-clock sampling with DWARF call graphs: this VM has no hardware
# counters) and (b) under `strace -f`, then the reports:
#
#   OUT/S.SERVER.perf.txt     top symbols by process (self time)
#   OUT/S.SERVER.callers.txt  the same with call chains (callers of the top ones)
#   OUT/S.SERVER.buckets.txt  CPU by process and kind of work (bench/perf_buckets.py)
#   OUT/S.SERVER.strace.txt   syscalls per process role (bench/strace_summary.py)
#
#   bench/profile.sh OUT SCENARIO... [-- bench.py options, e.g. --full]
#
# FREQ=1999 sets the sampling rate; KEEP=1 keeps the perf.data files.
# The traced runs are slower than untraced ones: use them for where the
# time goes and for counts, never for the ratios (make bench gives those).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { sed -n 2,14p "$0"; exit 2; }
OUT=$1; shift
mkdir -p "$OUT" || exit 1
scen=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do scen+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
FREQ=${FREQ:-1999}
for s in "${scen[@]}"; do
	for kind in perf strace; do
		if [ "$kind" = perf ]; then
			wrap="perf record -q -e cpu-clock -F $FREQ --call-graph dwarf,8192 -o $OUT/$s.{server}.perf.data --"
		else
			wrap="strace -f -qq -o $OUT/$s.{server}.strace"
		fi
		python3 "$TOP/bench/bench.py" --runs 1 --scenarios "$s" --wrap "$wrap" \
			--json "$OUT/$s.$kind.json" "$@" >"$OUT/$s.$kind.table" 2>"$OUT/$s.$kind.log" \
			|| echo "profile.sh: $s under $kind: bench.py failed (see $OUT/$s.$kind.log)" >&2
	done
	for server in rsyncd prsyncd; do
		d=$OUT/$s.$server.perf.data
		if [ -f "$d" ]; then
			perf report -i "$d" --no-children --sort comm,dso,sym --stdio -g none \
				--percent-limit 0.5 2>/dev/null >"$OUT/$s.$server.perf.txt"
			perf report -i "$d" --no-children --sort comm,sym --stdio \
				-g caller,0.5,callee,function,percent --percent-limit 2 2>/dev/null \
				>"$OUT/$s.$server.callers.txt"
			perf script -i "$d" -F comm,pid,ip,sym 2>/dev/null |
				python3 "$TOP/bench/perf_buckets.py" --freq "$FREQ" --leaves >"$OUT/$s.$server.buckets.txt"
			[ "${KEEP:-0}" = 1 ] || rm -f "$d"
		fi
		t=$OUT/$s.$server.strace
		if [ -f "$t" ]; then
			files=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(max(1,sum(x or 0 for r in d["results"] if r["server"] == sys.argv[2] for x in r["transferred"])))' "$OUT/$s.strace.json" "$server" 2>/dev/null || echo 1)
			python3 "$TOP/bench/strace_summary.py" "$t" --per "$files" >"$OUT/$s.$server.strace.txt"
			echo "(per unit = per file transferred: $files)" >>"$OUT/$s.$server.strace.txt"
			rm -f "$t"
		fi
	done
	echo "profile.sh: $s done" >&2
done
