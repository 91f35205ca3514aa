# SPDX-License-Identifier: ISC
# A private name service for the access-control and auth tests: the test
# re-runs itself in its own mount namespace (unshare -m), copies /etc, edits
# the copy (hosts, nsswitch.conf, netgroup, passwd, group) and binds it over
# /etc there, so both daemons see the same names, users and groups, and the
# machine's own files are never touched.  Source it first, then:
#
#	ns_reexec "$0" "$@"     (before tests/lib.sh; SKIPs when impossible)
#	. tests/lib.sh
#	ns_private_etc          (after the script filled $NS_HOSTS etc.)
#
# Variables the script may set before ns_private_etc (each is appended to
# the copied file): NS_HOSTS, NS_NETGROUP, NS_PASSWD, NS_GROUP; and
# (replacing the file) NS_NSSWITCH, NS_RESOLV.
#
# ns_reexec_net does the same in a private network namespace as well
# (loopback only, brought up), for a test that serves DNS on port 53.

ns_reexec() {
	local script=$1; shift
	[ "${PRSYNCD_IN_NS:-}" = 1 ] && return 0
	if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
		PRSYNCD_IN_NS=1 exec unshare -m --propagation private bash "$script" "$@"
	fi
	echo "SKIP: needs root and a private mount namespace (unshare -m)"
	echo "$(basename "$script"): 0 passed, 0 failed"
	exit 0
}

ns_reexec_net() {
	local script=$1; shift
	if [ "${PRSYNCD_IN_NS:-}" = 1 ]; then
		ip link set lo up
		return 0
	fi
	if [ "$(id -u)" = 0 ] && unshare -mn --propagation private true 2>/dev/null; then
		PRSYNCD_IN_NS=1 exec unshare -mn --propagation private bash "$script" "$@"
	fi
	echo "SKIP: needs root and private mount and network namespaces (unshare -mn)"
	echo "$(basename "$script"): 0 passed, 0 failed"
	exit 0
}

ns_private_etc() {
	local etc=$TMP/etc
	cp -a /etc "$etc" || return 1
	printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n%s\n' "${NS_HOSTS:-}" > "$etc/hosts"
	# files only: no DNS, no NIS, no systemd-userdb sockets
	printf '%s\n' "${NS_NSSWITCH:-passwd: files
group: files
shadow: files
hosts: files
netgroup: files}" > "$etc/nsswitch.conf"
	# the copy may be a link to the machine's own file: replaced, never written through
	[ -z "${NS_RESOLV:-}" ] || { rm -f "$etc/resolv.conf" && printf '%s\n' "$NS_RESOLV" > "$etc/resolv.conf"; }
	printf '%s\n' "${NS_NETGROUP:-}" > "$etc/netgroup"
	[ -z "${NS_PASSWD:-}" ] || printf '%s\n' "$NS_PASSWD" >> "$etc/passwd"
	[ -z "${NS_GROUP:-}" ] || printf '%s\n' "$NS_GROUP" >> "$etc/group"
	mount --bind "$etc" /etc
}

# wait_port6 PORT: until ::1 accepts (~10 s); free_port6 is lib.sh's
wait_port6() {
	local i
	for i in $(seq 1 100); do
		python3 -c 'import socket,sys; socket.create_connection(("::1",int(sys.argv[1])),0.2).close()' "$1" \
			2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
