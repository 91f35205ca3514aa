#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# -A and -X: a tree whose ACLs and extended attributes the test sets
# (setfacl/setfattr from Debian's acl and attr packages), pulled from a
# chrooted rsync 3.5.0 daemon and from prsyncd at protocols 30, 31 and 32:
# trees with every attribute (ACLs are system.posix_acl_*), exit codes and
# messages must agree; the same for delta re-pulls into destinations whose
# attributes differ (long values are sent as sums first, then on request),
# with -H, -L, -XX, incremental recursion and the client's own 'x' rules.
# Protocols 27-29: both refuse, in stock's words.  Then prsyncd alone: the
# module's 'x' rules hide attribute names, a module filter hides the file
# whose attributes would be read, the monitor never reads them by path,
# and the bounds (1024 attributes, 1 MiB per file) end in an error.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/transfer_lib.sh"

for t in setfacl setfattr getfattr; do
	command -v $t >/dev/null || { echo "SKIP: t_xattrs.sh needs $t (Debian's acl and attr packages)"; finish; exit; }
done
T=$TMP/xa
mkdir -p "$T"
# user xattrs and ACLs on the filesystem under $TMP, else nothing to test
if ! touch "$T/.probe" || ! setfattr -n user.probe -v 1 "$T/.probe" 2>/dev/null ||
	! setfacl -m u:nobody:r "$T/.probe" 2>/dev/null; then
	echo "SKIP: t_xattrs.sh: the filesystem of $TMP has no user xattrs or ACLs"
	finish
	exit
fi
rm -f "$T/.probe"
root=0; [ "$(id -u)" = 0 ] && root=1

long() { head -c "$1" /dev/zero | tr '\0' "${2:-x}"; }
mkdir -p "$T/d/sub" "$T/acl/dflt" "$T/hl" "$T/many"
for f in plain short long both mixed fake d/inner hl/a acl/file acl/named acl/masked acl/dflt/inherit; do
	echo "$f" > "$T/$f"
done
setfattr -n user.one -v 1 "$T/short"
setfattr -n user.big -v "$(long 100)" "$T/long"
setfattr -n user.edge -v "$(long 32 e)" "$T/long"     # 32 bytes: sent whole
setfattr -n user.edge2 -v "$(long 33 f)" "$T/long"    # 33: as a sum
setfattr -n user.a -v 1 "$T/both"
setfattr -n user.b -v "$(long 200 b)" "$T/both"
setfattr -n user.z -v last "$T/mixed"
setfattr -n user.m -v mid "$T/mixed"
setfattr -n user.empty "$T/mixed"                      # an empty value
setfattr -n user.bin -v 0x00ff00ff "$T/mixed"
setfattr -n user.rsync.%stat -v "100644 0,0 0:0" "$T/fake" # fake-super data: -XX only
setfattr -n user.other -v o "$T/fake"
setfattr -n user.dir -v dirval "$T/d"
setfattr -n user.inner -v "$(long 40 i)" "$T/d/inner"
setfattr -n user.same -v "$(long 100)" "$T/d/sub"      # the same list as ... (de-duplicated)
setfattr -n user.big -v "$(long 100)" "$T/d/inner" 2>/dev/null
ln "$T/hl/a" "$T/hl/b"                                 # hard links share the attributes
setfattr -n user.hl -v "$(long 50 h)" "$T/hl/a"
setfacl -m u:nobody:r,g:daemon:rw "$T/acl/file"
setfacl -m u:nobody:rwx,u:daemon:r,g:nogroup:x "$T/acl/named"
setfacl -m u:nobody:r,m::r "$T/acl/masked"             # a mask below the group bits
setfacl -d -m u:nobody:rx,g:daemon:r "$T/acl/dflt"
setfacl -m u:daemon:rw "$T/acl/dflt/inherit"
setfacl -d -m u:nobody:rx "$T/acl"
ln -s plain "$T/link"
mkfifo "$T/fifo"
if [ "$root" = 1 ]; then
	# trusted.* is left out: a uid = root rsyncd sends it (it holds
	# CAP_SYS_ADMIN), prsyncd's session monitor holds five capabilities
	# from its first worker record on, not that one (docs/architecture.md,
	# "Not yet / differences").
	setfattr -n security.s -v sval "$T/short" 2>/dev/null
fi
find "$T" -exec touch -h -d @1500000000 {} +

# Seeds for delta re-pulls: other contents, other and missing attributes,
# other ACLs (the client asks for the long values it lacks).
SEED=$TMP/seed
cp -a "$T" "$SEED"
echo changed > "$SEED/long"
setfattr -n user.big -v "$(long 100 y)" "$SEED/long"   # a long value differs: requested
setfattr -x user.edge "$SEED/long"
setfattr -n user.stale -v s "$SEED/both"
setfattr -n user.b -v "$(long 200 c)" "$SEED/both"
setfattr -x user.inner "$SEED/d/inner"
setfacl -b "$SEED/acl/file"
setfacl -m u:daemon:r "$SEED/acl/named"
setfacl -k "$SEED/acl/dflt"
find "$SEED" -exec touch -h -d @1400000000 {} +

