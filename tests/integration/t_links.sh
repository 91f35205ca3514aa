#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Symlink-heavy mirror trees (in the style of rsync issues 1067 and 1087:
# absolute targets, links out of the module, chains, loops, links to
# directories, dangling links, a directory cycle), pulled from a chrooted
# rsync 3.5.0 daemon and from prsyncd with -a, -L, -k, --copy-unsafe-links,
# --safe-links and --munge-links at protocols 27, 30 and 32: trees, exit
# codes and messages must agree (tests/transfer_lib.sh).  Then what only
# prsyncd promises: nothing outside the module reaches a client whatever
# the module's "use chroot" says, "munge symlinks" and its refusal,
# --insecure-links refused.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/transfer_lib.sh"

W=$TMP/links
T=$W/tree
O=$W/outside
MARK="OUTSIDE-$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')"
mkdir -p "$T/pub/sub" "$T/d" "$T/releases/1.0/bin" "$T/releases/2.0/bin" "$O/od"
echo "$MARK secret" > "$O/secret"
echo "$MARK od" > "$O/od/f"
echo file > "$T/file"
echo n > "$T/pub/sub/n"
echo x > "$T/d/x"
echo tool1 > "$T/releases/1.0/bin/tool"
echo tool2 > "$T/releases/2.0/bin/tool"
(
	cd "$T" || exit 1
	ln -s file rel; ln -s rel chain; ln -s chain chain2          # chains
	ln -s pub dirlink; ln -s pub/sub/n deep                    # to a directory, deep
	ln -s loop loop; ln -s a b; ln -s b a                      # loops
	ln -s nosuch dangling
	ln -s /etc/hostname absfile; ln -s "$O/od" absdir          # absolute, outside
	ln -s "$T/file" abs_in_mod                                 # absolute, the module's host path
	ln -s /file rootabs; ln -s /pub rootabsdir                 # absolute, in the module as its root
	ln -s ../file rootup                                       # above the root, back in
	ln -s ../outside/secret escape; ln -s ../outside/od escdir # out of the module
	ln -s ../tree/file up_and_back
	ln -s pub/../file dotdot_in; ln -s d/../d dirdot           # ".." inside: unsafe for 3.5.0
	ln -s "$(printf 'x/%.0s' $(seq 150))end" longdangling      # targets beyond the inline size
	ln -s "$(printf './%.0s' $(seq 140))file" longok
	ln -s releases/2.0 current                                 # a mirror's "current"
	ln -s /releases/2.0 releases/latest
	ln -s ../releases/1.0 releases/old
	ln -s ../../../file releases/2.0/bin/up3
	cd pub && ln -s ../file upfile && ln -s ../../outside/secret escape2
) || { fail "building the tree"; finish; exit; }
# a directory cycle reachable one way only (rsync stops at 40 links deep)
C=$W/cycle
mkdir -p "$C/a"
echo x > "$C/a/x"
ln -s .. "$C/a/up"
find "$T" "$C" -exec touch -h -d @1500000000 {} +

# san_check FILE: no sanitizer report from a running daemon's sessions
san_check() {
	if grep -Eq 'Sanitizer|runtime error' "$1" 2>/dev/null; then
		fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$1")"
	else
		pass "no sanitizer report ($(basename "$1"))"
	fi
}

