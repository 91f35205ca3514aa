#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Daemon authentication (issue 10 part 2), differential against rsync
# --daemon with the same configuration and the same stock client:
#   every digest (sha512 sha256 sha1 md5 md4) at protocols 27-32, and a
#   client without a digest list (md5, or rsync's old md4 below 30): the
#   client's and daemon's greetings are rewritten by tests/tools/greetproxy.py
#   (RSYNC_CONNECT_PROG), the same way for both daemons
#   bad password, unknown user, :deny, :ro, :rw, wildcards, @group (primary
#   and supplementary), a comma-only list, the "auth digest" floor and an
#   unknown floor, strict modes (world-readable, other-writable, not root's,
#   and strict modes = no), a missing secrets file, a planted secrets link,
#   a client offering none of the digests, a global secrets file without
#   auth users (inert)
# compared on the client's output and exit code and the daemons' auth log
# lines; and a hostile check that the worker never holds a secret byte
# (tests/tools/authscan.py reads its memory through /proc/PID/mem while the
# session is open).  Users and groups come from a private /etc
# (tests/nslib.sh).
. "$(dirname "$0")/../nslib.sh"
ns_reexec "$0" "$@"
. "$(dirname "$0")/../lib.sh"

NS_PASSWD='authuser:x:2001:2001::/nonexistent:/usr/sbin/nologin
outsider:x:2002:2002::/nonexistent:/usr/sbin/nologin'
NS_GROUP='authgrp:x:2001:
outgrp:x:2002:
authsec:x:2003:authuser'
NS_HOSTS=''
ns_private_etc || { fail "private /etc"; finish; exit 1; }

chmod 755 "$TMP"
M=$TMP/mod
P=$TMP/pub
mkdir -p "$M" "$P"
echo hello > "$M/a.txt"
chmod -R a+rX "$M"
S=$TMP/secrets
printf '%s\n' '# the test users' 'alice:pw-alice-5b8e21' 'bob:pw-bob-77c2e0' 'authuser:pw-user-9d01aa' \
	'@authsec:pw-group-3e5f77' 'outsider:pw-out-1c2d3e' > "$S"
chmod 600 "$S"
cp "$S" "$TMP/secrets644"; chmod 644 "$TMP/secrets644"
cp "$S" "$TMP/secrets602"; chmod 602 "$TMP/secrets602"
cp "$S" "$TMP/secrets-nobody"; chown nobody "$TMP/secrets-nobody"
chown nobody "$P"
ln -s "$S" "$P/secrets" && chown -h nobody "$P/secrets"

body() {
	printf 'secrets file = %s\n' "$S"
	for m in "m:auth users = alice, bob:deny, @authsec:ro" "ro:auth users = alice:ro" "rw:auth users = alice:rw" \
		"wild:auth users = al*:deny b?b" "comma:auth users = , bob alice:deny, alice" \
		"group:auth users = @authgrp" "floor:auth users = alice|auth digest = sha256" \
		"bogus:auth users = alice|auth digest = whirlpool" \
		"world:auth users = alice|secrets file = $TMP/secrets644" \
		"otherw:auth users = alice|secrets file = $TMP/secrets602" \
		"notroot:auth users = alice|secrets file = $TMP/secrets-nobody" \
		"lax:auth users = alice|secrets file = $TMP/secrets644|strict modes = no" \
		"nosecrets:auth users = alice|secrets file = $TMP/nonexistent" \
		"planted:auth users = alice|secrets file = $P/secrets" "open:comment = anonymous"; do
		printf '[%s]\n\tpath = %s\n' "${m%%:*}" "$M"
		tr '|' '\n' <<<"${m#*:}" | sed 's/^/\t/'
	done
}
body > "$TMP/p.conf"
{ printf 'pid file = %s\nlog file = %s\nuid = nobody\ngid = nogroup\n' "$TMP/r.pid" "$TMP/r.log"; body; } > "$TMP/r.conf"
pport=$(free_port)
start_prsyncd "$TMP/p.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
LPID=$PRSYNCD_PID
rport=$(free_port)
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"

PROXY=$TOP/tests/tools/greetproxy.py
# same NAME USER PASSWORD MODULE [PROXY-ARGS|-] [CLIENT-ARGS...]: one pull from each daemon, compared
same() {
	local name=$1 user=$2 pw=$3 mod=$4 proxy=$5; shift 5
	local po ro prc rrc
	if [ "$proxy" = - ]; then
		po=$(RSYNC_PASSWORD=$pw rsync_client "$@" "rsync://$user@127.0.0.1:$pport/$mod/" 2>&1); prc=$?
		ro=$(RSYNC_PASSWORD=$pw rsync_client "$@" "rsync://$user@127.0.0.1:$rport/$mod/" 2>&1); rrc=$?
	else
		po=$(RSYNC_PASSWORD=$pw RSYNC_CONNECT_PROG="python3 $PROXY $pport $proxy" rsync_client "$@" \
			"rsync://$user@localhost/$mod/" 2>&1); prc=$?
		ro=$(RSYNC_PASSWORD=$pw RSYNC_CONNECT_PROG="python3 $PROXY $rport $proxy" rsync_client "$@" \
			"rsync://$user@localhost/$mod/" 2>&1); rrc=$?
	fi
	printf '%s\nexit %s\n' "$po" "$prc" > "$TMP/out.$name"
	if [ "$po" = "$ro" ] && [ "$prc" = "$rrc" ]; then
		pass "$name: $(head -n 1 <<<"$po" | cut -c1-60) (exit $prc)"
	else
		fail "$name: prsyncd exit $prc [$po] rsyncd exit $rrc [$ro]"
	fi
}

