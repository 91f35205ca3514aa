#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The other direction: a hostile session monitor (tests/tools/fake_monitor.c)
# starts the real worker on a socketpair, exactly as prsyncd-monitor does,
# answers honestly from a made-up module until one chosen answer, and sends
# that one crafted: for every monitor-to-worker type (INIT, MODLIST,
# MODLIST_END, SELECT, AUTHREQ, XFERLOG, STAT, LIST, LIST_END, READLINK,
# OPENV (the "open" point: the answer to the batched opens of the files
# sent), IDNAME, XATTR, XATTR_END; the last two with -X at protocol 32) the
# framing faults (body length, magic, sequence, short and oversized
# records, flags, two descriptors, a worker type, a valid answer of the
# wrong type, an answer nobody asked for) and every body field the
# validator checks.  A stock client (or, before the handshake, a raw one)
# drives the worker to that point.  The worker must exit with a status
# (no signal, no sanitizer report), log the validator's reason, send no
# further request after the bad answer, and never pass the crafted
# strings (marked EVIL) to the client.  A descriptor that is not what the
# answer says (a pipe, a directory, a file shorter than announced) must
# end in a clean per-file error, as for a file that shrinks.
. "$(dirname "$0")/../lib.sh"

FM=$TOOLS/fake_monitor
mkdir -p "$TMP/empty"
chmod 555 "$TMP/empty"

generic="len magic seq short big flagbad fds2 dir type"
declare -A why=(
	[len]="wrong body length for type" [magic]="bad magic" [seq]="out-of-sequence message"
	[short]="short record" [big]="oversized record or descriptor overflow" [flagbad]="bad header flags"
	[fds2]="more than one descriptor" [dir]="message sent in the wrong direction"
	[str]="malformed string field" [field]="field out of range" [fd]="descriptor missing or unexpected"
)
# POINT: the faults specific to it, each with the reason class the validator gives.
declare -A specific=(
	[init]="mode:field uid0:field gid0:field uidmax:field timeout0:field timeout-big:field motd-nofd:fd fd-nomotd:fd motd2:fd proto26:field proto33:field chroot-rel:field chroot-dotdot:field chroot-str:str addr-str:str"
	[modlist]="name-empty:field name-str:str comment-str:str len-lie:str"
	[modlist_end]=""
	[select]="status3:field ok-with-error:field ok-module-empty:field ro2:field numeric2:field module-str:str dc-str:str timeout-big:field args0:field args-big:field error-timeout:field error-noprefix:field error-newline:field error-empty:field error-with-module:field error-ro:field error-str:str"
	[xferlog]="files2:field pid0:field pid-neg:field format-str:str path-str:str"
	[stat]="err-neg:field err-big:field err-with-link:field nsec:field mode0:field mode-bits:field link-on-dir:field lnk-none:field linkstate5:field link-str:str"
	[list]="name-slash:str name-dot:str name-dotdot:str name-nul:str count:field zero:field used:field trunc:field err:field mode:field linkstate:field link-on-file:field lnk-none:field namelen0:field"
	[list_end]="err-neg:field err-big:field"
	[readlink]="empty-ok:field err-with-target:field err-neg:field str:str"
	[open]="nofd:fd fd-with-err:fd err-big:field mode-dir:field handle0:field nsec:field count0:field count17:field nfds-lie:fd after-count:field err-with-handle:field"
	[idname]="found-empty:field found2:field notfound-with-name:field str:str"
	[authreq]="chal-short:field pad:field newline:field blank:field chal-long:field str:str timeout0:field"
	[xattr]="used0:field used-big:field"
	[xattr_end]="err-neg:field err-with-count:field count-big:field total-big:field count-no-total:field"
)
# How the worker reports a bad answer at each point, and the exit status.
declare -A logfmt=(
	[init]="invalid answer from the monitor: %s" [select]="invalid answer from the monitor: %s"
	[xferlog]="invalid answer from the monitor: %s"
	[stat]="invalid answer from the monitor: %s" [readlink]="invalid answer from the monitor: %s"
	[open]="invalid answer from the monitor: %s" [idname]="invalid answer from the monitor: %s"
	[authreq]="invalid answer from the monitor: %s" [xattr]="invalid answer from the monitor: %s" [xattr_end]="invalid answer from the monitor: %s"
	[list]="bad listing answer from the monitor: %s" [list_end]="bad listing answer from the monitor: %s"
	[modlist]="invalid answer from the monitor: %s" [modlist_end]="invalid answer from the monitor: %s"
)
declare -A status=(
	[init]=14 [select]=14 [authreq]=14 [xferlog]=14 [stat]=14 [readlink]=14 [open]=14 [idname]=14 [list]=14 [list_end]=14
	[modlist]=10 [modlist_end]=10 [xattr]=14 [xattr_end]=14
)

# run_case POINT:FAULT: one fake monitor, one client; sets RES, COUT, CRC.
run_case() {
	local c=$1 p=${1%%:*} port
	port=$(free_port)
	rm -f "$TMP/ready" "$TMP/res"
	rm -rf "$TMP/dest"
	mkdir -p "$TMP/dest"
	timeout 60 "$FM" "$BIN/prsyncd-worker" "$TMP/empty" "$port" "$TMP/ready" "$c" > "$TMP/res" 2>> "$TMP/fm.stderr" &
	local fm=$!
	for _ in $(seq 1 100); do [ -e "$TMP/ready" ] && break; sleep 0.05; done
	case $p in
	init|modlist|modlist_end)
		COUT=$(rawclient "$port" --send '@RSYNCD: 32.0 md5\n\n' --timeout 10 2>&1); CRC=$?;;
	xattr|xattr_end)
		COUT=$(rsync_client -aX --protocol=32 "rsync://127.0.0.1:$port/pub/" "$TMP/dest/" 2>&1); CRC=$?;;
	*)
		COUT=$(rsync_client -a "rsync://127.0.0.1:$port/pub/" "$TMP/dest/" 2>&1); CRC=$?;;
	esac
	wait "$fm"
	RES=$(grep '^RESULT ' "$TMP/res")
}

