#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# rsyncd's log lines, differential: the same pulls from rsyncd and from
# prsyncd, each daemon's new log lines compared after dropping the
# timestamp and pid prefix.  A module listing, refused connections, and
# transfers with "transfer logging = yes" in the default format and two
# custom formats using every escape of rsyncd.conf(5), over protocols
# 27-32, -c, -H, --checksum-choice, an update, a dry run.  Only
# prsyncd's own debug lines (protocol, literal data) are left out, and
# the session summary's byte counts, which depend on how each daemon
# encodes the file list, and where in its source an error was raised.
. "$(dirname "$0")/../lib.sh"

mod=$TMP/mod
mkdir -p "$mod/sub/deep" "$mod/empty"
echo hello > "$mod/a.txt"
printf 'world\n' > "$mod/sub/b.txt"
# under 32 KiB: %b counts a daemon's own bytes, and literal data longer
# than that is cut into chunks where each daemon finds fit
head -c 30000 /dev/zero | tr '\0' 'z' > "$mod/sub/deep/big.bin"
echo x > "$mod/sub/deep/c.txt"
# names rsyncd escapes in its log (a control byte, a backslash that would
# read as an escape) and ones it keeps (tab, UTF-8)
touch "$mod/esc$(printf '\033')[2J" "$mod/tab$(printf '\t')x" "$mod/hash\\#123" "$mod/caf$(printf '\303\251')"
ln -s a.txt "$mod/link"
ln "$mod/a.txt" "$mod/hard"
chmod 4755 "$mod/sub/b.txt"
chmod 1777 "$mod/sub/deep"
[ "$(id -u)" = 0 ] && chown 12:34 "$mod/sub/b.txt"
touch -d '2020-01-02 03:04:05' "$mod/a.txt" "$mod/sub/deep/c.txt"
touch -h -d '2021-02-03 04:05:06' "$mod/link"
touch -d '2022-03-04 05:06:07' "$mod/sub/deep" "$mod/sub" "$mod/empty" "$mod"

F1='%i %n%L %l %b %c %C %B %U %G %M %f %P %m [%u] %a %h %o'
F2="%'l|%''l|%'''l|%10l|%-12n|[%07p]|[%-8p]|%5%|%x|%%|%'b|%''c|%t|%-4U|%06G|%"
mkconf() { # mkconf FILE EXTRA-GLOBAL-LINE
	cat > "$1" <<CONF
$2
[def]
	path = $mod
	transfer logging = yes
[f1]
	path = $mod
	transfer logging = yes
	log format = $F1
[f2]
	path = $mod
	transfer logging = yes
	log format = $F2
[quiet]
	path = $mod
[hidden]
	path = $mod
	list = no
	transfer logging = yes
[full]
	path = $mod
	max connections = -1
CONF
}
mkconf "$TMP/p.conf" ""
mkconf "$TMP/r.conf" "log file = $TMP/r.log
use chroot = yes"
pport=$(free_port); rport=$(free_port)
while [ "$rport" = "$pport" ]; do rport=$(free_port); done
start_prsyncd "$TMP/p.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
P=$PRSYNCD_PID
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"
R=$RSYNCD_PID

# norm PID: a log's lines without the daemon's own (PID), prsyncd's debug
# lines, the stamp-and-pid prefix, and the values that differ by nature:
# the time (%t), a session's pid (%p in brackets), the summary's counts.
norm() {
	grep -Ev "^[0-9/]+ [0-9:]+ \[$1\] " |
		sed -E 's/^[0-9]{4}\/[0-9]{2}\/[0-9]{2} [0-9:]{8} \[[0-9]+\] //' |
		grep -Ev '^(protocol [0-9]+, compat flags|literal data|filter work|match work)' |
		sed -E 's/[0-9]{4}\/[0-9]{2}\/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}/TIME/g;
			s/\[[0-9]{7}\]/[PID7]/g; s/\[[0-9]+ *\]/[PID]/g;
			s/^sent [0-9]+ bytes  received [0-9]+ bytes  total size/sent N bytes  received N bytes  total size/;
			s/^(rsync error: .*\(code [0-9]+\)) at .*/\1/'
}

