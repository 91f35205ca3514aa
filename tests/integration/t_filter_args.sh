#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Filter arguments on the server command line and merge files a client
# names, differential against rsync --daemon (tests/transfer_lib.sh):
# -M--filter=RULE (and "merge FILE" / ". FILE" there), -M--exclude,
# -M--include, -M--exclude-from, -M--include-from and -M-F, which rsyncd
# adds to its list ahead of the client's; a merge file that is missing,
# hidden by the module's filters, a directory, outside the module, a
# symlink out of it, nested, or with a dir-merge rule in it; the
# rejection of a hidden or empty --exclude-from; "merge" rules sent in
# the filter list itself (tests/tools/wirefilter.py: no stock client
# sends one).  Then prsyncd alone: what it deliberately does not copy
# (a hidden file read through a symlink), and the bounds.
# Rules are written with '_' for the blank after the keyword
# ("merge_rules"): pull_both splits its options on blanks.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/transfer_lib.sh"

T=$TMP/fa
mkdir -p "$T/sub/deep" "$T/secret" "$T/adir" "$T/pd"
for f in a.txt b.bin c.log sub/c.txt sub/d.bin sub/deep/e.txt secret/s.txt pd/p.txt pd/p.bin; do
	echo "$f" > "$T/$f"
done
printf -- '- *.bin\n' > "$T/rules"
printf -- '- *.bin\r\n\r\n- *.log\r\n' > "$T/rules.crlf"
printf -- '- *.txt\n' > "$T/secret/rules"
printf -- '- a.txt\n' > "$T/x.key"
printf -- '*.bin\n# comment\n; comment\n\n- *.log\n+ c.txt\n' > "$T/ex.list"
printf -- 'a.txt\n*/\n' > "$T/in.list"
printf 'merge rules\n- c.log\n' > "$T/nest1"
printf 'merge secret/rules\n- c.log\n' > "$T/nest2"
printf -- '- c.log\n\nmerge missing\n' > "$T/nest3"
printf 'merge nest3\n' > "$T/nest4"
printf 'merge self\n' > "$T/self"
printf -- '- c.log\nbogus rule\n' > "$T/badrule"
printf 'merge badrule\n' > "$T/nest5"
printf 'dir-merge .pf\n' > "$T/dmrules"
printf -- '- p.bin\n' > "$T/pd/.pf"
printf -- '- *.txt\n' > "$T/.rsync-filter"
printf -- '- d.bin\n' > "$T/sub/.rsync-filter"
printf -- '- *.txt\n' > "$TMP/outside.rules"
ln -s rules "$T/linkin"
ln -s "$TMP/outside.rules" "$T/linkout"
ln -s ../outside.rules "$T/linkout2"
ln -s secret/rules "$T/linkhidden"
find "$T" -exec touch -h -d @1500000000 {} +

CONF=$TMP/fa.conf
n=0
pb() { n=$((n + 1)); pull_both "fa$n" "$@"; }
# both exit 12 with the client's "connection unexpectedly closed (0 bytes
# received so far)": the server ended before it sent anything
fatal() { EXPECT_RC=12 pb "$@"; }
wire() { # wire NAME RULE...: the messages of a "merge" sent in the filter list
	local name=$1 r p; shift
	r=$(python3 "$TOP/tests/tools/wirefilter.py" "$R_PORT" mod "$@" 2>&1)
	p=$(python3 "$TOP/tests/tools/wirefilter.py" "$P_PORT" mod "$@" 2>&1)
	if [ "$r" = "$p" ]; then
		pass "wire $name: $(tr '\n' ' ' <<<"$p" | cut -c1-150)"
	else
		fail "wire $name: rsyncd: $(tr '\n' ' ' <<<"$r") / prsyncd: $(tr '\n' ' ' <<<"$p")"
	fi
}
# refused NAME TEXT OPTS: rsyncd's text; rsyncd's client then reads a
# reset (exit 10), prsyncd ends cleanly with code 4 (docs/configuration.md)
refused() {
	local name=$1 t=$2 rr=0 pr=0 ro po; shift 2
	# shellcheck disable=SC2086
	ro=$(rsync_client -a "$@" "rsync://127.0.0.1:$R_PORT/mod/" "$TMP/rj_r" 2>&1) || rr=$?
	# shellcheck disable=SC2086
	po=$(rsync_client -a "$@" "rsync://127.0.0.1:$P_PORT/mod/" "$TMP/rj_p" 2>&1) || pr=$?
	rm -rf "$TMP/rj_r" "$TMP/rj_p"
	if grep -qxF -- "$t" <<<"$ro" && grep -qxF -- "$t" <<<"$po" && [ "$pr" = 4 ] && ! grep -q 'reset by peer' <<<"$po"; then
		pass "$name: '$t' (rsyncd exit $rr, prsyncd exit 4 without a reset)"
	else
		fail "$name: rsyncd=$rr prsyncd=$pr: $(tr '\n' ' ' <<<"$po")"
	fi
}

