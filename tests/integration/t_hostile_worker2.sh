#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The hostile worker, completed (tests/tools/hostile_worker2.c in place of
# prsyncd-worker): every one of the fourteen worker requests sent malformed
# end to end (body length, descriptor, flags, magic, a field, a string);
# monitor-to-worker types sent by the worker; several descriptors; a
# descriptor the monitor must drop unread; every request out of state and
# repeated; volume (10,000 opens against the descriptor quota, 10,000
# open/close pairs, a LIST flood read and unread, a LOG flood, thousands
# of selections and IDNAMEs); paths through every file type, a symlink
# swapped while requests run, and /proc magic links (XATTR too: nothing
# outside the module has its attributes read).  Each attack must end
# with its log line (or be answered correctly), the monitor must hold no
# descriptor it handed out, stay bounded in memory, and the listener must
# keep serving.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: t_hostile_worker2.sh needs root (device nodes, the monitor's uid drop)"
	finish
	exit
fi

M=$TMP/pub
mkdir -p "$M/dir" "$M/many" "$M/swd" "$TMP/outside"
echo hello > "$M/file"
echo "module passwd" > "$M/swd/passwd"
for i in $(seq 1 100); do : > "$M/many/f$i"; done
mkfifo "$M/fifo"
mknod -m 666 "$M/chr" c 1 3
mknod -m 666 "$M/blk" b 240 0
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$M/sock"
ln -s file "$M/lnk_file"
ln -s fifo "$M/lnk_fifo"
ln -s chr "$M/lnk_chr"
ln -s /dev/null "$M/lnk_dev_null"
ln -s /proc/self/fd/3 "$M/lnk_proc_fd"
ln -s ../../../../../../../../proc/self/fd/3 "$M/lnk_proc_fd_rel"
ln -s /proc/self/root "$M/lnk_proc_root"
printf 'SECRET hard-linked, root only\n' > "$TMP/hsecret"
chmod 600 "$TMP/hsecret"
ln "$TMP/hsecret" "$M/hard_secret"
echo "module file" > "$M/sw"
ln -s /etc/passwd "$M/sw.link"
ln -s /etc "$M/swd.link"
ln -s ../outside "$M/lnk_outside"
# attributes: one inside; a marker on what lies outside the module
XA=0
if command -v setfattr >/dev/null && setfattr -n user.in -v inside "$M/file" 2>/dev/null &&
	setfattr -n user.mark -v OUTSIDE "$TMP/outside" && setfattr -n user.mark -v OUTSIDE "$TMP/hsecret"; then
	XA=1
else
	echo "SKIP: XATTR answers with attributes (no setfattr, or no user xattrs under $TMP)"
fi
cat > "$TMP/conf" <<CONF
handshake timeout = 5
[pub]
	path = $M
	numeric ids = no
[nopath]
	path = $TMP/missing
[procmod]
	path = /proc
[auth]
	path = $M
	auth users = alice
	secrets file = $TMP/secrets
CONF
printf 'alice:pw\n' > "$TMP/secrets"
chmod 600 "$TMP/secrets"
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" --worker="$TOOLS/hostile_worker2" || fail "prsyncd did not start"
L=$PRSYNCD_PID

# lineclient and expect_end (tests/lib.sh) drive the tool: at "HOLD NAME"
# the client prints the monitor's descriptor count, memory and state.
inval() { echo "invalid message from worker \\($1"; }

# --- every worker request, malformed end to end ----------------------------
for t in READY LOG MODLIST SELECT EXIT LIST STAT READLINK IDNAME HELLO AUTH XATTR OPENV CLOSEV; do
	expect_end "hdr len $t" "$(inval 'wrong body length for type')"
	expect_end "hdr fd $t" "$(inval 'descriptor missing or unexpected')"
	expect_end "hdr flagfd $t" "$(inval 'descriptor missing or unexpected')"
	expect_end "hdr flagbad $t" "$(inval 'bad header flags')"
	expect_end "hdr magic $t" "$(inval 'bad magic')"
	case $t in
	MODLIST) ;; # no body
	LIST|READLINK|AUTH) expect_end "hdr field $t" "$(inval 'malformed string field')";;
	*) expect_end "hdr field $t" "$(inval 'field out of range')";;
	esac
	case $t in
	LOG|SELECT|LIST|STAT|READLINK|HELLO|AUTH|XATTR|OPENV) expect_end "hdr str $t" "$(inval 'malformed string field')";;
	esac
