#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Filters, differential against rsync --daemon (tests/transfer_lib.sh):
# the client's rules (each kind and modifier, wildcards, -C, -F/-FF,
# dir-merge files with modifiers), module filters in rsyncd.conf alone
# and combined with client rules, --delete / --delete-excluded with
# excluded and protected files at the destination, -R, and protocols
# 27-32 for a subset.  Rules are written with '_' instead of the space
# after the prefix ("-_*.o"): pull_both splits its options on blanks.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/transfer_lib.sh"

T=$TMP/ft
mk() { mkdir -p "$(dirname "$T/$1")"; printf '%s\n' "${2:-$1}" > "$T/$1"; }
for f in a.txt b.bin c.log core x.o y~ keep.c skip.c '#tmp' Zq 9n "sp ace" 'x[1]' 'st*r' \
	logs/c.log logs/2024/a.log logs/2024/b.txt \
	sub/x.o sub/y.c sub/t.tmp sub/deep/y.c sub/deep/z.bin sub/deep/t2.tmp sub/deep/.git/cfg \
	sub/deep/deeper/k.tmp sub/deep/deeper/ign2 sub/ign1 sub/keep.tmp \
	dir1/foo dir1/bar/foo dir2/q wide/a/b/c/d.txt secret/s.txt secret/inner/s2 \
	pub/hidden.key pub/ok.txt pub/sub/n.key .git/HEAD CVS/Entries; do mk "$f"; done
ln -s a.txt "$T/link_a"
# merge files
printf -- '- *.tmp\n' > "$T/.rsync-filter"
printf -- '+ keep.tmp\n- /y.c\n' > "$T/sub/.rsync-filter"
printf -- '!\n- z.bin\n' > "$T/sub/deep/.rsync-filter"
printf 'ign1\n' > "$T/sub/.cvsignore"
printf 'ign2 *.c\n' > "$T/sub/deep/.cvsignore"
printf 'k.tmp\n' > "$T/sub/deep/deeper/.cvsignore"
printf -- '- *.log\n# comment\n; comment\n\n+ *.txt\n' > "$T/.mf"
printf -- 'b.bin a.txt\n' > "$T/.wf"
printf -- 'y.c\n' > "$T/sub/.bare"
printf -- '- /x.o\n' > "$T/sub/.anch"
mkdir -p "$T/emptyd"
find "$T" -exec touch -h -d @1500000000 {} +

# A destination with excluded, protected and stale files.
SEED=$TMP/seed
mkdir -p "$SEED/sub/deep" "$SEED/logs"
for f in stale b.bin sub/x.o sub/deep/z.bin logs/old.log keep.p sub/keep.p; do echo seed > "$SEED/$f"; done

CONF=$TMP/f.conf
write_mod_conf "$CONF" "$T"
start_both "$CONF" || { finish; exit; }

n=0
pb() { n=$((n + 1)); pull_both "f$n" "$@"; }

# --- rule kinds, modifiers, wildcards ------------------------------------
for opts in \
	"--exclude=*.bin" "--exclude=/logs/*.log" "--exclude=logs/**/*.log" "--exclude=**/*.log" \
	"--exclude=logs/***" "--include=*/ --include=*.log --exclude=*" "--filter=-!_*.c" \
	"--exclude=sub/" "--exclude=/dir1/bar/" "--exclude=bar/foo" "--exclude=dir1/*/foo" \
	"--include=/dir1/ --exclude=/*" "--exclude=[a-c]*" "--exclude=[!a-c]*" "--exclude=[[:digit:]]*" \
	"--exclude=[[:upper:]]*" "--exclude=x\[1\]" "--exclude=st\*r" "--exclude=?" "--exclude=??" \
	"--exclude=*[[:space:]]*" "--exclude=deep/" "--exclude=**/deep/**" "--exclude=wide/**/d.txt" \
	"--filter=hide_*.o" "--filter=-s_*.o" "--filter=-r_*.o" "--filter=P_*.o" "--filter=exclude_*.log" \
	"--filter=include_*.log --filter=-_*" "--filter=+_*/ --filter=show_*.c --filter=H_*" \
	"--filter=-p_*.o" "--filter=-x_*.o" "--filter=-/_/sub/x.o" "--filter=-/_sub/deep" \
	"--exclude=*.o --filter=! --exclude=*.c" "--filter=clear --exclude=*.c" "--exclude=link_a" \
	"--exclude=emptyd/" "--exclude=*" "--exclude=.git/" "--exclude=[a" ; do
	pb "-a -i $opts" mod/
