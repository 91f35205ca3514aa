#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# hosts allow / hosts deny, reverse lookup and forward lookup (issue 10
# part 1), differential against rsync --daemon: the same configuration,
# the same stock client connecting from several loopback addresses (with
# and without a name) and from ::1; every module's listing or refusal, exit
# code, and the daemons' access log lines compared.  Forms: address, CIDR, netmask, IPv6 address, prefix
# and mask, wildcard name patterns, a plain name (forward lookup), an
# unresolvable name (rsync 3.5.0 fails closed in hosts deny), @netgroup,
# precedence of allow over deny, an unlisted module that pretends not to
# exist, global defaults, reverse lookup off globally and on per module.
# Names come from a private /etc (tests/nslib.sh): nothing on the machine
# changes.
. "$(dirname "$0")/../nslib.sh"
ns_reexec "$0" "$@"
. "$(dirname "$0")/../lib.sh"

NS_HOSTS='127.0.0.2 goodhost.example
127.0.0.9 nine.example
127.0.0.7 seventh.example'
NS_NETGROUP='trusted (localhost,,) (goodhost.example,,)'
ns_private_etc || { fail "private /etc"; finish; exit 1; }

chmod 755 "$TMP"
M=$TMP/mod
mkdir -p "$M"
echo hello > "$M/a.txt"
chmod -R a+rX "$M"

mods1() {
	for m in "allowip:hosts allow = 127.0.0.1" "denyip:hosts deny = 127.0.0.1" \
		"cidr:hosts allow = 127.0.0.0/30" "netmask:hosts allow = 127.0.0.0/255.255.255.252" \
		"v6only:hosts allow = ::1/128" "v6deny:hosts deny = ::1" \
		"v6mask:hosts allow = ::/ffff:ffff:ffff:ffff::" "pattern:hosts allow = *.example" \
		"denypat:hosts deny = GOOD*" "name:hosts allow = goodhost.example" \
		"unresdeny:hosts deny = nosuchhost.invalid" "unresallow:hosts allow = nosuchhost.invalid" \
		"nofwd:hosts deny = nosuchhost.invalid|forward lookup = no" \
		"netgroup:hosts allow = @trusted" "ngdeny:hosts deny = @TRUSTED" \
		"hidden:list = no|hosts deny = 127.0.0.0/8 ::1" "both:hosts allow = 127.0.0.1|hosts deny = *" \
		"sep:hosts allow = 10.0.0.0/8,, 127.0.0.2	::1" "denyunknown:hosts deny = unknown" \
		"open:comment = no lists"; do
		printf '[%s]\n\tpath = %s\n' "${m%%:*}" "$M"
		tr '|' '\n' <<<"${m#*:}" | sed 's/^/\t/'
	done
}
mods2() { # reverse lookup off globally
	printf 'reverse lookup = no\n'
	for m in "fwdname:hosts allow = goodhost.example" "fwd6name:hosts allow = ip6-localhost" \
		"revmod:reverse lookup = yes|hosts allow = *.example" "undet:hosts allow = undetermined" \
		"plain:comment = open"; do
		printf '[%s]\n\tpath = %s\n' "${m%%:*}" "$M"
		tr '|' '\n' <<<"${m#*:}" | sed 's/^/\t/'
	done
}
mods3() { # a global default, overridden by one module
	printf 'hosts allow = 127.0.0.2\n[g1]\n\tpath = %s\n[g2]\n\tpath = %s\n\thosts allow = 127.0.0.1\n' "$M" "$M"
}
if [ "$(id -u)" = 0 ]; then ids=$'uid = nobody\ngid = nogroup\n'; else ids=$'use chroot = no\n'; fi