# expect_refused POINT FAULT REASON [LOG]: a crafted answer the worker
# refuses, logging the validator's REASON in the point's format, or LOG
# exactly.
expect_refused() {
	local p=$1 f=$2 reason=$3 want=${4:-} log t bad=""
	run_case "$p:$f"
	local name="$p:$f"
	case $RES in
	*" injected=yes status=exit:${status[$p]} "*) pass "$name: worker exits ${status[$p]}";;
	*) fail "$name: $RES (client: $COUT)"; return;;
	esac
	local after=${RES#* after=}; after=${after%% log=*}
	# An unsolicited answer follows a good one, which the worker rightly
	# acts on with its next request; that request's answer is the bad one.
	local skip=0
	[ "$f" = unsolicited ] && skip=1
	for t in ${after//,/ }; do
		case $t in
		PR_W_LOG|PR_W_EXIT) ;;
		*) [ "$skip" = 1 ] && skip=0 || bad+=" $t";;
		esac
	done
	[ -z "$bad" ] && pass "$name: no request after the bad answer (${after:-nothing})" ||
		fail "$name: requests after the bad answer:$bad"
	log=${RES#* log=}
	# shellcheck disable=SC2059
	[ -z "$want" ] && [ -n "${logfmt[$p]}" ] && want=$(printf "${logfmt[$p]}" "$reason")
	[ "$log" = "$want" ] && pass "$name: logged '$log'" || fail "$name: logged '$log', want '$want'"
	grep -q EVIL <<<"$COUT" && fail "$name: the crafted text reached the client: $COUT" ||
		pass "$name: nothing crafted reached the client"
	[ -z "$(find "$TMP/dest" -name '*EVIL*')" ] || fail "$name: a crafted name reached the client's tree"
	[ "$p" = init ] && { [ -z "$COUT" ] && pass "$name: the worker never spoke to the client" ||
		fail "$name: the worker spoke before its sandbox: $COUT"; }
	return 0
}

for p in init modlist modlist_end select authreq xferlog stat list list_end readlink open idname xattr xattr_end; do
	for f in $generic; do
		case $p:$f in
		modlist_end:short|modlist_end:big|list_end:short|list_end:big|idname:short|idname:big) continue;;
		xattr_end:short|xattr_end:big) continue;;
		esac
		case $p:$f in
		idname:type) expect_refused "$p" type "" "unexpected answer PR_M_LIST_END from the monitor";;
		# the answer to OPENV may carry several descriptors: an extra one
		# is a count that does not match its successes
		open:fds2) expect_refused "$p" fds2 "${why[fd]}";;
		*:type) expect_refused "$p" type "" "unexpected answer PR_M_IDNAME from the monitor";;
		*) expect_refused "$p" "$f" "${why[$f]}";;
		esac
	done
	for s in ${specific[$p]}; do
		expect_refused "$p" "${s%%:*}" "${why[${s##*:}]}"
	done
done
expect_refused select unsolicited "" "unexpected answer PR_M_MODLIST_END from the monitor"
expect_refused xferlog unsolicited "" "unexpected answer PR_M_MODLIST_END from the monitor"
# a well-formed answer to OPENV with more answers than paths asked
expect_refused open count-more "" "OPENV answered 2 paths of 1"
expect_refused stat unsolicited "" "unexpected answer PR_M_MODLIST_END from the monitor" # the next request is a LIST
expect_refused readlink unsolicited "" "unexpected answer PR_M_MODLIST_END from the monitor"
# XATTR answers that pass the validator but lie: a malformed record, totals
# that are not the pieces', more pieces than the bound
expect_refused xattr rec-bad "" "malformed xattr records from the monitor"
expect_refused xattr_end total-lie "" "bad xattr answer from the monitor: 13 bytes for 14"
expect_refused xattr overflow "" "bad xattr answer from the monitor: more than 1048576 bytes"

# Valid answers whose descriptor is not what they say: the worker reads
# what it can, reports a read error for that file, and the session ends
# as for a file that shrank (exit 23), with no crash.
for f in pipe dirfd size-lie; do
	run_case "open:$f"
	case $RES in
	*" injected=yes status=exit:23 "*) pass "open:$f: the worker ends with a per-file error (23)";;
	*) fail "open:$f: $RES";;
	esac
	[ "$CRC" = 23 ] && grep -q 'read errors mapping' <<<"$COUT" && pass "open:$f: the client sees the read error, exit 23" ||
		fail "open:$f: client rc $CRC: $COUT"
done

# A final honest session: the made-up module arrives whole.
run_case none:none
case $RES in *" injected=no status=exit:0 "*) pass "honest fake monitor: clean session";; *) fail "honest session: $RES";; esac
[ "$(cat "$TMP/dest/f" 2>/dev/null)" = hello ] && pass "honest fake monitor: the file arrives" || fail "honest session: $COUT"
if grep -Eq 'Sanitizer|runtime error' "$TMP/fm.stderr" 2>/dev/null; then
	fail "sanitizer report from the worker: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/fm.stderr")"
else
	pass "no sanitizer report from the worker"
fi
finish
