#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Where session lines go, differential against rsyncd: a module's own 'log
# file' takes the lines from module selection on (the global log keeps the
# connection's); 'syslog facility' and 'syslog tag' with rsync 3.5.0's
# %RSYNC_...% expansion, per module, seen by a stand-in syslog daemon on
# /dev/log inside a private mount namespace (SKIP where one cannot be
# made).  prsyncd alone: a module log file that cannot be opened, or that
# is a symlink another user planted, leaves the lines in the global log
# with an error.
. "$(dirname "$0")/../lib.sh"
SINK=$TOP/tests/tools/syslog_sink.py

mod=$TMP/mod
mkdir -p "$mod/sub" "$TMP/logs"
echo hello > "$mod/a.txt"
echo world > "$mod/sub/b.txt"

# norm PID: without the daemon's own lines, stamps, pids, debug lines
norm() {
	grep -Ev "^[0-9/]+ [0-9:]+ \[$1\] " |
		sed -E 's/^[0-9]{4}\/[0-9]{2}\/[0-9]{2} [0-9:]{8} \[[0-9]+\] //' |
		grep -Ev '^(protocol [0-9]+, compat flags|literal data|filter work)' |
		sed -E 's/^sent [0-9]+ bytes  received [0-9]+ bytes/sent N bytes  received N bytes/'
}

# --- a module's own log file ----------------------------------------------
mkconf() { # mkconf FILE WHO GLOBAL-LINES
	cat > "$1" <<CONF
$3
[plain]
	path = $mod
	transfer logging = yes
[own]
	path = $mod
	transfer logging = yes
	log file = $TMP/logs/own-$2.log
CONF
}
mkconf "$TMP/p.conf" p ""
mkconf "$TMP/r.conf" r "log file = $TMP/r.log"
pport=$(free_port); rport=$(free_port)
while [ "$rport" = "$pport" ]; do rport=$(free_port); done
start_prsyncd "$TMP/p.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
P=$PRSYNCD_PID
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"
R=$RSYNCD_PID
pfrom=$(wc -l < "$TMP/p.log"); rfrom=$(wc -l < "$TMP/r.log")
for m in plain own; do
	for port in $pport $rport; do
		rm -rf "$TMP/dst"; rsync_client -a "rsync://127.0.0.1:$port/$m/" "$TMP/dst/" >/dev/null 2>&1
	done
done
wait_log "$TMP/logs/own-p.log" 'sent [0-9]+ bytes' || true
wait_log "$TMP/logs/own-r.log" 'sent [0-9]+ bytes' || true
a=$(tail -n +"$((pfrom + 1))" "$TMP/p.log" | norm "$P"); b=$(tail -n +"$((rfrom + 1))" "$TMP/r.log" | norm "$R")
[ -n "$b" ] && [ "$a" = "$b" ] && pass "global log: $(wc -l <<<"$a") lines as rsyncd's (connection lines of [own] included)" ||
	{ fail "global log differs"; diff <(echo "$b") <(echo "$a") | sed 's/^/    /' | head; }
a=$(norm "$P" < "$TMP/logs/own-p.log"); b=$(norm "$R" < "$TMP/logs/own-r.log")
[ -n "$b" ] && [ "$a" = "$b" ] && pass "[own]'s log file: $(wc -l <<<"$a") lines as rsyncd's, from 'rsync on' to 'sent'" ||
	{ fail "module log differs"; diff <(echo "$b") <(echo "$a") | sed 's/^/    /' | head; }
stop_pid "$R"

# prsyncd alone: the module's log file cannot be opened, or is a symlink
# someone planted (a user's: root's own links are followed, as for every
# operator file, safeopen.h); the lines stay in the global log, with the
# reason
chmod 755 "$TMP"
ln -s "$TMP/secret" "$TMP/logs/planted.log" && chown -h nobody "$TMP/logs/planted.log"
cat >> "$TMP/p.conf" <<CONF
[nodir]
	path = $mod
	transfer logging = yes
	log file = $TMP/no/such/dir/x.log
[planted]
	path = $mod
	transfer logging = yes
	log file = $TMP/logs/planted.log
CONF
kill -HUP "$P"; wait_log "$TMP/p.log" 'reload: configuration 2' || fail "no reload"
for m in nodir planted; do
	before=$(wc -l < "$TMP/p.log")
	rm -rf "$TMP/dst"; rsync_client -a "rsync://127.0.0.1:$pport/$m/" "$TMP/dst/" >/dev/null 2>&1; rc=$?
	wait_log "$TMP/p.log" "on module $m.*|sent [0-9]+ bytes" || true
	for _ in $(seq 1 50); do tail -n +"$((before + 1))" "$TMP/p.log" | grep -q 'sent [0-9]* bytes' && break; sleep 0.1; done
	new=$(tail -n +"$((before + 1))" "$TMP/p.log")
	grep -q "module $m: cannot open log file .*; logging where the session started" <<<"$new" &&
		grep -q "send localhost \[127.0.0.1\] $m () a.txt 6" <<<"$new" && [ $rc = 0 ] &&
		pass "[$m]: the error and the transfer lines in the global log, the pull served" ||
		{ fail "[$m]: rc=$rc"; echo "$new" | sed 's/^/    /'; }
