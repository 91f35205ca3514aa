#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The whole test suite: unit tests, then integration tests against the
# stock rsync daemon, run on the ASan+UBSan build of all three binaries
# (build/test/; tests/lib.sh checks that it is one and fails a script on
# any sanitizer report), then a short run of every fuzz target.  Closes with the summed
# "N passed, N failed" line; exits non-zero if anything failed.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
total_pass=0
total_fail=0
failed_suites=()
times=()

run_suite() { # run_suite NAME CMD...
	local name=$1; shift
	local out rc line p f t0=$SECONDS
	out=$("$@" 2>&1); rc=$?
	times+=("$((SECONDS - t0)) $name")
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -n "$line" ]; then
		p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
		f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
	else
		p=0; f=1
		echo "suite $name printed no summary line"
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "suite $name exited $rc"
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	[ "$f" -eq 0 ] || failed_suites+=("$name")
}

for t in build/test/unit/test_*; do
	[ -x "$t" ] || continue
	run_suite "$(basename "$t")" "$t"
done
for t in tests/integration/t_*.sh; do
	[ -f "$t" ] || continue
	# a bound on a hung suite, not on speed: t_transfer.sh alone takes
	# about 8 minutes on a quiet 2-core machine
	run_suite "$(basename "$t")" timeout "${SUITE_TIMEOUT:-1500}" bash "$t"
done

# where the run's time went (information, never a verdict)
echo "slowest suites (seconds):"
printf '%s\n' "${times[@]}" | sort -rn | head -n 12 | sed 's/^/  /'
[ ${#failed_suites[@]} -eq 0 ] || echo "failing suites: ${failed_suites[*]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
