#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# No configured access rule is ever skipped (issue 26 item 1), and what a
# connection costs no longer grows with the configuration, differential
# against rsync --daemon where the client or the log can see it.  In a
# private mount and network namespace (tests/nslib.sh), with a DNS server
# of our own (tests/tools/fakedns.py) that counts every question:
#   - 130 names in one module's "hosts allow": a connection to another
#     module asks the DNS nothing (the listener resolved them once); the
#     module itself admits and refuses as rsyncd;
#   - a netgroup in "hosts deny" after more than 128 name tokens: refused
#     as rsyncd refuses it (the 128-lookup cache let it in);
#   - a user in 71 groups whose 71st is contractors, "auth users =
#     @contractors:deny, alice": refused with rsyncd's line and log; a
#     user whose membership comes after 262,144 others (beyond what
#     enumerating the groups kept): refused too; a :deny rule of more than
#     1,024 bytes: applied;
#   - lookups that fail: a name whose DNS answer is SERVFAIL (refuses in a
#     deny list, admits nobody in an allow list, as rsyncd 3.5.0); the
#     name-service child killed by its seccomp filter (an NSS module that
#     opens an inet socket), killed, stopped (the deadline), or reporting
#     a lookup error (a group file it may not read): @group
#     :deny and a netgroup in hosts deny match, allow rules do not admit,
#     and the log says why;
#   - the names table refreshed and reloaded: an address that changes is
#     seen after the refresh or the reload, and a deny never lapses
#     meanwhile (connections hammered through several refreshes and a
#     reload whose new name answers 2 s late);
#   - --check-config asks the DNS nothing;
#   - the listener's resolver child runs under its seccomp filter
#     (policy/resolver.policy: Seccomp 2 in /proc while it waits for a
#     slow answer, no capability, the worker user) and still resolves
#     through /etc/hosts, the DNS over UDP, over TCP (a truncated
#     answer), from an IPv6 name server, and a name of several addresses
#     (the address sort's netlink and probes); a forbidden call (a test
#     hook's, tests/hooks/resolver_hook.c) kills it, the listener logs
#     the kill, and the names it did not reach fail closed: a deny list
#     refuses everyone, an allow list admits no one.
. "$(dirname "$0")/../nslib.sh"
ns_reexec_net "$0" "$@"
. "$(dirname "$0")/../lib.sh"

DNS=127.0.0.153
ZONE=$TMP/zone
QLOG=$TMP/queries
: > "$QLOG"
echo 'n042.names.test 127.0.0.2' > "$ZONE"

# 71 groups for alice, contractors the 71st; carol's contractors
# membership comes after a group of 262,200 members.
groups=$(for i in $(seq -w 1 70); do echo "g$i:x:$((3100 + 10#$i)):alice"; done)
crowd=$(python3 -c 'print("crowd:x:3300:" + ",".join("u%06d" % i for i in range(262200)))')
NS_PASSWD='alice:x:3001:3001::/nonexistent:/usr/sbin/nologin
bob:x:3002:3002::/nonexistent:/usr/sbin/nologin
carol:x:3003:3003::/nonexistent:/usr/sbin/nologin'
NS_GROUP="alicegrp:x:3001:
bobgrp:x:3002:
carolgrp:x:3003:
$groups
$crowd
contractors:x:3200:alice,carol"
NS_NETGROUP='badhosts (localhost,,)
otherhosts (elsewhere.test,,)'
NS_HOSTS=''
NS_NSSWITCH='passwd: files
group: files
shadow: files
hosts: files dns
netgroup: files'
NS_RESOLV="nameserver $DNS
options timeout:1 attempts:1"
ns_private_etc || { fail "private /etc"; finish; exit 1; }
# the DNS on ::1 too where this namespace has IPv6
DNS6=
python3 -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).bind(("::1", 0))' 2>/dev/null && DNS6=::1
python3 "$TOP/tests/tools/fakedns.py" "$DNS${DNS6:+,$DNS6}" "$ZONE" "$QLOG" > "$TMP/dns.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do grep -q ready "$TMP/dns.out" && break; sleep 0.1; done
check "the test's DNS server answers" bash -c "getent hosts n042.names.test | grep -q 127.0.0.2"

