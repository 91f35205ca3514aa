#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Filesystem races while stock clients pull in a loop, against prsyncd (as
# root, and started by an ordinary user, whose monitors have neither chroot
# nor uid drop and rely on openat2 alone) and against rsyncd, on the same
# module at the same time:
#   file-link   a file swapped (renameat2 RENAME_EXCHANGE) with a symlink to
#               a secret outside the module
#   dir-link    a directory swapped with a symlink to an outside directory
#   parent-link a parent directory of the files being sent swapped likewise
#   mutate      a file truncated, grown, deleted, recreated and replaced
#               between listing and sending
#   hardlink    a hard link to a root-only secret appearing and vanishing
# Pass: the secret's bytes never reach a client, nothing crashes (no signal
# death, e.g. SIGBUS on a shrinking file, no sanitizer report), and every
# exit code is one rsyncd gives for such races (0, 23, 24).
# Each race runs PRSYNCD_RACE_SECONDS (default 3) seconds.
. "$(dirname "$0")/../lib.sh"

SECS=${PRSYNCD_RACE_SECONDS:-3}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: t_races.sh needs root (a root-only secret, rsyncd's chroot)"
	finish
	exit
fi

R=$TMP/race
S=$TMP/secret
MARK="SECRET-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
# The secret: world-readable but outside the module, under names a
# successful escape would deliver in place of module files.
mkdir -p "$S/r" "$R/d" "$R/p/q/r"
for f in secret.txt a b r/file; do echo "$MARK $f" > "$S/$f"; done
printf '%s hard-linked, root only\n' "$MARK" > "$TMP/hsecret"
chmod 600 "$TMP/hsecret"
chmod 755 "$S" "$S/r"
chmod 711 "$TMP" # so that only the module boundary, not $TMP's mode, keeps the secret out
mk() { head -c "$2" /dev/zero | tr '\0' 'm' > "$1"; }
mk "$R/f" 200000
mk "$R/d/a" 50000
mk "$R/d/b" 50000
mk "$R/p/q/r/file" 50000
mk "$R/m" 1048576
for i in 1 2 3 4 5; do mk "$R/plain$i" 20000; done
ln -s ../secret/secret.txt "$R/f.alt"
ln -s ../secret "$R/d.alt"
ln -s ../../secret "$R/p/q.alt"
chmod -R a+rX "$R"

cat > "$TMP/p.conf" <<CONF
[race]
	path = $R
CONF
cat > "$TMP/r.conf" <<CONF
pid file = $TMP/rsyncd.pid
log file = $TMP/rsyncd.log
[race]
	path = $R
	uid = nobody
	gid = nogroup
	use chroot = yes
CONF
pport=$(free_port)
start_prsyncd "$TMP/p.conf" "$pport" "$TMP/log" || fail "prsyncd did not start"
rport=$(free_port)
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"
# The same daemon started by an ordinary user: its session monitors are
# neither chrooted nor moved to another uid, so openat2's RESOLVE_BENEATH
# is all that keeps them in the module (and the secret is readable).
nport=""
if command -v setpriv >/dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$BIN/prsyncd-worker"; then
	mkdir -p "$TMP/nr" && chmod 777 "$TMP/nr"
	nport=$(free_port)
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$PRSYNCD" --no-detach --config="$TMP/p.conf" \
		--port="$nport" --address=127.0.0.1 --log-file="$TMP/nr/log" 2>"$TMP/nr/stderr" &
	PIDS+=("$!")
	wait_port "$nport" || { echo "SKIP: non-root daemon did not start: $(head -c 300 "$TMP/nr/stderr")"; nport=""; }
else
	echo "SKIP: races against a non-root daemon (setpriv, or the build is not reachable by nobody)"
fi

# pull_loop PORT TAG RACER-PID: pull until the racer ends (at most 1000
# times); one exit code per line in $TMP/rc.TAG, leaks counted in
# $TMP/leak.TAG.  Alternates plain -a and -c (checksums open every file
# while the list is built: another window).
pull_loop() {
	local port=$1 tag=$2 racer=$3 i=0 dest rc opt
	dest=$TMP/dest.$tag
	: > "$TMP/rc.$tag"
	: > "$TMP/leak.$tag"
	while kill -0 "$racer" 2>/dev/null && [ $i -lt 1000 ]; do
		rm -rf "$dest"
		if [ $((i % 2)) = 0 ]; then opt=-a; else opt=-ac; fi
		timeout 60 rsync $opt --contimeout=10 --timeout=30 "rsync://127.0.0.1:$port/race/" "$dest/" \
			</dev/null >/dev/null 2>>"$TMP/err.$tag"
		rc=$?
		echo "$rc" >> "$TMP/rc.$tag"
		# never follow a symlink the client made: its bytes are not the client's
		grep -rlF -- "$MARK" "$dest" >> "$TMP/leak.$tag" 2>/dev/null
		i=$((i + 1))
	done
}
codes() { sort -n "$1" | uniq -c | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }'; }

race() { # race NAME RACER-ARGS...
	local name=$1; shift
	local before pl rl
	before=$(wc -l < "$TMP/log")
	"$TOOLS/racer" "$@" > "$TMP/racer.out" &
	local racer=$!
	PIDS+=("$racer")
	pull_loop "$pport" "p.$name" "$racer" &
	pl=$!
	pull_loop "$rport" "r.$name" "$racer" &
	rl=$!
	local nl=""
	if [ -n "$nport" ]; then pull_loop "$nport" "n.$name" "$racer" & nl=$!; fi
	wait "$racer" "$pl" "$rl" $nl
	if [ -n "$nport" ]; then
		[ -s "$TMP/leak.n.$name" ] && fail "$name: the secret reached a client of the non-root daemon: $(sort -u "$TMP/leak.n.$name" | head -n 3 | tr '\n' ' ')" ||
			pass "$name: the secret never reached a client of the non-root daemon ($(wc -l < "$TMP/rc.n.$name") pulls)"
		bad=$(grep -vxE '0|23|24' "$TMP/rc.n.$name" | sort -u | tr '\n' ' ')
		[ -z "$bad" ] && pass "$name: non-root daemon exit codes $(codes "$TMP/rc.n.$name")" ||
			fail "$name: non-root daemon exit codes $(codes "$TMP/rc.n.$name")"
	fi
	local n pcodes rcodes bad
	n=$(wc -l < "$TMP/rc.p.$name")
	pcodes=$(codes "$TMP/rc.p.$name")
	rcodes=$(codes "$TMP/rc.r.$name")
	[ "$n" -gt 0 ] && pass "$name: $n prsyncd pulls during $(cat "$TMP/racer.out") changes" || fail "$name: no pull ran"
	if [ -s "$TMP/leak.p.$name" ]; then
		fail "$name: the secret reached a prsyncd client: $(sort -u "$TMP/leak.p.$name" | head -n 3 | tr '\n' ' ')"
	else
		pass "$name: the secret never reached a prsyncd client"
	fi
	bad=$(grep -vxE '0|23|24' "$TMP/rc.p.$name" | sort -u | tr '\n' ' ')
	[ -z "$bad" ] && pass "$name: prsyncd exit codes $pcodes (rsyncd: $rcodes)" ||
		{ fail "$name: prsyncd exit codes $pcodes include $bad (rsyncd: $rcodes)"; grep -v '^$' "$TMP/err.p.$name" | sort | uniq -c | sort -rn | head -n 5 | sed 's/^/    /'; }
	bad=$(grep -vxE '0|23|24' "$TMP/rc.r.$name" | sort -u | tr '\n' ' ')
	[ -z "$bad" ] || echo "note: $name: rsyncd itself gave $bad ($rcodes)"
	[ -s "$TMP/leak.r.$name" ] && echo "note: $name: the secret reached an rsyncd client"
	local t
	for t in p r; do # what the clients were told, most frequent first, for the record
		sed -E 's/[0-9]+/N/g' "$TMP/err.$t.$name" 2>/dev/null | grep -v '^$' | sort | uniq -c | sort -rn |
			head -n 3 | sed "s/^ */note: $name: $t: /"
	done
	local after
	after=$(tail -n +"$((before + 1))" "$TMP/log")
	grep -Eq 'killed by signal|Sanitizer' <<<"$after" && fail "$name: a crash: $(grep -E 'killed by signal' <<<"$after" | head -n 1)" ||
		pass "$name: no process of prsyncd killed by a signal"
}

race file-link exchange "$SECS" "$R/f" "$R/f.alt"
race dir-link exchange "$SECS" "$R/d" "$R/d.alt"
race parent-link exchange "$SECS" "$R/p/q" "$R/p/q.alt"
race mutate mutate "$SECS" "$R/m" 1048576
race hardlink hardlink "$SECS" "$TMP/hsecret" "$R/h"

grep -q "path .* in module race: a link leads above the module root" "$TMP/log" &&
	pass "escapes kept beneath the module root and logged by the monitor" ||
	fail "no escape attempt was logged (did a race run?)"
if [ -n "$nport" ]; then
	grep -q "path .* in module race: a link leads above the module root" "$TMP/nr/log" &&
		pass "non-root daemon: escapes kept beneath the root and logged" ||
		fail "non-root daemon: no escape attempt logged"
	grep -Eq 'killed by signal' "$TMP/nr/log" && fail "non-root daemon: a crash: $(grep 'killed by signal' "$TMP/nr/log" | head -n 1)" ||
		pass "non-root daemon: no process killed by a signal"
	grep -Eq 'Sanitizer|runtime error' "$TMP/nr/stderr" && fail "non-root daemon: sanitizer report" || pass "non-root daemon: no sanitizer report"
fi
if grep -Eq 'Sanitizer|runtime error' "$TMP/log.stderr" 2>/dev/null; then
	fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/log.stderr")"
else
	pass "no sanitizer report"
fi
out=$(rsync_client -a "rsync://127.0.0.1:$pport/race/" "$TMP/final/" 2>&1)
cmp -s "$R/f" "$TMP/final/f" && pass "after the races a pull is whole again" || fail "final pull: $out"
finish
