#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The monitor's filesystem service under attack.  A hostile program in
# place of the worker selects module "pub" and then sends filesystem
# requests: malformed ones (the validator must end the session), and valid
# ones that try to leave the module through symlinks, including a directory
# swapped for a symlink to /etc between listing and opening.  Nothing
# outside the module may ever be opened, and the listener keeps serving.
# Module filters hold through every symlink: a link into a hidden
# directory, to a hidden file, chains, loops, escapes, a link swapped in
# the middle of a walk.  Also read from /proc: the session monitor, once a
# module is selected, runs as the module's uid under its own seccomp filter.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: t_hostile_fs.sh needs root (the monitor drops to the module's uid)"
	finish
	exit
fi

M=$TMP/pub
mkdir -p "$M/d"
printf 'hello\n' > "$M/file"
printf 'module passwd, not the system one\n' > "$M/d/passwd"
printf 'root:x:0:0:outside the module\n' > "$TMP/secret"
ln -s /etc "$M/link_to_etc"
ln -s /etc/passwd "$M/abs_link"
ln -s ../secret "$M/up_link"
ln -s file "$M/in_link"
ln -s "$(printf 'x%.0s' $(seq 1 300))" "$M/long_link"
mkfifo "$M/fifo"
# Module "hid": module filters the monitor must enforce on every request.
H=$TMP/hid
mkdir -p "$H/secret/inner" "$H/pub/sub"
for f in top.key secret/s.txt secret/inner/s2 pub/hidden.key pub/ok.txt pub/sub/n.key dironly; do
	echo "hidden content" > "$H/$f"
done
ln -s pub/ok.txt "$H/hlink"
ln -s ../pub/ok.txt "$H/secret/l"
# Module "lnk": links into what its filters hide, and into what they do not.
K=$TMP/lnk
mkdir -p "$K/private/inner" "$K/pub/sub" "$K/w" "$K/intdir"
echo secret > "$K/private/s.txt"
echo inner > "$K/private/inner/i.txt"
echo ok > "$K/pub/ok.txt"
echo hidden > "$K/pub/hidden.key"
echo hidden > "$K/pub/sub/x.key"
echo n > "$K/pub/sub/n"
echo x > "$K/intdir/x"
ln -s ../s.txt "$K/private/inner/ilink"
ln -s ../hidden.key "$K/pub/sub/klink2"
ln -s ../ok.txt "$K/pub/sub/ok_link"
ln -s private "$K/alias"                  # a directory link into a hidden directory
ln -s pub/hidden.key "$K/klink"           # a file link to a hidden file
ln -s chain_b "$K/chain_a"                # a chain: chain_a -> chain_b -> alias -> private
ln -s alias "$K/chain_b"
ln -s private/s.txt "$K/slink"
ln -s ../private "$K/pub/up"
ln -s pub/../private/s.txt "$K/dotdot_priv"
ln -s pub/sub/../ok.txt "$K/dotdot_ok"
ln -s loop_b "$K/loop_a"
ln -s loop_a "$K/loop_b"
ln -s self "$K/self"
ln -s /etc "$K/abs"
ln -s ../../../../etc "$K/esc"
ln -s /pub/ok.txt "$K/rootabs"            # absolute: the module root is "/"
ln -s ../../../pub/ok.txt "$K/rootesc"    # ".." above the root stays there
ln -s /private/s.txt "$K/rootpriv"        # absolute, into a hidden place
ln -s /pub "$K/rootabsdir"
ln -s pub "$K/publink"
for i in $(seq 0 38); do ln -s "l$((i + 1))" "$K/l$i"; done # 40 links: the most allowed
ln -s pub/ok.txt "$K/l39"
for i in $(seq 0 39); do ln -s "m$((i + 1))" "$K/m$i"; done # 41 links: one too many
ln -s pub/ok.txt "$K/m40"
ln -s pub/ok.txt "$K/prsyncd-test-hold" # swapped mid-walk (fs-swap-mid)
ln -s private/s.txt "$K/hold.new1"
ln -s ../pub "$K/w/prsyncd-test-hold"
ln -s ../private "$K/w/hold.new2"
# Attributes (XATTR): a marker on everything hidden or outside the
# module, a plain one on what is visible, one hidden by hid's 'x' rule.
XA=0
if command -v setfattr >/dev/null && setfattr -n user.in -v inside "$M/file" 2>/dev/null; then
	XA=1
	for f in "$TMP/secret" "$H/top.key" "$H/secret" "$H/secret/s.txt" "$H/pub/hidden.key" "$H/pub/sub/n.key" \
		"$K/private" "$K/private/s.txt" "$K/private/inner" "$K/private/inner/i.txt" "$K/pub/hidden.key"; do
		setfattr -n user.mark -v LEAKED "$f"
	done
	setfattr -n user.ok -v fine "$H/pub/ok.txt"
	setfattr -n user.modhidden -v LEAKED "$H/pub/ok.txt"
	setfattr -n user.ok -v fine "$K/pub/ok.txt"
	setfattr -n user.ok -v fine "$K/pub"
