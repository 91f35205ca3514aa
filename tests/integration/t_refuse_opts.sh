#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# "refuse options" and every other refusal, against rsync --daemon with
# the same configuration: option names, letters, aliases, wildcards, "!"
# exceptions, what options imply (-a's parts, -z by a level, --delete by
# --remove-source-files, --inplace by --append), and the options rsyncd
# refuses in every module.
#
# A refusal must print rsyncd's text.  rsyncd's client then reads a reset
# and exits 10; prsyncd ends the session cleanly with the exit code rsyncd
# itself ends with for a refused option (4), and its client must not see
# "Connection reset by peer".  An accepted option must transfer the same
# tree with the same exit code as rsyncd.
. "$(dirname "$0")/../lib.sh"
TREECMP="python3 $TOP/tests/tools/treecmp.py"

chmod 755 "$TMP"
src=$TMP/src
mkdir -p "$src/sub/deep"
echo one > "$src/a.txt"; echo two > "$src/sub/b.c"; echo three > "$src/sub/deep/c"
ln -s a.txt "$src/link"
conf=$TMP/r.conf
{
	echo "use chroot = no"
	echo "uid = root"
	echo "gid = root"
	mod() { printf '[%s]\n\tpath = %s\n\trefuse options = %s\n' "$1" "$src" "$2"; }
	printf '[plain]\n\tpath = %s\n' "$src"
	mod pub "n c delete *links !safe-links zl"
	mod alias "no-perms del log-format s"
	mod archive "archive"
	# (the test client always sends --timeout)
	mod star "* !a !v !r !l !p !t !g !o !D !e !server !sender !timeout"
	mod letterD "D"
	mod zz "z"
	mod delb "delete-before delete-during"
	mod inpl "inplace"
	mod rsf "delete"
	mod noiconv "no-iconv"
	mod bogus "bogus-thing c"
	mod wild "delete-* [cn]"
	mod threads "compress-threads"
	mod zt "zt"
	mod cksum "checksum-choice"
	mod ccword "cc"
	mod ima "ignore-missing-args"
} > "$conf"
pp=$(free_port); rp=$(free_port)
start_prsyncd "$conf" "$pp" "$TMP/p.log" || fail "prsyncd did not start"
start_rsyncd "$conf" "$rp" || fail "rsyncd did not start"

refusal_lines() { grep -E '^rsync: (The server is configured to refuse|on remote machine: )' <<<"$1" | LC_ALL=C sort; }

# case NAME MODULE ARGS...: both daemons, the same client
case_() {
	local name=$1 mod=$2; shift 2
	local rr=0 pr=0 ro po rt pt
	rm -rf "$TMP/r_$name" "$TMP/p_$name"
	ro=$(rsync_client "$@" "rsync://127.0.0.1:$rp/$mod/" "$TMP/r_$name" 2>&1) || rr=$?
	po=$(rsync_client "$@" "rsync://127.0.0.1:$pp/$mod/" "$TMP/p_$name" 2>&1) || pr=$?
	rt=$(refusal_lines "$ro"); pt=$(refusal_lines "$po")
	if [ -n "$rt" ]; then
		if [ "$rt" = "$pt" ] && [ "$pr" = 4 ] && ! grep -q 'reset by peer' <<<"$po"; then
			pass "$name: refused as rsyncd refuses it: '$rt' (rsyncd exit $rr, prsyncd exit 4, no reset)"
		else
			fail "$name [$mod $*]: rsyncd=$rr prsyncd=$pr"
			echo "    rsyncd:  $rt"; echo "$po" | sed 's/^/    prsyncd: /' | head -5
		fi
		return
	fi
	if [ "$rr" = "$pr" ] && [ -z "$pt" ] &&
	   { [ "$rr" != 0 ] || [ ! -e "$TMP/r_$name" ] ||
	     $TREECMP "$TMP/r_$name" "$TMP/p_$name" --no-root-attrs --no-times --no-perms --no-owner >/dev/null 2>&1; }; then
		pass "$name: accepted by both (exit $pr)"
	else
		fail "$name [$mod $*]: rsyncd=$rr prsyncd=$pr"
		echo "$po" | sed 's/^/    prsyncd: /' | head -5
	fi
}

# rsyncd's own examples of refusals, at three protocols
for p in 27 30 32; do
	case_ "n-p$p" pub -a -n --protocol=$p