# --- no module filters --------------------------------------------------------
write_mod_conf "$CONF" "$T"
start_both "$CONF" || { finish; exit; }
pb "-a -i -M--filter=merge_rules" mod/
pb "-a -i -M--filter=._rules" mod/
pb "-a -i -M--filter=merge_rules.crlf" mod/
pb "-a -i -M--filter=-_*.log" mod/
pb "-a -i -M--exclude=*.bin" mod/
pb "-a -i -M--include=a.txt -M--exclude=*.txt" mod/
# command-line rules come before the client's own list
pb "-a -i -M--filter=-_a.txt --include=a.txt" mod/
# (the client then rejects the a.txt it excluded itself: exit 4 on both)
EXPECT_RC=4 pb "-a -i --exclude=a.txt -M--include=a.txt" mod/
pb "-a -i -M--exclude-from=ex.list" mod/
pb "-a -i -M--include-from=in.list -M--exclude=*" mod/
pb "-a -i -M--exclude-from=" mod/
pb "-a -i -M-F" mod/
pb "-a -i -M-FF" mod/
pb "-a -i -M-F" mod/sub/
pb "-a -i -M--filter=merge_nest1" mod/
pb "-a -i -M--filter=merge_dmrules" mod/
pb "-a -i -M--filter=merge_linkin" mod/
pb "-a -i -M--filter=merge_adir" mod/
pb "-a -i -M--filter=merge_/sub/../rules" mod/
fatal "-a -i -M--filter=merge_missing" mod/
fatal "-a -i -M--exclude-from=missing" mod/
fatal "-a -i -M--include-from=adir/none" mod/
fatal "-a -i -M--filter=merge_../outside.rules" mod/
fatal "-a -i -M--filter=merge_$TMP/outside.rules" mod/
fatal "-a -i -M--exclude-from=../outside.rules" mod/
fatal "-a -i -M--filter=merge_linkout" mod/
fatal "-a -i -M--filter=merge_linkout2" mod/
fatal "-a -i -M--filter=merge_nest4" mod/
fatal "-a -i -M--filter=merge_self" mod/
fatal "-a -i -M--filter=merge_nest5" mod/
# the file is read when its option is: before a later bad option counts
fatal "-a -i -M--filter=merge_missing -M--bogus" mod/
refused "bad option before the merge" "rsync: on remote machine: --bogus: unknown option" -M--bogus -M--filter=merge_missing
wire missing "merge missing"
wire present "merge rules"
wire directory "merge adir"
wire outside "merge ../outside.rules"
wire link-out "merge linkout"
wire nested-missing "merge nest1" "merge nest4"
wire nested-syntax "merge nest5"
wire syntax "merge badrule"
wire depth "merge self"
wire words "merge,w badrule"
stop_both