done
for t in INIT MODLIST MODLIST_END SELECT LIST LIST_END STAT READLINK IDNAME AUTHREQ XATTR XATTR_END OPENV; do
	expect_end "dir $t" "$(inval 'message sent in the wrong direction')"
done
expect_end "fds 2" "$(inval 'descriptor missing or unexpected')"
expect_end "fds 8" "$(inval 'descriptor missing or unexpected')"
# more than any type may carry (PR_MSG_FDS_MAX) and than the receiver has
# room for: the kernel truncates the control data
expect_end "fds 32" "$(inval 'descriptor missing or unexpected')"
expect_end unread "$(inval 'descriptor missing or unexpected')"
grep -q '^UNREAD monitor_gone=yes bytes=6$' "$TMP/out" && pass "a descriptor sent to the monitor is dropped unread" ||
	fail "descriptor dropped unread: $(cat "$TMP/out")"

# --- out of state --------------------------------------------------------------
for c in READY-twice:READY MODLIST-before-READY:MODLIST LIST-before-READY:LIST MODLIST-twice:MODLIST \
	SELECT-after-MODLIST:SELECT LIST-after-MODLIST:LIST MODLIST-after-SELECT:MODLIST \
	READY-after-SELECT:READY SELECT-after-failed-SELECT:SELECT LOG-after-EXIT:LOG EXIT-twice:EXIT \
	READY-after-EXIT:READY OPEN-after-EXIT:OPENV AUTH-before-SELECT:AUTH AUTH-after-SELECT:AUTH \
	AUTH-twice:AUTH SELECT-during-AUTH:SELECT HELLO-after-SELECT:HELLO HELLO-during-AUTH:HELLO \
	XATTR-before-SELECT:XATTR XATTR-after-EXIT:XATTR; do
	expect_end "oos ${c%%:*}" "worker sent PR_W_${c##*:} in a state where it is not permitted; ending session"
done

# --- garbage response lines: refused with rsyncd's text, the session goes on to its end
for k in long:"invalid challenge response" blank:"for : no matching rule" ctrl:'for al\\#033\[31mice\\#015: no matching rule'; do
	before=$(wc -l < "$TMP/log")
	out=$(lineclient "auth-line ${k%%:*}")
	grep -q "^AUTH ${k%%:*} status=2 error=@ERROR: auth failed on module auth$" <<<"$out" &&
		wait_log "$TMP/log" "auth failed on module auth from .*${k#*:}" &&
		pass "auth-line ${k%%:*}: refused, logged" || fail "auth-line ${k%%:*}: $out $(new_log "$before")"
done

expect_end auth-silent "handshake timeout \\(5 s\\) from"

# --- repetition and volume -----------------------------------------------------
# an unknown module ends the session as in rsyncd: the second selection
# is out of state (t_hostile_bounds.sh sends 50,000)
expect_end "repeat-select 2000" "worker sent PR_W_SELECT in a state where it is not permitted; ending session"
grep -Eq '^REPEAT-SELECT n=2000 errors=([02-9]|1[0-9])' "$TMP/out" &&
	fail "repeat-select: the monitor answered more than one: $(cat "$TMP/out")" ||
	pass "repeat-select: no second unknown selection answered"
out=$(lineclient "repeat-idname 10000")
grep -Eq '^REPEAT-IDNAME n=10000 answered=10000 found=[1-9]' <<<"$out" && pass "10000 IDNAMEs answered" ||
	fail "repeat-idname: $out"

out=$(lineclient "open-quota 10000")
grep -q '^QUOTA n=10000 ok=32 emfile=9968 other=0$' <<<"$out" && pass "10000 opens: 32 served, 9968 EMFILE" ||
	fail "open-quota: $(grep -E 'QUOTA|OPEN' <<<"$out")"
