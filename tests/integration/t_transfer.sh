#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Differential transfer tests: one module served by rsync --daemon (the
# oracle) and by prsyncd, pulled by the same stock client at protocols
# 27-32 with many option sets; exit codes, client output and destination
# trees must agree (tests/transfer_lib.sh).  ORACLE_SELFTEST=1 replaces
# prsyncd with a second rsyncd to check the harness itself.
#
# Every pull passes --no-inc-recursive: incremental recursion is a later
# prsyncd feature.  A few pulls run without it (PB_INC=1): prsyncd must then
# not advertise inc-recursion, the client falls back, results still match.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/transfer_lib.sh"
T0=$SECONDS

SMALL=$TMP/small FULL=$TMP/full ERRS=$TMP/errs
mktree "$SMALL" --small || { fail "mktree --small"; finish; exit; }
mktree "$FULL" || { fail "mktree"; finish; exit; }
mktree "$ERRS" --errors || { fail "mktree --errors"; finish; exit; }

# --- destination seeds ------------------------------------------------------
# stale: files and dirs the source lacks, and type conflicts (a directory
# where the source has a file, a file where it has a symlink or a dir).
STALE=$TMP/seed_stale
mkdir -p "$STALE/stale_dir/x" "$STALE/sub/dir" "$STALE/deep/d01" "$STALE/wide" \
	"$STALE/names" "$STALE/file/inner" "$STALE/links"
echo stale > "$STALE/stale_top"
echo stale > "$STALE/stale_dir/x/y"
echo stale > "$STALE/sub/dir/stale_in_sub"
echo stale > "$STALE/deep/d01/stale"
echo stale > "$STALE/wide/stale_wide"
echo stale > "$STALE/names/stale with space"
echo stale > "$STALE/file/inner/was_a_dir"
echo stale > "$STALE/links/rel"
echo stale > "$STALE/empty"
touch -d @1400000000 "$STALE"/stale_top

# csum: a full copy where a few files differ in content only (same size,
# same mtime): only -c finds them.
CSUM=$TMP/seed_csum
cp -a "$SMALL" "$CSUM"
# edit: a full copy where a few files have other content and older mtimes.
EDIT=$TMP/seed_edit
cp -a "$SMALL" "$EDIT"
python3 - "$CSUM" "$EDIT" <<'PY'
import os, sys
csum, edit = (os.fsencode(a) for a in sys.argv[1:3])
for rel in (b"a/b/file", b"sizes/r32768", b"big/random.bin", b"sizes/r700"):
    p = os.path.join(csum, rel)
    st = os.stat(p)
    data = bytearray(open(p, "rb").read())
    mid = len(data) // 2
    data[mid:mid + 5] = bytes(x ^ 0xFF for x in data[mid:mid + 5])
    open(p, "wb").write(data)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
for rel in (b"a/b/file", b"sizes/r65537", b"big/random.bin", b"big/compressible.txt", b"sub/dir/two"):
    p = os.path.join(edit, rel)
    st = os.stat(p)
    data = bytearray(open(p, "rb").read())
    mid = len(data) // 2
    data[mid:mid + 100] = b"E" * 100
    data[10:10] = b"inserted"
    open(p, "wb").write(data[:len(data) - 77])
    os.utime(p, ns=(st.st_mtime_ns - 10**12, st.st_mtime_ns - 10**12))
PY
# append: regular files cut to half their length (a true prefix).
APPEND=$TMP/seed_append
$MKTREE --truncate-copy "$SMALL" "$APPEND" 0.5

