# SPDX-License-Identifier: ISC
# Helpers for the differential transfer tests (t_transfer.sh, t_delta.sh).
# Source after lib.sh.  One module `mod` is served by the stock daemon (the
# oracle, "R" side) and by prsyncd ("P" side) from the same config; the
# same stock client pulls from each into $TMP/r_NAME and $TMP/p_NAME, and
# the two runs must agree: exit codes, stderr and stdout after
# normalisation, and the destination trees (tests/tools/treecmp.py).
#
# ORACLE_SELFTEST=1 puts a second rsync --daemon on the P side, so the
# harness itself can be checked (everything must pass in that mode).
#
# Knobs for pull_both, set per call (VAR=value pull_both ...):
#   TC="--no-times ..."  extra treecmp flags for the R/P comparison
#   EXPECT_RC=N          both sides must exit N (default 0; "any": only
#                        equality is required)
#   PB_INC=1             do not add --no-inc-recursive
#   PB_KEEP=1            keep the destinations after a passing comparison
# After each pull: PB_RC_R/PB_RC_P, PB_OUT_R/PB_OUT_P (raw stdout files),
# and from --stats output MATCHED_R/MATCHED_P, LITERAL_R/LITERAL_P
# (bytes, commas removed; "-" when absent).

MKTREE="python3 $TOP/tests/tools/mktree.py"
TREECMP="python3 $TOP/tests/tools/treecmp.py"
ORACLE_SELFTEST=${ORACLE_SELFTEST:-0}
OUTDIR=$TMP/out
mkdir -p "$OUTDIR"
# $TMP is 0700; the "nobody" module of the error tests lives below it, and
# a daemon that does not chroot before changing user must be able to walk
# there.  Nothing secret is kept in $TMP.
chmod 755 "$TMP"
if [ "$ORACLE_SELFTEST" = 1 ]; then P_LABEL="rsyncd#2"; else P_LABEL="prsyncd"; fi

mktree() { $MKTREE "$@"; }
treecmp() { $TREECMP "$@"; }

# write_mod_conf FILE PATH [UID [GID]]: module `mod` only, with directives
# prsyncd implements (path, comment, list, read only, uid, gid, use chroot).
write_mod_conf() {
	local f=$1 path=$2 uid=${3:-root} gid=${4:-root}
	cat > "$f" <<CONF
[mod]
	path = $path
	comment = transfer test module
	read only = yes
	list = yes
	use chroot = yes
	uid = $uid
	gid = $gid
CONF
}

# tl_start_rsyncd CONF PORT LOG: like start_rsyncd, with a log file.
tl_start_rsyncd() {
	rsync --daemon --no-detach --config="$1" --port="$2" --address=127.0.0.1 \
		--log-file="$3" &
	TL_PID=$!
	PIDS+=("$TL_PID")
	wait_port "$2"
}

# start_both CONF: serve CONF on R_PORT (rsyncd) and P_PORT (prsyncd, or a
# second rsyncd with ORACLE_SELFTEST=1).  Returns non-zero (after a FAIL
# line) if either does not come up.
BOTH_N=0
start_both() {
	local conf=$1 ok=0
	BOTH_N=$((BOTH_N + 1))
	R_LOG=$TMP/rsyncd.$BOTH_N.log
	P_LOG=$TMP/pside.$BOTH_N.log
	R_PORT=$(free_port)
	if tl_start_rsyncd "$conf" "$R_PORT" "$R_LOG"; then R_PID=$TL_PID
	else R_PID=$TL_PID; fail "rsyncd did not start on $R_PORT"; ok=1; fi
	P_PORT=$(free_port)
	if [ "$ORACLE_SELFTEST" = 1 ]; then
		if tl_start_rsyncd "$conf" "$P_PORT" "$P_LOG"; then P_PID=$TL_PID
		else P_PID=$TL_PID; fail "$P_LABEL did not start on $P_PORT"; ok=1; fi
	else
		: > "$P_LOG.stderr"
		if start_prsyncd "$conf" "$P_PORT" "$P_LOG"; then P_PID=$PRSYNCD_PID
		else P_PID=$PRSYNCD_PID; fail "$P_LABEL did not start on $P_PORT"; ok=1; fi
	fi
	return $ok
}

stop_both() {
	stop_pid "$R_PID"
	stop_pid "$P_PID"
}