fds=$(sed -n 's/^PROC quota fds=\([0-9]*\).*/\1/p' <<<"$out")
[ -n "$fds" ] && [ "$fds" -le 10 ] && pass "the monitor holds none of the 32 descriptors it handed out ($fds open)" ||
	fail "monitor descriptors at the quota: '$fds'"
grep -q '^AFTER-CLOSE err=0 fd=yes$' <<<"$out" && pass "quota freed by CLOSE" || fail "after close: $out"
out=$(lineclient "open-close 10000")
grep -q '^OPEN-CLOSE n=10000 ok=10000$' <<<"$out" && pass "10000 open/close pairs served" || fail "open-close: $out"
fds=$(sed -n 's/^PROC openclose fds=\([0-9]*\).*/\1/p' <<<"$out")
[ -n "$fds" ] && [ "$fds" -le 10 ] && pass "no descriptor left in the monitor after 10000 opens ($fds open)" ||
	fail "monitor descriptors after open-close: '$fds'"

out=$(lineclient "list-flood 10000")
grep -q '^LIST-FLOOD n=10000 done=10000 entries=1000000$' <<<"$out" && pass "LIST flood: 10000 listings of 100 entries" ||
	fail "list-flood: $(grep -E 'LIST|PROC' <<<"$out")"
r1=$(sed -n 's/^PROC list100 .*rss_kb=\([0-9]*\).*/\1/p' <<<"$out")
r2=$(sed -n 's/^PROC listN .*rss_kb=\([0-9]*\).*/\1/p' <<<"$out")
if [ -n "$r1" ] && [ -n "$r2" ] && [ $((r2 - r1)) -le 2048 ]; then
	pass "monitor memory flat over the flood (${r1} -> ${r2} KiB)"
else
	fail "monitor memory over the LIST flood: '$r1' -> '$r2' KiB"
fi
before=$(wc -l < "$TMP/log")
out=$(lineclient "list-noread 100000")
grep -Eq '^LIST-NOREAD sent=[0-9]+' <<<"$out" && grep -Eq '^PROC noread fds=[0-9]+ .*state=S' <<<"$out" &&
	pass "unread LIST flood: the monitor waits ($(grep -E '^LIST-NOREAD' <<<"$out"))" || fail "list-noread: $out"
wait_log "$TMP/log" "cannot send PR_M_LIST(_END)? to worker" &&
	pass "unread LIST flood: the monitor ends when the worker goes" || fail "list-noread: no send failure logged"

before=$(wc -l < "$TMP/log")
out=$(lineclient "log-flood 20000 200")
sleep 0.5
after=$(new_log "$before")
n=$(grep -c 'flood [0-9]* \\#001\\#033\[2J\\#015\\#0122026/01/01 00:00:00 \[1\] forged x' <<<"$after")
grep -q '^LOG-FLOOD n=20000 len=200$' <<<"$out" && [ "$n" -ge 1 ] && [ "$n" -le 20000 ] &&
	pass "LOG flood: 20000 records, $n lines logged, all escaped" || fail "log-flood: $n lines; $out"
grep -q '^2026/01/01 00:00:00 \[1\] forged' "$TMP/log" && fail "LOG flood forged a line" || pass "LOG flood forged no line"
LC_ALL=C grep -q $'[\x01\x1b\r]' "$TMP/log" && fail "raw control bytes in the log" || pass "no raw control byte in the log"
bytes=$(wc -c <<<"$after")
[ "$bytes" -le $((20000 * (200 * 5 + 64))) ] && pass "LOG flood: log growth bounded ($bytes bytes)" ||
	fail "log growth $bytes bytes"
# The monitor's own budget (monitor/logbudget.c): 10,000 records, then
# one line at the end of the session counting the rest
wait_log "$TMP/log" 'log budget of this session spent'
after=$(new_log "$before")
[ "$n" -le 10000 ] && grep -q "log budget of this session spent (10000 records, [0-9]* bytes): $((20000 - n)) more records" <<<"$after" &&
	pass "LOG flood cut by the per-session budget ($n lines, then: $(grep -o '[0-9]* more records ([0-9]* bytes)' <<<"$after"))" ||
	fail "LOG flood not cut: $n lines; $(grep 'log budget' <<<"$after")"

