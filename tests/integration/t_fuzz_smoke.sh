#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Every libFuzzer target (tests/fuzz/fuzz_*.c) built and run briefly from
# its seeds (tests/fuzz/corpus/NAME, tests/fuzz/NAME.dict): a crash, a
# sanitizer report, a leak, a timeout or an out-of-memory in that time
# fails the target.  FUZZ_SMOKE_SECONDS (default 3) per target; longer runs
# are `make fuzz FUZZ_SECONDS=N` (docs/audit-guide.md records them).
. "$(dirname "$0")/../lib.sh"

secs=${FUZZ_SMOKE_SECONDS:-3}
cc=${FUZZ_CC:-clang}
if ! command -v "$cc" >/dev/null; then
	echo "SKIP: t_fuzz_smoke.sh: $cc not installed (scripts/bootstrap.sh installs clang and libclang-rt-14-dev)"
	finish
	exit
fi
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$TMP/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$TMP/probe" "$TMP/probe.c" 2>"$TMP/probe.err"; then
	echo "SKIP: t_fuzz_smoke.sh: $cc cannot link libFuzzer ($(head -n 1 "$TMP/probe.err")); install libclang-rt-14-dev"
	finish
	exit
fi

if make -C "$TOP" -s -j2 fuzz >"$TMP/build.log" 2>&1; then
	pass "every fuzz target builds"
else
	fail "make fuzz: $(grep -m 3 -E 'error' "$TMP/build.log")"
	finish
	exit
fi
targets=()
for src in "$TOP"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	targets+=("$TOP/build/fuzz/$name")
	[ -d "$TOP/tests/fuzz/corpus/$name" ] && [ -n "$(ls -A "$TOP/tests/fuzz/corpus/$name")" ] &&
		pass "$name has seeds" || fail "$name has no seeds in tests/fuzz/corpus/$name"
	[ -f "$TOP/tests/fuzz/$name.dict" ] ||
		fail "$name has no dictionary tests/fuzz/$name.dict"
done
FUZZ_STATS=$TMP/stats.md "$TOP/tests/fuzz/run.sh" "$secs" "${targets[@]}" > "$TMP/run.out"
while read -r line; do
	name=$(awk -F'|' '{ gsub(/ /, "", $2); print $2 }' <<<"$line")
	execs=$(awk -F'|' '{ gsub(/ /, "", $4); print $4 }' <<<"$line")
	case $line in
	*"| ok |") [ "${execs:-0}" -gt 0 ] 2>/dev/null && pass "$name: $execs executions in $secs s, no finding" ||
			fail "$name: no executions";;
	"| fuzz_"*) fail "$name: $line"; grep -A5 -F "| $name |" "$TMP/run.out" | tail -n +2 | head -n 5;;
	esac
done < "$TMP/stats.md"
[ "$(grep -c '^| fuzz_' "$TMP/stats.md")" = "${#targets[@]}" ] && pass "every target ran" || fail "not every target ran"
finish