write_mod_conf "$TMP/t.conf" "$T"
if start_both "$TMP/t.conf"; then
	for P in 27 30 32; do
		pp="--protocol=$P"
		pull_both "p${P}_a"      "$pp -a -i" mod/
		EXPECT_RC=23 pull_both "p${P}_L" "$pp -aL -i" mod/
		pull_both "p${P}_k"      "$pp -ak -i" mod/
		EXPECT_RC=23 pull_both "p${P}_unsafe" "$pp -a --copy-unsafe-links -i" mod/
		EXPECT_RC=23 TC=--no-times pull_both "p${P}_r_unsafe" "$pp -r --copy-unsafe-links -i" mod/
		pull_both "p${P}_safe"   "$pp -a --safe-links -i" mod/
		pull_both "p${P}_munge"  "$pp -a --munge-links -i" mod/
		EXPECT_RC=23 pull_both "p${P}_L_safe" "$pp -aL --safe-links -i" mod/
		EXPECT_RC=23 pull_both "p${P}_unsafe_safe" "$pp -a --copy-unsafe-links --safe-links -i" mod/
		EXPECT_RC=23 pull_both "p${P}_kL" "$pp -akL -i" mod/
		EXPECT_RC=23 pull_both "p${P}_k_unsafe" "$pp -ak --copy-unsafe-links -i" mod/
	done
	# Source arguments: through links, naming links, with and without -R
	# (the unsafe test counts from the transfer's top; -R without "/./"
	# gives rsync's names a leading '/', one level more).
	for P in 30 32; do
		pp="--protocol=$P"
		n=0
		while IFS='|' read -r rc opts src; do
			n=$((n + 1))
			EXPECT_RC=$rc TC=--no-root-attrs pull_both "p${P}_arg$n" "$pp $opts" "$src"
		done <<-'ARGS'
		0|-a --copy-unsafe-links -R -i|mod/pub/
		23|-a --copy-unsafe-links -i|mod/pub/
		23|-a --copy-unsafe-links -i|mod/pub
		23|-a --copy-unsafe-links -R -i|mod/./pub
		23|-a --copy-unsafe-links -R -i|mod/
		23|-aL|mod/dangling
		23|-aL|mod/loop
		23|-aL|mod/escape
		0|-a --copy-unsafe-links|mod/rootup
		23|-a --copy-unsafe-links|mod/escape
		0|-ak -i|mod/dirlink
		0|-a -i|mod/dirlink/
		0|-ak|mod/absdir
		23|-a|mod/dangling/
		23|-aL|mod/absdir
		0|-a -i|mod/rootabsdir/sub/n
		0|-aL -i|mod/dirlink/sub
		0|-a -i|mod/dirlink
		0|-aL -i|mod/current/
		0|-aL -i|mod/releases/latest/bin/tool
		0|-aL -i|mod/longok
		23|-aL -i|mod/longdangling
		0|-a --copy-unsafe-links -i|mod/dotdot_in
		0|-aL -R -i|mod/./releases/old/bin
		ARGS
	done
	# Incremental recursion sends the followed directories' lists later.
	EXPECT_RC=23 PB_INC=1 pull_both "p32_L_inc" "--protocol=32 -aL -i" mod/
	PB_INC=1 pull_both "p32_k_inc" "--protocol=32 -ak -i" mod/
	EXPECT_RC=23 PB_INC=1 pull_both "p31_unsafe_inc" "--protocol=31 -a --copy-unsafe-links -i" mod/
	san_check "$P_LOG.stderr"
	stop_both
fi

# --- a directory cycle: 40 links deep, then opendir's ELOOP ------------------
write_mod_conf "$TMP/c.conf" "$C"
if start_both "$TMP/c.conf"; then
	EXPECT_RC=23 pull_both "cycle_L" "-aL" mod/
	EXPECT_RC=23 TC=--no-root-attrs pull_both "cycle_L_R" "-aL -R" mod/a/
	EXPECT_RC=23 pull_both "cycle_k_p30" "--protocol=30 -ak --copy-unsafe-links" mod/a/
	EXPECT_RC=23 PB_INC=1 pull_both "cycle_L_inc" "-aL" mod/
	san_check "$P_LOG.stderr"
	stop_both
fi

