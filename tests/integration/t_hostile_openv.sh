#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Batched opens (PR_W_OPENV / PR_W_CLOSEV) against the real session monitor,
# from a hostile worker (tests/tools/hostile_openv.c): every path is judged
# in a batch of sixteen exactly as alone (missing names, directories, devices, fifos,
# symlinks inside and out of the module, names the module's filters hide,
# links into them); the descriptor quota holds whatever the batching (32
# out, the rest EMFILE, freed only by a report of closes); thousands of
# batched open/close rounds leave the monitor holding nothing; a close
# report naming a handle never handed out, or twice, or stale, and a batch
# before module selection, each end the session with a log line.  The
# malformed records themselves are in t_hostile_worker2.sh (hdr ... OPENV,
# CLOSEV) and tests/unit/test_openv.c.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: t_hostile_openv.sh needs root (device nodes, the monitor's uid drop)"
	finish
	exit
fi

M=$TMP/pub
mkdir -p "$M/dir" "$M/private" "$TMP/outside"
echo hello > "$M/file"
echo secret > "$M/private/data"
echo key > "$M/a.key"
echo outside > "$TMP/outside/o"
mkfifo "$M/fifo"
mknod -m 666 "$M/chr" c 1 3
ln -s file "$M/lnk_file"
ln -s ../outside/o "$M/lnk_out"
ln -s /etc/passwd "$M/lnk_abs"
ln -s private/data "$M/lnk_private"
ln -s a.key "$M/lnk_key"
ln -s dir "$M/lnk_dir"
ln -s private "$M/lnk_privdir"
ln -s ../outside "$M/lnk_outdir"
cat > "$TMP/conf" <<CONF
handshake timeout = 5
[pub]
	path = $M
[filt]
	path = $M
	filter = - /private/
	exclude = *.key
CONF
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" --worker="$TOOLS/hostile_openv" || fail "prsyncd did not start"
L=$PRSYNCD_PID

# lineclient and expect_end (tests/lib.sh) drive the tool: at "HOLD NAME"
# the client prints the monitor's descriptor count, memory and state.

# --- OPENV judges each path as OPEN does -------------------------------------
paths="file missing dir fifo chr lnk_file lnk_out lnk_abs lnk_private lnk_key lnk_dir/x private/data a.key lnk_privdir/data lnk_outdir/o dir/none"
for mod in pub filt; do
	out=$(lineclient "same $mod $paths")
	if grep -q '^SAME-ALL yes$' <<<"$out"; then
		pass "$mod: 16 paths, OPENV answers as OPEN ($(grep '^SAME ' <<<"$out" | awk '{printf "%s ", $4}'))"
	else
		fail "$mod: OPENV and OPEN differ: $out"
	fi
	grep -q '^SAME 0 0 0$' <<<"$out" && pass "$mod: the regular file opens" || fail "$mod: file: $out"
done
# A path hidden by its name alone (itself as a file, or a directory above
# it) is answered PR_EHIDDEN (4095) before anything is looked up, whether
# or not it exists: the worker learns which names the filters hide (as
# rsyncd's clients do from a merge file they name), never what exists.
# Everything else hidden is ENOENT, like a missing name: a link into a
# hidden directory, and a directory hidden as a directory only (its type
# is only known by looking).
out=$(lineclient "same filt private/data a.key lnk_privdir/data file private/none none.key private none dir")
grep -Eq '^SAME 0 4095 4095$' <<<"$out" && grep -Eq '^SAME 1 4095 4095$' <<<"$out" &&
	grep -Eq '^SAME 4 4095 4095$' <<<"$out" && grep -Eq '^SAME 5 4095 4095$' <<<"$out" &&
	pass "filt: names hidden by name are PR_EHIDDEN in a batch, present or not" ||
	fail "filt: names hidden by name through OPENV: $out"
grep -Eq '^SAME 2 2 2$' <<<"$out" && grep -Eq '^SAME 6 2 2$' <<<"$out" && grep -Eq '^SAME 7 2 2$' <<<"$out" &&
	grep -Eq '^SAME 3 0 0$' <<<"$out" && grep -Eq '^SAME 8 22 22$' <<<"$out" &&
	pass "filt: a link into a hidden directory and a directory hidden as one are ENOENT, as a missing name" ||
	fail "filt: hidden paths through OPENV: $out"
out=$(lineclient "same pub lnk_outdir/o lnk_out private/data")
grep -Eq '^SAME 0 [1-9][0-9]* [1-9][0-9]*$' <<<"$out" && grep -Eq '^SAME 1 [1-9][0-9]* [1-9][0-9]*$' <<<"$out" &&
	grep -Eq '^SAME 2 0 0$' <<<"$out" && pass "pub: links out of the module refused in a batch" ||
	fail "pub: escaping links through OPENV: $out"

# --- the descriptor quota ------------------------------------------------------
out=$(lineclient "quota pub 160")
grep -q '^QUOTA n=160 ok=32 emfile=128 other=0$' <<<"$out" && pass "160 batched opens: 32 served, 128 EMFILE" ||
	fail "quota: $out"
fds=$(sed -n 's/^PROC quota fds=\([0-9]*\).*/\1/p' <<<"$out")
[ -n "$fds" ] && [ "$fds" -le 10 ] && pass "the monitor holds none of the 32 descriptors it handed out ($fds open)" ||
	fail "monitor descriptors at the quota: '$fds'"
grep -q '^AFTER ok=16$' <<<"$out" && pass "closes reported in an OPENV free the quota first" || fail "after: $out"
out=$(lineclient "churn pub 16000")
grep -q '^CHURN n=16000 ok=16000$' <<<"$out" && pass "16000 opens in batches, closes reported by the next" ||
	fail "churn: $out"
fds=$(sed -n 's/^PROC churn fds=\([0-9]*\).*/\1/p' <<<"$out")
[ -n "$fds" ] && [ "$fds" -le 10 ] && pass "no descriptor left in the monitor after 16000 ($fds open)" ||
	fail "monitor descriptors after churn: '$fds'"
out=$(lineclient "closev pub")
grep -q '^CLOSEV ok=2 third=24$' <<<"$out" && pass "CLOSEV frees exactly the handles it names" || fail "closev: $out"

# --- lies about handles, and a batch out of state ------------------------------
expect_end "close-unknown pub" "worker closed handle [0-9]+, which is not outstanding; ending session"
expect_end "close-twice pub" "worker closed handle [0-9]+, which is not outstanding; ending session"
expect_end "closev-unknown pub" "worker closed handle [0-9]+, which is not outstanding; ending session"
expect_end "closev-stale pub" "worker closed handle [0-9]+, which is not outstanding; ending session"
expect_end "before-select pub" "worker sent PR_W_OPENV in a state where it is not permitted; ending session"

# the listener still serves a real client afterwards
kill -0 "$L" 2>/dev/null && pass "the listener survived every case" || fail "the listener died"
finish
