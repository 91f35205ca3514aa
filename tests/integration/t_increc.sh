#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Incremental recursion (protocol >= 30, CF_INC_RECURSE; spec part 2
# section 6): differential pulls of a big tree (>= 50,000 entries in
# >= 2,000 directories, tests/tools/mkbigtree.py) and of a small tree with
# the edge cases of the list splitting, from rsync --daemon (oracle) and
# prsyncd, by the same stock client (tests/transfer_lib.sh), with
# inc-recursion offered (PB_INC=1) and refused (--no-inc-recursive).
#
# Proof that inc-recursion is really in use: the stock client's
# --debug=FLIST2 prints "[receiver] receiving flist for dir N" for the
# sub-lists it receives (rsync's recv_additional_file_list) and
# "recv_file_list done" after every list (see sublists() below).  For each
# configuration a separate "proof" pull counts the sub-lists on both sides:
# where rsyncd sends sub-lists, the P side must send as many (and more
# than none); where rsyncd sends none (inc-recursion not offered, protocol
# 29, -d, --delete-after, a single file), the P side must send none.
# A prsyncd without inc-recursion fails these "sub-lists" proofs, and also
# the -aH -i pulls of the edge cases ("stdout differs"): with sub-lists
# the client transfers a different member of a hard-link group and links
# the others (rsyncd with and without inc-recursion differs the same way).
#
# ORACLE_SELFTEST=1 replaces prsyncd with a second rsyncd: everything must
# pass.  INCREC_FILES / INCREC_DIRS scale the big tree (defaults 47000 /
# 2400: ~50,700 entries); INCREC_BIG_FULL=1 runs the whole on/off x
# protocol matrix on it (see the big-tree section; ~10 minutes);
# INCREC_PROOF_ALL=1 proves every edge case at every protocol.  No
# filters (--exclude etc.) are used here.  ~3 minutes (2 cores, sanitizer
# build, work directory on tmpfs).
. "$(dirname "$0")/../lib.sh"
# Hundreds of thousands of files are created and removed.  On a disk
# file system that is slow (ext4 without a journal skips recently deleted
# inodes one by one on every create), so as root the work directory is a
# tmpfs (INCREC_TMPFS=0: stay on disk).  Mounted before transfer_lib.sh
# puts anything in $TMP; unmounted on exit after lib.sh's cleanup steps.
INCREC_MOUNTED=0
if [ "${INCREC_TMPFS:-1}" = 1 ] && [ "$(id -u)" = 0 ] \
	&& mount -t tmpfs -o "size=${INCREC_TMPFS_SIZE:-6g},mode=0700" tmpfs "$TMP" 2>/dev/null; then
	INCREC_MOUNTED=1
	increc_cleanup() {
		local p
		for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
		for p in "${PIDS[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null; done
		umount "$TMP" 2>/dev/null || umount -l "$TMP" 2>/dev/null
		rm -rf "$TMP"
	}
	trap increc_cleanup EXIT
fi
. "$TOP/tests/transfer_lib.sh"
T0=$SECONDS
MKBIG="python3 $TOP/tests/tools/mkbigtree.py"
INCREC_FILES=${INCREC_FILES:-47000}	# ~50,700 entries in all
INCREC_DIRS=${INCREC_DIRS:-2400}

# sublists FILE: the number of sub-lists the client received, from its
# --debug=FLIST2 output (rsync 3.x flist.c): every list it reads ends with
# "recv_file_list done"; after the client's fork, the receiver reads each
# sub-list ("[receiver] receiving flist for dir N") and the generator reads
# it again ("[generator] receiving flist for dir N", another "done"); a
# sub-list read before the fork (the one that follows a one-entry first
# list, section 6.4) has no "receiving flist" line.  So: lists = "done"
# lines - generator lines; sub-lists = lists - 1 (the first list).
sublists() {
	local ndone ngen
	ndone=$(grep -c '^recv_file_list done' "$1")
	ngen=$(grep -c '^\[generator\] receiving flist for dir [0-9]' "$1")
	if [ $((ndone - ngen - 1)) -gt 0 ]; then echo $((ndone - ngen - 1)); else echo 0; fi
}
recvlines() { grep -c '^\[receiver\] receiving flist for dir [0-9]' "$1"; }