else
	echo "SKIP: XATTR answers with attributes (no setfattr, or no user xattrs under $TMP)"
fi
# $TMP stays 0700: the monitor reaches the module through the descriptor it
# opened as root, so the module root's ancestors need not admit "nobody".
cat > "$TMP/conf" <<CONF
handshake timeout = 5
[pub]
	path = $M
	numeric ids = no
[num]
	path = $M
	uid = 1234
	gid = 4321
[asroot]
	path = $M
	uid = root
	gid = 0
[nopath]
	path = $TMP/missing
[baduid]
	path = $M
	uid = no_such_user_prsyncd
[hid]
	path = $H
	exclude = *.key secret/ hlink dironly/
	filter = -x user.modhidden
[lnk]
	path = $K
	filter = - /private/
	exclude = *.key
CONF
nobody_uid=$(id -u nobody)
nobody_gid=$(getent passwd nobody | cut -d: -f4)

# Seccomp kills of the monitor itself are seen only in the kernel log.
monitor_kills() { dmesg 2>/dev/null | grep -c "type=1326.*exe=\"$PRSYNCD\""; }
kills_before=$(monitor_kills)
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" --worker="$TOOLS/hostile_worker" || fail "prsyncd did not start"
L=$PRSYNCD_PID

# The line client (tests/tools/lineclient.py) prints what the hostile
# worker reports and acts on "SWAP" (d becomes a symlink to /etc),
# "SWAPMID1/2" and "HOLD" (the monitor's /proc status).
fsclient() { timeout 60 python3 "$TOP/tests/tools/lineclient.py" "$port" "$1" --timeout 40 --moddir "$M" --lnkdir "$K" --log "$TMP/log"; }

WORKERS="" # pids of hostile workers: each must die with its monitor

# expect_raw_end MODE LOG-REGEX: a raw client sends MODE; the session ends
# with a matching log line (the worker it selected with must die too).
expect_raw_end() {
	local before
	before=$(wc -l < "$TMP/log")
	rawclient "$port" --send "$1\n" --timeout 6 > "$TMP/out"
	WORKERS+=" $(sed -n 's/^SELECTED ppid=[0-9]* pid=//p' "$TMP/out")"
	expect_logged "$1" "$before" "$2"
}

# --- malformed requests: the shared validator ends the session -----------
for op in LIST OPENV STAT READLINK XATTR; do
	for c in .. a/../b /etc a//b a/ . long nul unterminated; do
		# OPENV's paths are packed: one without its NUL breaks the packing
		[ "$op:$c" = OPENV:unterminated ] && why='field out of range' || why='malformed string field'
		expect_end "bad $op $c" "invalid message from worker \\($why\\)"
	done
done
expect_raw_end "bad STAT flags" 'invalid message from worker \(field out of range\)'
expect_raw_end "bad XATTR flags" 'invalid message from worker \(field out of range\)'
expect_raw_end "bad IDNAME kind3" 'invalid message from worker \(field out of range\)'
expect_raw_end "bad CLOSEV handle0" 'invalid message from worker \(field out of range\)'
expect_raw_end close-unknown 'worker closed handle 12345, which is not outstanding; ending session'
for op in LIST STAT OPENV CLOSEV READLINK IDNAME XATTR; do
	expect_end "fs-before-select $op" "worker sent PR_W_$op in a state where it is not permitted"