# normalise FILE: what may legitimately differ between the two servers or
# between runs; the result is sorted (the client's generator and receiver
# write to the terminal independently, so line order is not stable).
normalise() {
	sed -E \
		-e "s/:($R_PORT|$P_PORT)\\b/:PORT/g" \
		-e "s/ port ($R_PORT|$P_PORT)\$/ port PORT/" \
		-e 's/^[0-9]{4}\/[0-9]{2}\/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} \[[0-9]+\] //' \
		-e 's/\(([0-9,]+) bytes received so far\)/(N bytes received so far)/' \
		-e 's/ pid=?[0-9]+/ pid=N/g' \
		-e '/^sent [0-9,]+ bytes +received [0-9,]+ bytes/d' \
		-e 's/^(total size is [0-9,]+) +speedup is .*/\1/' \
		-e '/^(Total bytes sent|Total bytes received|File list size|File list generation time|File list transfer time|Literal data|Matched data):/d' \
		-e '/^rsync: \[(Receiver|generator|receiver)\] read error: Connection reset by peer/d' \
		-e 's/^(rsync error: .* \(code [0-9]+\)) at [^ ]+ \[sender=[^]]*\]$/\1 [sender]/' \
		-e '/^$/d' \
		"$1" | LC_ALL=C sort
}
# (The stock daemon closes with unread data in the socket at the end of
# some failing runs and the client then reports "read error: Connection
# reset by peer"; whether that happens is not part of the protocol.  A
# sender's own "rsync error: ... at FILE(LINE) [sender=VERSION]" names its
# source and version, which differ by design.)

stat_field() { # stat_field FILE "Matched data": the number, or "-"
	local v
	v=$(sed -nE "s/^$2: ([0-9,]+) bytes.*/\\1/p" "$1" | tr -d ,)
	echo "${v:--}"
}

PB_HANGS=0
PB_MAX_HANGS=${PB_MAX_HANGS:-3}