# --- munge symlinks: the prefix comes off on the way out ---------------------
M=$W/munged
mkdir -p "$M"
echo f > "$M/file"
ln -s /rsyncd-munged/file "$M/munged"
ln -s /rsyncd-munged/ "$M/bare"
ln -s /rsyncd-mungedX "$M/other"
touch -h -d @1500000000 "$M" "$M"/*
write_mod_conf "$TMP/m.conf" "$M"
printf '\tmunge symlinks = yes\n' >> "$TMP/m.conf"
if start_both "$TMP/m.conf"; then
	pull_both "munge_a" "-a -i" mod/
	EXPECT_RC=23 pull_both "munge_L" "-aL -i" mod/
	pull_both "munge_client" "-a --munge-links -i" mod/
	# with a /rsyncd-munged directory in the module, neither serves it
	mkdir "$M/rsyncd-munged"
	EXPECT_RC=5 pull_both "munge_dir" "-a" mod/
	rmdir "$M/rsyncd-munged"
	ln -s / "$M/rsyncd-munged" # a link to a directory counts as one
	EXPECT_RC=5 pull_both "munge_dirlink" "-a" mod/
	rm "$M/rsyncd-munged"
	# a client cannot relax the confinement: -M--insecure-links is refused by
	# both with the same line; rsyncd's client then reads a reset (exit 10),
	# prsyncd ends as for every refusal (exit 4, no reset: t_refuse_opts.sh)
	rr=0; pr=0
	ro=$(rsync_client -a -M--insecure-links "rsync://127.0.0.1:$R_PORT/mod/file" "$TMP/il_r" 2>&1) || rr=$?
	po=$(rsync_client -a -M--insecure-links "rsync://127.0.0.1:$P_PORT/mod/file" "$TMP/il_p" 2>&1) || pr=$?
	rl=$(grep -m1 'refuse --insecure-links' <<<"$ro"); pl=$(grep -m1 'refuse --insecure-links' <<<"$po")
	[ -n "$rl" ] && [ "$rl" = "$pl" ] && [ "$pr" = 4 ] && [ ! -e "$TMP/il_p" ] && ! grep -q 'reset by peer' <<<"$po" &&
		pass "insecure_links: refused by both: '$pl' (rsyncd exit $rr, prsyncd exit 4, no reset)" ||
		fail "insecure_links: rsyncd rc=$rr '$rl'; prsyncd rc=$pr '$po'"
	pull_both "no_insecure_links" "-a -M--no-insecure-links" mod/file
	san_check "$P_LOG.stderr"
	stop_both
fi
grep -q 'symlink munging is unsafe when a /rsyncd-munged directory exists' "$P_LOG" &&
	pass "munge refusal logged" || fail "munge refusal not logged"

# --- prsyncd alone: "use chroot = no" changes nothing it serves -------------
cat > "$TMP/nc.conf" <<CONF
[yes]
	path = $T
	use chroot = yes
	uid = root
	gid = root
[no]
	path = $T
	use chroot = no
	insecure links = yes
	uid = root
	gid = root
CONF
port=$(free_port)
if start_prsyncd "$TMP/nc.conf" "$port" "$TMP/nc.log"; then
	for o in -a -aL -ak "-a --copy-unsafe-links"; do
		for m in yes no; do
			rm -rf "$TMP/nc_$m"
			mkdir "$TMP/nc_$m"
			# shellcheck disable=SC2086
			rsync_client $o "rsync://127.0.0.1:$port/$m/" "$TMP/nc_$m/" >"$TMP/nc_$m.out" 2>&1
			echo "rc=$?" >>"$TMP/nc_$m.out"
		done
		if treecmp "$TMP/nc_yes" "$TMP/nc_no" >/dev/null 2>&1 &&
			diff <(sed 's/(in yes)/(in M)/' "$TMP/nc_yes.out" | sort) <(sed 's/(in no)/(in M)/' "$TMP/nc_no.out" | sort) >/dev/null; then
			pass "use chroot = no, insecure links = yes: $o serves what a chrooted module serves"
		else
			fail "use chroot = no: $o differs from the chrooted module"
		fi
		grep -rq "$MARK" "$TMP/nc_yes" "$TMP/nc_no" && fail "$o: data from outside the module reached a client" ||
			pass "$o: nothing from outside the module reached a client"
	done
	# logged, at most 10 times a session
	most=$(grep 'a link leads above the module root' "$TMP/nc.log" | sed -E 's/^[^[]*\[([0-9]+)\].*/\1/' |
		sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
	[ "${most:-0}" -ge 1 ] && [ "${most:-0}" -le 10 ] && pass "links above the root logged, at most 10 a session ($most)" ||
		fail "links above the root: ${most:-0} log lines in a session"
	san_check "$TMP/nc.log.stderr"
	stop_pid "$PRSYNCD_PID"
else
	fail "prsyncd did not start"
fi
grep -rq "$MARK" "$TMP"/p_* 2>/dev/null && fail "data from outside the module reached a prsyncd client" ||
	pass "no data from outside the module in any prsyncd destination"
finish