write_mod_conf "$TMP/x.conf" "$T"
XA=--xattrs
if start_both "$TMP/x.conf"; then
	for P in 30 31 32; do
		pp="--protocol=$P"
		TC=$XA pull_both "p${P}_X"    "$pp -aX -i" mod/
		TC=$XA pull_both "p${P}_A"    "$pp -aA -i" mod/
		TC=$XA pull_both "p${P}_AX"   "$pp -aAX -i" mod/
		TC=$XA pull_both "p${P}_XX"   "$pp -aXX -i" mod/
		TC=$XA pull_both "p${P}_AXH"  "$pp -aAXH -i" mod/
		TC=$XA pull_both "p${P}_delta" "$pp -aAX -i --stats" mod/ "$SEED"
		TC=$XA pull_both "p${P}_deltaH" "$pp -aAXH -i" mod/ "$SEED"
		TC=$XA pull_both "p${P}_whole" "$pp -aAX -i --whole-file" mod/ "$SEED"
		TC=$XA pull_both "p${P}_dry"   "$pp -aAX -i -n" mod/ "$SEED"
		TC=$XA pull_both "p${P}_c"     "$pp -aAXc -i" mod/ "$SEED"
		TC="$XA --no-times" pull_both "p${P}_rA" "$pp -rA -i" mod/
		TC=$XA pull_both "p${P}_L"     "$pp -aLAX -i" mod/
		TC=$XA pull_both "p${P}_num"   "$pp -aAX --numeric-ids -i" mod/
		TC=$XA pull_both "p${P}_file"  "$pp -aAX -i" mod/acl/named
		TC=$XA pull_both "p${P}_sub"   "$pp -aAX -i" mod/acl/
		TC=$XA pull_both "p${P}_R"     "$pp -aAXR -i" mod/acl/dflt/inherit
	done
	TC=$XA PB_INC=1 pull_both "p32_inc"      "--protocol=32 -aAX -i" mod/
	TC=$XA PB_INC=1 pull_both "p32_inc_delta" "--protocol=32 -aAX -i" mod/ "$SEED"
	TC=$XA PB_INC=1 pull_both "p31_inc_H"    "--protocol=31 -aAXH -i" mod/ "$SEED"
	# the client's own xattr rules: they decide instead of "system."
	TC=$XA pull_both "p32_xrule"  "--protocol=32 -aX -i --filter=-x_user.big" mod/
	TC=$XA pull_both "p32_xrule2" "--protocol=32 -aAX -i --filter=+x_user.a --filter=-x_user.*" mod/
	# no 'x' in the capabilities: the hard-link optimization is off
	TC=$XA pull_both "p31_H_old" "--protocol=31 -aAXH -i" mod/ "$SEED"
	for P in 27 28 29; do
		EXPECT_RC=any pull_both "p${P}_refused_A" "--protocol=$P -aA" mod/
		EXPECT_RC=any pull_both "p${P}_refused_X" "--protocol=$P -aX" mod/
	done
	if grep -Eq 'Sanitizer|runtime error' "$P_LOG.stderr" 2>/dev/null; then
		fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$P_LOG.stderr")"
	else
		pass "no sanitizer report"
	fi
	stop_both
fi

# --- prsyncd alone --------------------------------------------------------------
H=$TMP/hid
mkdir -p "$H/secret"
echo v > "$H/f"
echo s > "$H/secret/s"
setfattr -n user.visible -v yes "$H/f"
setfattr -n user.secret -v no "$H/f"
setfattr -n user.private.key -v no "$H/f"
setfattr -n user.s -v no "$H/secret/s"
# bounds: more attributes than 1024, more than 1 MiB (where the filesystem
# takes them: ext4 keeps a file's attributes in one block)
echo m > "$H/many"
n=0
for i in $(seq 1 1100); do setfattr -n "user.n$i" -v "$(long 200)" "$H/many" 2>/dev/null && n=$((n + 1)) || break; done
cat > "$TMP/h.conf" <<CONF
[mod]
	path = $H
	uid = root
	gid = root
	filter = -x user.secret -x user.private.* - /secret/
CONF
port=$(free_port)
if start_prsyncd "$TMP/h.conf" "$port" "$TMP/h.log"; then
	rm -rf "$TMP/hd"; mkdir "$TMP/hd"
	rsync_client -aAX --exclude=many "rsync://127.0.0.1:$port/mod/" "$TMP/hd/" >"$TMP/hd.out" 2>&1; rc=$?
	got=$(getfattr -d -m - "$TMP/hd/f" 2>/dev/null | grep -c '^user\.')
	[ "$rc" = 0 ] && getfattr -n user.visible "$TMP/hd/f" >/dev/null 2>&1 && [ "$got" = 1 ] &&
		pass "the module's x rules hide attribute names (rc=$rc, 1 of 3 sent)" ||
		fail "x rules: rc=$rc, $(getfattr -d -m - "$TMP/hd/f" 2>&1 | tr '\n' ' ')"
	[ ! -e "$TMP/hd/secret" ] && pass "a hidden directory's attributes are not read" || fail "hidden directory sent"
	if [ "$n" -gt 1024 ]; then
		rm -rf "$TMP/hm"; mkdir "$TMP/hm"
		rsync_client -aX "rsync://127.0.0.1:$port/mod/many" "$TMP/hm/" >"$TMP/hm.out" 2>&1; rc=$?
		[ "$rc" = 23 ] && grep -q 'Argument list too long' "$TMP/hm.out" && [ ! -e "$TMP/hm/many" ] &&
			pass "more than 1024 attributes: the file is left out with an error (rc=$rc)" ||
			fail "attribute bound: rc=$rc $(head -2 "$TMP/hm.out")"
	else
		echo "SKIP: the attribute count bound (the filesystem took only $n attributes on one file)"
	fi
	grep -Eq 'Sanitizer|runtime error' "$TMP/h.log.stderr" 2>/dev/null &&
		fail "sanitizer report: $(grep -E -m 3 'Sanitizer|runtime error' "$TMP/h.log.stderr")" ||
		pass "no sanitizer report (filters, bounds)"
	stop_pid "$PRSYNCD_PID"
else
	fail "prsyncd did not start"
fi
finish