done
expect_raw_end fs-after-unknown-module 'worker sent PR_W_OPENV in a state where it is not permitted'
# A confined monitor has no kill() at all (kill(0)/kill(-1) would reach
# other sessions): it ends the session by exiting, and the worker dies of
# its parent-death signal (checked with every other hostile worker below).
expect_raw_end "close-unknown asroot" 'worker [0-9]+ ends with its session monitor'
# The worker dies by a signal after selection: reported under the filter.
expect_raw_end "die SIGSYS" 'worker [0-9]+ killed by signal 31 \(SIGSYS\): seccomp violation'
expect_raw_end "die TERM" 'worker [0-9]+ killed by signal 15 \(Terminated\)'
kill -0 "$L" 2>/dev/null && pass "listener alive after malformed requests" || fail "listener died"

# --- the monitor's own confinement, read while a session holds -----------
out=$(fsclient fs-hold)
WORKERS+=" $(sed -n 's/^SELECTED ppid=[0-9]* pid=//p' <<<"$out")"
field() { sed -n "s/^PROC $1=//p" <<<"$out"; }
[ "$(field Seccomp)" = 2 ] && pass "monitor Seccomp: 2" || fail "monitor Seccomp: '$(field Seccomp)' ($out)"
[ "$(field NoNewPrivs)" = 1 ] && pass "monitor NoNewPrivs: 1" || fail "monitor NoNewPrivs: '$(field NoNewPrivs)'"
[ "$(field Uid)" = "$nobody_uid $nobody_uid $nobody_uid $nobody_uid" ] && pass "monitor uids: $(field Uid) (nobody)" ||
	fail "monitor uids: '$(field Uid)', want $nobody_uid"
[ "$(field Gid)" = "$nobody_gid $nobody_gid $nobody_gid $nobody_gid" ] && pass "monitor gids: $(field Gid)" ||
	fail "monitor gids: '$(field Gid)', want $nobody_gid"
[ "$(field Groups)" = "$nobody_gid" ] && pass "monitor groups: only $nobody_gid" || fail "monitor groups: '$(field Groups)'"
[ "$(field CapEff)" = 0000000000000000 ] && pass "monitor CapEff zero" || fail "monitor CapEff: '$(field CapEff)'"
[ "$(field CapPrm)" = 0000000000000000 ] && pass "monitor CapPrm zero" || fail "monitor CapPrm: '$(field CapPrm)'"
[ "$(field cwd-root)" = "$M" ] && pass "monitor root is the module" || fail "monitor root: '$(field cwd-root)'"

# Numeric ids that name no user; uid 0 when configured (rsyncd allows it).
out=$(fsclient "fs-hold num")
[ "$(field Uid)/$(field Gid)/$(field Groups)/$(field Seccomp)" = "1234 1234 1234 1234/4321 4321 4321 4321/4321/2" ] &&
	pass "numeric uid/gid: 1234/4321 under seccomp" || fail "numeric uid/gid: $(grep PROC <<<"$out" | tr '\n' ' ')"
out=$(fsclient "fs-hold asroot")
[ "$(field Uid)/$(field Gid)/$(field Seccomp)/$(field cwd-root)" = "0 0 0 0/0 0 0 0/2/$M" ] &&
	pass "uid = root: stays root, chrooted, under seccomp" || fail "uid = root: $(grep PROC <<<"$out" | tr '\n' ' ')"
# A module that cannot be opened, or whose uid does not exist: refused, no drop.
before=$(wc -l < "$TMP/log")
out=$(fsclient "fs-hold nopath")
grep -q '^SELECT failed' <<<"$out" && wait_log "$TMP/log" "module nopath: cannot open path $TMP/missing" &&
	pass "missing module path refused" || fail "missing module path: $out"
out=$(fsclient "fs-hold baduid")
grep -q '^SELECT failed' <<<"$out" && wait_log "$TMP/log" "module baduid: Invalid uid no_such_user_prsyncd" &&
	pass "unknown module uid refused" || fail "unknown module uid: $out"

