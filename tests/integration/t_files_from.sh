#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# --files-from naming a file in the module (--files-from=:FILE), pulled
# from a chrooted rsync 3.5.0 daemon and from prsyncd at protocols 27, 30
# and 32: trees (the root's attributes too where stock sends "."), exit
# codes and messages must agree.  The list is read as rsyncd reads it:
# comments, blank lines, CR, -0, no final newline, "./" and ".." names,
# through a link, absolute; a missing list or a directory fail as rsyncd
# fails.  Then prsyncd alone: a list the module's filters hide is never
# read, names the filters hide are not sent, and the list's bounds (64 MiB,
# names cut at 4095 bytes) are those of --files-from=-.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/transfer_lib.sh"

T=$TMP/ff
mkdir -p "$T/sub/deep" "$T/lists" "$T/hidden"
echo a > "$T/a"
echo b > "$T/b c"
echo d > "$T/sub/deep/d"
echo s > "$T/sub/s"
echo h > "$T/hidden/h"
printf 'a\n# comment\n; also a comment\n\nb c\r\nsub/deep/d\n./sub/s\nnosuch\n/a\n../a\nsub/\n' > "$T/lists/l1"
printf 'a\0sub/s\0\0#c\0;d\0sub/deep/d\0' > "$T/lists/l0"
printf 'a\r\n  sub/s\nsub/deep/d\r' > "$T/lists/crlf"
printf 'a\nsub/s' > "$T/lists/nofinal"
printf './a\nsub/deep\n' > "$T/lists/dot"
printf 'a\nhidden/h\nsub/s\n' > "$T/lists/tohidden"
printf 'a\n' > "$T/lists/secret.list"
{ head -c 5000 /dev/zero | tr '\0' x; printf '\na\n'; } > "$T/lists/longname"
ln -s lists/l1 "$T/llink"
find "$T" -exec touch -h -d @1500000000 {} +

write_mod_conf "$TMP/f.conf" "$T"
if start_both "$TMP/f.conf"; then
	for P in 27 30 32; do
		pp="--protocol=$P"
		EXPECT_RC=23 pull_both "p${P}_l1"      "$pp -a -i --files-from=:lists/l1" mod/
		EXPECT_RC=23 pull_both "p${P}_abs"     "$pp -a --files-from=:/lists/l1" mod/
		EXPECT_RC=23 pull_both "p${P}_link"    "$pp -a --files-from=:llink" mod/
		EXPECT_RC=23 pull_both "p${P}_up"      "$pp -a --files-from=:../lists/l1" mod/
		EXPECT_RC=23 pull_both "p${P}_r"       "$pp -ar -i --files-from=:lists/l1" mod/
		EXPECT_RC=23 pull_both "p${P}_norel"   "$pp -a --no-relative --files-from=:lists/l1" mod/
		EXPECT_RC=23 pull_both "p${P}_base"    "$pp -a --files-from=:lists/l1" mod/sub
		TC=--no-root-attrs pull_both "p${P}_0" "$pp -a -0 -i --files-from=:lists/l0" mod/
		TC=--no-root-attrs pull_both "p${P}_no0" "$pp -a --files-from=:lists/l0" mod/
		EXPECT_RC=23 TC=--no-root-attrs pull_both "p${P}_crlf" "$pp -a --files-from=:lists/crlf" mod/
		TC=--no-root-attrs pull_both "p${P}_nofinal" "$pp -a --files-from=:lists/nofinal" mod/
		pull_both "p${P}_dot"     "$pp -a -i --files-from=:lists/dot" mod/
		EXPECT_RC=23 TC=--no-root-attrs pull_both "p${P}_long" "$pp -a --files-from=:lists/longname" mod/
		EXPECT_RC=10 pull_both "p${P}_missing" "$pp -a --files-from=:lists/nosuch" mod/
		EXPECT_RC=12 pull_both "p${P}_dir"     "$pp -a --files-from=:lists" mod/
	done
	EXPECT_RC=23 PB_INC=1 pull_both "p32_r_inc" "--protocol=32 -ar -i --files-from=:lists/l1" mod/
	EXPECT_RC=23 pull_both "p32_L" "--protocol=32 -aL -i --files-from=:lists/l1" mod/
	if grep -Eq 'Sanitizer|runtime error' "$P_LOG.stderr" 2>/dev/null; then
		fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$P_LOG.stderr")"
	else
		pass "no sanitizer report"
	fi
	stop_both
fi

# --- prsyncd alone: module filters, bounds -------------------------------------
cat > "$TMP/h.conf" <<CONF
[mod]
	path = $T
	uid = root
	gid = root
	exclude = /hidden/ /lists/secret.list
CONF
head -c $((64 * 1024 * 1024 + 10)) /dev/zero | tr '\0' '\n' > "$T/lists/huge"
port=$(free_port)
if start_prsyncd "$TMP/h.conf" "$port" "$TMP/h.log"; then
	pf() { # pf NAME OPTS: pull into $TMP/h_NAME, output in $TMP/h_NAME.out
		rm -rf "$TMP/h_$1"
		mkdir "$TMP/h_$1"
		# shellcheck disable=SC2086
		rsync_client -a $2 "rsync://127.0.0.1:$port/mod/" "$TMP/h_$1/" >"$TMP/h_$1.out" 2>&1
	}
	pf hidden "--files-from=:lists/secret.list"; rc=$?
	[ "$rc" = 10 ] && grep -q 'failed to open files-from file lists/secret.list: No such file or directory' "$TMP/h_hidden.out" &&
		[ -z "$(ls -A "$TMP/h_hidden")" ] && pass "a hidden list is not read: it looks absent (rc=$rc)" ||
		fail "hidden list: rc=$rc $(head -3 "$TMP/h_hidden.out")"
	pf names "--files-from=:lists/tohidden"; rc=$?
	[ "$rc" = 23 ] && [ -f "$TMP/h_names/a" ] && [ -f "$TMP/h_names/sub/s" ] && [ ! -e "$TMP/h_names/hidden" ] &&
		pass "hidden names in a list are not sent (rc=$rc)" || fail "hidden names: rc=$rc $(head -3 "$TMP/h_names.out")"
	pf huge "--files-from=:lists/huge"; rc=$?
	[ "$rc" != 0 ] && grep -q 'files-from list too long' "$TMP/h_huge.out" &&
		pass "a list over 64 MiB is refused, as on the socket (rc=$rc)" || fail "huge list: rc=$rc $(head -3 "$TMP/h_huge.out")"
	grep -Eq 'Sanitizer|runtime error' "$TMP/h.log.stderr" 2>/dev/null &&
		fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/h.log.stderr")" || pass "no sanitizer report (filters, bounds)"
	stop_pid "$PRSYNCD_PID"
else
	fail "prsyncd did not start"
fi
finish
