#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Stands in for rsync in a run of rsync's own test suite
# (tests/oracle/rsync-testsuite.sh passes it to runtests.py): a daemon
# invocation (`--daemon` among the arguments) starts prsyncd instead,
# anything else runs the real rsync, so a test talks to prsyncd exactly
# where it would talk to rsync --daemon.  PRSYNCD_ORACLE_DAEMON=rsyncd
# sends daemon invocations to the real rsync too: the baseline run goes
# through the same script.
#
#   PRSYNCD_ORACLE_RSYNC    the real rsync (required)
#   PRSYNCD_ORACLE_PRSYNCD  prsyncd (required unless the daemon is rsyncd)
#   PRSYNCD_ORACLE_DAEMON   prsyncd (default) or rsyncd
#   scratchdir              set by runtests.py per test: each invocation
#                           is logged to $scratchdir/peer-argv.log, and a
#                           foreground prsyncd's standard error copied to
#                           $scratchdir/prsyncd.stderr
set -u
real=${PRSYNCD_ORACLE_RSYNC:?PRSYNCD_ORACLE_RSYNC is not set}
log=/dev/null
[ -n "${scratchdir:-}" ] && [ -d "$scratchdir" ] && log=$scratchdir/peer-argv.log
note() { printf '%s' "$1" >>"$log"; shift; printf ' %q' "$@" >>"$log"; echo >>"$log"; }

daemon=0 detach=1 server=0 address=0
for a in "$@"; do
	case $a in
	--daemon) daemon=1 ;;
	--no-detach) detach=0 ;;
	--server) server=1 ;;
	--address | --address=*) address=1 ;;
	--) break ;;
	esac
done
if [ "$daemon" = 0 ] || [ "${PRSYNCD_ORACLE_DAEMON:-prsyncd}" = rsyncd ]; then
	note rsync "$@"
	exec "$real" "$@"
fi

# A daemon spoken to over its standard input and output (a remote
# shell's `rsync --server --daemon`, RSYNC_CONNECT_PROG's socketpair, a
# pipe) is what prsyncd cannot serve yet (issue 29).  Say so, rather
# than let prsyncd, which finds no inetd connection there, bind the
# configuration's port instead.
stdio=$server
if [ -p /dev/stdin ]; then
	stdio=1
elif [ -S /dev/stdin ]; then
	ino=$(readlink "/proc/$$/fd/0" | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p')
	[ -n "$ino" ] && awk -v i="$ino" '$7 == i { f = 1 } END { exit !f }' /proc/net/unix && stdio=1
fi
if [ "$stdio" = 1 ]; then
	note 'refused (daemon over stdio, issue 29):' "$@"
	echo "rsync-peer.sh: prsyncd serves no daemon over standard input/output (issue 29): $*" >&2
	exit 1
fi

# rsync --daemon's options as prsyncd spells them.  Those prsyncd has
# no counterpart for are passed on as given: prsyncd refuses them, and
# its message (in prsyncd.stderr) says which.
args=()
while [ $# -gt 0 ]; do
	a=$1; shift
	case $a in
	--daemon | --detach) ;;
	--config | --port | --address | --log-file | --pid-file)
		if [ $# -gt 0 ]; then args+=("$a=$1"); shift; else args+=("$a"); fi ;;
	*) args+=("$a") ;;
	esac
done
# The tests' modules are deliberately open: a daemon told no address
# listens on loopback only (the suite's own daemons all pass one).
[ "$address" = 1 ] || args+=(--address=127.0.0.1)
# rsyncd's children outlive a SIGTERM to the parent, which the harness
# then kills itself; prsyncd's listener would wait for its sessions.
args+=(--stop-timeout=0)
prsyncd=${PRSYNCD_ORACLE_PRSYNCD:?PRSYNCD_ORACLE_PRSYNCD is not set}
note prsyncd "${args[@]}"
# A detaching daemon must not leave a tee holding its caller's stderr
# (the caller waits for the end of its output), so only a foreground
# one has its messages copied.
if [ "$log" != /dev/null ] && [ "$detach" = 0 ]; then
	exec "$prsyncd" "${args[@]}" 2> >(tee -a "$scratchdir/prsyncd.stderr" >&2)
fi
exec "$prsyncd" "${args[@]}"