chmod 755 "$TMP"
M=$TMP/mod
mkdir -p "$M"
echo hello > "$M/a.txt"
chmod -R a+rX "$M"
S=$TMP/secrets
printf '%s\n' 'alice:pw-alice' 'bob:pw-bob' 'carol:pw-carol' > "$S"
chmod 600 "$S"
names130=$(for i in $(seq -w 1 130); do printf 'n%03d.names.test ' "$((10#$i))"; done)
longrule="[$(printf 'b%.0s' $(seq 1 1100))]ob:deny"

body() {
	printf 'secrets file = %s\n' "$S"
	for m in "names:hosts allow = $names130" "ngdeny:hosts deny = @badhosts" "ngdeny2:hosts deny = @otherhosts" \
		"ngallow:hosts allow = @badhosts" "svfdeny:hosts deny = fail.names.test" \
		"svfallow:hosts allow = fail.names.test" \
		"auth71:auth users = @contractors:deny, alice" "authcrowd:auth users = @contractors:deny, carol" \
		"authbob:auth users = @contractors:deny, bob" "authlong:auth users = $longrule, bob" \
		"open:comment = no lists"; do
		printf '[%s]\n\tpath = %s\n' "${m%%:*}" "$M"
		tr '|' '\n' <<<"${m#*:}" | sed 's/^/\t/'
	done
}
echo 'fail.names.test SERVFAIL' >> "$ZONE"
body > "$TMP/p.conf"
{ printf 'pid file = %s\nlog file = %s\nuid = nobody\ngid = nogroup\n' "$TMP/r.pid" "$TMP/r.log"; body; } > "$TMP/r.conf"
queries() { grep -c "^${1:-.*}\.names\.test 1$" "$QLOG"; }

pport=$(free_port)
start_prsyncd "$TMP/p.conf" "$pport" "$TMP/p.log" || fail "prsyncd did not start"
L=$PRSYNCD_PID
rport=$(free_port)
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"
check "the listener resolved the configured names before serving" wait_log "$TMP/p.log" "resolver: 1 of 131 host names resolved"

# --- a connection to another module asks nothing ----------------------------
q0=$(queries)
for i in 1 2 3 4 5; do rsync_client "rsync://127.0.0.1:$pport/open/" > /dev/null 2>&1; done
rsync_client "rsync://127.0.0.1:$pport/" > /dev/null 2>&1
q1=$(queries)
check "130 names in one module: 5 connections to another module and a listing asked the DNS nothing ($q0 then $q1 questions)" \
	test "$q1" = "$q0"

# same NAME USER PASSWORD MODULE SOURCE: one pull from each daemon, compared
same() {
	local name=$1 user=$2 pw=$3 mod=$4 src=$5 po ro prc rrc u=${2:+$2@}
	po=$(RSYNC_PASSWORD=$pw rsync_client --address="$src" "rsync://${u}127.0.0.1:$pport/$mod/" 2>&1); prc=$?
	ro=$(RSYNC_PASSWORD=$pw rsync_client --address="$src" "rsync://${u}127.0.0.1:$rport/$mod/" 2>&1); rrc=$?
	printf '%s\nexit %s\n' "$po" "$prc" > "$TMP/out.$name"
	if [ "$po" = "$ro" ] && [ "$prc" = "$rrc" ]; then
		pass "$name: $(head -n 1 <<<"$po" | cut -c1-70) (exit $prc)"
	else
		fail "$name: prsyncd exit $prc [$po] rsyncd exit $rrc [$ro]"
	fi
}
# (the client connects from SRC: any 127/8 address is ours)
same "130 names: the one that resolves to the client admits it" "" "" names 127.0.0.2
same "130 names: another client is refused" "" "" names 127.0.0.3
q2=$(queries)
same "a netgroup in hosts deny after 130 name tokens" "" "" ngdeny 127.0.0.1
same "a netgroup the client is not in" "" "" ngdeny2 127.0.0.1
same "a netgroup in hosts allow" "" "" ngallow 127.0.0.1
check "judging a module without names asked the DNS nothing" test "$(queries)" = "$q2"
same "a name whose lookup fails, in hosts deny (rsync 3.5.0 fails closed)" "" "" svfdeny 127.0.0.1
same "a name whose lookup fails, in hosts allow" "" "" svfallow 127.0.0.1
check "a failed lookup is logged with what it counts as" \
	grep -q "module svfdeny: hosts deny 'fail.names.test' could not be resolved: it counts as matching" "$TMP/p.log"

