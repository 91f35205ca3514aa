#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The benchmark (bench/bench.py, `make bench`) works: with tiny sizes and
# one run it starts both daemons, pulls every scenario from each, and
# prints a row per scenario in both tables.  Nothing here looks at the
# numbers themselves: no timing assertions in tests.
. "$(dirname "$0")/../lib.sh"

REL=$TOP/build/prsyncd
if [ ! -x "$REL" ] || [ ! -x "$TOP/build/prsyncd-worker" ]; then
	fail "no release build in $TOP/build (make test-build builds it)"
	finish
	exit
fi

timeout 300 python3 "$TOP/bench/bench.py" --tiny --runs 1 --data "$TMP/data" --dest "$TMP" \
	--json "$TMP/bench.json" --prsyncd "$REL" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" = 0 ]; then
	pass "bench.py --tiny exits 0"
else
	fail "bench.py --tiny exited $rc"
	tail -20 "$TMP/err"
	cat "$TMP/out"
fi

ids=$(python3 "$TOP/bench/bench.py" --tiny --list | awk '{print $1}')
n=$(printf '%s\n' "$ids" | grep -c .)
if [ "$n" = 14 ]; then pass "14 scenarios listed"; else fail "scenarios listed: $n"; fi

num='[0-9]+\.[0-9]+'
missing=""
for id in $ids; do
	# the main table: CPU, wall and memory for both servers, and ratios
	grep -Eq "^\| .*\`$id\` \| $num s \| $num s \| $num \| $num s \| $num s \| $num \| $num MiB \| $num MiB \| $num \|\$" "$TMP/out" \
		|| missing="$missing $id"
	# the split by process
	grep -Eq "^\| $id \| $num s \| $num s \| -?$num s \| $num s \| $num s \| $num s \| -?$num s \| " "$TMP/out" \
		|| missing="$missing $id(split)"
done
if [ -z "$missing" ]; then
	pass "every scenario has a complete row"
else
	fail "rows missing or incomplete:$missing"
	cat "$TMP/out"
fi

# Every pull succeeded, each server's sessions were reaped into its
# listener, and the CPU was counted the same way for both.
if python3 - "$TMP/bench.json" <<'PY' >"$TMP/check" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
res = d["results"]
bad = []
for r in res:
    where = "%s %s" % (r["scenario"], r["server"])
    if any(rc != 0 for rc in r["rc"]):
        bad.append(where + ": client exit %s" % r["rc"])
    if not r["reaped"] or r["orphans"]:
        bad.append(where + ": not reaped")
    if r["mem_source"] != "taskstats":
        continue        # not root: /proc sampling may miss a short session
    if r["sessions"] != len(r["rc"]):
        bad.append(where + ": %d sessions seen for %d clients" % (r["sessions"], len(r["rc"])))
    want = 2 if r["server"] == "prsyncd" else 1
    if r["procs_per_session"] != want:
        bad.append(where + ": %d processes per session" % r["procs_per_session"])
print("\n".join(bad) or "ok")
sys.exit(1 if bad else 0)
PY
then
	pass "all pulls succeeded, sessions reaped and counted"
else
	fail "measurement problems: $(head -5 "$TMP/check")"
fi
if grep -q 'total time' "$TMP/out"; then pass "total time printed"; else fail "no total time line"; fi

finish