# inc_proof NAME "OPTS" SRC_SUFFIX on|eq|none [SEED_DIR]
#   The same pull as pull_both (PB_INC=1 semantics: inc-recursion is
#   offered unless OPTS says otherwise) plus --debug=FLIST2, from both
#   servers into fresh destinations; counts the sub-lists received.
#   on:   rsyncd must send sub-lists (harness), the P side as many.
#   eq:   the P side must send as many as rsyncd (whatever that is).
#   none: neither side may send any.
inc_proof() {
	local name=$1 opts=$2 suffix=$3 want=$4 seed=${5:-}
	local rd=$TMP/pr_$name pd=$TMP/pp_$name o=$OUTDIR/proof_$name
	local s x srcs_r=() srcs_p=() nr np
	IFS='|' read -ra s <<<"$suffix"
	for x in "${s[@]}"; do
		srcs_r+=("rsync://127.0.0.1:$R_PORT/$x")
		srcs_p+=("rsync://127.0.0.1:$P_PORT/$x")
	done
	rm -rf "$rd" "$pd"; mkdir -p "$rd" "$pd"
	if [ -n "$seed" ]; then
		cp -a "$seed/." "$rd/" && cp -a "$seed/." "$pd/"
	fi
	set -f
	# shellcheck disable=SC2086
	rsync_client $opts --debug=FLIST2 "${srcs_r[@]}" "$rd/" >"$o.r.out" 2>"$o.r.err" &
	local cr=$!
	# shellcheck disable=SC2086
	rsync_client $opts --debug=FLIST2 "${srcs_p[@]}" "$pd/" >"$o.p.out" 2>"$o.p.err" &
	local cp=$!
	set +f
	local rcr rcp
	wait $cr; rcr=$?
	wait $cp; rcp=$?
	nr=$(sublists "$o.r.out")
	np=$(sublists "$o.p.out")
	rm -rf "$rd" "$pd"
	local info lr lp
	lr=$(recvlines "$o.r.out"); lp=$(recvlines "$o.p.out")
	info="sub-lists rsyncd=$nr $P_LABEL=$np (rc $rcr/$rcp; [receiver] lines $lr/$lp)"
	if [ "$want" = eq ]; then
		if [ "$np" -eq "$nr" ]; then
			pass "proof $name: same sub-lists: $info"
		else
			fail "proof $name: sub-lists: $opts $suffix: $info"
		fi
	elif [ "$want" = on ]; then
		if [ "$nr" -eq 0 ]; then
			fail "proof $name: rsyncd sent no sub-lists (harness): $opts $suffix: $info"
		elif [ "$np" -eq "$nr" ]; then
			pass "proof $name: inc-recursion in use: $info"
		else
			fail "proof $name: sub-lists: $opts $suffix: $info"
		fi
	else
		if [ "$nr" -ne 0 ]; then
			fail "proof $name: rsyncd sent sub-lists where none were expected (harness): $info"
		elif [ "$np" -eq 0 ]; then
			pass "proof $name: no inc-recursion: $info"
		else
			fail "proof $name: $P_LABEL sent sub-lists where rsyncd sent none: $opts $suffix: $info"
		fi
	fi
}

# stat_line FILE "Number of regular files transferred": the number or "-"
stat_line() {
	local v
	v=$(sed -nE "s/^$2: ([0-9,]+).*/\\1/p" "$1" | tr -d ,)
	echo "${v:--}"
}

# --- trees and seeds --------------------------------------------------------
BIG=$TMP/big SMALL=$TMP/small
summary=$($MKBIG "$BIG" --files "$INCREC_FILES" --dirs "$INCREC_DIRS") \
	|| { fail "mkbigtree (big)"; finish; exit; }
echo "# big tree: $summary"
ent=$(sed -nE 's/.*entries=([0-9]+).*/\1/p' <<<"$summary")
nd=$(sed -nE 's/.*dirs=([0-9]+).*/\1/p' <<<"$summary")
if [ "$INCREC_FILES" -ge 47000 ] && [ "$INCREC_DIRS" -ge 2000 ]; then
	if [ "${ent:-0}" -ge 50000 ] && [ "${nd:-0}" -ge 2000 ]; then
		pass "big tree has $ent entries in $nd directories"
	else
		fail "big tree too small: $summary"
	fi
