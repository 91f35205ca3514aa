#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# What a connection costs with names in the configuration (docs/
# performance.md 2.0i): for each build directory given (release builds:
# build/, or another tree's), three configurations, N connections each
# (a listing of the module "open", from the stock client), in a private
# mount and network namespace with the test DNS server
# (tests/tools/fakedns.py, every name NXDOMAIN):
#   A  [open] only
#   B  [open] and a module with "hosts allow = @trusted" (sessions fork
#      their name-service child, whichever module they select)
#   C  [open] and a module with 130 plain names in "hosts allow"
# and prints how many were served, the sessions' CPU per connection (the listener's cutime +
# cstime: every session monitor with its worker and child), the wall time
# per connection and the DNS questions the connections caused.
#
#   bench/names.sh BUILD-DIR...        N=100 by default; root, unshare -mn
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tests/nslib.sh"
ns_reexec_net "$0" "$@"
. "$TOP/tests/lib.sh"
DNS=127.0.0.153
: > "$TMP/zone"
: > "$TMP/q"
NS_NETGROUP='trusted (localhost,,)'
NS_NSSWITCH='passwd: files
group: files
shadow: files
hosts: files dns
netgroup: files'
NS_RESOLV="nameserver $DNS
options timeout:1 attempts:1"
ns_private_etc || exit 1
python3 "$TOP/tests/tools/fakedns.py" "$DNS" "$TMP/zone" "$TMP/q" > "$TMP/dns.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do grep -q ready "$TMP/dns.out" && break; sleep 0.1; done
M=$TMP/mod
mkdir -p "$M" && echo hi > "$M/a" && chmod -R a+rX "$TMP"
names=$(for i in $(seq 1 130); do printf 'n%03d.names.test ' "$i"; done)
printf '[open]\n\tpath = %s\n' "$M" > "$TMP/A.conf"
printf '[open]\n\tpath = %s\n[ng]\n\tpath = %s\n\thosts allow = @trusted\n' "$M" "$M" > "$TMP/B.conf"
printf '[names]\n\tpath = %s\n\thosts allow = %s\n[open]\n\tpath = %s\n' "$M" "$names" "$M" > "$TMP/C.conf"
N=${N:-100}
for bin in "$@"; do
	for c in A B C; do
		port=$(free_port)
		PRSYNCD=$bin/prsyncd start_prsyncd "$TMP/$c.conf" "$port" "$TMP/$c.log" > /dev/null
		L=$PRSYNCD_PID
		sleep 1
		read -r ut st < <(awk '{print $16, $17}' "/proc/$L/stat")
		q0=$(wc -l < "$TMP/q")
		t0=$(date +%s.%N)
		ok=0
		for _ in $(seq 1 "$N"); do rsync "rsync://127.0.0.1:$port/open/" 2>&1 | grep -q ' a$' && ok=$((ok + 1)); done
		t1=$(date +%s.%N)
		sleep 0.5
		read -r ut2 st2 < <(awk '{print $16, $17}' "/proc/$L/stat")
		printf '%s config %s: %d/%d served, sessions CPU %.1f ms/connection, wall %.1f ms/connection, DNS questions %d\n' \
			"$bin" "$c" "$ok" "$N" "$(echo "($ut2 - $ut + $st2 - $st) * 10 / $N" | bc -l)" \
			"$(echo "($t1 - $t0) * 1000 / $N" | bc -l)" $(($(wc -l < "$TMP/q") - q0))
		stop_pid "$L"
	done
done