done
case_ n-r pub -r -n
case_ c pub -r -c
case_ delete-pull pub -r --delete          # a pull sends no --delete: accepted
case_ delete-sent pub -r -M--delete
case_ wildcard-links pub -a
case_ wildcard-L pub -r -L
case_ exception-safe-links pub -r --safe-links
case_ zl pub -r -M--zl=1
case_ z-accepted pub -r -z
# aliases: a plain word reaches the other spellings of the same setting
case_ alias-no-p alias -r -M--no-p
case_ alias-delete-during alias -r -M--delete-during
case_ alias-out-format alias -r -M--out-format=%n
case_ alias-protect-args alias -r -M--protect-args
case_ alias-perms-ok alias -rp
# "archive" means the letters -a sets
case_ archive-r archive -r
case_ archive-d archive -d
# everything but what -a needs: '*' and '!' exceptions
case_ star-a star -a
case_ star-c star -a -c
case_ star-n star -a -n                   # -n is never matched by a wildcard
case_ star-no-times star -a -M--no-times
case_ wild-delete-after wild -r -M--delete-after
case_ wild-n wild -r -n
case_ wild-c wild -r -c
# letter-only options print as rsyncd prints them
case_ letter-D letterD -a
# implied refusals
case_ implied-z zz -r -z
case_ implied-zl zz -r --zl=1
case_ implied-zc zz -r --compress-choice=zlib
case_ implied-zc-none zz -r --compress-choice=none
case_ implied-delete-before delb -r -M--delete
case_ implied-delete-after delb -r -M--delete-after
case_ implied-inplace inpl -r --append
case_ implied-rsf rsf -r --remove-source-files
case_ no-iconv noiconv -r
case_ bogus-word bogus -r
grep -q 'No match for refuse-options string "bogus-thing"' "$TMP/p.log" &&
	pass "a word that names no option is logged as rsyncd logs it" || fail "no 'No match' log line"

# --compress-threads and its alias --zt (issue 26): either name refuses both
case_ threads threads -r -M--compress-threads=2
case_ threads-zt threads -r -M--zt=2
case_ zt-threads zt -r -M--compress-threads=2

# --checksum-choice and its alias --cc: a client sends either as
# --checksum-choice=...; both daemons refuse it by either name
case_ checksum-choice cksum -r --checksum-choice=md5
case_ cc-as-client-sends-it cksum -r --cc=md5
case_ cc-word ccword -r --checksum-choice=md5
# rsyncd's refusal fails open for --ignore-missing-args and
# --delete-missing-args (popt bit-set options: set_refuse_options() turns
# a refused POPT_ARG_VAL into POPT_ARG_NONE but not POPT_BIT_SET, so popt
# ORs the refusal marker into missing_args and never reports it).  The
# garbage value reads as --delete-missing-args: a missing argument comes
# as a deletion entry ('skipping non-regular file').  prsyncd refuses as
# the operator asked.
rr=0; pr=0
ro=$(rsync_client -r --ignore-missing-args "rsync://127.0.0.1:$rp/ima/nonexist" "rsync://127.0.0.1:$rp/ima/a.txt" "$TMP/ima_r" 2>&1) || rr=$?
po=$(rsync_client -r --ignore-missing-args "rsync://127.0.0.1:$pp/ima/nonexist" "rsync://127.0.0.1:$pp/ima/a.txt" "$TMP/ima_p" 2>&1) || pr=$?
[ "$rr" = 0 ] && grep -q 'skipping non-regular file "nonexist"' <<<"$ro" && [ "$pr" = 4 ] &&
	grep -qxF 'rsync: The server is configured to refuse --ignore-missing-args' <<<"$po" &&
	pass "refused --ignore-missing-args: rsyncd serves it as --delete-missing-args (fail-open), prsyncd refuses (exit 4)" ||
	fail "refused --ignore-missing-args: rsyncd=$rr prsyncd=$pr: $(tr '\n' ' ' <<<"$ro") / $(tr '\n' ' ' <<<"$po")"

# What rsyncd refuses in every module, and options that do not exist.
case_ always-bogus plain -r -M--bogus
case_ always-copy-devices plain -r -M--copy-devices
case_ always-log-file plain -r -M--log-file=/tmp/x
case_ always-iconv plain -r --iconv=UTF-8,ISO-8859-1
case_ always-crtimes plain -r -M-N
case_ always-insecure-links plain -r -M--insecure-links
# --no- forms rsync does not have are unknown options to it
case_ unknown-no-stats plain -r -M--no-stats
case_ unknown-no-dry-run plain -r -M--no-dry-run
case_ unknown-no-update plain -r -M--no-update
# --remove-source-files on a read-only module: rsyncd's error after the
# setup, exit 1 on both
rr=0; pr=0
rsync_client -r --remove-source-files "rsync://127.0.0.1:$rp/plain/" "$TMP/r_rm" >/dev/null 2>&1 || rr=$?
out=$(rsync_client -r --remove-source-files "rsync://127.0.0.1:$pp/plain/" "$TMP/p_rm" 2>&1) || pr=$?
[ "$rr" = 1 ] && [ "$pr" = 1 ] && grep -q '^ERROR: --remove-source-files cannot be used with a read-only module' <<<"$out" &&
	pass "--remove-source-files: rsyncd's error, exit 1" || fail "--remove-source-files: rsyncd=$rr prsyncd=$pr $out"