# pull_both NAME "OPTS" SRC_SUFFIX [SEED_DIR]
#   SRC_SUFFIX is the part after rsync://127.0.0.1:PORT/, e.g. "mod/" or
#   "mod/sub/dir/"; several sources are separated by "|".  SEED_DIR is
#   copied (cp -a) into both destinations first.  One PASS/FAIL line.
pull_both() {
	local name=$1 opts=$2 suffix=$3 seed=${4:-}
	local rd=$TMP/r_$name pd=$TMP/p_$name o=$OUTDIR/$name
	local srcs_r=() srcs_p=() s why=() tcflags=() plog_lines=0 inc=(--no-inc-recursive)
	local IFS_save=$IFS
	IFS='|' read -ra s <<<"$suffix"
	IFS=$IFS_save
	local x rootattrs=1 pl_lines=0
	# Bound the run time when the P side hangs: after PB_MAX_HANGS pulls in
	# a row that ended in a client timeout, the remaining pulls are not run.
	if [ "$PB_HANGS" -ge "$PB_MAX_HANGS" ]; then
		fail "$name: not run ($P_LABEL timed out $PB_HANGS times in a row)"
		return 1
	fi
	for x in "${s[@]}"; do
		srcs_r+=("rsync://127.0.0.1:$R_PORT/$x")
		srcs_p+=("rsync://127.0.0.1:$P_PORT/$x")
		case $x in */|mod) ;; *) rootattrs=0 ;; esac
	done
	[ "${#s[@]}" -gt 1 ] && rootattrs=0
	# The destination root is only given attributes by a dot-dir source.
	[ $rootattrs = 0 ] && tcflags+=(--no-root-attrs)
	[ "${PB_INC:-0}" = 1 ] && inc=()
	rm -rf "$rd" "$pd"
	mkdir -p "$rd" "$pd"
	if [ -n "$seed" ]; then
		cp -a "$seed/." "$rd/" && cp -a "$seed/." "$pd/"
	fi
	# A fixed mtime for the roots: the client leaves it alone unless the
	# source is a dot-dir.
	touch -d @1000000000 "$rd" "$pd"
	[ -f "$P_LOG.stderr" ] && plog_lines=$(wc -l <"$P_LOG.stderr")
	[ -f "$P_LOG" ] && pl_lines=$(wc -l <"$P_LOG")
	# The two clients run side by side (2 cores; different daemons and
	# destinations, nothing shared).
	set -f	# OPTS is a word list on purpose; no globbing of --exclude=*.x
	# shellcheck disable=SC2086
	rsync_client $opts "${inc[@]}" "${srcs_r[@]}" "$rd/" >"$o.r.out" 2>"$o.r.err" &
	local cr=$!
	# shellcheck disable=SC2086
	rsync_client $opts "${inc[@]}" "${srcs_p[@]}" "$pd/" >"$o.p.out" 2>"$o.p.err" &
	local cp=$!
	set +f
	wait $cr; PB_RC_R=$?
	wait $cp; PB_RC_P=$?
	case $PB_RC_P in	# timeout(1), rsync's I/O and connect timeouts
	124|30|35) PB_HANGS=$((PB_HANGS + 1)) ;;
	*) PB_HANGS=0 ;;
	esac
	# shellcheck disable=SC2034  # results for the calling test
	PB_OUT_R=$o.r.out PB_OUT_P=$o.p.out
	# shellcheck disable=SC2034
	MATCHED_R=$(stat_field "$o.r.out" "Matched data")
	# shellcheck disable=SC2034
	MATCHED_P=$(stat_field "$o.p.out" "Matched data")
	# shellcheck disable=SC2034
	LITERAL_R=$(stat_field "$o.r.out" "Literal data")
	# shellcheck disable=SC2034
	LITERAL_P=$(stat_field "$o.p.out" "Literal data")

	[ "$PB_RC_R" = "$PB_RC_P" ] || why+=("exit code rsyncd=$PB_RC_R $P_LABEL=$PB_RC_P")
	local want=${EXPECT_RC:-0}
	if [ "$want" != any ]; then
		[ "$PB_RC_R" = "$want" ] || why+=("rsyncd exit $PB_RC_R, expected $want (oracle/harness)")
		[ "$PB_RC_P" = "$want" ] || why+=("$P_LABEL exit $PB_RC_P, expected $want")
	fi
	normalise "$o.r.err" >"$o.r.nerr"; normalise "$o.p.err" >"$o.p.nerr"
	normalise "$o.r.out" >"$o.r.nout"; normalise "$o.p.out" >"$o.p.nout"
	cmp -s "$o.r.nerr" "$o.p.nerr" || why+=("stderr differs")
	cmp -s "$o.r.nout" "$o.p.nout" || why+=("stdout differs")
	# shellcheck disable=SC2086
	$TREECMP "$rd" "$pd" "${tcflags[@]}" ${TC:-} >"$o.tc" 2>&1 || why+=("trees differ")

	if [ ${#why[@]} -eq 0 ]; then
		pass "$name: $opts ${suffix} (rc=$PB_RC_P)"
		[ "${PB_KEEP:-0}" = 1 ] || rm -rf "$rd" "$pd"
		return 0
	fi
	local IFS=';'
	fail "$name: $opts ${suffix}: ${why[*]}"
	IFS=$IFS_save
	if ! cmp -s "$o.r.nerr" "$o.p.nerr"; then
		echo "    stderr (< rsyncd, > $P_LABEL):"
		diff "$o.r.nerr" "$o.p.nerr" | grep '^[<>]' | head -6 | cut -c1-200 | sed 's/^/      /'
	fi
	if ! cmp -s "$o.r.nout" "$o.p.nout"; then
		echo "    stdout (< rsyncd, > $P_LABEL):"
		diff "$o.r.nout" "$o.p.nout" | grep '^[<>]' | head -6 | cut -c1-200 | sed 's/^/      /'
	fi
	if [ -s "$o.tc" ] && grep -q differences "$o.tc"; then
		echo "    tree (A = rsyncd, B = $P_LABEL):"
		head -8 "$o.tc" | cut -c1-200 | sed 's/^/    /'
	fi
	kill -0 "$R_PID" 2>/dev/null || echo "    rsyncd (pid $R_PID) is not running"
	kill -0 "$P_PID" 2>/dev/null || echo "    $P_LABEL (pid $P_PID) is not running"
	if [ "$want" != any ] && [ "$PB_RC_R" != "$want" ]; then
		echo "    rsyncd stderr:"
		head -4 "$o.r.err" | cut -c1-200 | sed 's/^/      /'
	fi
	if [ -f "$P_LOG" ] && [ "$(wc -l <"$P_LOG")" -gt "$pl_lines" ]; then
		tail -n +"$((pl_lines + 1))" "$P_LOG" | grep -iE 'error|fail|denied|abort|refus|unsupported|not implemented|killed|exited with|signal|reset' \
			| head -3 | cut -c1-200 | sed "s/^/    $P_LABEL log: /"
	fi
	if [ -f "$P_LOG.stderr" ] && [ "$(wc -l <"$P_LOG.stderr")" -gt "$plog_lines" ]; then
		echo "    $P_LABEL stderr log:"
		tail -n +"$((plog_lines + 1))" "$P_LOG.stderr" | head -5 | cut -c1-200 | sed 's/^/      /'
	fi
	return 1
}

# oracle_check NAME DEST SRC [treecmp flags...]: the rsyncd destination
# against the source tree; checks the harness and the tree, not prsyncd.
oracle_check() {
	local name=$1 dest=$2 src=$3; shift 3
	if $TREECMP "$src" "$dest" "$@" >"$OUTDIR/$name.oracle" 2>&1; then
		pass "oracle $name: rsyncd copy equals the source"
	else
		fail "oracle $name: rsyncd copy differs from the source"
		head -8 "$OUTDIR/$name.oracle" | sed 's/^/    /'
	fi
}
