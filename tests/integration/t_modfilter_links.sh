#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Module filters and symlinks inside the module, with the stock client.
# Links whose targets the filters do not hide are served as rsyncd serves
# them (differential: mod/alias/file where alias -> pub, chains, links as
# links with -a).  Links into hidden places are where prsyncd promises
# more than rsyncd: rsyncd serves mod/palias/s.txt where palias -> private
# and "- /private/" hides private; prsyncd answers as for an absent name.
# (The monitor-level attacks on the same ground are in t_hostile_fs.sh.)
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/transfer_lib.sh"

T=$TMP/tree
mkdir -p "$T/pub/sub" "$T/private/inner"
echo file > "$T/pub/file"
echo n > "$T/pub/sub/n"
echo key > "$T/pub/sub/x.key"
echo secret > "$T/private/s.txt"
echo inner > "$T/private/inner/i"
ln -s pub "$T/alias"
ln -s alias "$T/chain"
ln -s pub/file "$T/flink"
ln -s private "$T/palias"
ln -s palias "$T/pchain"
ln -s ../private "$T/pub/up"
ln -s pub/sub/x.key "$T/klink"
ln -s pub/sub "$T/sublink"
ln -s private/s.txt "$T/slink"
# attributes marked on what the filters hide, a plain one on what they do not
XA=0
if command -v setfattr >/dev/null && setfattr -n user.mark -v LEAKED "$T/private/s.txt" 2>/dev/null; then
	XA=1
	for f in private private/inner private/inner/i pub/sub/x.key; do setfattr -n user.mark -v LEAKED "$T/$f"; done
	setfattr -n user.ok -v fine "$T/pub/file"
	setfattr -n user.ok -v fine "$T/pub"
	setfattr -n user.ok -v fine "$T/pub/sub"
fi
find "$T" -exec touch -h -d @1500000000 {} +

CONF=$TMP/l.conf
write_mod_conf "$CONF" "$T"
printf '\tfilter = - /private/\n\texclude = *.key\n' >> "$CONF"
start_both "$CONF" || { finish; exit; }

# --- served as rsyncd serves them ------------------------------------------
pull_both l1 "-a -i" mod/alias/file
pull_both l2 "-a -i" mod/alias/sub/n
pull_both l3 "-a -i" mod/chain/sub/n
pull_both l4 "-a -i" mod/alias           # the link itself
pull_both l5 "-a -i" mod/flink
pull_both l6 "-a -i" mod/                # links sent as links, hidden names left out
pull_both l7 "-a -i" "mod/alias/file|mod/flink|mod/chain/file"
EXPECT_RC=any pull_both l9 "-a -i" mod/alias/sub/x.key # hidden by name through a link: both refuse
# A directory argument through a link (trailing slash): both list pub.
pull_both l10 "-a -i" mod/alias/
# Links followed with -L, -k and --copy-unsafe-links where the filters do
# not hide the target: as rsyncd.
pull_both l11 "-aL -i" mod/alias/sub/
pull_both l12 "-ak -i" mod/chain/sub
pull_both l13 "-aL -i" mod/flink

# --- where prsyncd hides more than rsyncd ------------------------------------
# hidden_pull NAME SRC: prsyncd answers "No such file or directory" and
# sends nothing; what rsyncd does is printed, not required.
hidden_pull() { # hidden_pull NAME SRC [OPTS]
	local name=$1 src=$2 rd=$TMP/hr_$1 pd=$TMP/hp_$1 rc_r rc_p opts=${3:-}
	mkdir -p "$rd" "$pd"
	# shellcheck disable=SC2086
	rsync_client -a $opts "rsync://127.0.0.1:$R_PORT/$src" "$rd/" > "$TMP/$name.r" 2>&1; rc_r=$?
	# shellcheck disable=SC2086
	rsync_client -a $opts "rsync://127.0.0.1:$P_PORT/$src" "$pd/" > "$TMP/$name.p" 2>&1; rc_p=$?
	if [ "$rc_p" = 23 ] && grep -q 'No such file or directory (2)' "$TMP/$name.p" && [ -z "$(ls -A "$pd")" ]; then
		pass "$name: $src hidden through a link (prsyncd exit 23, nothing sent; rsyncd exit $rc_r," \
			"$(find "$rd" -type f | wc -l) file(s))"
	else
		fail "$name: $src: prsyncd exit $rc_p, sent: $(cd "$pd" && find . -mindepth 1 | tr '\n' ' ')"
		head -3 "$TMP/$name.p" | sed 's/^/    /'
	fi
	grep -rq 'secret\|inner\|key' "$pd" 2>/dev/null && fail "$name: hidden data reached the client"
}
hidden_pull h1 mod/palias/s.txt
hidden_pull h2 mod/pchain/inner/i
hidden_pull h3 mod/pub/up/s.txt
hidden_pull h4 mod/alias/up/inner/i
hidden_pull h5 mod/palias/inner/
# Followed links never deliver a hidden target: -L, -k and
# --copy-unsafe-links on links into hidden places, as arguments and
# inside a listing (where rsyncd sends the hidden data).
hidden_pull h6 mod/slink -L
hidden_pull h7 mod/palias -L
# -k on a link into a hidden directory: the link is sent as a link, as a
# dangling one would be (rsyncd sends the directory)
rm -rf "$TMP/k8"; mkdir "$TMP/k8"
rsync_client -ak "rsync://127.0.0.1:$P_PORT/mod/pchain" "$TMP/k8/" >/dev/null 2>&1
[ -L "$TMP/k8/pchain" ] && [ "$(readlink "$TMP/k8/pchain")" = palias ] && pass "h8: -k mod/pchain: sent as a link" ||
	fail "h8: -k mod/pchain: $(cd "$TMP/k8" && find . -mindepth 1 | tr '\n' ' ')"
