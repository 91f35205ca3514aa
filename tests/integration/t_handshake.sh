#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The text phase against the oracle: module listings (stock client output
# and raw bytes), MOTD, list = no, unknown modules, odd greetings.  prsyncd
# and rsync --daemon serve the same config; their answers must match.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$TMP/pub" "$TMP/hidden"
printf 'Welcome to the test mirror\nsecond line' > "$TMP/motd"

write_conf() { # write_conf FILE WITH_MOTD
	{
		[ "$2" = 1 ] && echo "motd file = $TMP/motd"
		cat <<CONF
[pub]
	path = $TMP/pub
	comment = public files
[hidden]
	path = $TMP/hidden
	list = no
[a_module_name_longer_than_fifteen]
	path = $TMP/pub
	comment = long name
[nocomment]
	path = $TMP/pub
CONF
	} > "$1"
}

for motd in 0 1; do
	conf=$TMP/conf$motd
	write_conf "$conf" $motd
	pp=$(free_port); rp=$(free_port)
	start_prsyncd "$conf" "$pp" "$TMP/p$motd.log" || fail "prsyncd did not start (motd=$motd)"
	P=$PRSYNCD_PID
	start_rsyncd "$conf" "$rp" || fail "rsyncd did not start (motd=$motd)"
	R=$RSYNCD_PID

	# The stock client's view, for every protocol we claim.
	for proto in 27 28 29 30 31 32; do
		for url in "" "pub/" "nosuch/" "#weird/"; do
			ro=$(rsync_client --protocol=$proto "rsync://127.0.0.1:$rp/$url" 2>&1 | sed "s/:$rp\\b/:PORT/g"); rc_r=$?
			po=$(rsync_client --protocol=$proto "rsync://127.0.0.1:$pp/$url" 2>&1 | sed "s/:$pp\\b/:PORT/g"); rc_p=$?
			case $url in
			pub/)
				# Transfers come with the sender; until then compare
				# only that both get past module selection.
				continue ;;
			esac
			if [ "$ro" = "$po" ]; then pass "client output motd=$motd proto=$proto url='$url'"
			else fail "client output motd=$motd proto=$proto url='$url'"; diff <(echo "$ro") <(echo "$po") | head -10; fi
		done
		rc_r=0; rc_p=0
		rsync_client --protocol=$proto "rsync://127.0.0.1:$rp/nosuch/" >/dev/null 2>&1 || rc_r=$?
		rsync_client --protocol=$proto "rsync://127.0.0.1:$pp/nosuch/" >/dev/null 2>&1 || rc_p=$?
		[ "$rc_r" = "$rc_p" ] && pass "unknown module exit code $rc_p proto=$proto" || fail "unknown module exit code rsyncd=$rc_r prsyncd=$rc_p proto=$proto"
		rc_r=0; rc_p=0
		rsync_client --protocol=$proto "rsync://127.0.0.1:$rp/" >/dev/null 2>&1 || rc_r=$?
		rsync_client --protocol=$proto "rsync://127.0.0.1:$pp/" >/dev/null 2>&1 || rc_p=$?
		[ "$rc_r" = "$rc_p" ] && pass "listing exit code $rc_p proto=$proto" || fail "listing exit code rsyncd=$rc_r prsyncd=$rc_p proto=$proto"
	done

	# Raw bytes, byte for byte, for greetings of every shape.
	i=0
	for script in \
		'@RSYNCD: 32.0 sha512 sha256 sha1 md5 md4\n\n' \
		'@RSYNCD: 32.0 md5\n#list\n' \
		'@RSYNCD: 31.0\n\n' \
		'@RSYNCD: 30.0\n\n' \
		'@RSYNCD: 29\n\n' \
		'@RSYNCD: 27\n\n' \
		'@RSYNCD: 27.0\nnosuch\n' \
		'@RSYNCD: 33.0 md5\n\n' \
		'@RSYNCD: 31.0\r\n\r\n' \
		'@RSYNCD: 30\n\n' \
		'@RSYNCD: 32.0\n\n' \
		'HELLO\n\n' \
		'@RSYNCD: x\n\n' \
		'@RSYNCD: 31.0\n#bogus\n' \
		'@RSYNCD: 31.0\n#early_input=5\nABCDE\n' \
		'@RSYNCD: 31.0\n#early_input=0\n\n' \
		'@RSYNCD: 31.0\n#early_input=99999\n\n' \
		'@RSYNCD: 31.0\nhidden/deeper\n'; do
		i=$((i + 1))
		ro=$(rawclient "$rp" --send "$script" --hex --timeout 5)
		po=$(rawclient "$pp" --send "$script" --hex --timeout 5)
		if [ "$ro" = "$po" ]; then pass "raw bytes motd=$motd #$i"
		else fail "raw bytes motd=$motd #$i ($script)"; echo " rsyncd:  ${ro:0:400}"; echo " prsyncd: ${po:0:400}"; fi
	done
	stop_pid "$P"; stop_pid "$R"
done

# A protocol older than 27 gets a clear error instead of a broken session.
conf=$TMP/conf0; pp=$(free_port)
start_prsyncd "$conf" "$pp" "$TMP/old.log"
out=$(rawclient "$pp" --send '@RSYNCD: 26.0\n\n' --timeout 5)
case $out in *"@ERROR: protocol version mismatch"*) pass "protocol 26 refused";; *) fail "protocol 26 refused: $out";; esac
# Over-long request lines end the session without a crash.
long=$(head -c 3000 /dev/zero | tr '\0' 'a')
out=$(rawclient "$pp" --send "@RSYNCD: 31.0\n$long\n" --timeout 5)
case $out in "@RSYNCD: 32.0"*) pass "over-long module line handled";; *) fail "over-long module line: $out";; esac
out=$(rawclient "$pp" --send '@RSYNCD: 31.0\npu\x00b\n' --timeout 5)
case $out in "@RSYNCD: 32.0"*) pass "NUL in module line handled";; *) fail "NUL in module line";; esac
out=$(rawclient "$pp" --send '' --timeout 2)
case $out in "@RSYNCD: 32.0"*) pass "silent client gets greeting";; *) fail "silent client";; esac
check "daemon still serves after odd input" bash -c "rsync_client() { timeout 60 rsync \"\$@\" </dev/null; }; rsync_client rsync://127.0.0.1:$pp/ | grep -q '^pub '"
grep -q 'worker .* killed' "$TMP/old.log" && fail "a worker crashed during handshake tests" || pass "no worker crashed"
finish