done
[ ! -e "$TMP/secret" ] && pass "the planted symlink's target was not created" || fail "a planted log symlink was followed"
stop_pid "$P"

# --- syslog ---------------------------------------------------------------
cat > "$TMP/sys.conf" <<CONF
syslog facility = local3
syslog tag = g.%RSYNC_MODULE_NAME%
[same]
	path = $mod
	transfer logging = yes
[retagged]
	path = $mod
	syslog tag = g.%RSYNC_MODULE_NAME%
[fac]
	path = $mod
	syslog facility = local5
[tag]
	path = $mod
	syslog tag = t.%RSYNC_MODULE_NAME%.%RSYNC_HOST_ADDR%.%RSYNC_HOST_NAME%.%RSYNC_USER_NAME%.%RSYNC_MODULE_PATH%.%NOPE%.%%
[lf]
	path = $mod
	transfer logging = yes
	log file = $TMP/logs/lf-WHO.log
CONF
# in_ns WHO PORT: inside a private mount namespace whose /dev has a
# syslog stand-in, start one daemon (WHO p or r), pull every module, stop
cat > "$TMP/in_ns.sh" <<'NS'
set -u
T=$1 WHO=$2 PORT=$3 BIN=$4 SINK=$5
mkdir -p "$T/ovl-$WHO/u" "$T/ovl-$WHO/w"
mount -t overlay overlay -o "lowerdir=/dev,upperdir=$T/ovl-$WHO/u,workdir=$T/ovl-$WHO/w" /dev || exit 3
python3 "$SINK" /dev/log "$T/sys-$WHO.log" --timeout 100 & S=$!
for _ in $(seq 1 100); do [ -S /dev/log ] && break; sleep 0.1; done
sed "s/WHO/$WHO/" "$T/sys.conf" > "$T/sys-$WHO.conf"
if [ "$WHO" = p ]; then
	"$BIN" --no-detach --config="$T/sys-$WHO.conf" --port="$PORT" --address=127.0.0.1 2>>"$T/stderr-$WHO" & D=$!
else
	rsync --daemon --no-detach --config="$T/sys-$WHO.conf" --port="$PORT" --address=127.0.0.1 2>>"$T/stderr-$WHO" & D=$!
fi
echo "$D" > "$T/pid-$WHO"
# no probe connection: it would be logged; both daemons log once listening
for _ in $(seq 1 100); do grep -q 'version .* starting' "$T/sys-$WHO.log" 2>/dev/null && break; sleep 0.1; done
for m in same retagged fac tag lf; do
	rm -rf "$T/dst-$WHO"; timeout 60 rsync -a "rsync://127.0.0.1:$PORT/$m/" "$T/dst-$WHO/" >/dev/null 2>&1 </dev/null
done
for _ in $(seq 1 100); do [ "$(grep -c 'sent [0-9]* bytes' "$T/sys-$WHO.log")" -ge 4 ] && break; sleep 0.1; done
kill "$D"; wait "$D"
kill "$S"; wait "$S"
umount /dev
NS
# records without their time and pid, the daemon's own left out
snorm() {
	grep -v "\[$1\]: " | sed -E 's/^(<[0-9]+>)[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} ([^[]*)\[[0-9]+\]: /\1\2: /' |
		grep -Ev ': (protocol [0-9]+, compat flags|literal data|filter work)' |
		sed -E 's/: sent [0-9]+ bytes  received [0-9]+ bytes/: sent N bytes  received N bytes/'
}
ok=1
for who in p r; do
	port=$(free_port)
	unshare -m --propagation private bash "$TMP/in_ns.sh" "$TMP" "$who" "$port" "$PRSYNCD" "$SINK" || ok=0
done
if [ $ok = 0 ] || [ ! -s "$TMP/sys-r.log" ]; then
	echo "SKIP: syslog (no private mount namespace with an overlay on /dev here)"
else
	a=$(snorm "$(cat "$TMP/pid-p")" < "$TMP/sys-p.log"); b=$(snorm "$(cat "$TMP/pid-r")" < "$TMP/sys-r.log")
	[ "$a" = "$b" ] && pass "syslog: $(wc -l <<<"$a") records as rsyncd's: facility, tag, per-module reconnection and %RSYNC_...% expansion" ||
		{ fail "syslog records differ"; diff <(echo "$b") <(echo "$a") | sed 's/^/    /' | head -20; }
	grep -q '^<158>t\.tag\.127\.0\.0\.1\.localhost\.\.'"$mod"'\.%NOPE%\.%%: rsync on tag/' <<<"$a" &&
		pass "module tag expanded, unknown %NOPE% kept: $(grep -m1 '^<158>t' <<<"$a" | cut -d: -f1)" ||
		fail "module tag: $(grep -m1 'rsync on tag' <<<"$a")"
	a=$(norm x < "$TMP/logs/lf-p.log"); b=$(norm x < "$TMP/logs/lf-r.log")
	[ -n "$b" ] && [ "$a" = "$b" ] && pass "a module log file under a syslog daemon: $(wc -l <<<"$a") lines as rsyncd's" ||
		{ fail "[lf] log differs"; diff <(echo "$b") <(echo "$a") | sed 's/^/    /' | head; }
fi
finish