# --- the protocol x option matrix on the small tree ------------------------
write_mod_conf "$TMP/small.conf" "$SMALL"
if start_both "$TMP/small.conf"; then
	for P in 27 28 29 30 31 32; do
		pp="--protocol=$P"
		pull_both "p${P}_a"        "$pp -a -i" mod/
		pull_both "p${P}_aH"       "$pp -aH -i" mod/
		pull_both "p${P}_aHD"      "$pp -aHD -i" mod/
		pull_both "p${P}_ac"       "$pp -ac -i" mod/ "$CSUM"
		pull_both "p${P}_delete"   "$pp -a --delete -i" mod/ "$STALE"
		pull_both "p${P}_subpath"  "$pp -a -i" mod/sub/dir/
		pull_both "p${P}_file"     "$pp -a -i" mod/file
		pull_both "p${P}_R_dot"    "$pp -a -R -i" mod/./a/b/file
		pull_both "p${P}_R"        "$pp -a -R -i" mod/a/b
		pull_both "p${P}_numeric"  "$pp -a --numeric-ids -i" mod/
		pull_both "p${P}_whole"    "$pp -a --whole-file -i" mod/ "$EDIT"
		pull_both "p${P}_append"   "$pp -a --append -i" mod/ "$APPEND"
		pull_both "p${P}_appendv"  "$pp -a --append-verify -i" mod/ "$APPEND"
		pull_both "p${P}_inplace"  "$pp -a --inplace -i" mod/ "$EDIT"
		pull_both "p${P}_dryrun"   "$pp -a -n -i" mod/
		pull_both "p${P}_list"     "$pp --list-only" mod/
		pull_both "p${P}_rlist"    "$pp -r --list-only" mod/
		TC=--no-times pull_both "p${P}_r" "$pp -r -i" mod/
		TC=--no-times pull_both "p${P}_d" "$pp -d -i" mod/
		EXPECT_RC=23 pull_both "p${P}_missing" "$pp -a" mod/nosuch
		pull_both "p${P}_dotdir"   "$pp -a -i" mod
		pull_both "p${P}_wild"     "$pp -a -i" 'mod/*.txt'
		case $P in
		29) choices="md4 md5" ;;
		30|31|32) choices="md4 md5 sha1 xxh64 xxh3 xxh128" ;;
		*) choices="" ;;
		esac
		for c in $choices; do
			pull_both "p${P}_cc_$c"  "$pp -a --checksum-choice=$c" mod/ "$EDIT"
			pull_both "p${P}_ccc_$c" "$pp -ac --checksum-choice=$c -i" mod/ "$CSUM"
		done
	done
	# Each area of the tree on its own, so that a failure of the whole-
	# tree pulls above can be pinned to the kind of content behind it
	# (named without a trailing slash: the dot-dir case is covered above).
	for P in 29 32; do
		for area in a sub sizes big deep wide empty names longpath links hl special perms owners times; do
			pull_both "p${P}_area_$area" "--protocol=$P -aH -i" "mod/$area"
		done
	done
	# Beyond the list above, at the newest and the oldest multiplexing
	# protocol: several sources, sender-side link options, the delete
	# variants, compression and client filters.
	pull_any() { EXPECT_RC=any pull_both "$@"; }
	for P in 29 32; do
		pp="--protocol=$P"
		pull_both "p${P}_multi"    "$pp -a -i" 'mod/a|mod/sub/dir|mod/file'
		# Following symlinks (the symlink-heavy cases are t_links.sh's)
		pull_any "p${P}_L" "$pp -aL" mod/
		pull_any "p${P}_unsafe" "$pp -a --copy-unsafe-links -i" mod/links/
		pull_any "p${P}_k" "$pp -ak -i" mod/
		pull_both "p${P}_safe"     "$pp -a --safe-links -i" mod/links/
		pull_both "p${P}_delafter" "$pp -a --delete-after --delete-excluded --exclude=*.md -i" mod/ "$STALE"
		pull_both "p${P}_exclude"  "$pp -a --exclude=wide/ --exclude=*.bin --include=*/ -i" mod/
		pull_both "p${P}_z"        "$pp -az" mod/
		pull_both "p${P}_sizeonly" "$pp -a --size-only -i" mod/ "$CSUM"
	done
	# Without --no-inc-recursive: the client offers inc-recursion.
	PB_INC=1 pull_both "p31_a_inc" "--protocol=31 -a -i" mod/
	PB_INC=1 pull_both "p32_aH_inc" "--protocol=32 -aH -i" mod/
	PB_INC=1 pull_both "p32_delete_inc" "--protocol=32 -a --delete -i" mod/ "$STALE"
	stop_both
fi
echo "# small-tree matrix done at $((SECONDS - T0)) s"

# --- the full tree, -aH, at 29, 31, 32 -------------------------------------
write_mod_conf "$TMP/full.conf" "$FULL"
if start_both "$TMP/full.conf"; then
	for P in 29 31 32; do
		PB_KEEP=1 pull_both "full_p${P}_aH" "--protocol=$P -aH" mod/
		# The oracle's copy against the source: nanosecond mtimes only
		# travel at protocol >= 31.
		if [ "$P" -ge 31 ]; then prec=ns; else prec=s; fi
		# Before protocol 30 the mtime is an int32 read unsigned, so
		# the pre-1970 file comes back in 2106 (stock behaviour).
		ign=(); [ "$P" -lt 30 ] && ign=(--ignore=times/pre1970)
		[ -d "$TMP/r_full_p${P}_aH" ] && oracle_check "full_p${P}_aH" "$TMP/r_full_p${P}_aH" "$FULL" --times=$prec "${ign[@]}"
		rm -rf "$TMP/r_full_p${P}_aH" "$TMP/p_full_p${P}_aH"
	done
	PB_INC=1 pull_both "full_p32_aH_inc" "--protocol=32 -aH" mod/
	stop_both