# --- module filters ----------------------------------------------------------------
write_mod_conf "$CONF" "$T"
printf '\tfilter = - /secret/***\n\texclude = *.key\n' >> "$CONF"
start_both "$CONF" || { finish; exit; }
# hidden by the module: skipped without a word, the transfer goes on
pb "-a -i -M--filter=merge_secret/rules" mod/
pb "-a -i -M--filter=merge_/secret/rules" mod/
pb "-a -i -M--filter=merge_x.key" mod/
pb "-a -i -M--filter=merge_nest2" mod/
pb "-a -i -M--filter=merge_rules" mod/
pb "-a -i -M--exclude-from=ex.list" mod/
fatal "-a -i -M--filter=merge_missing" mod/
fatal "-a -i -M--filter=merge_secret/../missing" mod/
rej="rsync: Your options have been rejected by the server."
refused "hidden exclude-from" "$rej" -M--exclude-from=secret/rules
refused "hidden include-from" "$rej" -M--include-from=x.key
refused "empty exclude-from" "$rej" -M--exclude-from=
wire hidden "merge secret/rules"
wire hidden-nested "merge nest2"
wire missing-filtered "merge missing"
stop_both

# --- prsyncd alone -----------------------------------------------------------------
pf() { # pf NAME ARGS...: a pull from prsyncd; exit code in $rc, output in $TMP/NAME.out
	local name=$1; shift
	rm -rf "$TMP/$name"
	rc=0
	rsync_client -a "$@" "rsync://127.0.0.1:$P_PORT/mod/" "$TMP/$name" >"$TMP/$name.out" 2>&1 || rc=$?
}
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' > "$T/big"
printf '#\n' > "$T/empty"
python3 -c 'import sys; sys.stdout.write("merge empty\n" * 16385)' > "$T/many"
python3 -c 'import sys; sys.stdout.write("merge /empty\n" * 257)' > "$T/sub/.many"
python3 -c 'import sys; sys.stdout.write("".join("- x%d\n" % i for i in range(100001)))' > "$T/rules100k"
write_mod_conf "$CONF" "$T"
printf '\tfilter = - /secret/***\n' >> "$CONF"
start_both "$CONF" || { finish; exit; }
# rsyncd judges the name it is given and then follows a symlink into what
# its filters hide (and applies what it read there); prsyncd never reads a
# hidden file: the link leads nowhere, as for a missing file
pf linkhidden -M--filter=merge_linkhidden
[ "$rc" = 12 ] && grep -q 'failed to open exclude file linkhidden: No such file or directory' "$P_LOG" &&
	pass "a symlink into a hidden directory reads nothing (exit $rc, logged)" ||
	fail "linkhidden: exit $rc $(head -3 "$TMP/linkhidden.out")"
pf big -M--filter=merge_big
[ "$rc" = 12 ] && grep -q 'merge file big: more than 1048576 bytes' "$P_LOG" &&
	pass "a merge file over 1 MiB ends the session (exit $rc, logged)" || fail "big: exit $rc"
start=$(date +%s)
pf many -M--filter=merge_many
[ "$rc" = 12 ] && grep -q 'too many merge files read (more than 16384)' "$P_LOG" &&
	pass "the client's rules read at most 16,384 merge files (exit $rc, $(($(date +%s) - start)) s)" || fail "many: exit $rc"
# a per-directory file may name 256 (each directory's its own budget)
pf layer --filter=:_.many
[ "$rc" = 11 ] && grep -q 'too many merge files read (more than 256)' "$TMP/layer.out" &&
	pass "a per-directory merge file reads at most 256 merge files (exit $rc)" || fail "layer: exit $rc $(head -3 "$TMP/layer.out")"
pf rules100k -M--filter=merge_rules100k
[ "$rc" = 12 ] && grep -q 'too many filter rules' "$P_LOG" &&
	pass "rules read from a merge file count against the 100,000 rules (exit $rc)" || fail "rules100k: exit $rc"
pf logged -M--filter=merge_missing
grep -q 'rsync: \[sender\] failed to open exclude file missing: No such file or directory (2)' "$P_LOG" &&
	pass "a merge file that cannot be read is logged as rsyncd words it" || fail "no log line for merge_missing"
stop_both
finish
