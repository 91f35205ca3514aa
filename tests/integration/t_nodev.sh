#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# OPEN on a module whose mount is nodev (src/monitor/resolve.c,
# open_regular_direct): there the monitor opens a regular file in two
# system calls instead of three, because the kernel itself refuses to open
# a device on a nodev mount before any driver sees it, and RESOLVE_NO_XDEV
# keeps the lookup on that mount.  This checks that the shortcut changes
# nothing but the calls:
#   - a hostile worker (tests/tools/hostile_openv.c) gets the same answer
#     for every path (regular file, directory, fifo, device, links inside
#     and out, hidden names, a file on a submount that allows devices and
#     a device there) from a nodev module as from the same tree on a mount
#     that allows devices;
#   - strace shows the shortcut taken on the nodev module only, the device
#     refused by the kernel (EACCES) rather than opened, the submount's
#     device never opened, and the nodev question asked once per batch;
#   - a stock client pulls the same tree from both modules.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: t_nodev.sh needs root (mounts, device nodes)"
	finish
	exit
fi
if ! command -v strace >/dev/null; then
	echo "SKIP: t_nodev.sh needs strace (scripts/bootstrap.sh installs it)"
	finish
	exit
fi

D=$TMP/dev
N=$TMP/nodev
mkdir -p "$D" "$N" "$TMP/outside"
mount -t tmpfs -o nodev,size=8m prsyncd-test "$N" || { fail "cannot mount a nodev tmpfs"; finish; exit; }
unmount() { umount -l "$N/sub" 2>/dev/null; umount -l "$N" 2>/dev/null; }
trap 'unmount; cleanup' EXIT
mkdir -p "$N/sub"
mount -t tmpfs -o size=8m prsyncd-test-sub "$N/sub" || fail "cannot mount a tmpfs on the nodev module"
echo outside > "$TMP/outside/o"
for M in "$D" "$N"; do
	mkdir -p "$M/dir" "$M/private" "$M/sub"
	echo hello > "$M/file"
	echo secret > "$M/private/data"
	echo key > "$M/a.key"
	echo inner > "$M/sub/inner"
	mkfifo "$M/fifo"
	mknod -m 666 "$M/chr" c 1 3
	mknod -m 666 "$M/sub/chr" c 1 3
	ln -s file "$M/lnk_file"
	ln -s ../outside/o "$M/lnk_out"
	ln -s private/data "$M/lnk_private"
	ln -s a.key "$M/lnk_key"
	ln -s private "$M/lnk_privdir"
	chmod 755 "$M" "$M/sub" # a tmpfs root is 1777
	find "$M" -exec touch -h -d @1700000000 {} +
done
grep -q nodev <<<"$(findmnt -no OPTIONS "$N")" && ! grep -q nodev <<<"$(findmnt -no OPTIONS "$N/sub")" &&
	! grep -q nodev <<<"$(findmnt -no OPTIONS -T "$D")" &&
	pass "modules: one on a nodev mount (with a submount that allows devices), one on a mount that allows them" ||
	fail "mount options: $(findmnt -no OPTIONS "$N") / $(findmnt -no OPTIONS "$N/sub") / $(findmnt -no OPTIONS -T "$D")"

cat > "$TMP/conf" <<CONF
handshake timeout = 5
[dev]
	path = $D
	filter = - /private/
	exclude = *.key
[nodev]
	path = $N
	filter = - /private/
	exclude = *.key
CONF
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" --worker="$TOOLS/hostile_openv" || fail "prsyncd did not start"
L=$PRSYNCD_PID
strace -f -qq -e trace=openat2,newfstatat,fstatfs -o "$TMP/trace" -p "$L" &
ST=$!
PIDS+=("$ST")
sleep 1 # strace attaches

# --- the same answers ----------------------------------------------------------
paths="file missing dir fifo chr sub/inner sub/chr lnk_file lnk_out lnk_private lnk_key private/data a.key lnk_privdir/data sub"
dev=$(lineclient "same dev $paths")
nodev=$(lineclient "same nodev $paths")
grep -q '^SAME-ALL yes$' <<<"$nodev" && pass "nodev: 15 paths, a batch answers as single opens" || fail "nodev batch: $nodev"
if [ "$(grep '^SAME ' <<<"$dev")" = "$(grep '^SAME ' <<<"$nodev")" ] && [ -n "$(grep '^SAME ' <<<"$dev")" ]; then
	pass "nodev and dev modules answer every path alike ($(grep '^SAME ' <<<"$nodev" | awk '{printf "%s ", $3}'))"
