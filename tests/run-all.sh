#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The whole test suite, in parallel: unit tests, then integration tests
# against the stock rsync daemon, run on the ASan+UBSan build of all three
# binaries (build/test/; tests/lib.sh checks that it is one and fails a
# script on any sanitizer report), and a short run of every fuzz target
# (t_fuzz_smoke.sh).  Each suite's output is printed whole when it ends;
# the run closes with the summed "N passed, N failed" line and exits
# non-zero if anything failed.
#
#   tests/run-all.sh                 everything, PRSYNCD_TEST_JOBS at once
#                                    (default: twice the cores, at least 2)
#   tests/run-all.sh -j N            N at once (-j 1: one after another)
#   tests/run-all.sh t_access test_msg ...   only these suites
#   tests/run-all.sh --list          the suites, one per line
#
# One test alone: bash tests/integration/t_NAME.sh, or build/test/unit/test_NAME.
#
# A script may say, in its first lines, "# test-lock: NAME": scripts that
# name the same lock never run at the same time (t_package.sh, t_units.sh
# and t_service.sh share "system": they install the package or read the
# units it installs); "# test-lock: alone" runs it after the others, by
# itself (the suite's few timed checks: t_timeout.sh).  Each running suite gets a slot number
# (PRSYNCD_PORT_SLOT), from which tests/lib.sh's free_port takes its ports,
# so two suites never pick the same port.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1

jobs=${PRSYNCD_TEST_JOBS:-}
if [ -z "$jobs" ]; then
	jobs=$(( $(nproc 2>/dev/null || echo 1) * 2 ))
	[ "$jobs" -ge 2 ] || jobs=2
fi
want=()
list=0
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--list) list=1; shift ;;
	-h|--help) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) want+=("${1%.sh}"); shift ;;
	esac
done
case $jobs in ''|*[!0-9]*|0) echo "run-all: -j wants a positive number" >&2; exit 2 ;; esac

# Longest first, so the slow ones do not start last (seconds, from
# earlier runs; a suite not listed here is taken as short).
weight() {
	case $1 in
	t_transfer) echo 190 ;; t_increc|t_fuzz_smoke) echo 120 ;; t_hostile_worker2) echo 90 ;;
	t_filters) echo 80 ;; t_limits) echo 70 ;; t_hostile_monitor|t_proxy) echo 50 ;;
	t_bounds|t_compress) echo 45 ;; t_links|t_seccomp_calls) echo 35 ;;
	test_*) echo 1 ;; *) echo 20 ;;
	esac
}

suites=()
for t in build/test/unit/test_*; do
	[ -x "$t" ] && suites+=("unit:$(basename "$t")")
done
for t in tests/integration/t_*.sh; do
	[ -f "$t" ] && suites+=("int:$(basename "$t" .sh)")
done
if [ ${#want[@]} -gt 0 ]; then
	picked=()
	for s in "${suites[@]}"; do
		for w in "${want[@]}"; do
			[ "${s#*:}" = "$w" ] && picked+=("$s")
		done
	done
	suites=("${picked[@]}")
fi
if [ $list = 1 ]; then
	printf '%s\n' "${suites[@]#*:}"
	exit 0
fi
[ ${#suites[@]} -gt 0 ] || { echo "run-all: no such suite: ${want[*]}"; echo "0 passed, 1 failed"; exit 1; }
mapfile -t suites < <(for s in "${suites[@]}"; do echo "$(weight "${s#*:}") $s"; done | sort -k1,1rn -k2 | cut -d' ' -f2)
lock_of() { # the "# test-lock:" a suite names, if any
	case $1 in int:*) sed -n '1,12s/^# test-lock: *\([a-z0-9_-]*\).*/\1/p' "tests/integration/${1#int:}.sh" | head -n 1 ;; esac
}
# The "alone" suites go last; the pool below runs them one at a time with
# nothing beside them.
pool=(); alone=()
for s in "${suites[@]}"; do
	if [ "$(lock_of "$s")" = alone ]; then alone+=("$s"); else pool+=("$s"); fi
done
suites=("${pool[@]}" "${alone[@]}")

OUT=$(mktemp -d /tmp/prsyncd-run.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT/locks" "$OUT/ports"

# run_one NAME SLOT: one suite, its output in $OUT/NAME.out, its exit
# status and seconds in $OUT/NAME.rc.
run_one() {
	local kind=${1%%:*} name=${1#*:} slot=$2 t0=$SECONDS rc lock cmd
	if [ "$kind" = unit ]; then
		cmd=("build/test/unit/$name")
	else
		# a bound on a hung suite, not on speed
		cmd=(timeout "${SUITE_TIMEOUT:-1500}" bash "tests/integration/$name.sh")
		lock=$(lock_of "$1")
		[ -z "$lock" ] || [ "$lock" = alone ] || cmd=(flock "$OUT/locks/$lock" "${cmd[@]}")
	fi
	PRSYNCD_PORT_SLOT=$slot PRSYNCD_PORT_DIR=$OUT/ports "${cmd[@]}" >"$OUT/$name.out" 2>&1 </dev/null
	rc=$?
	echo "$rc $((SECONDS - t0))" > "$OUT/$name.rc"
}

total_pass=0
total_fail=0
failed_suites=()
times=()
# report NAME: print a finished suite and add up its summary line.
report() {
	local name=$1 rc secs line p f
	read -r rc secs < "$OUT/$name.rc"
	times+=("$secs $name")
	cat "$OUT/$name.out"
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$OUT/$name.out" | tail -n 1)
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

# A fixed pool: slot k runs one suite at a time; a finished slot takes
# the next suite.  Every loop here ends when the list is done.
declare -A slot_of=()
free_slots=()
for ((k = 0; k < jobs; k++)); do free_slots+=("$k"); done
running=0
next=0
t_start=$SECONDS
while [ $next -lt ${#suites[@]} ] || [ $running -gt 0 ]; do
	while [ $next -lt ${#suites[@]} ] && [ ${#free_slots[@]} -gt 0 ]; do
		# an "alone" suite starts once nothing else runs, and holds the pool
		[ $next -ge ${#pool[@]} ] && [ $running -gt 0 ] && break
		s=${suites[$next]}; next=$((next + 1))
		k=${free_slots[0]}; free_slots=("${free_slots[@]:1}")
		run_one "$s" "$k" &
		slot_of[${s#*:}]=$k
		running=$((running + 1))
	done
	wait -n 2>/dev/null
	for n in "${!slot_of[@]}"; do
		[ -f "$OUT/$n.rc" ] || continue
		report "$n"
		free_slots+=("${slot_of[$n]}")
		unset "slot_of[$n]"
		running=$((running - 1))
	done
done

# where the run's time went (information, never a verdict)
echo "slowest suites (seconds; $jobs at once, $((SECONDS - t_start)) s in all):"
printf '%s\n' "${times[@]}" | sort -rn | head -n 12 | sed 's/^/  /'
[ ${#failed_suites[@]} -eq 0 ] || echo "failing suites: ${failed_suites[*]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