# lines LOG FROM PID UNTIL: what a session added after line FROM, once a
# line matching UNTIL is there (bounded wait)
lines() {
	for _ in $(seq 1 100); do
		tail -n +"$(($2 + 1))" "$1" 2>/dev/null | grep -Eq -- "$4" && break
		sleep 0.1
	done
	tail -n +"$(($2 + 1))" "$1" | norm "$3"
}

# same NAME UNTIL BASIS CLIENT-ARGS... (URL as rsync://HOST/..., dest last):
# run the client against each daemon (BASIS: a directory copied to the
# destination first, or -) and compare the lines each one logged
same() {
	local name=$1 until=$2 basis=$3 pfrom rfrom args; shift 3
	pfrom=$(wc -l < "$TMP/p.log"); rfrom=$(wc -l < "$TMP/r.log" 2>/dev/null || echo 0)
	for port in "$pport" "$rport"; do
		rm -rf "$TMP/dst"
		[ "$basis" != - ] && cp -a "$basis" "$TMP/dst"
		args=("${@//rsync:\/\/HOST/rsync://127.0.0.1:$port}")   # rsync://HOST/...
		args=("${args[@]//@HOST\//@127.0.0.1:$port/}")          # rsync://USER@HOST/...
		rsync_client "${args[@]}" >/dev/null 2>&1
	done
	compare "$name" "$pfrom" "$rfrom" "$until"
}

# compare NAME PFROM RFROM UNTIL: each daemon's lines since PFROM/RFROM
compare() {
	local a b
	a=$(lines "$TMP/p.log" "$2" "$P" "$4"); b=$(lines "$TMP/r.log" "$3" "$R" "$4")
	if [ -n "$b" ] && [ "$a" = "$b" ]; then
		pass "$1: $(wc -l <<<"$a") lines as rsyncd's"
	else
		fail "$1: prsyncd's lines differ from rsyncd's"
		diff <(echo "$b") <(echo "$a") | sed 's/^/    /' | head -20
	fi
}

same "module listing" 'module-list request' - rsync://HOST/

# A connection that goes without a word (a port probe, a load balancer's
# health check), then a listing.  Having read the greeting, it closes:
# rsyncd logs the connect line and nothing else for it.  Leaving the
# greeting unread, its close is a reset, which rsyncd logs as a failed
# read (code 12).  (A close at once races the greeting: either.)
probe_then_list() { # probe_then_list NAME read|unread
	local name=$1 pfrom rfrom port
	pfrom=$(wc -l < "$TMP/p.log"); rfrom=$(wc -l < "$TMP/r.log" 2>/dev/null || echo 0)
	for port in "$pport" "$rport"; do
		python3 - "$port" "$2" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
s.settimeout(5)
if sys.argv[2] == "read":
    got = b""
    while b"\n" not in got:
        b = s.recv(4096)
        if not b:
            break
        got += b
else:
    time.sleep(0.5)   # the greeting arrives, unread
s.close()
PY
		sleep 0.3
		rsync_client "rsync://127.0.0.1:$port/" >/dev/null 2>&1
	done
	compare "$name" "$pfrom" "$rfrom" 'module-list request'
}
probe_then_list "a connection closed after the greeting" read
probe_then_list "a connection reset with the greeting unread" unread
same "unknown module refused" 'unknown module' - -r rsync://HOST/nope/ "$TMP/dst/"
same "max connections refused" 'max connections' - -r rsync://HOST/full/ "$TMP/dst/"
same "transfer logging off" 'sent [0-9]+ bytes' - -a rsync://HOST/quiet/ "$TMP/dst/"
same "a push refused" 'rsync error' - -a "$mod/" rsync://HOST/def/x/
same "default format" 'sent [0-9]+ bytes' - -a rsync://HOST/def/ "$TMP/dst/"
same "default format, unlisted module" 'sent [0-9]+ bytes' - -a rsync://HOST/hidden/sub "$TMP/dst/"
same "format 1, protocol 32" 'sent [0-9]+ bytes' - -a rsync://HOST/f1/ "$TMP/dst/"
for p in 31 30 29 28 27; do
	same "format 1, protocol $p" 'sent [0-9]+ bytes' - -a --protocol=$p rsync://HOST/f1/ "$TMP/dst/"