hidden_pull h9 mod/pub/up -L
hidden_pull h10 mod/klink -L
followed_pull() { # followed_pull NAME OPTS: a whole-module pull; no hidden data
	local name=$1 rd=$TMP/fr_$1 pd=$TMP/fp_$1 rc_p
	mkdir -p "$rd" "$pd"
	# shellcheck disable=SC2086
	rsync_client $2 "rsync://127.0.0.1:$R_PORT/mod/" "$rd/" > "$TMP/$name.r" 2>&1
	# shellcheck disable=SC2086
	rsync_client $2 "rsync://127.0.0.1:$P_PORT/mod/" "$pd/" > "$TMP/$name.p" 2>&1; rc_p=$?
	if grep -rq 'secret\|inner\|key' "$pd" 2>/dev/null; then
		fail "$name: $2 mod/: hidden data reached the client: $(grep -rl 'secret\|inner\|key' "$pd" | head -3)"
	else
		pass "$name: $2 mod/: no hidden data (prsyncd exit $rc_p; rsyncd sent" \
			"$(grep -rl 'secret\|inner\|key' "$rd" 2>/dev/null | wc -l) hidden file(s))"
	fi
}
followed_pull f1 -aL
followed_pull f2 -ak
followed_pull f3 "-a --copy-unsafe-links"
followed_pull f4 "-aL --protocol=30"
# -A/-X through followed links: visible targets' attributes as rsyncd
# sends them, hidden ones' never (read by the monitor after the filters)
if [ "$XA" = 1 ]; then
	TC=--xattrs pull_both x1 "-aLX -i" mod/alias/sub/
	TC=--xattrs pull_both x1b "-aAX -i" mod/alias/
	TC=--xattrs pull_both x2 "-akAX -i" mod/sublink/
	TC=--xattrs pull_both x2b "-aAX -i" mod/sublink/
	TC=--xattrs PB_INC=1 pull_both x2c "-aAX -i" mod/sublink/
	TC=--xattrs pull_both x3 "-aLAX -i" mod/flink
	for o in "-aLX" "-akAX" "-a --copy-unsafe-links -X" "-aLXX --protocol=30"; do
		d=$TMP/xa_$(tr -c 'a-zA-Z0-9' _ <<<"$o")
		mkdir -p "$d"
		# shellcheck disable=SC2086
		rsync_client $o "rsync://127.0.0.1:$P_PORT/mod/" "$d/" > "$d.out" 2>&1
		if getfattr -R -d -m - "$d" 2>/dev/null | grep -q LEAKED; then
			fail "xattrs $o mod/: a hidden file's attribute reached the client"
		elif ! getfattr -n user.ok "$d/alias/file" >/dev/null 2>&1 && [ "$o" != "-a --copy-unsafe-links -X" ]; then
			fail "xattrs $o mod/: alias/file came without its attribute"
		else
			pass "xattrs $o mod/: no hidden attribute sent"
		fi
	done
else
	echo "SKIP: -X through links (no setfattr, or no user xattrs under $TMP)"
fi
grep -Eq 'Sanitizer|runtime error' "$P_LOG.stderr" 2>/dev/null &&
	fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$P_LOG.stderr")" || pass "no sanitizer report"
stop_both
finish