same "71 groups, @contractors:deny (the 71st)" alice pw-alice auth71 127.0.0.1
same "a membership beyond what enumerating groups kept" carol pw-carol authcrowd 127.0.0.1
same "a user outside the group" bob pw-bob authbob 127.0.0.1
same "a :deny rule of more than 1,024 bytes" bob pw-bob authlong 127.0.0.1
check "refusal: rsyncd's text" grep -qx '@ERROR: auth failed on module auth71' "$TMP/out.71 groups, @contractors:deny (the 71st)"
re='auth failed on module|rsync denied on module|rsync allowed access on module'
sed -n 's/^[0-9/]* [0-9:]* \[[0-9]*\] //p' "$TMP/p.log" | grep -E "$re" | grep -v 'module open ' > "$TMP/p.lines"
sed -n 's/^[0-9/]* [0-9:]* \[[0-9]*\] //p' "$TMP/r.log" | grep -E "$re" > "$TMP/r.lines"
if [ -s "$TMP/r.lines" ] && diff "$TMP/p.lines" "$TMP/r.lines" > "$TMP/lines.diff"; then
	pass "the same $(wc -l < "$TMP/r.lines") access and auth log lines as rsyncd"
else
	fail "log lines differ: $(head -n 8 "$TMP/lines.diff" | tr '\n' '|')"
fi
check "denied by rule, as rsyncd logs it" grep -q "auth failed on module auth71 from .* for alice: denied by rule" "$TMP/p.log"

# --- the name-service child fails --------------------------------------------
# its session monitor's child, named prsyncd-nsq, of the session holding READY
nsq_of_session() {
	local m c
	for m in $(pgrep -P "$L"); do
		for c in $(pgrep -P "$m"); do
			[ "$(cat "/proc/$c/comm" 2>/dev/null)" = prsyncd-nsq ] && { echo "$c"; return 0; }
		done
	done
	return 1
}
# held MODULE SIGNAL: a session whose child gets SIGNAL before MODULE is asked
held() {
	local mod=$1 sig=$2 c
	rm -f "$TMP/ready" "$TMP/go"
	python3 "$TOP/tests/tools/holdclient.py" "$pport" "$TMP/ready" "$TMP/go" --timeout 40 \
		--send "@RSYNCD: 32.0 sha512\n$mod\n" > "$TMP/held.out" 2>&1 &
	local hp=$!
	for _ in $(seq 1 100); do [ -e "$TMP/ready" ] && break; sleep 0.1; done
	c=$(nsq_of_session) || { fail "$mod: no name-service child found"; kill "$hp"; return; }
	kill "-$sig" "$c"
	touch "$TMP/go"
	wait "$hp"
	head -n 3 "$TMP/held.out" | sed "s/^/    ($mod, child $sig): /"
}
held ngdeny2 KILL
check "child killed: a netgroup in hosts deny refuses" grep -q "@ERROR: access denied to ngdeny2" "$TMP/held.out"
check "... and the log says why" grep -q "module ngdeny2: hosts deny 'otherhosts' could not be checked (the name-service child was killed by signal 9): it counts as matching" "$TMP/p.log"
held ngallow KILL
check "child killed: a netgroup in hosts allow admits nobody" grep -q "@ERROR: access denied to ngallow" "$TMP/held.out"
start=$(date +%s)
held ngdeny2 STOP
check "child stopped: refused once the deadline passes" grep -q "@ERROR: access denied to ngdeny2" "$TMP/held.out"
check "... (10 s)" test "$(( $(date +%s) - start ))" -ge 9
check "... and the log says why" grep -q "could not be checked (no answer from the name-service child in time)" "$TMP/p.log"

# An NSS module the child's filter does not admit (hesiod opens an inet
# socket): the child is killed, the rules refuse.
printf 'lhs=.ns\nrhs=.names.test\n' > "$TMP/etc/hesiod.conf"
sed -i 's/^group: files$/group: files hesiod/' "$TMP/etc/nsswitch.conf"
po=$(RSYNC_PASSWORD=pw-bob rsync_client "rsync://bob@127.0.0.1:$pport/authbob/" 2>&1)
ro=$(RSYNC_PASSWORD=pw-bob rsync_client "rsync://bob@127.0.0.1:$rport/authbob/" 2>&1)
check "NSS module killed by the child's filter: @group :deny matches (prsyncd refuses bob)" \
	grep -qx "@ERROR: auth failed on module authbob" <<<"$po"
