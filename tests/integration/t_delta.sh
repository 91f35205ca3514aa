#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Delta transfer against the oracle: the destination holds edited, older
# copies of the source files (bytes changed in the middle, an insertion, a
# deletion, truncated, appended, a multi-MiB file with several edits);
# the client pulls with the delta algorithm forced on.  Both servers'
# results must match each other (tests/transfer_lib.sh) and the source,
# and prsyncd must actually send a delta ("Matched data" > 0).  The
# matched/literal numbers of both are reported, not required to be equal.
# ORACLE_SELFTEST=1 replaces prsyncd with a second rsyncd.
#
# Every pull passes --no-inc-recursive (incremental recursion is a later
# prsyncd feature); one pull runs without it.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/transfer_lib.sh"
T0=$SECONDS

SRC=$TMP/dsrc OLD=$TMP/dold
mktree "$SRC" --delta "$OLD" || { fail "mktree --delta"; finish; exit; }

# content_ok NAME DEST PROTO [treecmp flags]: the destination equals the
# source (mtime nanoseconds only travel at protocol >= 31).
content_ok() {
	local prec=s name=$1 dest=$2
	[ "$3" -ge 31 ] && prec=ns
	shift 3
	if $TREECMP "$SRC" "$dest" --times=$prec "$@" >"$OUTDIR/$name.src" 2>&1; then
		pass "$name: $P_LABEL copy equals the source"
	else
		fail "$name: $P_LABEL copy differs from the source"
		head -6 "$OUTDIR/$name.src" | sed 's/^/    /'
	fi
}

# matched_ok NAME: prsyncd sent a delta; both sides' numbers reported.
matched_ok() {
	local info="matched $P_LABEL=$MATCHED_P rsyncd=$MATCHED_R, literal $P_LABEL=$LITERAL_P rsyncd=$LITERAL_R"
	if [ "$MATCHED_R" = - ] || [ "$MATCHED_R" -eq 0 ]; then
		fail "$1: rsyncd matched no data (harness): $info"
	elif [ "$MATCHED_P" != - ] && [ "$MATCHED_P" -gt 0 ]; then
		pass "$1: delta used: $info"
	else
		fail "$1: no delta from $P_LABEL: $info"
	fi
	echo "# delta $1: $info"
}

# delta NAME PROTO "OPTS" [SRC_SUFFIX]: pull (by default the module root
# "mod/"), then the three checks above.
delta() {
	local name=$1 proto=$2 opts=$3 suffix=${4:-mod/} tc=()
	PB_KEEP=1 pull_both "$name" "--protocol=$proto -a --no-whole-file --stats $opts" "$suffix" "$OLD"
	matched_ok "$name"
	[ "$suffix" = mod/ ] || tc=(--no-root-attrs)
	content_ok "$name" "$TMP/p_$name" "$proto" "${tc[@]}"
	rm -rf "$TMP/r_$name" "$TMP/p_$name"
}
# Every top-level name of the source, named one by one: the same delta
# work without the module root as a dot-dir source.
NAMED=$(cd "$SRC" && printf 'mod/%s|' * | sed 's/|$//')

write_mod_conf "$TMP/delta.conf" "$SRC"
if start_both "$TMP/delta.conf"; then
	for P in 27 29 30 31 32; do
		delta "d_p$P" $P ""
	done
	for P in 27 29 32; do
		delta "d_p${P}_named" $P "" "$NAMED"
	done
	# The variants name the sources one by one (NAMED), so that their
	# results depend on the delta machinery, not on dot-dir handling.
	for P in 30 32; do
		for c in xxh128 md5 md4; do
			delta "d_p${P}_$c" $P "--checksum-choice=$c" "$NAMED"
		done
	done
	delta "d_p29_md5" 29 "--checksum-choice=md5" "$NAMED"
	# Block sizes the client imposes (the sum head carries them).
	delta "d_p31_B2048" 31 "--block-size=2048" "$NAMED"
	delta "d_p29_B100000" 29 "--block-size=100000" "$NAMED"
	delta "d_p32_B131072" 32 "--block-size=131072" "$NAMED"
	# Compressed token stream with matched blocks.
	delta "d_p31_z" 31 "-z" "$NAMED"
	# --inplace: the receiver updates the old copy in place.
	for P in 29 32; do
		delta "d_p${P}_inplace" $P "--inplace" "$NAMED"
	done
	# --append-verify on edited files: files the old copy is a prefix of
	# are completed; the rest fail the whole-file check and are resent
	# whole; files not shorter than the source are left alone (so the
	# result is compared with the oracle's, not with the source).
	for P in 29 32; do
		name="d_p${P}_appendv"
		PB_KEEP=1 pull_both "$name" "--protocol=$P -a --no-whole-file --stats --append-verify" "$NAMED" "$OLD"
		matched_ok "$name"
		bad=""
		for f in appended.bin truncated.txt delete.bin prepended.txt; do
			cmp -s "$SRC/$f" "$TMP/p_$name/$f" || bad="$bad $f"
		done
		[ -z "$bad" ] && pass "$name: appended/resent files equal the source" || fail "$name: differ from the source:$bad"
		cmp -s "$OLD/change.bin" "$TMP/p_$name/change.bin" \
			&& pass "$name: same-size file left alone" || fail "$name: same-size file was changed"
		rm -rf "$TMP/r_$name" "$TMP/p_$name"
	done
	# Without --no-inc-recursive.
	PB_INC=1 PB_KEEP=1 pull_both "d_p32_inc" "--protocol=32 -a --no-whole-file --stats" mod/ "$OLD"
	matched_ok "d_p32_inc"
	content_ok "d_p32_inc" "$TMP/p_d_p32_inc" 32
	stop_both
fi

echo "# t_delta.sh: $((SECONDS - T0)) s (P side: $P_LABEL)"
finish