fi
echo "# full tree done at $((SECONDS - T0)) s"

# --- errors: unreadable file and directory, module user nobody ------------
nogroup=$(id -gn nobody 2>/dev/null || echo nogroup)
write_mod_conf "$TMP/errs.conf" "$ERRS" nobody "$nogroup"
if start_both "$TMP/errs.conf"; then
	for P in 27 28 29 30 31 32; do
		pp="--protocol=$P"
		EXPECT_RC=23 pull_both "err_p${P}_tree" "$pp -a -i" mod/
		EXPECT_RC=23 pull_both "err_p${P}_file" "$pp -a" mod/badfile
		EXPECT_RC=23 pull_both "err_p${P}_dir"  "$pp -a" mod/baddir/
	done
	EXPECT_RC=23 PB_INC=1 pull_both "err_p32_tree_inc" "--protocol=32 -a -i" mod/
	# the error text itself: stderr already compared; also require the
	# expected messages on the oracle side (harness check)
	# (names start with "/" because the module is chrooted)
	if grep -q 'send_files failed to open "/badfile" (in mod): Permission denied (13)' "$OUTDIR/err_p32_tree.r.err" 2>/dev/null \
		&& grep -q 'opendir "/baddir" (in mod) failed: Permission denied (13)' "$OUTDIR/err_p32_tree.r.err"; then
		pass "oracle errors: rsyncd reports the unreadable file and dir"
	else
		fail "oracle errors: expected messages missing from rsyncd's output"
		sed 's/^/    /' "$OUTDIR/err_p32_tree.r.err" 2>/dev/null | head -5
	fi
	stop_both
fi

# --- -U (--atimes): access times travel in the list (protocol 30+) -------
# Access times an hour ahead and newer than the modification times, so
# that reading the files (relatime) leaves them alone between the pulls.
ATREE=$TMP/atree
mkdir -p "$ATREE/d"
python3 - "$ATREE" <<'PY'
import os, sys, time
root = sys.argv[1]
now = int(time.time())
for i, rel in enumerate(["f1", "f2", "d/f3", "d/f4"]):
    p = os.path.join(root, rel)
    with open(p, "w") as f:
        f.write("x" * (i * 100 + 1))
    os.utime(p, (now + 3600 + i * 7, now - 86400 * 10 - i * 13))
os.symlink("f1", os.path.join(root, "ln"))
# Directories and the link get fixed times too: a time in the second a
# client creates its copy is left as it is (protocol 30 has no nsec).
for rel in ["ln", "d", "."]:
    os.utime(os.path.join(root, rel), (1500000000, 1500000000), follow_symlinks=False)
PY
atimes_of() { # DIR: "name atime" of each regular file, sorted
	python3 - "$1" <<'PY'
import os, sys
root = sys.argv[1]
for d, _, files in sorted(os.walk(root)):
    for n in sorted(files):
        p = os.path.join(d, n)
        if os.path.isfile(p) and not os.path.islink(p):
            print(os.path.relpath(p, root), int(os.stat(p).st_atime))
PY
}
write_mod_conf "$TMP/atime.conf" "$ATREE"
if start_both "$TMP/atime.conf"; then
	src_at=$(atimes_of "$ATREE")
	for P in 30 32; do
		PB_KEEP=1 pull_both "p${P}_U" "--protocol=$P -aU -i" mod/
		if [ "$(atimes_of "$TMP/p_p${P}_U")" = "$src_at" ] && [ "$(atimes_of "$TMP/r_p${P}_U")" = "$src_at" ]; then
			pass "p${P}_U: both daemons deliver the source's access times"
		else
			fail "p${P}_U: access times differ: source / rsyncd / $P_LABEL:"
			printf '%s\n--\n' "$src_at" "$(atimes_of "$TMP/r_p${P}_U")" "$(atimes_of "$TMP/p_p${P}_U")" | sed 's/^/    /'
		fi
		rm -rf "$TMP/r_p${P}_U" "$TMP/p_p${P}_U"
	done
	PB_INC=1 pull_both "p32_U_inc" "--protocol=32 -aU -i" mod/
	stop_both
fi

echo "# t_transfer.sh: $((SECONDS - T0)) s (P side: $P_LABEL)"
finish