check "... where rsyncd, whose lookup worked, admits him" grep -q a.txt <<<"$ro"
check "... the log names the call" grep -Eq "the groups of bob are not known \(the name-service child was killed by its seccomp filter \(syscall [0-9]+, socket\)" "$TMP/p.log"
sed -i 's/^group: files hesiod$/group: files/' "$TMP/etc/nsswitch.conf"
check "with the module gone from nsswitch.conf bob is served again" bash -c \
	"RSYNC_PASSWORD=pw-bob timeout 60 rsync rsync://bob@127.0.0.1:$pport/authbob/ 2>&1 | grep -q a.txt"

# A name service that reports an error (the group file unreadable to the
# child, which runs as the worker user): the child says so, the rule
# refuses; the monitor and rsyncd, as root, read it.
chmod 600 "$TMP/etc/group"
po=$(RSYNC_PASSWORD=pw-bob rsync_client "rsync://bob@127.0.0.1:$pport/authbob/" 2>&1)
chmod 644 "$TMP/etc/group"
check "a lookup error the child reports: @group :deny matches" grep -qx "@ERROR: auth failed on module authbob" <<<"$po"
check "... and the log says which" grep -Eq "the groups of bob are not known \(the name service failed \(getgrgid: Permission denied\)\)" "$TMP/p.log"

# --check-config makes no DNS question
q3=$(queries)
"$PRSYNCD" --check-config --config="$TMP/p.conf" > "$TMP/check.out" 2>&1
check "--check-config asks the DNS nothing" test "$(queries)" = "$q3"
stop_pid "$L"
stop_pid "$RSYNCD_PID"

# --- the resolver child under its filter -------------------------------------
# Names from every source: /etc/hosts, the DNS over UDP, over TCP (the UDP
# answer truncated), several addresses (sorted: netlink, probes), a slow
# one; asked of the IPv6 name server where there is one.
echo '127.0.0.13 fromfiles.names.test' >> /etc/hosts
cat >> "$ZONE" <<'Z'
viatcp.names.test TCP 127.0.0.11
slowsc.names.test DELAY 2 127.0.0.12
multi.names.test 127.0.0.16 127.0.0.17
Z
cp /etc/resolv.conf "$TMP/resolv.saved"
printf 'nameserver %s\noptions timeout:4 attempts:1\n' "${DNS6:-$DNS}" > /etc/resolv.conf
printf '[scdeny]\n\tpath = %s\n\thosts deny = fromfiles.names.test viatcp.names.test multi.names.test n042.names.test\n[scallow]\n\tpath = %s\n\thosts allow = slowsc.names.test\n' \
	"$M" "$M" > "$TMP/sc.conf"
sport=$(free_port)
port=$sport
PRSYNCD_TEST_NAMES_REFRESH_MS=1000 start_prsyncd "$TMP/sc.conf" "$sport" "$TMP/sc.log" || fail "prsyncd (filter) did not start"
L=$PRSYNCD_PID
# a refresh's child, waiting for slowsc's answer (2 s)
rc=
for _ in $(seq 1 100); do rc=$(pgrep -P "$L" -x prsyncd-resolve | head -n 1) && [ -n "$rc" ] && break; sleep 0.05; done
if [ -n "$rc" ] && st=$(cat "/proc/$rc/status" 2>/dev/null); then
	sleep 0.2 # past its first steps: confined once it looks names up
	st=$(cat "/proc/$rc/status" 2>/dev/null || echo "$st")
	check "the resolver child ($rc) runs under a seccomp filter (Seccomp: 2)" grep -Eq '^Seccomp:[[:space:]]+2$' <<<"$st"
	check "... no_new_privs, no capability" bash -c "grep -Eq '^NoNewPrivs:[[:space:]]+1$' <<<\"\$1\" && grep -Eq '^CapEff:[[:space:]]+0+$' <<<\"\$1\" && grep -Eq '^CapBnd:[[:space:]]+0+$' <<<\"\$1\"" _ "$st"
	check "... as the worker user (nobody)" grep -Eq "^Uid:[[:space:]]+$(id -u nobody)[[:space:]]" <<<"$st"
