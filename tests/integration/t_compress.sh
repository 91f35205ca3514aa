#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Compression against the oracle (tests/transfer_lib.sh): every
# --compress-choice on full and delta pulls, -z at protocols 27-32 (zlib
# below 30 and without negotiation, negotiated above), levels, the zlib
# history with blocks > 65535 bytes at protocols 30 and 31 (the piece
# rule), the module's "dont compress" list and the default list.  Results,
# exit codes and client output must match rsyncd's; delta pulls must send
# about as much literal data as rsyncd.
# ORACLE_SELFTEST=1 replaces prsyncd with a second rsyncd.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/transfer_lib.sh"
T0=$SECONDS

SMALL=$TMP/small DSRC=$TMP/dsrc OLD=$TMP/dold DC=$TMP/dc
mktree "$SMALL" --small || { fail "mktree --small"; finish; exit; }
mktree "$DSRC" --delta "$OLD" || { fail "mktree --delta"; finish; exit; }
# A compressible text file over 1 MiB with a few edited lines: with
# -B 100000 the zlib history of a matched block decides how the literal
# data after it decodes.
python3 - "$DSRC/big.txt" "$OLD/big.txt" <<'PY' || fail "big.txt"
import random, sys
random.seed(4)
w = ["alpha", "beta", "gamma", "delta", "omega", "kappa", "sigma"]
lines = [" ".join(random.choice(w) for _ in range(8)) + " %d" % i for i in range(20000)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
for k in (3000, 9000, 15000, 19000):
    lines[k] = "CHANGED LINE %d" % k
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
touch -d @1500000000 "$DSRC/big.txt"; touch -d @1400000000 "$OLD/big.txt"
# dont compress: the same compressible text under names the lists match
mkdir -p "$DC"
for n in notes.txt data.bin archive.gz photo.JPG song.mp3 plain; do
	head -c 400000 "$DSRC/big.txt" > "$DC/$n"
done

# total_recv FILE: "Total bytes received" of a --stats output, or 0
total_recv() { sed -nE 's/^Total bytes received: ([0-9,]+).*/\1/p' "$1" | tr -d , | grep . || echo 0; }

# literal_close NAME: both servers sent about the same literal data
# (within 5% + 4 KiB: the matchers may pick different blocks).
literal_close() {
	local r=$LITERAL_R p=$LITERAL_P
	if [ "$r" = - ] || [ "$p" = - ]; then
		fail "$1: no literal data figure (rsyncd=$r $P_LABEL=$p)"
	elif [ $((p > r ? p - r : r - p)) -le $((r / 20 + 4096)) ] && [ "$MATCHED_P" != - ] && [ "$MATCHED_P" -gt 0 ]; then
		pass "$1: literal $P_LABEL=$p rsyncd=$r, matched $P_LABEL=$MATCHED_P rsyncd=$MATCHED_R"
	else
		fail "$1: literal $P_LABEL=$p rsyncd=$r, matched $P_LABEL=$MATCHED_P rsyncd=$MATCHED_R"
	fi
}

# --- full pulls of the small tree --------------------------------------------
write_mod_conf "$TMP/small.conf" "$SMALL"
if start_both "$TMP/small.conf"; then
	for c in zstd lz4 zlibx zlib; do
		pull_both "full_$c" "--protocol=32 -a -i --compress-choice=$c" mod/
	done
	pull_both "full_zlib_p29" "--protocol=29 -a -i --compress-choice=zlib" mod/
	pull_both "full_zstd_p30" "--protocol=30 -a -i --zc=zstd" mod/
	for P in 27 28 29 30 31 32; do
		pull_both "z_p$P" "--protocol=$P -az -i" mod/
	done
	pull_both "zH_p32" "--protocol=32 -azH -i" mod/
	pull_both "zH_p29" "--protocol=29 -azH -i" mod/
	pull_both "zz_p32" "--protocol=32 -a -zz -i" mod/
	pull_both "oldcomp_p32" "--protocol=32 -a --old-compress -i" mod/
	pull_both "newcomp_p31" "--protocol=31 -a --new-compress -i" mod/
	for L in 1 9; do
		pull_both "z_l$L" "--protocol=32 -az --compress-level=$L -i" mod/
		pull_both "zlib_l$L" "--protocol=31 -a --zc=zlib --zl=$L -i" mod/
		pull_both "zstd_l$L" "--protocol=32 -a --zc=zstd --compress-level=$L -i" mod/
	done
	pull_both "z_l0" "--protocol=32 -az --compress-level=0 -i" mod/
	pull_both "zlibx_l0" "--protocol=32 -a --zc=zlibx --compress-level=0 -i" mod/
	pull_both "zstd_l22" "--protocol=32 -a --zc=zstd --compress-level=22 -i" mod/
	# out-of-range levels are clamped, not refused
	pull_both "z_l100" "--protocol=32 -az --compress-level=100 -i" mod/
	pull_both "zlib_lneg" "--protocol=31 -a --zc=zlib --zl=-5 -i" mod/
	pull_both "zstd_lneg" "--protocol=32 -a --zc=zstd --zl=-200000 -i" mod/
	# a level without -z asks for (negotiated) compression too
	pull_both "level_only" "--protocol=32 -a --compress-level=5 -i" mod/
	# the lists are written in order: checksum (if any), then compression
	pull_both "z_csum_md5" "--protocol=32 -az --checksum-choice=md5 -i" mod/
	pull_both "zc_csum" "--protocol=32 -a --zc=lz4 --checksum-choice=xxh64 -i" mod/
	pull_both "z_skip" "--protocol=32 -az --skip-compress=txt/md/bin -i" mod/
	# the client's own preference decides the negotiation
	for c in zlibx zlib lz4; do
		RSYNC_COMPRESS_LIST=$c pull_both "z_list_$c" "--protocol=32 -az -i" mod/
	done
	stop_both
fi
echo "# full pulls done at $((SECONDS - T0)) s"

# --- delta pulls ------------------------------------------------------------
# wire_close NAME: prsyncd's compressed stream is not much longer than
# rsyncd's (within 15% + 4 KiB)
wire_close() {
	local r p
	r=$(total_recv "$PB_OUT_R") p=$(total_recv "$PB_OUT_P")
	if [ "$p" -gt 0 ] && [ "$p" -le $((r + r * 15 / 100 + 4096)) ]; then
		pass "$1: bytes received $P_LABEL=$p rsyncd=$r"
	else
		fail "$1: bytes received $P_LABEL=$p rsyncd=$r"
	fi
}

# delta NAME "OPTS" [SRC]: pull over the old copy, compare, check literal
# data and the size of the stream
delta() {
	PB_KEEP=1 pull_both "$1" "-a --no-whole-file --stats $2" "${3:-mod/}" "$OLD"
	literal_close "$1"
	wire_close "$1"
	rm -rf "$TMP/r_$1" "$TMP/p_$1"
}
write_mod_conf "$TMP/delta.conf" "$DSRC"
if start_both "$TMP/delta.conf"; then
	for c in zstd lz4 zlibx zlib; do
		delta "d_$c" "--protocol=32 --compress-choice=$c"
	done
	for P in 27 29 30 31 32; do
		delta "d_z_p$P" "--protocol=$P -z"
	done
	# blocks over 65535 bytes: zlib history pieces, both piece rules
	for P in 29 30 31 32; do
		delta "d_zlib_B100000_p$P" "--protocol=$P --zc=zlib -B100000 -I" mod/big.txt
	done
	delta "d_z_B100000_p30" "--protocol=30 -z -B100000 -I" mod/big.txt
	delta "d_zlibx_B131072" "--protocol=31 --zc=zlibx -B131072 -I" mod/big.txt
	delta "d_zstd_B100000" "--protocol=32 --zc=zstd -B100000 -I" mod/big.txt
	delta "d_z_l9" "--protocol=31 -z --compress-level=9"
	delta "d_z_inplace" "--protocol=32 -z --inplace"

	# Our decoders on stock's streams (for uploads later): a batch file
	# written by the stock client records the stock sender's token stream;
	# ctok_scan must find one that decodes to the source file.  The zlib
	# history must use the protocol's piece rule: the other rule fails.
	scan() { # scan NAME PROTO FORMAT BLOCK [WANT_RC [DECODER_PROTO]]
		local bt=$TMP/bt_$1 want=${5:-0} rc=0 out
		rm -rf "$bt" "$bt.batch" "$bt.batch.sh"
		mkdir -p "$bt" && cp -p "$OLD/big.txt" "$bt/"
		if ! rsync_client -a --protocol="$2" --compress-choice="$3" -I -B"$4" --no-whole-file \
			--write-batch="$bt.batch" "rsync://127.0.0.1:$R_PORT/mod/big.txt" "$bt/" >/dev/null 2>&1; then
			fail "$1: stock client with --write-batch failed"
			return
		fi
		out=$("$TOOLS/ctok_scan" "$bt.batch" "$OLD/big.txt" "$DSRC/big.txt" "$4" "${6:-$2}" "$3") || rc=$?
		[ "$rc" = "$want" ] && pass "$1: $out" || fail "$1: ctok_scan exit $rc, wanted $want: $out"
		rm -rf "$bt" "$bt.batch" "$bt.batch.sh"
	}
	for c in zlibx zlib zstd lz4; do
		scan "scan_${c}_B700" 31 "$c" 700
		scan "scan_${c}_B100000" 31 "$c" 100000
	done
	scan "scan_zlib_p30_B100000" 30 zlib 100000
	scan "scan_zlib_p29_B100000" 29 zlib 100000
	scan "scan_zlib_p30_as31" 30 zlib 100000 1 31
	scan "scan_zlib_p31_as30" 31 zlib 100000 1 30
	stop_both
fi
echo "# delta pulls done at $((SECONDS - T0)) s"

# --- dont compress -----------------------------------------------------------
# Stock ignores the list (it no longer switches levels per file); prsyncd
# sends matching files at zlib level 0.  Results must still match rsyncd's;
# prsyncd's byte counts show the list took effect.
cat > "$TMP/dc.conf" <<CONF
[mod]
	path = $DC
	read only = yes
	use chroot = yes
	uid = root
	gid = root
	dont compress = *.bin *.gz
[all]
	path = $DC
	read only = yes
	use chroot = yes
	uid = root
	gid = root
	dont compress = *
[none]
	path = $DC
	read only = yes
	use chroot = yes
	uid = root
	gid = root
	dont compress =
[dflt]
	path = $DC
	read only = yes
	use chroot = yes
	uid = root
	gid = root
CONF
if start_both "$TMP/dc.conf"; then
	declare -A RECV
	for m in mod all none dflt; do
		for c in zlib zlibx zstd; do
			pull_both "dc_${m}_$c" "--protocol=31 -a --stats --zc=$c" "$m/"
			RECV[${m}_$c]=$(total_recv "$PB_OUT_P")
		done
		pull_both "dc_${m}_z29" "--protocol=29 -az --stats" "$m/"
		for f in notes.txt data.bin photo.JPG; do
			pull_both "dc_${m}_$f" "--protocol=31 -a --stats --zc=zlibx" "$m/$f"
			RECV[${m}_$f]=$(total_recv "$PB_OUT_P")
		done
	done
	if [ "$ORACLE_SELFTEST" != 1 ]; then
		# 6 files of 400000 bytes; compressed text is ~4x smaller
		size=400000
		chk() { if eval "$2"; then pass "dc bytes: $1"; else fail "dc bytes: $1 (${RECV[*]})"; fi; }
		chk "'*' stores everything (zlib)" "[ ${RECV[all_zlib]} -ge $((6 * size)) ]"
		chk "'*' stores everything (zlibx)" "[ ${RECV[all_zlibx]} -ge $((6 * size)) ]"
		chk "'*' leaves zstd alone" "[ ${RECV[all_zstd]} -lt $((6 * size / 2)) ]"
		chk "empty list compresses everything" "[ ${RECV[none_zlib]} -lt $((6 * size / 2)) ]"
		chk "*.bin *.gz: two files stored" "[ ${RECV[mod_zlib]} -ge $((2 * size)) ] && [ ${RECV[mod_zlib]} -lt $((3 * size)) ]"
		chk "default list: .gz .JPG .mp3 stored" "[ ${RECV[dflt_zlib]} -ge $((3 * size)) ] && [ ${RECV[dflt_zlib]} -lt $((4 * size)) ]"
		chk "*.bin: data.bin stored" "[ ${RECV[mod_data.bin]} -ge $size ]"
		chk "*.bin: notes.txt compressed" "[ ${RECV[mod_notes.txt]} -lt $((size / 2)) ]"
		chk "*.bin: photo.JPG compressed" "[ ${RECV[mod_photo.JPG]} -lt $((size / 2)) ]"
		chk "default: photo.JPG stored" "[ ${RECV[dflt_photo.JPG]} -ge $size ]"
		chk "default: data.bin compressed" "[ ${RECV[dflt_data.bin]} -lt $((size / 2)) ]"
	fi
	stop_both
fi

echo "# t_compress.sh: $((SECONDS - T0)) s (P side: $P_LABEL)"
finish