done
# arguments: excluded top-level names, dot-dirs, sub-directories
pb "-a -i --exclude=b.bin" "mod/b.bin|mod/a.txt"
pb "-a -i --exclude=sub" "mod/sub/"
pb "-a -i --exclude=sub" "mod/sub"
pb "-a -i --exclude=*.c" "mod/sub/deep/"
pb "-a -i --exclude=/y.c" "mod/sub/"
pb "-a -i --filter=-/_/sub/y.c" "mod/sub/"
pb "-a -i --exclude=deep/" "mod/sub"
pb "-dt -i --exclude=*.bin" mod/
# -C, -F, dir-merge
pb "-a -i -C" mod/
pb "-a -i -C" mod/sub/
pb "-a -i -C --include=core" mod/
pb "-a -i -F" mod/
pb "-a -i -FF" mod/
pb "-a -i -F" mod/sub/
pb "-a -i -F" mod/sub/deep/
pb "-a -i -F" mod/sub
pb "-a -i --filter=:_.rsync-filter" mod/
pb "-a -i --filter=:e_.rsync-filter" mod/
pb "-a -i --filter=:n_.rsync-filter" mod/
pb "-a -i --filter=:w-_.wf" mod/
pb "-a -i --filter=:-_.bare" mod/
pb "-a -i --filter=:+_.bare --exclude=*.c" mod/
pb "-a -i --filter=:C" mod/
pb "-a -i --filter=:_.anch" mod/
pb "-a -i --filter=dir-merge_.rsync-filter --exclude=*.c" mod/
pb "-a -i --filter=.e_$T/.mf" mod/
pb "-a -i --exclude-from=$T/.mf" mod/
# -R
pb "-aR -i --exclude=*.c" "mod/sub/deep"
# (An excluded implied directory is sent all the same, and the client
# rejects it: both abort with code 4, the message differs only in the
# leading '/' of -R names, which is not this test's business.)
pb "-aR -i -F" "mod/sub/deep"
pb "-aR -i --exclude=*.c" "mod/./sub/deep"
# --delete with excluded / protected files at the destination
pb "-a -i --delete --exclude=*.bin --exclude=*.p" mod/ "$SEED"
pb "-a -i --delete --delete-excluded --exclude=*.bin" mod/ "$SEED"
pb "-a -i --delete --filter=P_*.p --exclude=*.o" mod/ "$SEED"
pb "-a -i --delete-after --delete-excluded --filter=P_keep.p --exclude=*.log" mod/ "$SEED"
pb "-a -i --delete -F" mod/ "$SEED"
pb "-a -i --delete -C" mod/ "$SEED"
# protocols
for P in 27 28 29 30 31; do
	pb "--protocol=$P -a -i --exclude=*.bin --include=*/ --exclude=/logs/**" mod/
	[ "$P" -ge 29 ] && pb "--protocol=$P -a -i -F" mod/	# older clients cannot send ':'
	pb "--protocol=$P -a -i -C" mod/
	pb "--protocol=$P -a -i --delete --exclude=*.o" mod/ "$SEED"
done
PB_INC=1 pb "-a -i --exclude=*.bin" mod/
PB_INC=1 pb "-a -i -F" mod/
stop_both

# --- module filters ----------------------------------------------------------
printf -- '- *.key\n' > "$TMP/ex.list"
printf -- 'ok.txt\n' > "$TMP/in.list"
for directives in \
	"exclude = *.bin secret/" \
	"exclude = /secret /logs/2024" \
	"exclude = secret" \
	"filter = - *.key - /sub/deep/" \
	"filter = + ok.txt - pub/** -_*.o" \
	"include = ok.txt|exclude = pub/" \
	"exclude from = $TMP/ex.list" \
	"include from = $TMP/in.list|exclude = *.txt" \
	"filter = P *.bin|exclude = sub/deep/*.c" \
	"exclude = .rsync-filter" \
	"filter = R ok.txt - pub/" ; do
	write_mod_conf "$CONF" "$T"
	IFS='|' read -ra ds <<<"$directives"
	for d in "${ds[@]}"; do printf '\t%s\n' "$d" >> "$CONF"; done
	start_both "$CONF" || continue
	pb "-a -i" mod/
	pb "-a -i --exclude=*.c" mod/
	pb "-a -i -F" mod/
	pb "-a -i --delete" mod/ "$SEED"
	EXPECT_RC=any pb "-a -i" "mod/secret/"
	EXPECT_RC=any pb "-a -i" "mod/secret"
	EXPECT_RC=any pb "-a -i" "mod/secret/s.txt"
	EXPECT_RC=any pb "-a -i" "mod/pub/hidden.key|mod/pub/ok.txt"
	EXPECT_RC=any pb "-aR -i" "mod/secret/inner"
	EXPECT_RC=any pb "-aR -i" "mod/pub/sub/n.key"
	EXPECT_RC=any pb "-a -i" "mod/sub/deep/"
	stop_both
done

# Module filters with client filters at the older protocols.
write_mod_conf "$CONF" "$T"
printf '\texclude = *.bin secret/\n\tfilter = - /pub/sub/ + */ + *.txt + *.c - /logs/**\n' >> "$CONF"
if start_both "$CONF"; then
	for P in 27 28 29 30 31; do
		pb "--protocol=$P -a -i --exclude=*.c" mod/
		pb "--protocol=$P -a -i --delete -C" mod/ "$SEED"
		EXPECT_RC=any pb "--protocol=$P -a -i" "mod/secret/s.txt|mod/a.txt"
	done
	pb "-a -i -F" mod/sub/
	stop_both
fi

# A hide rule in the module's filters: rsyncd drops it (it reads module
# filters before it knows it is the sender) and serves the file; prsyncd
# applies every module rule as written and hides it.  Not differential.
write_mod_conf "$CONF" "$T"
printf '\tfilter = H *.bin S a.txt - a.*\n' >> "$CONF"
start_both "$CONF" && {
	out=$(rsync_client -r --list-only "rsync://127.0.0.1:$P_PORT/mod/" 2>&1)
	if ! grep -q 'b\.bin' <<<"$out" && grep -q ' a\.txt$' <<<"$out" && grep -q 'c\.log' <<<"$out"; then
		pass "module hide/show rules apply"
	else
		fail "module hide/show rules: $out"
	fi
	stop_both
}
finish