else
	fail "no resolver child found while it waits for a slow answer"
fi
check "under the filter, every name resolved (files, UDP, TCP, several addresses, slow${DNS6:+, IPv6 name server})" \
	wait_log "$TMP/sc.log" "resolver: 5 of 5 host names resolved, 0 not found, 0 failed"
check "... the truncated answer was asked again over TCP" grep -q '^viatcp.names.test 1 tcp$' "$QLOG"
refused() { rsync_client --address="$1" "rsync://127.0.0.1:$sport/$2/" 2>&1 | grep -q "@ERROR: access denied to $2"; }
admitted() { rsync_client --address="$1" "rsync://127.0.0.1:$sport/$2/" 2>&1 | grep -q a.txt; }
check "a name from /etc/hosts denies its address" refused 127.0.0.13 scdeny
check "a name answered over TCP denies its address" refused 127.0.0.11 scdeny
both_refused() { refused 127.0.0.16 scdeny && refused 127.0.0.17 scdeny; }
check "a name of several addresses denies each" both_refused
check "a name from the DNS over UDP denies its address" refused 127.0.0.2 scdeny
check "another address is admitted" admitted 127.0.0.5 scdeny
check "the slow name admits its address" admitted 127.0.0.12 scallow
check "... and no other" refused 127.0.0.5 scallow
if grep -Eq "resolver [0-9]+ (killed|exited)" "$TMP/sc.log"; then
	fail "a resolver child died: $(grep -Em 1 "resolver [0-9]+ (killed|exited)" "$TMP/sc.log")"
else
	pass "no resolver child died"
fi
stop_pid "$L"
cp "$TMP/resolv.saved" /etc/resolv.conf

# A forbidden call (socket(AF_UNIX, SOCK_DGRAM): the family is allowed,
# the type is not) at the first name of the start-up run: no name is
# reached, each fails closed.
echo 'zdeny.names.test 127.0.0.14' >> "$ZONE"
echo 'zallow.names.test 127.0.0.15' >> "$ZONE"
printf '[kdeny]\n\tpath = %s\n\thosts deny = zdeny.names.test\n[kallow]\n\tpath = %s\n\thosts allow = zallow.names.test\n[khook]\n\tpath = %s\n\thosts deny = prsyncd-test-syscall-socket\n[kopen]\n\tpath = %s\n' \
	"$M" "$M" "$M" "$M" > "$TMP/k.conf"
kport=$(free_port)
sport=$kport
start_prsyncd "$TMP/k.conf" "$kport" "$TMP/k.log" || fail "prsyncd (kill) did not start"
L=$PRSYNCD_PID
check "a forbidden call kills the resolver child (SIGSYS), the listener logs it" \
	grep -Eq "resolver [0-9]+ killed by signal 31 \(SIGSYS\): seccomp violation" "$TMP/k.log"
if grep -Eq "resolver [0-9]+ killed by signal 31 \(SIGSYS\): seccomp violation, syscall [0-9]+ \(socket\)$" "$TMP/k.log"; then
	pass "... naming the call: $(grep -Eom 1 'syscall [0-9]+ \(socket\)$' "$TMP/k.log")"
else
	echo "SKIP: the kernel did not report the call (audit records are rate-limited): $(grep -Em 1 'resolver [0-9]+ killed' "$TMP/k.log")"
fi
check "... and the run as failed: no name reached" \
	grep -q "resolver: the child ended early; 3 of 3 names not reached keep their last answer" "$TMP/k.log"
check "... the DNS was asked nothing" test "$(queries 'z[a-z]*')" = 0
check "a deny list whose name was not reached refuses everyone" refused 127.0.0.5 kdeny
check "... and says why" grep -q "module kdeny: hosts deny 'zdeny.names.test' is not resolved yet: it counts as matching" "$TMP/k.log"
check "an allow list whose name was not reached admits no one (not even its address)" refused 127.0.0.15 kallow
check "a module without lists is served" admitted 127.0.0.5 kopen
stop_pid "$L"