fi
$MKBIG "$SMALL" --files 1200 --dirs 120 >/dev/null || { fail "mkbigtree (small)"; finish; exit; }
# Seeds for the big tree: stale entries (--delete), an identical copy
# (nothing to transfer), an edited copy (delta).
B_STALE=$TMP/seed_big_stale B_SAME=$TMP/seed_big_same B_EDIT=$TMP/seed_big_edit
$MKBIG --stale "$BIG" "$B_STALE" >/dev/null || fail "mkbigtree --stale (big)"
cp -a "$BIG" "$B_SAME" || fail "cp -a big"
if ! { cp -a "$BIG" "$B_EDIT" && $MKBIG --edit "$B_EDIT" >/dev/null; }; then
	fail "mkbigtree --edit"
fi
S_STALE=$TMP/seed_small_stale S_CSUM=$TMP/seed_small_csum
$MKBIG --stale "$SMALL" "$S_STALE" >/dev/null || fail "mkbigtree --stale (small)"
# csum: a full copy where a few files differ in content only (same size,
# same mtime): only -c finds them.
cp -a "$SMALL" "$S_CSUM"
python3 - "$S_CSUM" <<'PY'
import os, sys
root = os.fsencode(sys.argv[1])
n = 0
for dp, dn, fn in sorted(os.walk(root)):
    for f in sorted(fn):
        p = os.path.join(dp, f)
        st = os.lstat(p)
        if os.path.isfile(p) and not os.path.islink(p) and st.st_nlink == 1 and st.st_size > 10 and st.st_mode & 0o200:
            data = bytearray(open(p, "rb").read())
            data[5] ^= 0xFF
            open(p, "wb").write(data)
            os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
            n += 1
            break
    if n >= 25:
        break
PY
# a client-side list for --files-from (a local file is sent to the server
# by the client exactly as --files-from=- is; stdin is tested separately)
printf '%s\n' a/b/c dir1 file hl/h1 hl/h1b emptydir/e2 links/rel > "$TMP/files-from"
echo "# trees and seeds ready at $((SECONDS - T0)) s"