# run_pair NAME BODY-FUNCTION FAMILY SOURCES...: both daemons on one
# configuration, every module from every source, compared.
run_pair() {
	local name=$1 body=$2 fam=$3; shift 3
	local pc=$TMP/$name.p.conf rc_=$TMP/$name.r.conf pport rport pl rl host
	"$body" > "$pc"
	{ printf 'pid file = %s\nlog file = %s\n%s' "$TMP/$name.r.pid" "$TMP/$name.r.log" "$ids"; "$body"; } > "$rc_"
	if [ "$fam" = 6 ]; then
		pport=$(free_port6); rport=$(free_port6); host='[::1]'
		"$PRSYNCD" --no-detach --config="$pc" --port="$pport" --address=::1 --log-file="$TMP/$name.p.log" \
			2>>"$TMP/$name.p.stderr" &
		PIDS+=($!); pl=$!
		rsync --daemon --no-detach --config="$rc_" --port="$rport" --address=::1 2>>"$TMP/$name.r.stderr" &
		PIDS+=($!); rl=$!
		wait_port6 "$pport" && wait_port6 "$rport" || fail "$name: daemons did not start"
	else
		pport=$(free_port); rport=$(free_port); host=127.0.0.1
		start_prsyncd "$pc" "$pport" "$TMP/$name.p.log" || fail "$name: prsyncd did not start"
		pl=$PRSYNCD_PID
		start_rsyncd "$rc_" "$rport" || fail "$name: rsyncd did not start"
		rl=$RSYNCD_PID
	fi
	local mods
	mods=$(sed -n 's/^\[\(.*\)\]$/\1/p' "$pc")
	for src in "$@"; do
		for what in "" $mods nosuchmodule; do
			local po ro prc rrc
			po=$(rsync_client --address="$src" "rsync://$host:$pport/$what${what:+/}" 2>&1); prc=$?
			ro=$(rsync_client --address="$src" "rsync://$host:$rport/$what${what:+/}" 2>&1); rrc=$?
			printf '%s\nexit %s\n' "$po" "$prc" > "$TMP/out.$name.${what:-listing}.$src"
			if [ "$po" = "$ro" ] && [ "$prc" = "$rrc" ]; then
				pass "$name: ${what:-listing} from $src: $(head -n 1 <<<"$po" | cut -c1-70) (exit $prc)"
			else
				fail "$name: ${what:-listing} from $src: prsyncd exit $prc [$po] rsyncd exit $rrc [$ro]"
			fi
		done
	done
	# the access lines of both logs, timestamps and pids aside
	local re='rsync denied on module|rsync allowed access on module|name lookup failed|forward name lookup|not a known address'
	sed -n "s/^[0-9/]* [0-9:]* \[[0-9]*\] //p" "$TMP/$name.p.log" | grep -E "$re" > "$TMP/$name.p.lines"
	sed -n "s/^[0-9/]* [0-9:]* \[[0-9]*\] //p" "$TMP/$name.r.log" | grep -E "$re" > "$TMP/$name.r.lines"
	if [ -s "$TMP/$name.r.lines" ] && diff "$TMP/$name.p.lines" "$TMP/$name.r.lines" > "$TMP/$name.diff"; then
		pass "$name: the same $(wc -l < "$TMP/$name.r.lines") access log lines as rsyncd"
	else
		fail "$name: access log lines differ: $(head -n 6 "$TMP/$name.diff" | tr '\n' '|')"
	fi
	stop_pid "$pl"
	stop_pid "$rl"
}

run_pair v4 mods1 4 127.0.0.1 127.0.0.2 127.0.0.5 127.0.0.7
run_pair v6 mods1 6 ::1
run_pair noreverse mods2 4 127.0.0.1 127.0.0.2 127.0.0.5
run_pair noreverse6 mods2 6 ::1
run_pair global mods3 4 127.0.0.1 127.0.0.2

# What the comparisons above covered, spelled out.
out() { cat "$TMP/out.$1"; }
check "refusal: rsyncd's text, exit 5" \
	bash -c "[ \"\$(head -n 1 '$TMP/out.v4.denyip.127.0.0.1')\" = '@ERROR: access denied to denyip from localhost (127.0.0.1)' ] && grep -qx 'exit 5' '$TMP/out.v4.denyip.127.0.0.1'"
check "IPv6 refusal names ::1" grep -q "^@ERROR: access denied to v6deny from localhost (::1)$" "$TMP/out.v6.v6deny.::1"
check "IPv6 address admitted" grep -q "a.txt" "$TMP/out.v6.v6only.::1"
check "CIDR and netmask: .2 in, .5 out" bash -c "grep -q a.txt '$TMP/out.v4.cidr.127.0.0.2' && grep -q a.txt '$TMP/out.v4.netmask.127.0.0.2' && grep -q '^@ERROR: access denied to netmask' '$TMP/out.v4.netmask.127.0.0.5'"
check "no reverse name: UNKNOWN" grep -q "^@ERROR: access denied to pattern from UNKNOWN (127.0.0.5)$" "$TMP/out.v4.pattern.127.0.0.5"
check "unresolvable name in hosts deny refuses everyone (rsync 3.5.0)" \
	bash -c "for s in 127.0.0.1 127.0.0.2 127.0.0.5; do grep -q '^@ERROR: access denied to unresdeny' '$TMP/out.v4.unresdeny.'\$s || exit 1; done"
check "... unless forward lookup = no" grep -q a.txt "$TMP/out.v4.nofwd.127.0.0.2"
check "unlisted module refused as unknown" grep -q "^@ERROR: Unknown module 'hidden'$" "$TMP/out.v4.hidden.127.0.0.1"
check "forward lookup with reverse lookup off shows the configured name" \
	grep -q "rsync allowed access on module fwdname from goodhost.example (127.0.0.2)" "$TMP/noreverse.p.log"
check "connect-time name lookup failure logged as rsyncd" grep -q "name lookup failed for 127.0.0.5: Name or service not known" "$TMP/v4.p.log"

finish