# --- refresh and reload: an answer that changes, a deny that never lapses ----
echo 'moving.names.test 127.0.0.4' >> "$ZONE"
printf '[mv]\n\tpath = %s\n\thosts deny = moving.names.test\n' "$M" > "$TMP/mv.conf"
mport=$(free_port)
port=$mport
PRSYNCD_TEST_NAMES_REFRESH_MS=500 start_prsyncd "$TMP/mv.conf" "$mport" "$TMP/mv.log" || fail "prsyncd (refresh) did not start"
L=$PRSYNCD_PID
wait_log "$TMP/mv.log" "resolver: 1 of 1 host names resolved" || fail "no first resolution"
pull() { rsync_client --address="$1" "rsync://127.0.0.1:$mport/${2:-mv}/" 2>&1; }
# hammer SRC N: N connections from SRC; prints how many were admitted
hammer() { local n=0; for _ in $(seq 1 "$2"); do pull "$1" | grep -q a.txt && n=$((n + 1)); done; echo "$n"; }
# connections from the denied address until three refreshes have run
# (at most 200 connections)
runs0=$(grep -c "resolver: " "$TMP/mv.log")
admitted=0 tries=0
while [ "$(grep -c "resolver: " "$TMP/mv.log")" -lt $((runs0 + 3)) ] && [ $tries -lt 200 ]; do
	pull 127.0.0.4 | grep -q a.txt && admitted=$((admitted + 1))
	tries=$((tries + 1))
done
runs1=$(grep -c "resolver: " "$TMP/mv.log")
check "a deny through $((runs1 - runs0)) refreshes: $tries connections, $admitted admitted" \
	bash -c "[ $admitted = 0 ] && [ $((runs1 - runs0)) -ge 3 ]"
check "another address is admitted" bash -c "timeout 60 rsync --address=127.0.0.5 rsync://127.0.0.1:$mport/mv/ 2>&1 | grep -q a.txt"
sed -i 's/^moving.names.test .*/moving.names.test 127.0.0.5/' "$ZONE"
t0=$(grep -c "resolver: " "$TMP/mv.log")
for _ in $(seq 1 50); do [ "$(grep -c "resolver: " "$TMP/mv.log")" -ge $((t0 + 2)) ] && break; sleep 0.1; done
check "the new address is seen after the refresh" bash -c "timeout 60 rsync --address=127.0.0.5 rsync://127.0.0.1:$mport/mv/ 2>&1 | grep -q '@ERROR: access denied to mv'"
check "... and the old one admitted" bash -c "timeout 60 rsync --address=127.0.0.4 rsync://127.0.0.1:$mport/mv/ 2>&1 | grep -q a.txt"

# A reload that adds a name answering 2 s late: the old generation serves
# until the new one's names are resolved; the deny on mv never lapses.
echo 'slow.names.test DELAY 2 127.0.0.6' >> "$ZONE"
printf '[mv]\n\tpath = %s\n\thosts deny = moving.names.test\n[mv2]\n\tpath = %s\n\thosts deny = slow.names.test\n' \
	"$M" "$M" > "$TMP/mv.conf"
kill -HUP "$L"
admitted=$(hammer 127.0.0.5 10)
out6=$(pull 127.0.0.6 mv2)
check "during the reload: the deny on mv holds ($admitted of 10 admitted)" test "$admitted" = 0
if grep -q a.txt <<<"$out6"; then fail "during the reload: mv2 admitted its denied client"
else pass "during the reload: mv2 does not admit its denied client ($(head -n 1 <<<"$out6"))"; fi
check "the reloaded configuration is put in force once its names are resolved" \
	wait_log "$TMP/mv.log" "reload: configuration 2 in force"
check "... logged as waiting for its names first" grep -q "reload: configuration 2 loaded; resolving its 2 host names before it is put in force" "$TMP/mv.log"
check "mv2 refuses slow.names.test's address" bash -c "timeout 60 rsync --address=127.0.0.6 rsync://127.0.0.1:$mport/mv2/ 2>&1 | grep -q '@ERROR: access denied to mv2'"
# an address change seen at a reload
sed -i 's/^moving.names.test .*/moving.names.test 127.0.0.7/' "$ZONE"
kill -HUP "$L"
wait_log "$TMP/mv.log" "reload: configuration 3 in force" || fail "no third configuration"
check "an address changed before a reload is seen after it" bash -c "timeout 60 rsync --address=127.0.0.7 rsync://127.0.0.1:$mport/mv/ 2>&1 | grep -q '@ERROR: access denied to mv'"
stop_pid "$L"

finish