# Every digest at every protocol, and clients without a list.
for d in sha512 sha256 sha1 md5 md4; do
	for p in 27 28 29 30 31 32; do
		same "$d at protocol $p" alice pw-alice-5b8e21 m "--server $d --client $d" --protocol="$p"
	done
done
for v in 27 29 30 31; do
	same "no digest list, protocol $v" alice pw-alice-5b8e21 m "--server - --client - --version $v"
	same "no digest list, protocol $v, bad password" alice wrong m "--server - --client - --version $v"
done
same "stock client (sha512)" alice pw-alice-5b8e21 m -
same "stock client, protocol 27" alice pw-alice-5b8e21 m - --protocol=27
same "a client offering none of the digests" alice pw-alice-5b8e21 m "--server md5 --client xyz"

# Users, rules, groups.
same "bad password" alice wrong m -
same "unknown user" carol pw-alice-5b8e21 m -
same ":deny" bob pw-bob-77c2e0 m -
same "@group (supplementary) with the group's password" authuser pw-group-3e5f77 m -
same "@group with the user's own password" authuser pw-user-9d01aa m -
same "@group, a user outside it" outsider pw-out-1c2d3e m -
same "@group (primary)" authuser pw-user-9d01aa group -
same "@group (primary), the password of another group" authuser pw-group-3e5f77 group -
same ":ro" alice pw-alice-5b8e21 ro -
same ":rw (on a daemon that serves read-only)" alice pw-alice-5b8e21 rw -
same "wildcard :deny" alice pw-alice-5b8e21 wild -
same "wildcard user" bob pw-bob-77c2e0 wild -
same "comma-only list" alice pw-alice-5b8e21 comma -
same "anonymous module under a global secrets file" alice x open -

# The digest floor.
same "floor: md5 refused" alice pw-alice-5b8e21 floor "--server md5 --client md5"
same "floor: no list (md4) refused" alice pw-alice-5b8e21 floor "--server - --client - --version 29"
same "floor: sha256 accepted" alice pw-alice-5b8e21 floor "--server sha256 --client sha256"
same "floor: sha512 accepted" alice pw-alice-5b8e21 floor -
same "floor: unknown digest refuses every login" alice pw-alice-5b8e21 bogus -

# The secrets file.
same "strict modes: world-readable" alice pw-alice-5b8e21 world -
same "strict modes: other-writable" alice pw-alice-5b8e21 otherw -
same "strict modes: not owned by root" alice pw-alice-5b8e21 notroot -
same "strict modes = no" alice pw-alice-5b8e21 lax -
same "missing secrets file" alice pw-alice-5b8e21 nosecrets -
check "planted secrets link: refused by prsyncd" bash -c \
	"RSYNC_PASSWORD=pw-alice-5b8e21 timeout 60 rsync rsync://alice@127.0.0.1:$pport/planted/ 2>&1 | grep -q '^@ERROR: auth failed on module planted$'"
check "planted secrets link: refused by rsyncd too" bash -c \
	"RSYNC_PASSWORD=pw-alice-5b8e21 timeout 60 rsync rsync://alice@127.0.0.1:$rport/planted/ 2>&1 | grep -q '^@ERROR: auth failed on module planted$'"
check "planted secrets link: logged" wait_log "$TMP/p.log" \
	"secrets file $P/secrets: refusing to follow a symlink owned by an untrusted user"

# The auth log lines, timestamps and pids aside (prsyncd's own line for a
# client that offers no digest has no rsyncd counterpart).
re='auth failed on module|secrets file must'
sed -n 's/^[0-9/]* [0-9:]* \[[0-9]*\] //p' "$TMP/p.log" | grep -E "$re" | grep -v 'offers none' > "$TMP/p.lines"
sed -n 's/^[0-9/]* [0-9:]* \[[0-9]*\] //p' "$TMP/r.log" | grep -E "$re" > "$TMP/r.lines"
if [ -s "$TMP/r.lines" ] && diff "$TMP/p.lines" "$TMP/r.lines" > "$TMP/lines.diff"; then
	pass "the same $(wc -l < "$TMP/r.lines") auth log lines as rsyncd"
else
	fail "auth log lines differ: $(head -n 8 "$TMP/lines.diff" | tr '\n' '|')"
fi
check "a refusal is rsyncd's text and exit code 5" \
	bash -c "grep -qx '@ERROR: auth failed on module m' '$TMP/out.bad password' && grep -qx 'exit 5' '$TMP/out.bad password'"
check "md4 at protocol 27 served the files" grep -q a.txt "$TMP/out.md4 at protocol 27"

# The worker never holds a secret: log in (sha512), hold the session, read
# the worker's and the monitor's memory.
python3 "$TOP/tests/tools/authscan.py" "$pport" m alice pw-alice-5b8e21 "$LPID" \
	pw-alice-5b8e21 pw-bob-77c2e0 pw-user-9d01aa pw-group-3e5f77 pw-out-1c2d3e > "$TMP/scan" 2>&1
cat "$TMP/scan"
check "scan: logged in and held the session" grep -q '^login=ok' "$TMP/scan"
check "scan: the worker's memory was read (user name and challenge found)" \
	grep -Eq '^prsyncd-worker pids=1 bytes=[1-9][0-9]* secret_hits=[0-9]+ user_hits=[1-9][0-9]* challenge_hits=[1-9]' "$TMP/scan"
check "scan: no secret byte in the worker" grep -Eq '^prsyncd-worker .* secret_hits=0 ' "$TMP/scan"
check "scan: the monitor wiped the secrets after the check" \
	grep -Eq '^prsyncd-monitor pids=1 bytes=[1-9][0-9]* secret_hits=0 ' "$TMP/scan"

finish