# Options an earlier prsyncd refused and now serves: the same exit code
# as rsyncd for a module that does not refuse them (a missing
# --files-from file: rsyncd's reset, exit 10, on both).
served() { # served NAME ARGS...
	local name=$1 pr=0 rr=0; shift
	rsync_client "$@" "rsync://127.0.0.1:$rp/plain/" "$TMP/r_$name" >/dev/null 2>&1 || rr=$?
	rsync_client "$@" "rsync://127.0.0.1:$pp/plain/" "$TMP/p_$name" >/dev/null 2>&1 || pr=$?
	[ "$pr" = "$rr" ] && pass "$name: served, exit $pr as rsyncd" || fail "$name: rsyncd=$rr prsyncd=$pr"
}
served acls -rA
served xattrs -rX
served copy-links -rL
served copy-dirlinks -rk
served copy-unsafe-links -r --copy-unsafe-links
served files-from -r -M--files-from=list

# Every long option both take, each refused by its own name in a module
# of its own: the client sending it by that name is refused by both, with
# the same text (a name an option table lacks slips past its rule).
every="verbose info=1 debug=1 stderr=1 msgs2stderr no-msgs2stderr quiet stats human-readable
no-human-readable archive recursive no-recursive inc-recursive no-inc-recursive i-r no-i-r dirs
no-dirs perms no-perms executability acls no-acls xattrs times no-times atimes open-noatime
no-open-noatime crtimes no-crtimes omit-dir-times no-omit-dir-times omit-link-times
no-omit-link-times modify-window=1 super no-super fake-super owner no-owner group no-group devices
no-devices specials no-specials links no-links copy-links copy-unsafe-links safe-links
insecure-links no-insecure-links munge-links no-munge-links copy-dirlinks keep-dirlinks hard-links
relative no-relative implied-dirs no-implied-dirs chmod=u+r ignore-times size-only one-file-system
update existing ignore-non-existing ignore-existing max-size=1 min-size=1 max-alloc=1G sparse
no-sparse preallocate inplace no-inplace append append-verify del delete delete-before
delete-during delete-delay delete-after delete-excluded delete-missing-args ignore-missing-args
remove-sent-files remove-source-files force no-force ignore-errors no-ignore-errors max-delete=1
filter=-_x exclude=x include=x exclude-from=x include-from=x cvs-exclude whole-file no-whole-file
checksum no-checksum checksum-choice=md5 cc=md5 block-size=700 compare-dest=x copy-dest=x
link-dest=x fuzzy no-fuzzy compress old-compress new-compress compress-choice=zlib zc=zlib
skip-compress=gz compress-level=1 zl=1 compress-threads=1 zt=1 progress no-progress partial
no-partial partial-dir=x delay-updates no-delay-updates prune-empty-dirs no-prune-empty-dirs
out-format=%n log-format=%n itemize-changes no-itemize-changes bwlimit=1000 backup no-backup
backup-dir=x suffix=x list-only from0 no-from0 secluded-args no-secluded-args protect-args
no-protect-args numeric-ids no-numeric-ids usermap=1:2 groupmap=1:2 chown=1:2 contimeout=5 fsync
stop-after=5 stop-at=2099-01-01T00:00 temp-dir=x 8-bit-output no-8-bit-output mkpath no-mkpath qsort"
conf2=$TMP/every.conf
{
	echo "use chroot = no"; echo "uid = root"; echo "gid = root"
	for o in $every; do printf '[r-%s]\n\tpath = %s\n\trefuse options = %s\n' "${o%%=*}" "$src" "${o%%=*}"; done
} > "$conf2"
pp2=$(free_port); rp2=$(free_port)
start_prsyncd "$conf2" "$pp2" "$TMP/p2.log" || fail "prsyncd did not start (every)"
start_rsyncd "$conf2" "$rp2" || fail "rsyncd did not start (every)"
# Two kinds differ, each for a reason (docs/configuration.md, "refuse
# options"): rsyncd's refusal fails open for the two bit-set options
# (above), and for --checksum-choice/--cc sent with -M rsyncd does refuse
# but has stored the value by then, so its error path skips the checksum
# negotiation the client expects: the client reads the message as a
# checksum list and fails (exit 4 or 12) without printing the refusal.
failopen="delete-missing-args ignore-missing-args"
garbled="checksum-choice cc"
same=0; explained=0; differ=""
for o in $every; do
	rr=0; pr=0
	ro=$(rsync_client -r "-M--$o" "rsync://127.0.0.1:$rp2/r-${o%%=*}/" "$TMP/e_r" 2>&1) || rr=$?
	po=$(rsync_client -r "-M--$o" "rsync://127.0.0.1:$pp2/r-${o%%=*}/" "$TMP/e_p" 2>&1) || pr=$?
	rm -rf "$TMP/e_r" "$TMP/e_p"
	rt=$(refusal_lines "$ro"); pt=$(refusal_lines "$po")
	mine="rsync: The server is configured to refuse --${o%%=*}"
	if [ -n "$rt" ] && [ "$rt" = "$pt" ] && [ "$pr" = 4 ]; then same=$((same + 1))
	elif [ -z "$rt" ] && [ -z "$pt" ] && [ "$rr" = "$pr" ]; then same=$((same + 1))
	elif grep -qw -- "${o%%=*}" <<<"$failopen" && [ "$rr" = 0 ] && [ -z "$rt" ] && [ "$pr" = 4 ] && [ "$pt" = "$mine" ]; then
		explained=$((explained + 1))
	elif grep -qw -- "${o%%=*}" <<<"$garbled" && [ -z "$rt" ] && { [ "$rr" = 4 ] || [ "$rr" = 12 ]; } &&
	     grep -Eq 'Failed to negotiate a checksum choice|safe_read failed' <<<"$ro" && [ "$pr" = 4 ] && [ "$pt" = "$mine" ]; then
		explained=$((explained + 1))
	else differ="$differ $o(rsyncd=$rr:${rt:-accepted} prsyncd=$pr:${pt:-accepted})"; fi