# --- module filters: hidden names look absent, whatever the request ---------
out=$(fsclient fs-hidden)
WORKERS+=" $(sed -n 's/^SELECTED ppid=[0-9]* pid=//p' <<<"$out")"
hid() { # hid NAME REGEX
	if grep -Eq -- "$2" <<<"$out"; then pass "hidden: $1"; else
		fail "hidden: $1: no line matching '$2'"; grep -E -- "${2%% *}" <<<"$out" | sed 's/^/    /'; fi
}
hid "root listing leaves hidden names out" '^LIST  err=0 n=2 names=(dironly,pub|pub,dironly)$'
grep -Eq '^LIST  .*(top\.key|secret|hlink)' <<<"$out" && fail "hidden: a hidden name was listed" || pass "hidden: no hidden name listed"
hid "LIST hidden dir"                '^LIST secret err=2 n=0 names=$'
hid "LIST below hidden dir"          '^LIST secret/inner err=2 n=0 names=$'
hid "LIST pub without *.key"         '^LIST pub err=0 n=2 names=(ok\.txt|sub|,)*$'
hid "LIST pub/sub empty"             '^LIST pub/sub err=0 n=0 names=$'
hid "LIST hidden file"               '^LIST top\.key err=2 n=0 names=$'
# OPEN of a name the filters hide as a file or below a hidden directory
# answers PR_EHIDDEN (4095), judged on the name before anything is looked
# up (msg.h: rsyncd skips such a merge file, fails on a missing one); a
# directory hidden as one is ENOENT, as it is only known by looking.
for p in top.key secret/s.txt secret pub/hidden.key pub/sub/n.key hlink; do
	e=4095; [ "$p" = secret ] && e=2
	hid "OPEN $p"                "^OPEN $p err=$e fd=-1 passwd=no"
	hid "STAT $p"                "^STAT $p follow=0 err=2 mode=0 "
	hid "STAT follow $p"         "^STAT $p follow=1 err=2 mode=0 "
done
hid "STAT below hidden dir"          '^STAT secret/inner follow=0 err=2 mode=0 '
hid "STAT absent, same answer"       '^STAT nosuch follow=0 err=2 mode=0 '
hid "OPEN visible file"              '^OPEN pub/ok\.txt err=0 fd=yes'
hid "a dir-only rule spares a file"  '^OPEN dironly err=0 fd=yes'
hid "STAT file under dir-only rule"  '^STAT dironly follow=0 err=0 mode=100'
hid "READLINK hidden link"           '^READLINK hlink err=2 len=0$'
hid "READLINK below hidden dir"      '^READLINK secret/l err=2 len=0$'
hid "READLINK visible file: EINVAL"  '^READLINK pub/ok\.txt err=22 len=0$'
 for p in top.key secret/s.txt secret secret/inner pub/hidden.key pub/sub/n.key hlink nosuch; do
	hid "XATTR $p"               "^XATTR $p follow=0 err=2 count=0 leak=no names=$"
	hid "XATTR follow $p"        "^XATTR $p follow=1 err=2 count=0 leak=no names=$"
done
if [ "$XA" = 1 ]; then
	hid "XATTR visible file, the module's x rule applied" '^XATTR pub/ok\.txt follow=0 err=0 count=1 leak=no names=user\.ok$'
fi
hid "XATTR file under dir-only rule" '^XATTR dironly follow=0 err=0 '
grep -q 'leak=yes' <<<"$out" && fail "hidden: an attribute hidden by a rule was read: $(grep 'leak=yes' <<<"$out")" ||
	pass "hidden: no hidden attribute read"
hid "IDNAME on a numeric-ids module" '^IDNAME 1 0 found=0 name=$'
hid "IDNAME gid, numeric-ids module" '^IDNAME 2 0 found=0 name=$'
hid "script completed"               '^DONE$'

