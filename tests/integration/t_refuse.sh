#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Requests prsyncd refuses: pushes to a read-only module, unknown options,
# filter rules prsyncd does not implement.  Compression, once refused
# here, is accepted now (t_compress.sh tests it).
# Exit codes and the client's message must match the oracle's.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$TMP/pub" && echo hello > "$TMP/pub/a.txt"
printf '[pub]\n\tpath = %s\n\tuid = root\n\tgid = root\n' "$TMP/pub" > "$TMP/p.conf"
cp "$TMP/p.conf" "$TMP/r.conf"
pp=$(free_port); rp=$(free_port)
start_prsyncd "$TMP/p.conf" "$pp" "$TMP/p.log" || fail "prsyncd did not start"
start_rsyncd "$TMP/r.conf" "$rp" || fail "rsyncd did not start"

same() { # same NAME EXPECT-TEXT ARGS...: same exit code, message present on both
	local name=$1 text=$2; shift 2
	local ro po rr=0 pr=0
	ro=$(rsync_client "$@" "rsync://127.0.0.1:$rp/pub/" "$TMP/r_$name" 2>&1) || rr=$?
	po=$(rsync_client "$@" "rsync://127.0.0.1:$pp/pub/" "$TMP/p_$name" 2>&1) || pr=$?
	if [ "$rr" = "$pr" ] && grep -qF -- "$text" <<<"$po" && grep -qF -- "$text" <<<"$ro"; then
		pass "$name: exit $pr, '$text'"
	else
		fail "$name: rsyncd=$rr prsyncd=$pr"; echo "$po" | sed 's/^/    /'
	fi
}
# compression is served, not refused
for args in "--protocol=27 -az" "--protocol=32 -az" "-a --compress-choice=zstd" "-a --zl=3"; do
	pr=0
	# shellcheck disable=SC2086
	out=$(rsync_client $args "rsync://127.0.0.1:$pp/pub/" "$TMP/p_z" 2>&1) || pr=$?
	[ "$pr" = 0 ] && cmp -s "$TMP/pub/a.txt" "$TMP/p_z/a.txt" && pass "accepted: $args" ||
		fail "compression $args: exit $pr $out"
	rm -rf "$TMP/p_z"
done
# A refused option: rsyncd's text; rsyncd's client then reads a reset
# (exit 10), prsyncd ends cleanly with rsyncd's own code for it (4).
rr=0; pr=0
ro=$(rsync_client -a -M--bogus "rsync://127.0.0.1:$rp/pub/" "$TMP/r_bogus" 2>&1) || rr=$?
po=$(rsync_client -a -M--bogus "rsync://127.0.0.1:$pp/pub/" "$TMP/p_bogus" 2>&1) || pr=$?
t="rsync: on remote machine: --bogus: unknown option"
[ "$pr" = 4 ] && grep -qxF -- "$t" <<<"$po" && grep -qxF -- "$t" <<<"$ro" && ! grep -q 'reset by peer' <<<"$po" &&
	pass "bogus: '$t', exit 4 without a reset (rsyncd: exit $rr)" || fail "bogus: rsyncd=$rr prsyncd=$pr $po"

# A push to a read-only module: refused, client exit 1 on both.
rr=0; pr=0
rsync_client -a "$TMP/pub/" "rsync://127.0.0.1:$rp/pub/" >/dev/null 2>&1 || rr=$?
out=$(rsync_client -a "$TMP/pub/" "rsync://127.0.0.1:$pp/pub/" 2>&1) || pr=$?
[ "$rr" = "$pr" ] && grep -q "module is read only" <<<"$out" && pass "push refused (exit $pr)" || fail "push: rsyncd=$rr prsyncd=$pr $out"

# Client filter rules are applied (t_filters.sh); the one kind prsyncd
# does not implement, dir-merge rules inside merge files, is refused
# rather than ignored.
mkdir -p "$TMP/pub/d" && printf ': .inner\n' > "$TMP/pub/.outer" && echo x > "$TMP/pub/d/.inner"
pr=0
out=$(rsync_client -a --filter=':_.outer' "rsync://127.0.0.1:$pp/pub/" "$TMP/p_ex" 2>&1) || pr=$?
[ "$pr" != 0 ] && grep -q "not supported" <<<"$out" && [ ! -e "$TMP/p_ex/a.txt" ] &&
	pass "nested dir-merge refused (exit $pr)" || fail "nested dir-merge: exit $pr $out"
pr=0
out=$(rsync_client -a --exclude='*.txt' "rsync://127.0.0.1:$pp/pub/" "$TMP/p_ex2" 2>&1) || pr=$?
[ "$pr" = 0 ] && [ ! -e "$TMP/p_ex2/a.txt" ] && [ -e "$TMP/p_ex2/.outer" ] &&
	pass "client filter applied" || fail "client filter: exit $pr $out"
grep -q 'killed' "$TMP/p.log" && fail "a worker was killed" || pass "no worker killed"
finish
