#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# What the sender sends and how the file is read, against rsync --daemon
# with the same configuration: ignore nonreadable, outgoing chmod,
# charset, ignore errors, max verbosity, open noatime, write only, %VAR%
# references, &include/&merge, a line without '=', an upload module, a
# bad uid or gid, and --check-config.  Same trees, modes, exit codes and
# messages (tests/transfer_lib.sh), unless a check says otherwise.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../transfer_lib.sh"

# --- trees --------------------------------------------------------------
nr=$TMP/nr   # unreadable entries for the module's uid (nobody)
mkdir -p "$nr/d" "$nr/hid" "$nr/sub"
echo a > "$nr/ok"; echo b > "$nr/secret"; chmod 600 "$nr/secret"
echo c > "$nr/d/x"; chmod 311 "$nr/d"
echo d > "$nr/hid/y"; chmod 700 "$nr/hid"
echo e > "$nr/sub/z"; chmod 640 "$nr/sub/z"; echo f > "$nr/sub/w"
ln -s secret "$nr/lnk"; mkfifo "$nr/fifo"; chmod 600 "$nr/fifo"
touch -d @1500000000 "$nr" "$nr/sub" "$nr/d" "$nr/hid"

cm=$TMP/cm   # modes for outgoing chmod
mkdir -p "$cm/d1" "$cm/d2"
for m in 644 755 600 4755 2644 1777 000 711 640 7777; do echo "$m" > "$cm/f$m"; chmod "$m" "$cm/f$m"; done
chmod 700 "$cm/d1"; chmod 2755 "$cm/d2"; ln -s f644 "$cm/lnk"
touch -d @1500000000 "$cm" "$cm/d1" "$cm/d2"

cs=$TMP/cs   # ISO-8859-1 names
mkdir -p "$cs/sub"
printf x > "$cs/caf$(printf '\351')"; printf y > "$cs/sub/na$(printf '\357')ve"; printf z > "$cs/plain"
ln -s "caf$(printf '\351')" "$cs/lnk"
touch -d @1500000000 "$cs" "$cs/sub"
cs8=$TMP/cs8 # UTF-8 names, one that is not
mkdir -p "$cs8"
printf a > "$cs8/ok_$(printf '\303\251')"; printf b > "$cs8/bad_$(printf '\377')"
ln -s "tgt_$(printf '\377')" "$cs8/badlink"; ln -s "ok_$(printf '\303\251')" "$cs8/goodlink"
touch -d @1500000000 "$cs8"

