#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Operator files opened without following a symlink an unprivileged user
# planted (issue 9 finding 8; rsync 3.5.0's CVE-2026-53802/53803 class):
# every file and directory the privileged side opens by a configured name
# goes through safe_open() (src/priv/safeopen.h).
#   motd file        a link owned by nobody to a root-only 0600 file: the
#                    secret never reaches a client; rsyncd, the oracle, sends
#                    the same empty MOTD and logs the same refusal
#   module path      a link owned by nobody: "@ERROR: chdir failed" as
#                    rsyncd gives with "use chroot = no"; with "use chroot =
#                    yes" rsyncd follows it, prsyncd still refuses (its
#                    chroot is a descriptor, the walk is the only check)
#   root-owned links are followed (motd and module path)
#   include from / exclude from, log file, pid file, the configuration
#   file: a planted link stops the daemon from starting, and nothing is
#   read or written through it
#   worker chroot    a planted link: the session is refused
#   a module's log file, a planted link in a directory of its path: the
#                    session monitor (root) refuses it, logs why, and logs
#                    where the session started; rsyncd creates nothing
#                    there either
# Needs root (links owned by another uid).
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root to plant links owned by another user"
	finish
	exit 0
fi
chmod 755 "$TMP"
M=$TMP/mod
P=$TMP/pub                      # a directory an unprivileged user owns
mkdir -p "$M/sub" "$P" "$TMP/empty" "$TMP/rootlogs"
chmod 555 "$TMP/empty"
echo hello > "$M/a.txt"
echo sub > "$M/sub/b.txt"
echo "TOPSECRET-$$" > "$TMP/secret"
chmod 600 "$TMP/secret"
echo "welcome to the test" > "$TMP/motd.txt"
printf '%s\n' '- *.txt' > "$TMP/excl"
chown nobody "$P"
plant() { # plant TARGET NAME: a link NAME in $P owned by nobody
	ln -s "$1" "$P/$2" && chown -h nobody "$P/$2"
}
plant "$TMP/secret" motd
plant "$M" modlink
plant "$TMP/excl" excl
plant "$TMP/created.log" log
plant "$TMP/created.pid" pid
plant "$TMP/empty" chroot
plant "$TMP/rootlogs" logdir
ln -s "$TMP/motd.txt" "$TMP/rootmotd"
ln -s "$M" "$TMP/rootmod"

conf_body() { # the modules both daemons serve
	cat <<CONF
[nochroot]
	path = $P/modlink
	use chroot = no
[chroot]
	path = $P/modlink
	use chroot = yes
[rootlink]
	path = $TMP/rootmod
	use chroot = no
[plain]
	path = $M
	use chroot = no
[modlog]
	path = $M
	use chroot = no
	log file = $P/logdir/mod.log
CONF
}
cat > "$TMP/p.conf" <<CONF
motd file = $P/motd
$(conf_body)
CONF
cat > "$TMP/r.conf" <<CONF
pid file = $TMP/rsyncd.pid
log file = $TMP/rsyncd.log
motd file = $P/motd
$(conf_body)
CONF
port=$(free_port)
start_prsyncd "$TMP/p.conf" "$port" "$TMP/log" || fail "prsyncd did not start"
rport=$(free_port)
start_rsyncd "$TMP/r.conf" "$rport" || fail "rsyncd did not start"

# The MOTD: listing and a transfer.
rsync_client "rsync://127.0.0.1:$port/" > "$TMP/p.list" 2>&1
prc=$?
rsync_client "rsync://127.0.0.1:$rport/" > "$TMP/r.list" 2>&1
rrc=$?
check "planted motd: the secret is not sent" bash -c "! grep -q TOPSECRET '$TMP/p.list'"
check "planted motd: rsyncd does not send it either" bash -c "! grep -q TOPSECRET '$TMP/r.list'"
check "planted motd: same listing and exit code as rsyncd ($prc/$rrc)" \
	bash -c "[ $prc = $rrc ] && diff '$TMP/p.list' '$TMP/r.list' >/dev/null"
rsync_client -r "rsync://127.0.0.1:$port/plain/" "$TMP/out-p/" > "$TMP/p.out" 2>&1
prc=$?
rsync_client -r "rsync://127.0.0.1:$rport/plain/" "$TMP/out-r/" > "$TMP/r.out" 2>&1
rrc=$?
check "planted motd: transfer output and exit code as rsyncd ($prc/$rrc)" \
	bash -c "[ $prc = 0 ] && [ $rrc = 0 ] && diff '$TMP/p.out' '$TMP/r.out' >/dev/null && ! grep -q TOPSECRET '$TMP/p.out'"
check "planted motd: prsyncd logs rsyncd's refusal" \
	wait_log "$TMP/log" "motd file $P/motd: refusing to follow a symlink owned by an untrusted user \\(uid [0-9]+\\): motd -> $TMP/secret"
check "planted motd: rsyncd logs it too" grep -q "refusing to follow a symlink owned by an untrusted user" "$TMP/rsyncd.log"