done
same "format 1, no incremental recursion" 'sent [0-9]+ bytes' - -a --no-inc-recursive rsync://HOST/f1/ "$TMP/dst/"
same "format 1, a subdirectory's contents, no -o -g" 'sent [0-9]+ bytes' - -rlt rsync://HOST/f1/sub/ "$TMP/dst/"
same "format 1, two sources" 'sent [0-9]+ bytes' - -lt rsync://HOST/f1/a.txt rsync://HOST/f1/link "$TMP/dst/"
same "format 1, -H" 'sent [0-9]+ bytes' - -aH rsync://HOST/f1/ "$TMP/dst/"
same "format 1, -c" 'sent [0-9]+ bytes' - -ac rsync://HOST/f1/ "$TMP/dst/"
same "format 1, md5" 'sent [0-9]+ bytes' - -a --checksum-choice=md5 rsync://HOST/f1/ "$TMP/dst/"
same "format 1, -i" 'sent [0-9]+ bytes' - -ai rsync://HOST/f1/ "$TMP/dst/"
same "format 1, dry run" 'sent [0-9]+ bytes' - -an rsync://HOST/f1/ "$TMP/dst/"
# an update: a changed file (delta, "<f.st......", block sums), the rest unchanged
rm -rf "$TMP/basis"; cp -a "$mod" "$TMP/basis"
echo changed >> "$TMP/basis/sub/deep/big.bin"; touch -d '2001-01-01' "$TMP/basis/sub/deep/big.bin"
chmod 0600 "$TMP/basis/a.txt"
same "format 1, an update" 'sent [0-9]+ bytes' "$TMP/basis" -a rsync://HOST/f1/ "$TMP/dst/"
same "format 1, an update with -i" 'sent [0-9]+ bytes' "$TMP/basis" -ai rsync://HOST/f1/ "$TMP/dst/"
same "format 2: widths, human-readable, %t %p %%, unknown escapes" 'sent [0-9]+ bytes' - -a rsync://HOST/f2/ "$TMP/dst/"
same "format 2, protocol 29" 'sent [0-9]+ bytes' - -a --protocol=29 rsync://HOST/f2/ "$TMP/dst/"
# a request naming files with a control byte, a tab, an escape's text and
# UTF-8: the "rsync on" line escapes it as rsyncd does
same "a request with names to escape" 'sent [0-9]+ bytes' - -a "rsync://HOST/f1/esc$(printf '\033')[2J" \
	"rsync://HOST/f1/tab$(printf '\t')x" "rsync://HOST/f1/hash\\#123" "rsync://HOST/f1/caf$(printf '\303\251')" "$TMP/dst/"

# An auth failure and a host refused by 'hosts deny', added by a reload.
printf '[a]\n\tpath = %s\n\tauth users = u\n\tsecrets file = %s/secrets\n[d]\n\tpath = %s\n\thosts deny = 127.0.0.1\n' \
	"$mod" "$TMP" "$mod" > "$TMP/auth.conf"
echo "u:pw" > "$TMP/secrets"; chmod 600 "$TMP/secrets"
cat "$TMP/auth.conf" >> "$TMP/p.conf"; cat "$TMP/auth.conf" >> "$TMP/r.conf"
kill -HUP "$P"
if wait_log "$TMP/p.log" "reload: configuration"; then
	export RSYNC_PASSWORD=wrong
	same "auth failure" 'auth failed' - -r rsync://u@HOST/a/ "$TMP/dst/"
	unset RSYNC_PASSWORD
	same "hosts deny refusal" 'rsync denied' - -r rsync://HOST/d/ "$TMP/dst/"
else
	fail "reload with auth users and hosts deny: $(tail -2 "$TMP/p.log")"
fi
stop_pid "$P"; stop_pid "$R"
finish