done
[ -z "$differ" ] && pass "every option refused by its own name: $same as rsyncd treats them, $explained refused where rsyncd's refusal fails (open or garbled)" ||
	fail "options refused differently:$differ"
[ "$explained" = 4 ] && pass "the four explained differences, each as explained" || fail "explained differences: $explained of 4"

# --- a refusal's log, line for line with rsyncd's ------------------------------
# the request, the refusal, the totals and the exit code; rsyncd names its
# source line and version where prsyncd names its step ("at refuse"), so
# that tail is left out.  (rsyncd needs "log file" in its configuration:
# with --log-file alone it moves to syslog at module selection.)
for side in r p; do
	printf 'use chroot = no\nuid = root\ngid = root\npid file = %s\nlog file = %s\n[lg]\n\tpath = %s\n\trefuse options = checksum\n' \
		"$TMP/lg.$side.pid" "$TMP/lg.$side.log" "$src" > "$TMP/lg.$side.conf"
done
lrp=$(free_port); lpp=$(free_port)
start_rsyncd "$TMP/lg.r.conf" "$lrp" || fail "rsyncd (log) did not start"
LR=$RSYNCD_PID
start_prsyncd "$TMP/lg.p.conf" "$lpp" "$TMP/lg.p.log" || fail "prsyncd (log) did not start"
LP=$PRSYNCD_PID
rsync_client -r -c "rsync://127.0.0.1:$lrp/lg/" "$TMP/lg_r" >/dev/null 2>&1
rsync_client -r -c "rsync://127.0.0.1:$lpp/lg/" "$TMP/lg_p" >/dev/null 2>&1
wait_log "$TMP/lg.r.log" "rsync error: requested action" && wait_log "$TMP/lg.p.log" "rsync error: requested action"
session_lines() { # the session's lines, without time, pid and the error's tail
	sed -n '/connect from/,$p' "$1" | cut -d' ' -f4- |
		grep -Ev '^(protocol [0-9]+, compat flags|literal data|filter work|match work)' |
		sed -E 's/^(rsync error: .*\(code [0-9]+\)) at .*/\1/'
}
if [ "$(session_lines "$TMP/lg.r.log")" = "$(session_lines "$TMP/lg.p.log")" ] &&
   [ "$(session_lines "$TMP/lg.p.log" | wc -l)" -ge 5 ]; then
	pass "a refusal logs rsyncd's lines: $(session_lines "$TMP/lg.p.log" | tr '\n' '|')"
else
	fail "refusal log differs"
	diff <(session_lines "$TMP/lg.r.log") <(session_lines "$TMP/lg.p.log") | sed 's/^/    /'
fi
stop_pid "$LR"; stop_pid "$LP"

grep -q 'killed' "$TMP/p.log" "$TMP/p2.log" && fail "a worker was killed" || pass "no worker killed"
finish