else
	fail "answers differ: dev: $(grep '^SAME ' <<<"$dev" | tr '\n' ' ') nodev: $(grep '^SAME ' <<<"$nodev" | tr '\n' ' ')"
fi
grep -q '^SAME 0 0 0$' <<<"$nodev" && grep -q '^SAME 5 0 0$' <<<"$nodev" &&
	pass "nodev: the file and the file on the submount open" || fail "nodev: file, sub/inner: $nodev"

# --- the calls -----------------------------------------------------------------
# The shortcut's openat2 carries RESOLVE_NO_XDEV; nothing else does.
fast() { grep -F 'RESOLVE_NO_XDEV' "$TMP/trace" | grep -F "\"$1\""; }
[ -n "$(fast file | grep -E '\) = [0-9]+$')" ] && pass "nodev: the file opened by the two-call path" ||
	fail "no RESOLVE_NO_XDEV open of file: $(grep -F '"file"' "$TMP/trace" | head -5)"
[ -n "$(fast chr | grep -F 'EACCES')" ] && [ -z "$(fast chr | grep -E '\) = [0-9]+$')" ] &&
	pass "nodev: the device refused by the kernel (EACCES), never opened" ||
	fail "device: $(grep -F '"chr"' "$TMP/trace" | head -5)"
[ -n "$(fast sub/inner | grep -F 'EXDEV')" ] && pass "nodev: the submount is not crossed by the two-call path (EXDEV)" ||
	fail "submount: $(grep -F '"sub/inner"' "$TMP/trace" | head -5)"
[ -z "$(grep -F '"sub/chr"' "$TMP/trace" | grep -v O_PATH | grep -E 'openat2.*\) = [0-9]+$')" ] &&
	pass "the submount's device is never opened (only looked up with O_PATH)" ||
	fail "sub/chr opened: $(grep -F '"sub/chr"' "$TMP/trace")"
# Each session's monitor asks fstatfs per batch: ST_NODEV in the nodev
# module's, not in the dev module's, whose monitor never takes the shortcut.
nodev_pids=$(grep -E 'fstatfs\(.*ST_NODEV' "$TMP/trace" | awk '{print $1}' | sort -u)
dev_pids=$(grep -E 'fstatfs\(' "$TMP/trace" | grep -v ST_NODEV | awk '{print $1}' | sort -u)
fast_in_dev=0
for p in $dev_pids; do
	grep -E "^$p " "$TMP/trace" | grep -q RESOLVE_NO_XDEV && fast_in_dev=1
done
[ -n "$nodev_pids" ] && [ -n "$dev_pids" ] && [ "$fast_in_dev" = 0 ] &&
	pass "fstatfs asked per batch: ST_NODEV for one module, not for the other, whose opens keep the type check" ||
	fail "fstatfs: nodev monitors '$nodev_pids', dev monitors '$dev_pids', shortcut in dev: $fast_in_dev"
stop_pid "$ST"

# --- a stock client pulls the same tree from both --------------------------------
stop_pid "$L"
port=$(free_port)
start_prsyncd "$TMP/conf" "$port" "$TMP/log" || fail "prsyncd (real worker) did not start"
L=$PRSYNCD_PID
rsync_client -a "rsync://127.0.0.1:$port/dev/" "$TMP/got_dev/" >"$TMP/c1" 2>&1; r1=$?
rsync_client -a "rsync://127.0.0.1:$port/nodev/" "$TMP/got_nodev/" >"$TMP/c2" 2>&1; r2=$?
[ "$r1" = "$r2" ] && pass "both pulls exit $r1" || fail "exit codes: dev $r1, nodev $r2: $(cat "$TMP/c1" "$TMP/c2")"
# (never diff -r: it would open the fifo)
list() { (cd "$1" && find . -printf '%p %y %s %m %T@\n' | sort && find . -type f -exec md5sum {} + | sort); }
if [ "$(list "$TMP/got_dev")" = "$(list "$TMP/got_nodev")" ] &&
	[ "$(cat "$TMP/got_nodev/sub/inner")" = inner ] && [ -c "$TMP/got_nodev/chr" ]; then
	pass "the same tree from both (files, the submount's file, fifo and devices as entries)"
else
	fail "trees differ: $(diff <(list "$TMP/got_dev") <(list "$TMP/got_nodev") | head -8)"
fi
kill -0 "$L" 2>/dev/null && pass "the listener survived every case" || fail "the listener died"
finish