# --- the small tree: edge cases of the list splitting, inc-recursion on -----
write_mod_conf "$TMP/small.conf" "$SMALL"
if start_both "$TMP/small.conf"; then
	# NAME "OPTS" SRC on|eq|none [SEED]: one differential pull, and a
	# proof pull at protocol 32 (at 30 and 31 only for the cases where
	# the list splitting itself differs: root, one-entry first lists, -R,
	# several args; INCREC_PROOF_ALL=1 for all)
	edge() {
		local name=$1 opts=$2 suffix=$3 want=$4 seed=${5:-}
		PB_INC=1 pull_both "$name" "$opts" "$suffix" "$seed"
		case $P,${name#p??_},${INCREC_PROOF_ALL:-0} in
		32,*|*,1|*,root,*|*,dir1,*|*,dir1slash,*|*,emptyone,*|*,R,*|*,R_multi,*|*,multi,*)
			inc_proof "$name" "$opts" "$suffix" "$want" "$seed" ;;
		esac
	}
	for P in 30 31 32; do
		pp="--protocol=$P"
		edge "p${P}_root"      "$pp -aH -i" mod/ on
		edge "p${P}_dotdir"    "$pp -a -i" mod on
		edge "p${P}_dir1"      "$pp -a -i" mod/dir1 on
		edge "p${P}_dir1slash" "$pp -a -i" mod/dir1/ on
		# an empty directory named without a slash: a one-entry first
		# list followed at once by its (empty) sub-list; with the slash
		# the first list is just "." and there is no sub-list at all
		edge "p${P}_emptyone"  "$pp -a -i" mod/emptydir/e1 on
		edge "p${P}_emptyslash" "$pp -a -i" mod/emptydir/e1/ eq
		edge "p${P}_file"      "$pp -a -i" mod/file none
		edge "p${P}_multi"     "$pp -aH -i" 'mod/a|mod/dir1/|mod/file|mod/emptydir' on
		edge "p${P}_R"         "$pp -a -R -i" mod/a/b/c on
		edge "p${P}_R_multi"   "$pp -aH -R -i" 'mod/a/b/c|mod/dir1/sub|mod/hl/h1' on
		edge "p${P}_deldur"    "$pp -aH --delete-during -i" mod/ on "$S_STALE"
		# --delete-after and --delete-before make the client refuse
		# inc-recursion (rsync's set_allow_inc_recurse)
		edge "p${P}_delafter"  "$pp -aH --delete-after -i" mod/ none "$S_STALE"
		edge "p${P}_deldelay"  "$pp -aH --delete-delay -i" mod/ on "$S_STALE"
		edge "p${P}_dryrun"    "$pp -aH -n -i" mod/ on
		edge "p${P}_dryrundel" "$pp -aH -n -i --delete" mod/ on "$S_STALE"
		edge "p${P}_c"         "$pp -aHc -i" mod/ on "$S_CSUM"
		# (the destination root is not among the transferred entries)
		TC=--no-root-attrs edge "p${P}_ff" "$pp -a --files-from=$TMP/files-from -i" mod/ none
		TC=--no-root-attrs edge "p${P}_ffr" "$pp -ar --files-from=$TMP/files-from -i" mod/ on
		edge "p${P}_x"         "$pp -aHx -i" mod/ on
		TC=--no-times edge "p${P}_d" "$pp -lptgoD -d -i" mod/ none
	done
	# --files-from=- proper: the list on the client's stdin (pull_both's
	# client reads /dev/null, so this pull is run here): exit codes, trees
	# and sub-lists must agree.
	for P in 30 32; do
		rd=$TMP/r_ffstdin$P pd=$TMP/p_ffstdin$P o=$OUTDIR/ffstdin$P
		rm -rf "$rd" "$pd"; mkdir -p "$rd" "$pd"
		ffpull() { # PORT DEST SIDE
			timeout 60 rsync --contimeout=10 --timeout=30 --protocol=$P -ar --debug=FLIST2 \
				--files-from=- "rsync://127.0.0.1:$1/mod/" "$2/" \
				<"$TMP/files-from" >"$o.$3.out" 2>"$o.$3.err"
		}
		ffpull "$R_PORT" "$rd" r & c_r=$!
		ffpull "$P_PORT" "$pd" p & c_p=$!
		wait "$c_r"; rc_r=$?; wait "$c_p"; rc_p=$?
		nr=$(sublists "$o.r.out") np=$(sublists "$o.p.out")
		why=()
		[ "$rc_r" = 0 ] || why+=("rsyncd exit $rc_r (harness)")
		[ "$rc_p" = 0 ] || why+=("$P_LABEL exit $rc_p")
		$TREECMP "$rd" "$pd" --no-root-attrs >"$o.tc" 2>&1 || why+=("trees differ")
		if [ ${#why[@]} -eq 0 ]; then
			pass "p${P}_ffstdin: -ar --files-from=- (rc=0)"
		else
			fail "p${P}_ffstdin: -ar --files-from=-: ${why[*]}"
			head -4 "$o.tc" | sed 's/^/    /'
		fi
		if [ "$nr" -eq 0 ]; then
			fail "proof p${P}_ffstdin: rsyncd sent no sub-lists (harness)"
		elif [ "$np" = "$nr" ]; then
			pass "proof p${P}_ffstdin: inc-recursion in use: sub-lists rsyncd=$nr $P_LABEL=$np"
		else
			fail "proof p${P}_ffstdin: sub-lists rsyncd=$nr $P_LABEL=$np"
		fi
		rm -rf "$rd" "$pd"
	done
	# inc-recursion refused by the client at the newest protocol, and a
	# protocol without it: no sub-lists from either side
	pull_both "p32_root_noinc" "--protocol=32 -aH -i" mod/
	inc_proof "p32_root_noinc" "--protocol=32 -aH -i --no-inc-recursive" mod/ none
	edge "p29_root" "--protocol=29 -aH -i" mod/ none
	stop_both
fi
echo "# small-tree edge cases done at $((SECONDS - T0)) s"

# --- the big tree ------------------------------------------------------------
# A full pull of the big tree costs ~20 s against the sanitizer build, so
# the default run is a subset that fits in ~3 minutes: -aH into an empty
# destination and -aH --delete into the stale seed with inc-recursion at
# protocol 32, -aH --delete at 30, the unchanged and the edited tree at 32
# (below), and dry-run proofs at 29, 30, 32.  INCREC_BIG_FULL=1 runs the
# whole matrix: -aH and -aH --delete, inc-recursion offered and refused, at
# 29 (where it cannot apply), 30, 31 and 32.
write_mod_conf "$TMP/big.conf" "$BIG"
if start_both "$TMP/big.conf"; then
	big_pull() { # NAME "OPTS" inc|noinc [SEED]
		if [ "$3" = inc ]; then PB_INC=1 pull_both "$1" "$2" mod/ "${4:-}"
		else pull_both "$1" "$2" mod/ "${4:-}"; fi
	}
	# the oracle's copy against the source (harness check) on the first
	PB_KEEP=1 big_pull big_p32_aH_inc "--protocol=32 -aH" inc
	[ -d "$TMP/r_big_p32_aH_inc" ] && oracle_check "big_p32_aH_inc" "$TMP/r_big_p32_aH_inc" "$BIG"
	rm -rf "$TMP/r_big_p32_aH_inc" "$TMP/p_big_p32_aH_inc"
	big_pull big_p32_del_inc "--protocol=32 -aH --delete" inc "$B_STALE"
	big_pull big_p30_del_inc "--protocol=30 -aH --delete" inc "$B_STALE"
	if [ "${INCREC_BIG_FULL:-0}" = 1 ]; then
		for P in 29 30 31 32; do
			for m in inc noinc; do
				sfx=_$m; [ $m = noinc ] && sfx=
				[ "$P$m" = 32inc ] || big_pull "big_p${P}_aH$sfx" "--protocol=$P -aH" $m
				[ "$P$m" = 32inc ] || [ "$P$m" = 30inc ] \
					|| big_pull "big_p${P}_del$sfx" "--protocol=$P -aH --delete" $m "$B_STALE"
			done
		done
	fi
	# the proofs: dry runs (the lists are the same; nothing is written)
	inc_proof "big_p32_inc" "--protocol=32 -aH -n" mod/ on
	inc_proof "big_p30_inc" "--protocol=30 -aH -n" mod/ on
	inc_proof "big_p32_noinc" "--protocol=32 -aH -n --no-inc-recursive" mod/ none
	inc_proof "big_p29_inc" "--protocol=29 -aH -n" mod/ none
	if [ "${INCREC_BIG_FULL:-0}" = 1 ]; then
		inc_proof "big_p31_inc" "--protocol=31 -aH -n" mod/ on
		inc_proof "big_p32_del_inc" "--protocol=32 -aH --delete -n" mod/ on
		inc_proof "big_p30_noinc" "--protocol=30 -aH -n --no-inc-recursive" mod/ none
	fi
	echo "# big tree full pulls done at $((SECONDS - T0)) s"
	# A second pull of an unchanged tree: nothing to transfer.
	same() { # NAME P inc|noinc
		big_pull "$1" "--protocol=$2 -aH --delete -i --stats" "$3" "$B_SAME"
		local n nr
		n=$(stat_line "$PB_OUT_P" "Number of regular files transferred")
		nr=$(stat_line "$PB_OUT_R" "Number of regular files transferred")
		if [ "$nr" = 0 ] && [ "$n" = 0 ]; then
			pass "$1: nothing transferred by either side"
		else
			fail "$1: files transferred rsyncd=$nr $P_LABEL=$n (expected 0)"
		fi
	}
	same big_p32_same_inc 32 inc
	if [ "${INCREC_BIG_FULL:-0}" = 1 ]; then
		same big_p30_same_inc 30 inc
		same big_p32_same 32 noinc
	fi
	# After edits: a delta run (the 100-300 KiB files have changed bytes),
	# with removed files and directories and stale entries to delete.
	edited() { # NAME P inc|noinc
		big_pull "$1" "--protocol=$2 -aH --delete -i --stats --no-whole-file" "$3" "$B_EDIT"
		if [ "$MATCHED_R" != - ] && [ "$MATCHED_R" -gt 0 ] && [ "$MATCHED_P" != - ] && [ "$MATCHED_P" -gt 0 ]; then
			pass "$1: delta used (matched rsyncd=$MATCHED_R $P_LABEL=$MATCHED_P)"
		else
			fail "$1: no delta (matched rsyncd=$MATCHED_R $P_LABEL=$MATCHED_P)"
		fi
	}
	edited big_p32_edit_inc 32 inc
	if [ "${INCREC_BIG_FULL:-0}" = 1 ]; then
		edited big_p31_edit_inc 31 inc
		edited big_p32_edit 32 noinc
	fi
	stop_both
fi
echo "# big tree done at $((SECONDS - T0)) s"

echo "# t_increc.sh: $((SECONDS - T0)) s (P side: $P_LABEL; work dir on $([ $INCREC_MOUNTED = 1 ] && echo tmpfs || echo disk))"
finish