# --- module filters through symlinks ---------------------------------------
before=$(wc -l < "$TMP/log")
out=$(fsclient fs-links)
WORKERS+=" $(sed -n 's/^SELECTED ppid=[0-9]* pid=//p' <<<"$out")"
lk() { # lk NAME REGEX
	if grep -Eq -- "$2" <<<"$out"; then pass "links: $1"; else
		fail "links: $1: no line matching '$2'"; grep -F -- "$(cut -d' ' -f1-2 <<<"${2#^}")" <<<"$out" | sed 's/^/    /'; fi
}
for p in alias/s.txt alias/inner/i.txt chain_a/s.txt pub/up/s.txt; do
	lk "OPEN $p (through a link into a hidden dir)" "^OPEN $p err=2 fd=-1"
done
lk "OPEN a final link onto a hidden file"     '^OPEN klink err=2 fd=-1'
lk "OPEN a final link into a hidden dir"       '^OPEN slink err=2 fd=-1'
lk "OPEN final link with .. to hidden"         '^OPEN dotdot_priv err=2 fd=-1'
lk "OPEN absolute target, from the module root" '^OPEN rootabs err=0 fd=yes passwd=no data=ok$'
lk "OPEN .. above the root stays at the root"  '^OPEN rootesc err=0 fd=yes passwd=no data=ok$'
lk "OPEN absolute target onto a hidden file"   '^OPEN rootpriv err=2 fd=-1'
lk "OPEN through 40 links"                     '^OPEN l0 err=0 fd=yes passwd=no data=ok$'
lk "OPEN through 41 links: ELOOP"              '^OPEN m0 err=40 fd=-1'
lk "OPEN through an absolute link (no /etc in the module)" '^OPEN abs/passwd err=2 fd=-1'
lk "OPEN through an escaping link"             '^OPEN esc/passwd err=2 fd=-1'
lk "OPEN through a loop"                       '^OPEN loop_a/x err=40 fd=-1'
lk "OPEN through a visible dir link"           '^OPEN publink/ok.txt err=0 fd=yes passwd=no data=ok$'
lk "OPEN two levels through a visible link"    '^OPEN publink/sub/n err=0 fd=yes passwd=no data=n$'
for p in alias klink slink chain_a pub/up pub/sub/klink2; do
	lk "STAT $p: the link itself is visible"  "^STAT $p follow=0 err=0 mode=120777 "
	lk "STAT follow $p: its target is hidden"  "^STAT $p follow=1 err=2 mode=0 link=0 target= is_etc=no size=0 ino=0$"
done
for p in alias/s.txt alias/inner chain_a/inner/i.txt pub/up/s.txt; do
	lk "STAT $p"                               "^STAT $p follow=0 err=2 mode=0 "
	lk "STAT follow $p"                        "^STAT $p follow=1 err=2 mode=0 "
done
lk "STAT follow loop: ELOOP"                   '^STAT loop_a follow=1 err=40 '
lk "STAT follow self-loop: ELOOP"              '^STAT self follow=1 err=40 '
lk "STAT follow absolute: beneath the root"    '^STAT abs follow=1 err=2 .*is_etc=no'
lk "STAT follow escaping: beneath the root"    '^STAT esc follow=1 err=2 '
lk "STAT follow visible dir link"              '^STAT publink follow=1 err=0 mode=40755 '
lk "STAT through visible dir link"             '^STAT publink/ok.txt follow=0 err=0 mode=100644 .* size=3 '
lk "STAT follow a link with .."                '^STAT dotdot_ok follow=1 err=0 mode=100644 .* size=3 '
lk "STAT follow 40 links"                      '^STAT l0 follow=1 err=0 mode=100644 .* size=3 '
lk "STAT follow 41 links: ELOOP"               '^STAT m0 follow=1 err=40 '
lk "STAT a plain path"                         '^STAT intdir/x follow=0 err=0 mode=100644 '
lk "root listing leaves private out"           '^LIST  err=0 n=[0-9]+ names=.*alias->private'
grep -Eq '^LIST  .*(,|=)private(,|$)' <<<"$out" && fail "links: private listed" || pass "links: private not listed"
for p in alias/inner chain_a/inner pub/up/inner; do
	lk "LIST $p"                               "^LIST $p err=2 n=0 names=$"
done
lk "LIST through a visible link, x.key left out" '^LIST publink/sub err=0 n=3 names='
grep -Eq '^LIST publink/sub .*x\.key' <<<"$out" && fail "links: x.key listed through a link" ||
	pass "links: x.key not listed through a link"
lk "LIST a final link into a hidden dir"      '^LIST alias err=2 n=0 names=$'
lk "LIST a chain into a hidden dir"            '^LIST chain_a err=2 n=0 names=$'
lk "LIST a final link, followed, filtered"     '^LIST publink err=0 n=[0-9]+ names=.*ok\.txt'
grep -Eq '^LIST publink .*hidden\.key' <<<"$out" && fail "links: hidden.key listed through a followed link" ||
	pass "links: hidden.key not listed through a followed link"
lk "LIST an absolute dir link"                 '^LIST rootabsdir err=0 n=[0-9]+ names=.*ok\.txt'
lk "LIST through an escaping link"             '^LIST esc/x err=2 n=0 names=$'
lk "LIST through a loop"                       '^LIST loop_a/x err=40 n=0 names=$'
for p in alias/s.txt alias/inner/i.txt chain_a/s.txt pub/up/s.txt dotdot_priv alias klink slink chain_a pub/up \
	pub/up/s.txt alias/inner pub/sub/klink2 rootpriv; do
	lk "XATTR follow $p: hidden"               "^XATTR $p follow=1 err=2 count=0 leak=no names=$"
done
lk "XATTR follow a loop: ELOOP"                '^XATTR loop_a follow=1 err=40 count=0 '
lk "XATTR follow 41 links: ELOOP"              '^XATTR m0 follow=1 err=40 count=0 '
lk "XATTR follow absolute: beneath the root"   '^XATTR abs follow=1 err=2 count=0 '
lk "XATTR follow escaping: beneath the root"   '^XATTR esc follow=1 err=2 count=0 '
if [ "$XA" = 1 ]; then
	lk "XATTR follow a visible dir link"       '^XATTR publink follow=1 err=0 count=1 leak=no names=user\.ok$'
	lk "XATTR through a visible dir link"      '^XATTR publink/ok\.txt follow=1 err=0 count=1 leak=no names=user\.ok$'
	lk "XATTR follow 40 links"                 '^XATTR l0 follow=1 err=0 count=1 leak=no names=user\.ok$'
	lk "XATTR follow an absolute link, from the module root" '^XATTR rootabs follow=1 err=0 count=1 leak=no names=user\.ok$'
fi
grep -q 'leak=yes' <<<"$out" && fail "links: a hidden file's attributes read: $(grep 'leak=yes' <<<"$out")" ||
	pass "links: no hidden file's attributes read"
lk "READLINK through a link into a hidden dir" '^READLINK alias/inner/ilink err=2 len=0$'
lk "READLINK through a chain"                  '^READLINK chain_a/inner/ilink err=2 len=0$'
lk "READLINK through a visible link"           '^READLINK publink/sub/klink2 err=0 len=13$'
lk "script completed"                          '^DONE$'
grep -Eq 'data=(secret|inner|hidden)' <<<"$out" && fail "links: hidden data served: $(grep -E 'data=(secret|inner|hidden)' <<<"$out")" ||
	pass "links: no hidden file's data served"
seen=""
for f in private private/s.txt private/inner private/inner/i.txt pub/hidden.key pub/sub/x.key; do
	grep -q " ino=$(stat -c %i "$K/$f")\$" <<<"$out" && seen+=" $f"
done
[ -z "$seen" ] && pass "links: no hidden file or directory stat through a link (inodes)" ||
	fail "links: stat of hidden$seen"
wait_log "$TMP/log" "path 'abs/passwd' in module lnk: a link leads above the module root, resolved beneath it" &&
	pass "links: absolute target logged" || fail "links: absolute target not logged"
after=$(new_log "$before")
grep -q "path 'esc/passwd' in module lnk: a link leads above the module root" <<<"$after" && pass "links: escape logged" ||
	fail "links: escape not logged"
n=$(grep -c "in module lnk: a link leads above the module root" <<<"$after")
[ "$n" = 10 ] && pass "links: links above the root logged 10 times in the session, no more" ||
	fail "links: links above the root logged $n times"
grep -q "refused path 'loop_a/x' in module lnk: Too many levels of symbolic links" <<<"$after" &&
	pass "links: loop logged" || fail "links: loop not logged"
grep -Eq "refused path '(alias|chain|pub/up)" <<<"$after" && fail "links: a hidden path was logged as refused" ||
	pass "links: hidden paths are not logged (they look absent)"
[ "$NFAIL" = 0 ] || echo "$out" | sed 's/^/    /'

# A link swapped in the middle of a walk, at a fixed point (test-build hook).
out=$(fsclient fs-swap-mid)
WORKERS+=" $(sed -n 's/^SELECTED ppid=[0-9]* pid=//p' <<<"$out")"
ino_ok=$(sed -n 's/^STAT pub\/ok\.txt follow=0 err=0 .* ino=\([0-9]*\)$/\1/p' <<<"$out" | head -n 1)
held=$(grep '^STAT prsyncd-test-hold follow=1' <<<"$out" | head -n 1)
[ -n "$ino_ok" ] && grep -q "err=0 mode=100644 .* size=3 ino=$ino_ok\$" <<<"$held" &&
	pass "swap mid-walk: the held link is the one read (pub/ok.txt)" || fail "swap mid-walk: $held (ok.txt ino $ino_ok)"
[ "$(grep -c '^STAT prsyncd-test-hold follow=1 err=2 ' <<<"$out")" = 1 ] &&
	pass "swap mid-walk: afterwards the new link is refused" || fail "swap mid-walk: new link: $(grep '^STAT prsyncd-test-hold' <<<"$out")"
grep -q '^OPEN w/prsyncd-test-hold/ok.txt err=0 fd=yes passwd=no data=ok$' <<<"$out" &&
	pass "swap mid-walk: a directory link held mid-path" || fail "swap mid-walk: dir link: $(grep '^OPEN w/' <<<"$out")"
grep -q '^OPEN w/prsyncd-test-hold/s.txt err=2 fd=-1' <<<"$out" &&
	pass "swap mid-walk: then the swapped directory link is refused" || fail "swap mid-walk: $(grep '^OPEN w/' <<<"$out")"
grep -q '^DONE$' <<<"$out" && pass "swap mid-walk: script completed" || { fail "swap mid-walk: not completed"; echo "$out" | sed 's/^/    /'; }

# --- attacks that pass the validator --------------------------------------
before=$(wc -l < "$TMP/log")
out=$(fsclient fs-script)
WORKERS+=" $(sed -n 's/^SELECTED ppid=[0-9]* pid=//p' <<<"$out")"
has() { # has NAME REGEX: a reported line matches
	if grep -Eq -- "$2" <<<"$out"; then pass "$1"; else fail "$1: no line matching '$2'"; fi
}
has "root listing"                '^LIST  err=0 n=8 names=.*link_to_etc->/etc'
has "listing: long target"        '^LIST  err=0 .*long_link->LONG'
has "listing: in-module link"     '^LIST  err=0 .*in_link->file'
has "OPEN via link to /etc"       '^OPEN link_to_etc/passwd err=2 fd=-1'
has "OPEN absolute symlink"       '^OPEN abs_link err=2 fd=-1'
has "OPEN relative escape"        '^OPEN up_link err=2 fd=-1'
has "STAT FOLLOW out of module"   '^STAT link_to_etc follow=1 err=2 .*is_etc=no'
has "STAT link itself"            '^STAT link_to_etc follow=0 err=0 mode=120777 link=1 target=/etc is_etc=no'
has "STAT through link to /etc"   '^STAT link_to_etc/passwd follow=0 err=2 '
has "LIST link to /etc: no /etc in the module" '^LIST link_to_etc err=2 n=0 names=$'
has "READLINK link"               '^READLINK link_to_etc err=0 len=4$'
has "READLINK regular file"       '^READLINK file err=22 len=0$'
has "READLINK long target"        '^READLINK long_link err=0 len=300$'
has "STAT long link"              '^STAT long_link follow=0 err=0 mode=120777 link=2 '
has "OPEN directory refused"      '^OPEN d err=22 fd=-1'
has "OPEN fifo refused"           '^OPEN fifo err=22 fd=-1'
has "OPEN in-module link, followed" '^OPEN in_link err=0 fd=yes passwd=no'
has "STAT FOLLOW in-module link"  '^STAT in_link follow=1 err=0 mode=100644 '
has "OPEN regular file"           '^OPEN file err=0 fd=yes passwd=no'
has "XATTR follow a link to /etc"  '^XATTR link_to_etc follow=1 err=2 count=0 leak=no'
has "XATTR through a link to /etc" '^XATTR link_to_etc/passwd follow=0 err=2 count=0 leak=no'
has "XATTR follow absolute link"   '^XATTR abs_link follow=1 err=2 count=0 leak=no'
has "XATTR follow relative escape" '^XATTR up_link follow=1 err=2 count=0 leak=no'
has "XATTR of a link itself: none" '^XATTR up_link follow=0 err=0 count=0 leak=no'
if [ "$XA" = 1 ]; then
	has "XATTR follow in-module link" '^XATTR in_link follow=1 err=0 count=1 leak=no names=user\.in$'
	has "XATTR regular file"          '^XATTR file follow=0 err=0 count=1 leak=no names=user\.in$'
fi
grep -q 'leak=yes' <<<"$out" && fail "an attribute outside the module read" || pass "no attribute outside the module read"
has "descriptor cap"              '^CAP ok=32 emfile=8$'
has "IDNAME uid 0"                '^IDNAME 1 0 found=1 name=root$'
has "IDNAME gid 0"                '^IDNAME 2 0 found=1 name=root$'
has "IDNAME unknown uid"          '^IDNAME 1 4000000000 found=0 name=$'
has "LIST d before the swap"      '^LIST d err=0 n=1 names=passwd$'
has "OPEN d/passwd after swap"    '^OPEN d/passwd err=2 fd=-1 passwd=no'
has "STAT d/passwd after swap"    '^STAT d/passwd follow=1 err=2 .*is_etc=no'
has "LIST d after swap"           '^LIST d err=2 n=0 names=$'
has "script completed"            '^DONE$'
[ "$(grep -c 'passwd=yes' <<<"$out")" = 0 ] && pass "no descriptor outside the module" ||
	fail "a descriptor outside the module: $(grep 'passwd=yes' <<<"$out")"
grep -q 'is_etc=yes' <<<"$out" && fail "STAT returned /etc" || pass "no stat of /etc"
grep -q ' no answer' <<<"$out" && fail "monitor stopped answering: $(grep ' no answer' <<<"$out" | head -n 1)" ||
	pass "every request answered"
wait_log "$TMP/log" "path 'link_to_etc/passwd' in module pub: a link leads above the module root" &&
	pass "escape via link logged" || fail "escape via link not logged"
after=$(new_log "$before")
grep -Eq 'killed by signal|seccomp|SIGSYS' <<<"$after" && fail "monitor or worker killed: $(grep -E 'signal|seccomp' <<<"$after")" ||
	pass "no seccomp kill during the script"
[ "$NFAIL" = 0 ] || echo "$out" | sed 's/^/    /'
# A refused path with a newline and an escape sequence is logged escaped.
grep -q "path 'link_to_etc/\\\\#0122026/01/01 00:00:00 \\[1\\] forged\\\\#033\\[2J' in module pub" <<<"$after" &&
	pass "refused path sanitized in the log" || fail "refused path not sanitized"
grep -q '^2026/01/01 00:00:00 \[1\] forged' "$TMP/log" && fail "forged log line" || pass "no forged log line"

# --- the listener still serves a real worker -----------------------------
out=$(rawclient "$port" --send 'normal\n@RSYNCD: 32.0 md5\n\n' --timeout 5)
case $out in *"pub"*"@RSYNCD: EXIT"*) pass "listener still serves a real worker";; *) fail "real worker after attacks: $out";; esac
sleep 0.5
zombies=$(ps -o stat= --ppid "$L" | grep -c Z)
[ "$zombies" = 0 ] && pass "no zombie sessions" || fail "$zombies zombie sessions"
left=""
for p in $WORKERS; do # gone, or a zombie waiting for init to reap it
	case $(ps -o stat= -p "$p") in ''|Z*) ;; *) left+=" $p";; esac
done
[ -n "$WORKERS" ] && [ -z "$left" ] && pass "no hostile worker outlived its monitor ($(wc -w <<<"$WORKERS") checked)" ||
	fail "hostile workers still running:$left (checked:$WORKERS)"
if dmesg >/dev/null 2>&1; then
	[ "$(monitor_kills)" = "$kills_before" ] && pass "no seccomp kill of a session monitor (kernel log)" ||
		fail "a session monitor was killed by its filter: $(dmesg | grep "type=1326.*exe=\"$PRSYNCD\"" | tail -n 1)"
else
	echo "SKIP: no seccomp kill of a session monitor (the kernel log cannot be read here)"
fi
if grep -Eq 'Sanitizer|runtime error' "$TMP/log.stderr" 2>/dev/null; then
	fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/log.stderr")"
else
	pass "no sanitizer report from the daemon"
fi
finish
