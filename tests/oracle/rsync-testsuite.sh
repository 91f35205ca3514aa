#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Runs the daemon tests of rsync's own test suite (runtests.py, rsync
# 3.5.0 or later) with prsyncd as the daemon, over loopback TCP, and the
# same tests with the real rsync --daemon for comparison.  rsync's
# source is not part of prsyncd: bring a configured and built tree
# (./configure && make && make check-progs).  docs/rsync-testsuite.md.
#
#   tests/oracle/rsync-testsuite.sh [--daemon=prsyncd|rsyncd]
#       [--mode=all|peer] [--prsyncd=PATH] [--rsync=PATH] [--out=DIR]
#       RSYNC_TREE [runtests.py arguments: tests, -j N, ...]
#
# --mode=all (default): every daemon a test starts is prsyncd, every
# client the real rsync.  --mode=peer: only the "peer" daemon is
# (runtests.py --rsync-bin2); tests that start "the current build" as
# their daemon keep the real rsync.  --rsync: the real rsync (clients,
# rsyncd), default RSYNC_TREE/rsync.  Writes DIR/results.txt (one
# "RESULT name" line per test); fails on any sanitizer report in
# prsyncd's standard error (the default prsyncd is the ASan+UBSan build).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
daemon=prsyncd
mode=all
prsyncd=$TOP/build/test/prsyncd
rsync=
out=
while [ $# -gt 0 ]; do
	case $1 in
	--daemon=*) daemon=${1#*=} ;;
	--mode=*) mode=${1#*=} ;;
	--prsyncd=*) prsyncd=${1#*=} ;;
	--rsync=*) rsync=${1#*=} ;;
	--out=*) out=${1#*=} ;;
	-h | --help) sed -n '3,19p' "$0"; exit 0 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || { sed -n '3,19p' "$0"; exit 2; }
tree=$(cd "$1" && pwd) || exit 2
shift
case $daemon in prsyncd | rsyncd) ;; *) echo "--daemon: prsyncd or rsyncd" >&2; exit 2 ;; esac
case $mode in all | peer) ;; *) echo "--mode: all or peer" >&2; exit 2 ;; esac
for f in runtests.py rsync; do
	[ -e "$tree/$f" ] || { echo "$tree/$f: missing (configure, make, make check-progs)" >&2; exit 2; }
done
if [ "$daemon" = prsyncd ] && [ ! -x "$prsyncd" ]; then
	echo "$prsyncd: missing (make test-build, or --prsyncd=PATH)" >&2
	exit 2
fi
[ -n "$out" ] || out=$(mktemp -d "/tmp/rsync-testsuite-$daemon.XXXXXX")
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2

# -j 2 unless the caller says otherwise; daemon tests only unless tests
# are named (a named test that starts no daemon runs as it would alone).
jobs=0 named=0 prev=
for a in "$@"; do
	case $a in
	-j* | --parallel*) jobs=1 ;;
	-*) ;;
	*) case $prev in -j | --parallel | --timeout | --race-timeout | --protocol | --exclude | --log-level | --expect-*) ;; *) named=1 ;; esac ;;
	esac
	prev=$a
done
extra=()
[ "$jobs" = 1 ] || extra+=(-j 2)
[ "$named" = 1 ] || extra+=(--daemon-tests-only)

export PRSYNCD_ORACLE_RSYNC=${rsync:-$tree/rsync} PRSYNCD_ORACLE_PRSYNCD=$prsyncd
export PRSYNCD_ORACLE_DAEMON=$daemon scratchbase=$out
peer=$TOP/tests/oracle/rsync-peer.sh
client=$peer
[ "$mode" = peer ] && client=${rsync:-$tree/rsync}
cd "$tree" || exit 2
# stdin is /dev/null: the wrapper takes a pipe or socket there for a
# daemon spoken to over standard input.
python3 ./runtests.py --use-tcp --preserve-scratch --tooldir="$tree" \
	--rsync-bin="$client" --rsync-bin2="$peer" \
	"${extra[@]}" "$@" </dev/null | tee "$out/runtests.out"
rc=${PIPESTATUS[0]}
# A test that fails before its own cleanup can leave a detached daemon
# behind: end those this run started (their configuration is under $out).
for p in /proc/[0-9]*; do
	case $(cat "$p/comm" 2>/dev/null) in *rsync*) ;; *) continue ;; esac
	while IFS= read -r -d '' arg; do
		case $arg in "--config=$out/"*) ;; *) continue ;; esac
		echo "ending a daemon left running: ${p#/proc/} $(tr '\0' ' ' <"$p/cmdline")"
		kill "${p#/proc/}" 2>/dev/null
		break
	done <"$p/cmdline" 2>/dev/null
done
grep -E '^(PASS|FAIL|ERROR|SKIP|XFAIL)[[:space:]]' "$out/runtests.out" |
	awk '{ print $1, $2 }' | sort -k2 >"$out/results.txt"
echo "results: $out/results.txt ($(cut -d' ' -f1 "$out/results.txt" | sort | uniq -c | tr -s ' \n' ' '))"

san='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer'
rep=$(find "$out" -name prsyncd.stderr -exec grep -lE "$san" {} + 2>/dev/null)
if [ -n "$rep" ]; then
	echo "sanitizer reports in: $rep"
	exit 1
fi
exit "$rc"
