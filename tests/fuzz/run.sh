#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Run libFuzzer targets for a fixed time each, from their seeds, and record
# what they did:  tests/fuzz/run.sh SECONDS build/fuzz/fuzz_NAME...
#
# Each target reads tests/fuzz/corpus/NAME (seeds, read only) and
# build/fuzz/corpus/NAME (what earlier runs found, where new inputs go),
# with tests/fuzz/NAME.dict if there is one.  A crash, leak, timeout or
# out-of-memory leaves its input in build/fuzz/artifacts/ and makes the run
# fail.  The table of executions and coverage (libFuzzer's cov: edges, ft:
# features) goes to stdout and to build/fuzz/stats.md.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:?usage: run.sh SECONDS TARGET...}
shift
out=$TOP/build/fuzz
mkdir -p "$out/artifacts" "$out/logs"
stats=${FUZZ_STATS:-$out/stats.md}
{
	echo "| target | seconds | executions | exec/s | cov | ft | corpus | peak RSS MB | result |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
} > "$stats"
failed=0
for bin in "$@"; do
	name=$(basename "$bin")
	seeds=$TOP/tests/fuzz/corpus/$name
	work=$out/corpus/$name
	log=$out/logs/$name.log
	mkdir -p "$work"
	args=(-max_total_time="$secs" -print_final_stats=1 -timeout=20 -rss_limit_mb=3072
	      -max_len=65536 -artifact_prefix="$out/artifacts/$name-")
	[ -f "$TOP/tests/fuzz/$name.dict" ] && args+=(-dict="$TOP/tests/fuzz/$name.dict")
	dirs=("$work")
	[ -d "$seeds" ] && dirs+=("$seeds")
	# No stdin: a target never waits on a terminal.
	"$bin" "${args[@]}" "${dirs[@]}" </dev/null >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+' "$log" | grep -E ' cov: ' | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
	if [ "$rc" = 0 ]; then result=ok; else result="FAILED (exit $rc, see $log)"; failed=1; fi
	line="| $name | $secs | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | ${rss:-?} | $result |"
	echo "$line" >> "$stats"
	echo "$line"
	if [ "$rc" != 0 ]; then
		grep -E 'ERROR|SUMMARY|Test unit written|runtime error' "$log" | head -n 5 | sed 's/^/    /'
	fi
done
exit "$failed"