pub=$TMP/pub
mkdir -p "$pub/v1" "$pub/127.0.0.1" "$pub/vx"
echo 1 > "$pub/v1/one"; echo 2 > "$pub/127.0.0.1/two"
echo k > "$pub/vx/keep"; echo d > "$pub/vx/drop_vx"; echo e > "$pub/vx/drop_127.0.0.1"; echo u > "$pub/vx/u_"
chmod -R a+rX "$pub"; touch -d @1500000000 "$pub"/*

na=$TMP/na   # root's files, for a module that reads as nobody
mkdir -p "$na"; echo x > "$na/f"; chmod 755 "$na"

# The links get an old mtime: the stock receiver leaves a link it has just
# made alone when its own mtime falls in the same second as the source's
# (times compared to the second), so a first pull in the second the
# fixture was made gave each side's creation time, and the two clients,
# side by side, could differ by a few milliseconds.  The same holds for a
# FIFO (nr/fifo: "fifo: mtime ... vs ..." once in the first pull).
find "$nr" "$cm" "$cs" "$cs8" \( -type l -o -type p \) -exec touch -h -d @1500000000 {} +

chmod_specs=("Dg+s,ug+w,Fo-w,+X" "D2775,F664" "a-x" "o=" "u=rwX" "g+s,+t" "u+x,+X" "=r"
	"go-rwx,u+rw" "+X" "Fu+s,Dg-s" "ug=rx" "a+rwx,o-x" "0" "u=,g=,o=r" "D755,F644,F+x"
	"o+s" "go+s" "-s" "=st" "a-X" "o=s" "u=r,g=u" "+u" "=rw" "-r")

export PRSYNCD_T_DIR=$pub PRSYNCD_T_WORD=hello
conf=$TMP/d.conf
{
	echo "use chroot = yes"
	echo "uid = root"
	echo "gid = root"
	echo "this line has no equals sign"
	printf '[nr]\n\tpath = %s\n\tuid = nobody\n\tgid = nogroup\n\tignore nonreadable = yes\n' "$nr"
	printf '[nr_plain]\n\tpath = %s\n\tuid = nobody\n\tgid = nogroup\n' "$nr"
	printf '[nr_ie]\n\tpath = %s\n\tuid = nobody\n\tgid = nogroup\n\tignore errors = yes\n' "$nr"
	i=0
	for s in "${chmod_specs[@]}"; do
		printf '[cm%d]\n\tpath = %s\n\toutgoing chmod = %s\n' "$i" "$cm" "$s"; i=$((i + 1))
	done
	printf '[l1]\n\tpath = %s\n\tcharset = ISO-8859-1\n' "$cs"
	printf '[u8]\n\tpath = %s\n\tcharset = UTF-8\n' "$cs8"
	printf '[nocs]\n\tpath = %s\n' "$cs"
	printf '[badcs]\n\tpath = %s\n\tcharset = NO-SUCH-CHARSET\n' "$cs"
	printf '[mv0]\n\tpath = %s\n\tmax verbosity = 0\n' "$pub/v1"
	printf '[mv1]\n\tpath = %s\n' "$pub/v1"
	printf '[v1]\n\tpath = %%PRSYNCD_T_DIR%%/%%RSYNC_MODULE_NAME%%\n\tcomment = [%%PRSYNCD_T_WORD%%] [%%RSYNC_MODULE_NAME%%] [%%%%] [50%%] [%%NOPE%%PRSYNCD_T_WORD%%]\n'
	printf '[addr]\n\tpath = %s/%%RSYNC_HOST_ADDR%%\n' "$pub"
	printf '[vx]\n\tpath = %s/vx\n\texclude = drop_%%RSYNC_MODULE_NAME%% drop_%%RSYNC_HOST_ADDR%% u_%%RSYNC_USER_NAME%%\n' "$pub"
	printf '[na]\n\tpath = %s\n\tuid = nobody\n\tgid = nogroup\n\topen noatime = yes\n' "$na"
	printf '[wo]\n\tpath = %s\n\twrite only = yes\n' "$pub/v1"
	printf '[rw]\n\tpath = %s\n\tread only = no\n' "$pub/v1"
	printf '[baduid]\n\tpath = %s\n\tuid = nosuchuser\n' "$pub/v1"
	printf '[badgid]\n\tpath = %s\n\tgid = nosuchgroup\n' "$pub/v1"
} > "$conf"
start_both "$conf" || { finish; exit 1; }

# --- listing (comments with %VAR%) ---------------------------------------
list_both() { # list_both NAME: the module list of both daemons
	local ro po
	ro=$(rsync_client "rsync://127.0.0.1:$R_PORT/" 2>&1); po=$(rsync_client "rsync://127.0.0.1:$P_PORT/" 2>&1)
	if [ "$ro" = "$po" ]; then pass "$1: same module list ($(wc -l <<<"$ro") lines)"
	else fail "$1: module lists differ"; diff <(echo "$ro") <(echo "$po") | head -8 | sed 's/^/    /'; fi
}
list_both "listing"
grep -q "this line has no equals sign" "$P_LOG.stderr" && pass "a line without '=' warned about" ||
	fail "no warning for the line without '='"

# --- ignore nonreadable, ignore errors ------------------------------------
EXPECT_RC=0 pull_both nr "-a" "nr/"
EXPECT_RC=23 pull_both nr_plain "-a" "nr_plain/"
EXPECT_RC=23 pull_both nr_arg "-a" "nr/secret"     # arguments are not left out
EXPECT_RC=0 pull_both nr_arg2 "-a" "nr/d/x"
mkdir -p "$TMP/seed"; echo x > "$TMP/seed/extra"
EXPECT_RC=23 pull_both nr_delete "-a --delete" "nr_plain/" "$TMP/seed"
EXPECT_RC=23 pull_both nr_ie_delete "-a --delete" "nr_ie/" "$TMP/seed"

# --- outgoing chmod -------------------------------------------------------
i=0
for s in "${chmod_specs[@]}"; do
	EXPECT_RC=0 pull_both "cm$i" "-a" "cm$i/" || echo "    (outgoing chmod = $s)"
	i=$((i + 1))
done
EXPECT_RC=0 pull_both cm0_p27 "-a --protocol=27" "cm0/"

# --- charset ----------------------------------------------------------------
EXPECT_RC=0 pull_both l1_iconv "-a --iconv=UTF-8" "l1/"
EXPECT_RC=0 pull_both l1_raw "-a" "l1/"
EXPECT_RC=0 pull_both l1_iconv_p30 "-a --iconv=UTF-8 --protocol=30" "l1/"
EXPECT_RC=0 pull_both l1_iconv_sub "-a --iconv=UTF-8" "l1/sub/"
EXPECT_RC=23 pull_both u8_iconv "-a --iconv=ISO-8859-1" "u8/"
EXPECT_RC=0 pull_both u8_raw "-a" "u8/"
rr=0; pr=0
rsync_client -a --iconv=UTF-8 "rsync://127.0.0.1:$R_PORT/badcs/" "$TMP/r_badcs" >/dev/null 2>&1 || rr=$?
out=$(rsync_client -a "rsync://127.0.0.1:$P_PORT/badcs/" "$TMP/p_badcs" 2>&1) || pr=$?
[ "$rr" = 5 ] && [ "$pr" = 5 ] && grep -q "charset NO-SUCH-CHARSET is not supported" <<<"$out" &&
	pass "unknown charset: every client refused, exit 5 (with a reason; rsyncd closes without one)" ||
	fail "unknown charset: rsyncd=$rr prsyncd=$pr $out"

# --- max verbosity: the client's -v beyond it changes nothing -------------
EXPECT_RC=0 pull_both mv0_vv "-a -vv" "mv0/"
EXPECT_RC=0 pull_both mv1_vv "-a -vv" "mv1/"
EXPECT_RC=0 pull_both mv0_v "-a -v" "mv0/"

# --- %VAR% in paths and filters -------------------------------------------
EXPECT_RC=0 pull_both var_name "-a" "v1/"
EXPECT_RC=0 pull_both var_addr "-a" "addr/"
EXPECT_RC=0 pull_both var_filter "-a" "vx/"

# --- open noatime: rsyncd opens with O_NOATIME, which only the owner may -----
EXPECT_RC=23 pull_both noatime "-a" "na/"

# --- write only, read only = no, bad uid/gid ---------------------------------
both_fail() { # both_fail NAME RC TEXT ARGS...: both exit RC with TEXT
	local name=$1 rc=$2 text=$3 rr=0 pr=0 ro po; shift 3
	ro=$(rsync_client "$@" 2>&1 <<<"") || rr=$?
	po=$(rsync_client "${@//$R_PORT/$P_PORT}" 2>&1) || pr=$?
	if [ "$rr" = "$rc" ] && [ "$pr" = "$rc" ] && grep -qxF -- "$text" <<<"$ro" && grep -qxF -- "$text" <<<"$po"; then
		pass "$name: '$text', exit $rc on both"
	else
		fail "$name: rsyncd=$rr prsyncd=$pr"; echo "$po" | head -3 | sed 's/^/    /'
	fi
}
both_fail write-only 1 "ERROR: module is write only" -r "rsync://127.0.0.1:$R_PORT/wo/" "$TMP/o_wo"
both_fail bad-uid 5 "@ERROR: invalid uid nosuchuser" -r "rsync://127.0.0.1:$R_PORT/baduid/" "$TMP/o_bu"
both_fail bad-gid 5 "@ERROR: invalid gid nosuchgroup" -r "rsync://127.0.0.1:$R_PORT/badgid/" "$TMP/o_bg"
pr=0
out=$(rsync_client -r "$pub/v1/" "rsync://127.0.0.1:$P_PORT/rw/" 2>&1) || pr=$?
[ "$pr" = 1 ] && grep -qx "ERROR: module is read only" <<<"$out" &&
	pass "read only = no: a push gets rsyncd's read-only refusal (exit 1)" || fail "push to rw: exit $pr $out"
grep -q "module \[rw\]: 'read only = no'" "$P_LOG.stderr" && pass "read only = no: one warning naming the module" ||
	fail "no warning for [rw]"
stop_both

# --- &include / &merge: the same module list -------------------------------
inc=$TMP/inc
mkdir -p "$inc/d"
printf 'comment = from-include\n[inc_a]\n\tpath = %s\n' "$pub/v1" > "$inc/d/10-a.conf"
printf '[hidden_inc]\n\tpath = %s\n' "$pub/v1" > "$inc/d/.hidden.conf"
printf '[inc_B]\n\tpath = %s\n' "$pub/v1" > "$inc/d/B.conf"
printf 'comment = merged\n[mrg]\n\tpath = %s\n' "$pub/v1" > "$inc/d/m.inc"
printf '[never]\n\tpath = %s\n' "$pub/v1" > "$inc/d/never.txt"
printf '\tcomment = set-by-merge\n' > "$inc/sub.inc"
{
	echo "use chroot = no"
	echo "uid = root"
	echo "gid = root"
	echo "comment = parent"
	printf '[first]\n\tpath = %s\n&include %s/d\n[second]\n\tpath = %s\n' "$pub/v1" "$inc" "$pub/v1"
	printf '[third]\n\tpath = %s\n&merge %s/sub.inc\n[fourth]\n\tpath = %s\n&merge %s/d\n' "$pub/v1" "$inc" "$pub/v1" "$inc"
	printf '[fifth]\n\tpath = %s\n' "$pub/v1"
} > "$TMP/inc.conf"
start_both "$TMP/inc.conf" && {
	list_both "&include/&merge"
	EXPECT_RC=0 pull_both inc_pull "-a" "inc_a/"
	stop_both
}

# --- --check-config: every problem in one run --------------------------------
cat > "$TMP/bad.conf" <<CONF
port = 99999
[a]
	path = $pub/v1
	early exec = /bin/true
[b]
	path = $TMP/nonexistent
	uid = nosuchuser
[c]
	path = $pub/v1
	charset = NO-SUCH-CHARSET
	pre-xfer exec = /bin/true
CONF
out=$("$PRSYNCD" --config="$TMP/bad.conf" --check-config 2>&1); rc=$?
n=0
for want in "bad.conf:1: 'port = 99999' (read as 99999, as rsyncd reads it) is not a port" \
	"bad.conf:4: module \[a\]: 'early exec' is refused" \
	"bad.conf:5: module \[b\]: uid nosuchuser does not exist: clients get \"@ERROR: invalid uid nosuchuser\"" \
	"bad.conf:5: module \[b\]: path $TMP/nonexistent: No such file or directory" \
	"bad.conf:8: module \[c\]: charset NO-SUCH-CHARSET" "bad.conf:11: module \[c\]: 'pre-xfer exec' is refused" \
	"bad.conf: 6 errors"; do
	grep -q -- "$want" <<<"$out" && n=$((n + 1)) || echo "    missing: $want"
done
[ "$rc" = 1 ] && [ "$n" = 7 ] && pass "--check-config: six problems of four kinds in one run, exit 1" ||
	fail "--check-config: rc=$rc, $n of 7 lines: $out"
finish