# --- every file type -------------------------------------------------------------
out=$(lineclient ftype)
has() { # has NAME REGEX: a reported line matches (else show the lines for the same request)
	if grep -Eq -- "$2" <<<"$out"; then pass "$1"; else
		fail "$1: no line matching '$2'"; grep -E -- "$(cut -d' ' -f1-2 <<<"${2#^}")" <<<"$out" | sed 's/^/    /'; fi
}
for t in fifo:fifo chr:chr blk:blk sock:sock dir:dir file:reg lnk_file:lnk hard_secret:reg; do
	has "LIST shows ${t%%:*} as ${t##*:}" "^ENTRY ${t%%:*} type=${t##*:} err=0$"
done
has "OPEN regular file"                '^OPEN file err=0 fd=yes outside=no$'
for n in dir fifo chr blk sock; do
	has "OPEN $n refused"              "^OPEN $n err=(22|6) fd=no"
done
# OPEN follows a final link as open(2) does in rsyncd's chroot: to a file
# in the module it opens it, to anything else it refuses as for the type,
# and an absolute or escaping target resolves beneath the module root
# (no /dev or /proc there).
has "OPEN link to a file: followed"    '^OPEN lnk_file err=0 fd=yes outside=no$'
has "OPEN link to a fifo: refused"     '^OPEN lnk_fifo err=22 fd=no'
has "OPEN link to a device: refused"   '^OPEN lnk_chr err=22 fd=no'
for n in lnk_file lnk_fifo lnk_chr lnk_dev_null lnk_proc_fd lnk_proc_fd_rel lnk_proc_root; do
	case $n in lnk_dev_null|lnk_proc*) has "OPEN $n: beneath the module root" "^OPEN $n err=2 fd=no" ;; esac
	has "READLINK $n"                  "^READLINK $n err=0 target=."
done
has "STAT follow in-module link"       '^STAT lnk_file follow=1 err=0 type=reg$'
has "STAT follow link to fifo"         '^STAT lnk_fifo follow=1 err=0 type=fifo$'
has "STAT follow link to chr"          '^STAT lnk_chr follow=1 err=0 type=chr$'
for n in lnk_dev_null lnk_proc_fd lnk_proc_fd_rel lnk_proc_root; do
	has "STAT follow $n: beneath the module root" "^STAT $n follow=1 err=2 type=-$"
done
has "hard link to a root-only secret: EACCES" '^OPEN hard_secret err=13 fd=no'
has "LIST of a fifo refused"           '^LIST fifo err=20 n=0$'
has "LIST of a link out: not there"    '^LIST lnk_proc_root err=2 n=0$'
has "READLINK of a device: EINVAL"     '^READLINK chr err=22 target=$'
# XATTR goes through the same resolver: regular files and directories
# only, links followed only beneath the module, nothing outside read.
[ "$XA" = 1 ] && has "XATTR of a file: its attribute" '^XATTR file follow=0 err=0 count=1 bytes=[0-9]+ outside=no$'
has "XATTR of a directory"             '^XATTR dir follow=0 err=0 count=0 '
for n in fifo chr blk sock lnk_file; do
	has "XATTR of $n: none read"        "^XATTR $n follow=0 err=0 count=0 bytes=0 "
done
[ "$XA" = 1 ] && has "XATTR follow an in-module link" '^XATTR lnk_file follow=1 err=0 count=1 '
for n in lnk_dev_null lnk_proc_fd lnk_proc_fd_rel lnk_proc_root lnk_outside; do
	has "XATTR follow $n: beneath the module root" "^XATTR $n follow=1 err=2 count=0 bytes=0 outside=no$"