# Module paths.
for mod in nochroot rootlink plain; do
	rsync_client "rsync://127.0.0.1:$port/$mod/" > "$TMP/p.$mod" 2>&1
	prc=$?
	rsync_client "rsync://127.0.0.1:$rport/$mod/" > "$TMP/r.$mod" 2>&1
	rrc=$?
	check "module $mod: same output and exit code as rsyncd ($prc/$rrc)" \
		bash -c "[ $prc = $rrc ] && diff <(grep -v '^rsync error' '$TMP/p.$mod') <(grep -v '^rsync error' '$TMP/r.$mod') >/dev/null"
done
check "planted module path (use chroot = no): @ERROR: chdir failed, exit 5" \
	bash -c "grep -q '^@ERROR: chdir failed' '$TMP/p.nochroot' && ! grep -q a.txt '$TMP/p.nochroot'"
check "planted module path: logged" \
	wait_log "$TMP/log" "module nochroot: cannot open path $P/modlink: refusing to follow a symlink owned by an untrusted user"
check "root-owned module path link: served" grep -q a.txt "$TMP/p.rootlink"
rsync_client "rsync://127.0.0.1:$port/chroot/" > "$TMP/p.chroot" 2>&1
prc=$?
rsync_client "rsync://127.0.0.1:$rport/chroot/" > "$TMP/r.chroot" 2>&1
check "planted module path (use chroot = yes): rsyncd follows it, prsyncd refuses (exit $prc)" \
	bash -c "[ $prc = 5 ] && grep -q '^@ERROR: chdir failed' '$TMP/p.chroot' && grep -q a.txt '$TMP/r.chroot'"

# A module's log file reached through a planted directory link.
rsync_client -r "rsync://127.0.0.1:$port/modlog/" "$TMP/out-ml/" > "$TMP/p.modlog" 2>&1
prc=$?
rsync_client -r "rsync://127.0.0.1:$rport/modlog/" "$TMP/out-mlr/" > "$TMP/r.modlog" 2>&1
rrc=$?
check "planted module log directory: the session is served ($prc/$rrc)" \
	bash -c "[ $prc = 0 ] && [ $rrc = 0 ] && [ -e '$TMP/out-ml/a.txt' ]"
check "planted module log directory: nothing created through it" bash -c "[ ! -e '$TMP/rootlogs/mod.log' ]"
check "planted module log directory: refused and logged where the session started" \
	wait_log "$TMP/log" "module modlog: cannot open log file $P/logdir/mod.log: refusing to follow a symlink owned by an untrusted user \\(uid [0-9]+\\): logdir -> $TMP/rootlogs"
stop_pid "$PRSYNCD_PID"

# A root-owned motd link is followed.
cat > "$TMP/p2.conf" <<CONF
motd file = $TMP/rootmotd
[plain]
	path = $M
CONF
port=$(free_port)
start_prsyncd "$TMP/p2.conf" "$port" "$TMP/log2" || fail "prsyncd (root motd) did not start"
rsync_client "rsync://127.0.0.1:$port/" > "$TMP/p2.list" 2>&1
check "root-owned motd link: followed" grep -q "welcome to the test" "$TMP/p2.list"
stop_pid "$PRSYNCD_PID"

# Files the listener opens: each planted link stops it before it serves.
refused() { # refused NAME CONF-LINE [ARGS...]: prsyncd must exit non-zero, naming the refusal
	local name=$1 line=$2; shift 2
	printf '%s\n[plain]\n\tpath = %s\n' "$line" "$M" > "$TMP/bad.conf"
	timeout 20 "$PRSYNCD" --no-detach --config="$TMP/bad.conf" --port="$(free_port)" --address=127.0.0.1 \
		"$@" > "$TMP/bad.out" 2>&1
	local rc=$?
	check "planted $name: prsyncd refuses to start (exit $rc)" \
		bash -c "[ $rc != 0 ] && [ $rc != 124 ] && cat '$TMP/bad.out' '$TMP/pidtest.log' 2>/dev/null | grep -q 'refusing to follow a symlink owned by an untrusted user'"
}
refused "exclude from" "exclude from = $P/excl"
refused "include from" "include from = $P/excl"
refused "log file (configuration)" "log file = $P/log"
refused "log file (--log-file)" "" --log-file="$P/log"
refused "pid file" "pid file = $P/pid" --log-file="$TMP/pidtest.log"
check "nothing created through the planted links" bash -c "[ ! -e '$TMP/created.log' ] && [ ! -e '$TMP/created.pid' ]"
plant "$TMP/p2.conf" conf
timeout 20 "$PRSYNCD" --no-detach --config="$P/conf" --port="$(free_port)" --address=127.0.0.1 > "$TMP/bad.out" 2>&1
rc=$?
check "planted configuration file: refused (exit $rc)" \
	bash -c "[ $rc != 0 ] && grep -q 'refusing to follow a symlink owned by an untrusted user' '$TMP/bad.out'"

# The worker chroot, checked by the listener at start.
printf 'worker chroot = %s\n[plain]\n\tpath = %s\n' "$P/chroot" "$M" > "$TMP/bad.conf"
timeout 20 "$PRSYNCD" --no-detach --config="$TMP/bad.conf" --port="$(free_port)" --address=127.0.0.1 > "$TMP/bad.out" 2>&1
rc=$?
check "planted worker chroot: refused (exit $rc)" \
	bash -c "[ $rc != 0 ] && grep -q 'worker chroot $P/chroot: refusing to follow a symlink owned by an untrusted user' '$TMP/bad.out'"

finish