done
has "XATTR of a root-only hard link: EACCES" '^XATTR hard_secret follow=0 err=13 count=0 '
has "ftype script completed"           '^DONE$'
grep -q 'outside=yes' <<<"$out" && fail "a descriptor or attribute outside the module: $(grep 'outside=yes' <<<"$out")" ||
	pass "no descriptor or attribute outside the module (every file type)"
grep -q ' no answer' <<<"$out" && fail "monitor stopped answering: $(grep ' no answer' <<<"$out" | head -n 1)" ||
	pass "every file-type request answered"

# --- a symlink (and a directory) swapped while requests run ----------------------
"$TOOLS/racer" exchange 20 "$M/sw" "$M/sw.link" > "$TMP/racer1" &
r1=$!
"$TOOLS/racer" exchange 20 "$M/swd" "$M/swd.link" > "$TMP/racer2" &
r2=$!
PIDS+=("$r1" "$r2")
out=$(lineclient "swap 3000")
kill "$r1" "$r2" 2>/dev/null; wait "$r1" "$r2" 2>/dev/null
line=$(grep '^SWAP ' <<<"$out")
case $line in
"SWAP n=3000 "*" outside=0 stat_outside=0 "*) pass "swap race: nothing outside the module ($line)";;
*) fail "swap race: $out";;
esac
o=$(sed -n 's/.* opened=\([0-9]*\) refused=\([0-9]*\) .*/\1 \2/p' <<<"$line")
[ "${o% *}" -gt 0 ] 2>/dev/null && [ "${o#* }" -gt 0 ] && pass "swap race hit both states (opened/refused: $o)" ||
	fail "swap race did not hit both states: $line"

# --- /proc as a module: magic links never resolve --------------------------------
# (Their text is followed as any link's, beneath the module root: "/"
# is /proc itself, a directory, "/dev/null" is not there.)
out=$(lineclient proc)
for p in self/fd/0 self/fd/3 self/root self/root/etc/passwd self/cwd self/exe 1/root/etc/passwd thread-self/root; do
	has "procmod OPEN $p refused"      "^OPEN $p err=(40|13|18|2|22) fd=no outside=no"
done
# Regular files of procfs: the non-dumpable monitor's own memory and
# environment are root's, so the module uid cannot open them.
has "procmod OPEN self/mem refused"    '^OPEN self/mem err=13 fd=no'
has "procmod OPEN self/environ refused" '^OPEN self/environ err=13 fd=no'
# XATTR follows as STAT does: a magic link's text read as any link's
# ("/" for self/root, self/cwd and a descriptor on the root: /proc
# itself, which has no attributes), never the object it stands for.
for p in self/fd/0 self/fd/3 self/root self/root/etc/passwd self/cwd self/exe 1/root/etc/passwd thread-self/root; do
	if grep -q "^STAT $p follow=1 err=0 type=dir$" <<<"$out"; then
		has "procmod XATTR $p: /proc's own (none)" "^XATTR $p follow=1 err=0 count=0 bytes=0 outside=no$"
	else
		has "procmod XATTR $p refused"     "^XATTR $p follow=1 err=(40|13|18|2|20) count=0 bytes=0 outside=no$"
	fi
done
has "procmod script completed"         '^DONE$'
grep -q 'outside=yes' <<<"$out" && fail "procmod: a descriptor outside: $(grep 'outside=yes' <<<"$out")" ||
	pass "procmod: no magic link followed"

# --- the listener still serves -----------------------------------------------------
kill -0 "$L" 2>/dev/null && pass "listener alive after every attack" || fail "listener died"
sleep 0.5
zombies=$(ps -o stat= --ppid "$L" | grep -c Z)
[ "$zombies" = 0 ] && pass "no zombie sessions" || fail "$zombies zombie sessions"
grep -Eq 'session monitor [0-9]+ killed by signal' "$TMP/log" && fail "a session monitor was killed: $(grep -E 'session monitor [0-9]+ killed' "$TMP/log" | head -n 1)" ||
	pass "no session monitor killed"
if grep -Eq 'Sanitizer|runtime error' "$TMP/log.stderr" 2>/dev/null; then
	fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/log.stderr")"
else
	pass "no sanitizer report"
fi
finish
